"""The local rules model role by role: outputs validate, tool calls carry the right arguments."""

from __future__ import annotations

import json
import time
from typing import Annotated

import pytest
from agent_framework import Agent, Message, tool
from pydantic import Field

from opsagent.contracts.plans import (
    ClarifyOutput, ReviewModeOutput, ReviewOutput, TriageOutput, UserModeOutput,
)
from opsagent.contracts.results import TaskResult
from opsagent.llm.local_client import MODEL_ID
from opsagent.workflows.prompts import review_message, review_mode_message, task_message

AGENTS = {"servicenow", "log_analytics", "service_health"}


def user(text: str) -> list[Message]:
    return [Message("user", [text])]


async def reply(client, messages, **options) -> str:
    response = await client.get_response(messages, options=options)
    return response.text


async def plan(client, question: str, history: list[Message] = ()) -> UserModeOutput:
    text = await reply(client, [*history, *user(question)], response_format=UserModeOutput)
    return UserModeOutput.model_validate_json(text, context={"agents": AGENTS})


# --- dynamic triage, user mode --------------------------------------------------------------

@pytest.mark.parametrize(("question", "steps"), [
    ("Which pipelines failed in the last 24 hours, and is there an open incident for any of them?",
     [(1, "log_analytics"), (2, "servicenow")]),
    ("Is Databricks or Snowflake degraded right now?", [(1, "service_health"), (1, "service_health")]),
    ("Show me CHG0030012 and whether the services it touches are healthy.", [(1, "servicenow"), (2, "service_health")]),
    ("show me INC0010049", [(1, "servicenow")]),
])
async def test_user_mode_plans_validate_with_the_expected_shape(local_client, question, steps) -> None:
    output = await plan(local_client("dynamic_triage_agent.yaml"), question)
    assert not output.should_reject and not output.clarify
    assert [(task.step, task.agent) for task in output.plan] == steps
    assert output.plan_reason


async def test_task_questions_carry_entities_and_time_window(local_client) -> None:
    output = await plan(local_client("dynamic_triage_agent.yaml"), "Is Databricks degraded in west europe, and why did pl_ingest_sales fail since yesterday?")
    questions = {task.agent: task.question for task in output.plan}
    assert "pl_ingest_sales" in questions["log_analytics"] and "since yesterday" in questions["log_analytics"]
    assert "databricks" in questions["service_health"].lower()


@pytest.mark.parametrize("question", ["What's the weather in Oslo?", "tell me a joke", "restart pl_copy_crm_accounts",
                                      "please close INC0010049", "How do I reset my laptop password"])
async def test_user_mode_rejects_with_a_reason(local_client, question) -> None:
    output = await plan(local_client("dynamic_triage_agent.yaml"), question)
    assert output.should_reject and output.reject_reason and not output.plan


async def test_user_mode_clarifies_unresolvable_references_but_resolves_them_from_history(local_client) -> None:
    client = local_client("dynamic_triage_agent.yaml")
    assert (await plan(client, "is it down?")).clarify
    history = [Message("user", ["Any open incidents for Snowflake?"]), Message("assistant", ["INC0010054 is open."])]
    output = await plan(client, "is it down?", history)
    assert not output.clarify and [task.agent for task in output.plan] == ["service_health"]
    assert "snowflake" in output.plan[0].question.lower()


# --- triage (default workflow) --------------------------------------------------------------

async def test_triage_gives_one_question_per_specialist(local_client) -> None:
    text = await reply(local_client("triage_agent.yaml"),
                       user("Is Databricks or Snowflake degraded, and which pipelines failed today?"),
                       response_format=TriageOutput)
    output = TriageOutput.model_validate_json(text, context={"agents": AGENTS})
    assert sorted(task.agent for task in output.tasks) == ["log_analytics", "service_health"]
    rejected = TriageOutput.model_validate_json(
        await reply(local_client("triage_agent.yaml"), user("write a poem")), context={"agents": AGENTS})
    assert rejected.should_reject and rejected.reject_reason


# --- review and review mode -----------------------------------------------------------------

def result(agent: str, status: str = "ok", response: str = "ok", step: int = 1) -> TaskResult:
    return TaskResult(step=step, agent=agent, question=f"q for {agent}", status=status, response=response,
                      error=None if status == "ok" else "boom", mode="user")


async def test_review_is_complete_when_every_asked_domain_has_a_usable_result(local_client) -> None:
    question = "Is Databricks degraded and which pipelines failed today?"
    results = [result("service_health", response="Databricks: degraded."), result("log_analytics")]
    text = await reply(local_client("review_agent.yaml"), user(review_message(question, results)))
    assert ReviewOutput.model_validate_json(text).is_complete


async def test_review_names_the_gap_and_the_specialist(local_client) -> None:
    question = "Is Databricks degraded and which pipelines failed today?"
    results = [result("service_health", response="Databricks: degraded."), result("log_analytics", status="timeout")]
    verdict = ReviewOutput.model_validate_json(
        await reply(local_client("review_agent.yaml"), user(review_message(question, results))))
    assert not verdict.is_complete and verdict.missing_aspects
    assert "log_analytics" in verdict.suggested_approach


