"""Service fixtures: apps on scripted runtimes, served for real on a free loopback port.

Scripts are functions of the messages each role receives, so concurrent requests stay
independent: the planner plans one task whose question is the user's message, the specialist
answers "Answer: <its question>", the reviewer approves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
from flask import Flask

from evals.stream_check import serving  # noqa: F401 - re-exported: the service tests serve the app with it
from flask_app import close_app, create_app
from opsagent.settings import Settings
from tests.conftest import scripted_runtime
from opsagent.contracts.role_inputs import read_role_input
from tests.fakes import Script, fetch_then, task_question


def last_user_text(messages: list[Any]) -> str:
    return next((m.text for m in reversed(messages) if m.role == "user"), "")


def asked(messages: list[Any]) -> str:
    """The user's question as the planner received it (from the typed input, not the prompt)."""
    return read_role_input(messages).question


def plan_one_task(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    return {"plan": [{"step": 1, "agent": "servicenow", "question": asked(messages)}], "plan_reason": "test"}


def triage_one_task(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    return {"tasks": [{"agent": "servicenow", "question": asked(messages)}], "reason": "test"}


def recording_planner(seen: list[list[str]]) -> Script:
    """A dynamic planner that records the conversation (history texts, then the question) of each call."""
    def planner(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
        role_input = read_role_input(messages)
        seen.append([*(item.content for item in role_input.history), role_input.question])
        return plan_one_task(messages, options)

    return planner


def model_down(messages: list[Any], options: dict[str, Any]) -> Exception:
    """A planner script whose model call fails (ScriptedChatClient raises a returned exception)."""
    return RuntimeError("provider outage at internal-host-10.1.2.3")


def model_calls(app: Flask) -> int:
    """How many model calls the app's scripted runtime has received, over all roles."""
    return sum(len(client.calls) for client in app.extensions["opsagent"].runtime.models.clients.values())


def echo_answer(messages: list[Any], options: dict[str, Any]) -> Any:
    """A specialist that fetches (one tool round), then answers "Answer: <its question>"."""
    return fetch_then(lambda _: f"Answer: {task_question(messages)}")(messages, options)


def echo_review(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    """The reviewer approves and writes the specialist's answer as the summary."""
    results = read_role_input(messages).results
    return {"is_complete": True, "summary": results[0].response if results else "(no results)"}


def first_paragraph(text: str) -> str:
    """The direct answer: what an answer says before its facts, limitations and evidence."""
    return text.split("\n\n", 1)[0]


def echo_scripts(**overrides: Script) -> dict[str, Script]:
    """Every role answers deterministically from its own input; override single roles."""
    scripts: dict[str, Script] = {
        "dynamic_triage": plan_one_task,
        "triage": triage_one_task,
        "servicenow": echo_answer,
        "review": echo_review,
        "clarify": lambda messages, options: {"clarification_request": "Which pipeline do you mean?",
                                              "possible_interpretations": ["pl_ingest_sales", "pl_ingest_hr"]},
    }
    scripts.update(overrides)
    return scripts


AppFactory = Callable[..., Flask]
T = TypeVar("T")


def poll(probe: Callable[[], T], *, timeout: float, what: str) -> T:
    """Call ``probe`` until it returns something truthy; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def break_history(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the conversation store fail with a message that must never reach a client."""
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(app.extensions["opsagent"].store, "recent", broken)


@pytest.fixture
def make_app(settings: Settings) -> Iterator[AppFactory]:
    """``make_app(scripts=None, tool_rows=None, **setting_overrides)``: a scripted app, closed
    after the test."""
    apps: list[Flask] = []

    def make(scripts: dict[str, Script] | None = None, *, tool_rows: dict[str, list[dict]] | None = None,
             **overrides: Any) -> Flask:
        configured = settings.model_copy(update=overrides)
        runtime, _models = scripted_runtime(configured, scripts or echo_scripts(), tool_rows=tool_rows)
        app = create_app(configured, runtime=runtime)
        apps.append(app)
        return app

    yield make
    for app in apps:
        close_app(app)


@contextmanager
def serving_for_real(app: Flask) -> Iterator[str]:
    """The production stack (uvicorn + the ASGI root + a2wsgi) in a thread on a free loopback port.

    Slower to stop than ``serving`` (uvicorn polls), so tests that need the real server layer use
    it, once per module where they can. The app is closed by its owner, not by the server.
    """
    import uvicorn

    from opsagent.service.asgi import OpsAgentAsgi
    from opsagent.service.server import uvicorn_config

    settings = app.extensions["opsagent"].settings.model_copy(update={"port": 0, "server_workers": 1})
    server = uvicorn.Server(uvicorn_config(settings, OpsAgentAsgi(app, owns_app=False), factory=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    poll(lambda: server.started, timeout=10, what="uvicorn to start")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def live_url(make_app: AppFactory) -> Iterator[str]:
    """A served app with the echo scripts and default settings."""
    with serving(make_app()) as url:
        yield url
