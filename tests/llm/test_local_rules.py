"""The local rules model's general rules, one question kind at a time (planner and specialists)."""

from __future__ import annotations

import json

import pytest
from agent_framework import tool

from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.plans import PartGap, ReviewModeOutput, ReviewOutput, UserModeOutput
from opsagent.contracts.role_inputs import ReplanInput
from opsagent.local_model.text import extract
from tests.llm.conftest import AGENTS, REGISTRY, analysis_of, local_reply, planner_input, run_specialist


async def plan(client, question: str, history=()) -> UserModeOutput:
    return UserModeOutput.model_validate_json(await local_reply(client, planner_input(question, history)),
                                              context={"agents": AGENTS})


def steps(output: UserModeOutput) -> list[tuple[int, str]]:
    return sorted((task.step, task.agent) for task in output.plan)


@pytest.mark.parametrize(("question", "expected"), [
    # a verb, a group name, a state of something else: not a specialist's subject
    ("what is CHG0030012 about and when does it run?", [(1, "servicenow")]),
    ("What is Data Platform Ops working on?", [(1, "servicenow")]),
    ("How healthy were our pipelines over the last 7 days?", [(1, "log_analytics")]),
    # a background statement before the question does not choose specialists
    ("pl_transform_customer360 keeps failing. Is there an incident open for it, and what does the databricks "
     "status page say?", [(1, "service_health"), (1, "servicenow")]),
    # a named platform suspected as the cause is checked
    ("pl_load_finance_dwh failed this morning; is Snowflake the cause?", [(1, "log_analytics"), (1, "service_health")]),
    # a CI, a time window: concrete enough to answer; "to start" is not a command
    ("What happened on vm-shir-01 yesterday evening?", [(1, "servicenow")]),
    ("failures since yesterday?", [(1, "log_analytics")]),
    ("Our job clusters take ages to start. Is that a Databricks problem?", [(1, "service_health")]),
    # "the change" next to a named incident is found by the plan, not asked back
    ("Show INC0010048 and the change it is waiting for.", [(1, "servicenow")]),
])
async def test_planner_picks_only_the_specialists_asked(local_client, question, expected) -> None:
    output = await plan(local_client, question)
    assert not output.should_reject and not output.clarify
    assert steps(output) == expected


async def test_time_phrases_and_references_stay_with_their_clause(local_client) -> None:
    client = local_client
    output = await plan(client, "failed pipelines today and open P2 incidents")
    questions = {task.agent: task.question.lower() for task in output.plan}
    assert "today" in questions["log_analytics"] and "today" not in questions["servicenow"]
    output = await plan(client, "pl_transform_customer360 keeps failing. Is there an incident open for it?")
    assert "pl_transform_customer360" in output.plan[0].question


async def test_that_change_window_is_resolved_and_comes_first(local_client) -> None:
    history = [("user", "show CHG0030017"), ("assistant", "CHG0030017: planned 2025-01-09T17:00Z to 2025-01-09T19:00Z.")]
    output = await plan(local_client, "did any pipelines fail during that change window?", history)
    assert steps(output) == [(1, "servicenow"), (2, "log_analytics")]
    assert "CHG0030017" in output.plan[0].question


async def test_a_short_reply_picks_a_suggestion_written_on_one_line(local_client) -> None:
    history = [("user", "why did the pipeline fail?"),
               ("assistant", "Which pipeline? For example: - Why did pl_ingest_sales fail? - Why did pl_load_finance_dwh fail?")]
    output = await plan(local_client, "the sales one", history)
    assert "pl_ingest_sales" in output.plan[0].question


def test_times_come_from_intake_and_unknown_regions_pass_through() -> None:
    question = "anything fail in ADF overnight?"
    assert extract(question).time_window is None  # the local model does not parse times itself…
    assert extract(question, times=analysis_of(question).times).time_window == "last night"  # …it reads intake's
    assert extract("is snowflake ok in the Antarctica region?").regions == ("Antarctica",)
    assert extract("is it ok in the same region?").regions == ()


def recording(log: list) -> list:
    def envelope(name: str, **given) -> str:
        log.append((name, {key: value for key, value in given.items() if value is not None}))
        return json.dumps({"tool": name, "status": "no_data", "message": "nothing"})

    @tool
    def list_change_requests(state: str = "all", approval: str | None = None, window: str | None = None,
                             configuration_item: str | None = None) -> str:
        """List changes."""
        return envelope("list_change_requests", state=None if state == "all" else state,
                        approval=approval, window=window, configuration_item=configuration_item)

    @tool
    def list_incidents(state: str = "open", configuration_item: str | None = None,
                       opened_within: str | None = None) -> str:
        """List incidents."""
        return envelope("list_incidents", state=state, configuration_item=configuration_item, opened_within=opened_within)

    @tool
    def get_pipeline_run_details(pipeline_name: str | None = None) -> str:
        """Run details."""
        return envelope("get_pipeline_run_details", pipeline_name=pipeline_name)

    @tool
    def query_pipeline_status(pipeline_name: str | None = None) -> str:
        """Status."""
        return envelope("query_pipeline_status", pipeline_name=pipeline_name)

    return [list_change_requests, list_incidents, get_pipeline_run_details, query_pipeline_status]


@pytest.mark.parametrize(("agent", "task", "expected"), [
    ("servicenow", "Which changes are scheduled for the next 7 days, and which still need approval?",
     [("list_change_requests", {"state": "scheduled", "window": "next 7 days"}),
      # "still need approval": not approved yet, whether or not it was requested; one window for both
      ("list_change_requests", {"approval": "not approved", "window": "next 7 days"})]),
    ("servicenow", "which change is being implemented right now?",
     [("list_change_requests", {"state": "implement"})]),
    ("servicenow", "all incidents and change requests on vm-shir-01, including closed ones",
     [("list_change_requests", {"configuration_item": "vm-shir-01"}),
      ("list_incidents", {"state": "all", "configuration_item": "vm-shir-01"})]),
    ("servicenow", "What happened on vm-shir-01 yesterday evening?",
     [("list_incidents", {"state": "all", "configuration_item": "vm-shir-01", "opened_within": "last night"}),
      ("list_change_requests", {"configuration_item": "vm-shir-01", "window": "last night"})]),
    ("log_analytics", "latest run of pl_load_finance_dwh?",
     [("get_pipeline_run_details", {"pipeline_name": "pl_load_finance_dwh"})]),
])
async def test_specialist_rules(local_client, agent, task, expected) -> None:
    log: list = []
    await run_specialist(local_client, agent, task, recording(log))
    assert log == expected


async def test_review_mode_reruns_the_consumer_of_a_retried_producer(local_client) -> None:
    question = "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?"
    results = [TaskResult(step=1, agent="log_analytics", question="failed pipelines?", status="failed", error="boom",
                          part="p1"),
               TaskResult(step=2, agent="servicenow", question="incidents for them?", status="ok", response="none",
                          part="p2")]
    role_input = ReplanInput(question=question, analysis=analysis_of(question), results=results,
                             gaps=[PartGap(part="p1", text="failed pipelines", reason="log_analytics failed: boom")],
                             review=ReviewOutput(is_complete=False), specialists=REGISTRY, max_tasks=8)
    output = ReviewModeOutput.model_validate_json(await local_reply(local_client, role_input), context={"agents": AGENTS})
    assert [(task.step, task.agent, task.part) for task in output.new_plan] == [
        (1, "log_analytics", "p1"), (2, "servicenow", "p2")]