async def test_review_mode_accepts_a_fillable_gap_and_declines_others(local_client) -> None:
    client = local_client("dynamic_triage_agent.yaml")
    question = "Is Databricks degraded and which pipelines failed today?"
    results = [result("service_health"), result("log_analytics", status="timeout")]
    gap = ReviewOutput(is_complete=False, missing_aspects=["pipeline runs"],
                       suggested_approach="Ask log_analytics: Which pipelines failed today?")
    accepted = ReviewModeOutput.model_validate_json(
        await reply(client, user(review_mode_message(question, results, gap)), response_format=ReviewModeOutput),
        context={"agents": AGENTS})
    assert accepted.accept_review and [task.agent for task in accepted.new_plan] == ["log_analytics"]
    off_topic = ReviewOutput(is_complete=False, missing_aspects=["change requests"],
                             suggested_approach="Ask servicenow: Which changes are scheduled?")
    declined = ReviewModeOutput.model_validate_json(
        await reply(client, user(review_mode_message(question, results, off_topic)), response_format=ReviewModeOutput),
        context={"agents": AGENTS})
    assert not declined.accept_review and declined.rejection_reason


# --- clarify --------------------------------------------------------------------------------

async def test_clarify_acknowledges_and_offers_interpretations(local_client) -> None:
    text = await reply(local_client("clarify_agent.yaml"), user("is it down?"))
    output = ClarifyOutput.model_validate_json(text)
    assert 2 <= len(output.possible_interpretations) <= 4
    assert any("Databricks" in item for item in output.possible_interpretations)


# --- specialists ----------------------------------------------------------------------------

def recording_servicenow(log: list) -> list:
    @tool
    def get_incident(number: Annotated[str, Field(description="number")]) -> str:
        """Get one incident."""
        log.append(("get_incident", {"number": number}))
        return json.dumps({"tool": "get_incident", "status": "ok", "total": 1, "shown": 1,
                           "items": [{"number": number, "state": "In Progress", "priority": 2}]})

    @tool
    def list_incidents(state: str = "open", priority: int | None = None, assignment_group: str | None = None,
                       text: str | None = None, opened_within: str | None = None) -> str:
        """List incidents."""
        given = {"state": state, "priority": priority, "assignment_group": assignment_group, "text": text,
                 "opened_within": opened_within}
        log.append(("list_incidents", {key: value for key, value in given.items() if value is not None}))
        return json.dumps({"tool": "list_incidents", "status": "no_data", "message": "No incidents match."})

    return [get_incident, list_incidents]


@pytest.mark.parametrize(("task", "expected"), [
    ("Show me INC0010049", [("get_incident", {"number": "INC0010049"})]),
    ("list open P2 incidents for Data Platform Ops opened since yesterday",
     [("list_incidents", {"state": "open", "priority": 2, "assignment_group": "Data Platform Ops",
                          "opened_within": "since yesterday"})]),
])
async def test_specialist_calls_tools_with_extracted_arguments(local_client, task, expected) -> None:
    log: list = []
    agent = Agent(client=local_client("servicenow_agent.yaml"), tools=recording_servicenow(log), name="servicenow")
    response = await agent.run(task)
    assert log == expected
    assert f"`{expected[0][0]}(" in response.text  # each section names the call it reports
    if expected[0][0] == "get_incident":
        assert "INC0010049" in response.text and "In Progress" in response.text


async def test_specialist_uses_previous_step_results_as_filters(local_client) -> None:
    log: list = []
    agent = Agent(client=local_client("servicenow_agent.yaml"), tools=recording_servicenow(log), name="servicenow")
    previous = [result("log_analytics", response="| pl_ingest_sales | failed |\n| pl_copy_crm_accounts | failed |")]
    response = await agent.run(task_message("Is there an open incident for any of them?", previous))
    assert [(name, args.get("text")) for name, args in log] == [
        ("list_incidents", "pl_ingest_sales"), ("list_incidents", "pl_copy_crm_accounts")]
    assert response.text.count("No incidents match.") == 2


async def test_specialist_reports_a_failed_tool_plainly(local_client) -> None:
    @tool
    def check_snowflake_health(region: str | None = None) -> str:
        """Snowflake status."""
        raise RuntimeError("status page unreachable")

    agent = Agent(client=local_client("service_health_agent.yaml"), tools=[check_snowflake_health], name="sh")
    response = await agent.run("Is Snowflake degraded?")
    assert "failed" in response.text and "0 of 1 tool calls succeeded" in response.text


# --- qualities ------------------------------------------------------------------------------

async def test_same_input_same_output_and_streaming_matches(local_client) -> None:
    client = local_client("dynamic_triage_agent.yaml")
    question = "Which pipelines failed today and are there incidents for them?"
    first = await reply(client, user(question), response_format=UserModeOutput)
    assert first == await reply(client, user(question), response_format=UserModeOutput)
    stream = client.get_response(user(question), stream=True, options={"response_format": UserModeOutput})
    streamed = "".join([update.text async for update in stream])
    assert streamed == first
    response = await client.get_response(user(question), options={})
    assert response.model == MODEL_ID


def test_each_call_takes_well_under_two_milliseconds(local_client) -> None:
    client = local_client("dynamic_triage_agent.yaml")
    messages = user("hey - pl_load_finance_dwh failed around 2am, what was the error and is snowflake having "
                    "problems in west europe? also any open P1/P2 incidents for Data Platform Ops?")
    calls = 200
    started = time.perf_counter()
    for _ in range(calls):
        client.respond(messages, {"response_format": UserModeOutput})
    per_call_ms = (time.perf_counter() - started) * 1000 / calls
    print(f"\nplanner: {per_call_ms:.3f} ms per call")
    assert per_call_ms < 2.0
