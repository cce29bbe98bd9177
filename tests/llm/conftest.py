"""Fixtures for the local rules model: typed role inputs in, replies out; runtimes on the demo data."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from agent_framework import Agent, Message

from opsagent.agents.specialists import SPECIALISTS, SpecialistSpec
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.plans import PlanStep
from opsagent.contracts.requests import MessageData
from opsagent.contracts.role_inputs import PlannerInput, SpecialistInfo, SpecialistInput, attach_role_input
from opsagent.intake import analyse_question
from opsagent.local_model import LocalChatClient
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import Settings, load_settings
from opsagent.tools.catalog import tool_names, tools_of
from opsagent.workflows.prompts import specialist_messages
from tests.tools.conftest import demo_data_dir, demo_sql  # noqa: F401 — the demo SQLite, truth for the answers

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
AGENTS = {spec.name for spec in SPECIALISTS}
REGISTRY = [SpecialistInfo(name=name, description=description, tools=list(tool_names(tools_of(name))))
            for name, description in (("servicenow", "ServiceNow ITSM — incidents and change requests."),
                                      ("log_analytics", "Azure Data Factory pipeline runs."),
                                      ("service_health", "Platform health — Databricks, Snowflake and Azure."))]


def analysis_of(question: str, history: Sequence[MessageData] = ()) -> QuestionAnalysis:
    """What intake makes of the question (no inventory: names stay as written)."""
    return analyse_question(question, history, now=NOW)


def planner_input(question: str, history: Sequence[tuple[str, str]] = (), *, mode: str = "user") -> PlannerInput:
    messages = [MessageData(role=role, content=text) for role, text in history]
    return PlannerInput(mode=mode, question=question, analysis=analysis_of(question, messages), specialists=REGISTRY,
                        history=messages, max_tasks=8)


async def local_reply(client: LocalChatClient, role_input: Any, **options: Any) -> str:
    """What the local model answers to a typed role input (the prompt text carries nothing it reads)."""
    message = Message("user", ["(the offline model does not read this text)"])
    attach_role_input(message, role_input)
    return (await client.get_response([message], options=options)).text


async def run_specialist(client: LocalChatClient, agent: str, task: str, tools: list, *,
                         previous: Sequence[TaskResult] = ()) -> str:
    """A specialist task through a real MAF agent: the local model's calls run against ``tools``."""
    role_input = SpecialistInput(agent=agent, task=PlanStep.model_validate(
        {"step": 2 if previous else 1, "agent": agent, "question": task}, context={"agents": AGENTS}),
        question=task, analysis=analysis_of(task), previous=list(previous))
    response = await Agent(client=client, tools=tools, name=agent).run(specialist_messages(role_input))
    return response.text


@pytest.fixture(scope="session")
def local_client() -> LocalChatClient:
    return LocalChatClient()


@pytest.fixture
def local_settings(tmp_path: Path) -> Settings:
    return load_settings({}, env_file=None, data_dir=tmp_path / "var", llm_provider="local")


@pytest.fixture
def local_runtime(local_settings: Settings) -> Callable[..., Runtime]:
    """A runtime on the local model and the demo data; ``specialists=`` swaps tool factories."""
    def make(specialists: Sequence[SpecialistSpec] = SPECIALISTS, **overrides) -> Runtime:
        return build_runtime(local_settings.model_copy(update=overrides), specialists=specialists)

    return make


@pytest.fixture
def demo_runtime(local_settings: Settings) -> Callable[[], Runtime]:
    """A runtime on the local model and the demo data, its clock fixed at ``NOW`` (as the evals run)."""
    return lambda: build_runtime(local_settings, clock=lambda: NOW)


async def ask_loopback_model(server: Any, data: Path, question: str, workflow: str = "dynamic") -> Any:
    """One answer through the real OpenAI provider path, against a loopback Chat Completions server."""
    from opsagent.contracts.requests import WorkflowInput
    from opsagent.workflows.runner import answer_chat

    settings = load_settings({"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "fake-model",
                              "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1",
                              "DYNAMIC_PLAN": "true" if workflow == "dynamic" else "false"},
                             env_file=None, data_dir=data / "var")
    runtime = build_runtime(settings, clock=lambda: NOW)
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question), workflow=workflow)
    finally:
        await runtime.aclose()
    return answer
