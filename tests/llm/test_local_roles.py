"""The local rules model role by role: it reads typed inputs, its outputs validate, its calls carry arguments."""

from __future__ import annotations

import json
import time
from typing import Annotated

import pytest
from agent_framework import Message, tool
from pydantic import Field

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import (
    ClarifyOutput, PartGap, QuestionPart, ReviewModeOutput, ReviewOutput, TriageOutput, UserModeOutput,
)
from opsagent.contracts.role_inputs import ClarifyInput, ReplanInput, ReviewInput, attach_role_input
from opsagent.local_model import MODEL_ID
from opsagent.local_model.knowledge import KnowledgeFile, load_knowledge_file
from tests.llm.conftest import AGENTS, REGISTRY, analysis_of, local_reply, planner_input, run_specialist


async def plan(client, question: str, history=()) -> UserModeOutput:
    text = await local_reply(client, planner_input(question, history))
    return UserModeOutput.model_validate_json(text, context={"agents": AGENTS})


# --- the seam -------------------------------------------------------------------------------

async def test_the_prompt_text_means_nothing_to_the_local_model(local_client) -> None:
    """Same typed input under different prompt text: the same reply; no typed input: no plan."""
    role_input = planner_input("Which pipelines failed in the last 24 hours?")
    replies = []
    for text in ("Which pipelines failed in the last 24 hours?", "completely different words"):
        message = Message("user", [text])
        attach_role_input(message, role_input)
        replies.append((await local_client.get_response([message], options={})).text)
    assert replies[0] == replies[1]
    bare = await local_client.get_response([Message("user", ["Which pipelines failed?"])], options={})
    assert "only answer requests that come through its workflow" in bare.text


def test_the_knowledge_file_refuses_unknown_keys(tmp_path) -> None:
    from opsagent.local_model.knowledge import KNOWLEDGE_FILE

    broken = tmp_path / "knowledge.yaml"
    broken.write_text(KNOWLEDGE_FILE.read_text().replace("unless_called:", "unles_called:", 1))
    with pytest.raises(ValueError, match=r"knowledge.yaml: specialists.servicenow.tools.\d+.unles_called"):
        load_knowledge_file(broken)
    assert isinstance(load_knowledge_file(), KnowledgeFile)


# --- dynamic triage, user mode --------------------------------------------------------------

@pytest.mark.parametrize(("question", "steps"), [
    ("Which pipelines failed in the last 24 hours, and is there an open incident for any of them?",
     [(1, "log_analytics"), (2, "servicenow")]),
    ("Is Databricks or Snowflake degraded right now?", [(1, "service_health"), (1, "service_health")]),
    ("Show me CHG0030012 and whether the services it touches are healthy.", [(1, "servicenow"), (2, "service_health")]),
    ("show me INC0010049", [(1, "servicenow")]),
])
async def test_user_mode_plans_validate_with_the_expected_shape(local_client, question, steps) -> None:
    output = await plan(local_client, question)
    assert not output.should_reject and not output.clarify
    assert [(task.step, task.agent) for task in output.plan] == steps
    assert output.plan_reason
    assert [task.part for task in output.plan] == [part.id for part in output.parts]  # one part per task


async def test_task_questions_carry_entities_and_time_window(local_client) -> None:
    output = await plan(local_client, "Is Databricks degraded in west europe, and why did pl_ingest_sales fail since yesterday?")
    questions = {task.agent: task.question for task in output.plan}
    assert "pl_ingest_sales" in questions["log_analytics"] and "since yesterday" in questions["log_analytics"]
    assert "databricks" in questions["service_health"].lower()


@pytest.mark.parametrize("question", ["What's the weather in Oslo?", "tell me a joke",
                                      "what's Snowflake's share price today?", "How do I reset my laptop password"])
async def test_user_mode_rejects_with_a_reason(local_client, question) -> None:
    output = await plan(local_client, question)
    assert output.should_reject and output.reject_reason and not output.plan


@pytest.mark.parametrize(("question", "named"), [("restart pl_copy_crm_accounts", "pl_copy_crm_accounts"),
                                                 ("please close INC0010049", "INC0010049")])
async def test_user_mode_plans_the_lookup_of_what_a_request_to_act_names(local_client, question, named) -> None:
    output = await plan(local_client, question)  # intake reads it as an action; the answer says nothing was done
    assert not output.should_reject and output.plan and named in output.plan[0].question


async def test_user_mode_clarifies_unresolvable_references_but_resolves_them_from_history(local_client) -> None:
    assert (await plan(local_client, "is it down?")).clarify
    history = [("user", "Any open incidents for Snowflake?"), ("assistant", "INC0010054 is open.")]
    output = await plan(local_client, "is it down?", history)
    assert not output.clarify and [task.agent for task in output.plan] == ["service_health"]
    assert "snowflake" in output.plan[0].question.lower()


# --- triage (default workflow) --------------------------------------------------------------

async def test_triage_gives_one_question_per_specialist(local_client) -> None:
    text = await local_reply(local_client, planner_input("Is Databricks or Snowflake degraded, and which pipelines "
                                                         "failed today?", mode="triage"))
    output = TriageOutput.model_validate_json(text, context={"agents": AGENTS})
    assert sorted(task.agent for task in output.tasks) == ["log_analytics", "service_health"]
    health = next(task for task in output.tasks if task.agent == "service_health")
    assert len(health.part.split(",")) == 2  # one merged task covering both platforms' parts
    rejected = TriageOutput.model_validate_json(
        await local_reply(local_client, planner_input("write a poem", mode="triage")), context={"agents": AGENTS})
    assert rejected.should_reject and rejected.reject_reason


# --- review and review mode -----------------------------------------------------------------

def result(agent: str, status: str = "ok", part: str = "p1", step: int = 1, error_kind: str | None = None) -> TaskResult:
    evidence = [ToolEvidence(tool="tool", status="error" if error_kind else "ok", error_kind=error_kind,
                             message=f"{agent} data")] if status != "timeout" else []
    return TaskResult(step=step, agent=agent, question=f"q for {agent}", status=status, part=part,
                      error=None if status == "ok" else "boom", mode="user", evidence=evidence)


def review_input(results: list[TaskResult], gaps: list[PartGap] = ()) -> ReviewInput:
    question = "Is Databricks degraded and which pipelines failed today?"
    return ReviewInput(question=question, analysis=analysis_of(question), results=results, gaps=list(gaps),
                       parts=[QuestionPart(id="p1", text="Databricks"), QuestionPart(id="p2", text="pipelines")])


async def test_review_is_complete_when_no_part_is_missing(local_client) -> None:
    results = [result("service_health"), result("log_analytics", part="p2")]
    verdict = ReviewOutput.model_validate_json(await local_reply(local_client, review_input(results)))
    assert verdict.is_complete and verdict.summary


async def test_review_asks_again_only_for_gaps_a_retry_can_fill(local_client) -> None:
    results = [result("service_health"), result("log_analytics", status="timeout", part="p2")]
    transient = [PartGap(part="p2", text="pipelines", reason="log_analytics timeout: boom")]
    verdict = ReviewOutput.model_validate_json(await local_reply(local_client, review_input(results, transient)))
    assert not verdict.is_complete and verdict.missing_aspects == [transient[0].describe()]
    permanent = [PartGap(part="p2", text="pipelines", reason="not authorised", retryable=False)]
    verdict = ReviewOutput.model_validate_json(await local_reply(local_client, review_input(results, permanent)))
    assert verdict.is_complete


async def test_review_mode_reasks_a_retryable_gap_and_declines_a_permanent_one(local_client) -> None:
    question = "Is Databricks degraded and which pipelines failed today?"
    results = [result("service_health"), result("log_analytics", status="failed", part="p2")]

    def replan(gaps: list[PartGap]) -> ReplanInput:
        return ReplanInput(question=question, analysis=analysis_of(question), results=results, gaps=gaps,
                           review=ReviewOutput(is_complete=False), specialists=REGISTRY, max_tasks=8)

    gap = PartGap(part="p2", text="pipelines", reason="log_analytics failed: boom")
    accepted = ReviewModeOutput.model_validate_json(await local_reply(local_client, replan([gap])),
                                                    context={"agents": AGENTS})
    assert accepted.accept_review and [(t.agent, t.question, t.part) for t in accepted.new_plan] == [
        ("log_analytics", "q for log_analytics", "p2")]
    declined = ReviewModeOutput.model_validate_json(
        await local_reply(local_client, replan([gap.model_copy(update={"retryable": False})])), context={"agents": AGENTS})
    assert not declined.accept_review and "log_analytics failed" in declined.rejection_reason


# --- clarify --------------------------------------------------------------------------------

async def test_clarify_acknowledges_and_offers_candidates_from_the_data_first(local_client) -> None:
    role_input = ClarifyInput(question="is it down?", analysis=analysis_of("is it down?"), specialists=REGISTRY,
                              candidates=["Is CHG0030021 approved yet?"])
    output = ClarifyOutput.model_validate_json(await local_reply(local_client, role_input))
    assert 2 <= len(output.possible_interpretations) <= 4
    assert output.possible_interpretations[0] == "Is CHG0030021 approved yet?"
    assert any("Databricks" in item for item in output.possible_interpretations)


# --- specialists ----------------------------------------------------------------------------

def recording_servicenow(log: list) -> list:
    @tool
    def get_incident(number: Annotated[str, Field(description="number")]) -> str:
        """Get one incident."""
        log.append(("get_incident", {"number": number}))
        return json.dumps({"tool": "get_incident", "status": "ok", "total": 1, "shown": 1, "message": f"{number}: open.",
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
    text = await run_specialist(local_client, "servicenow", task, recording_servicenow(log))
    assert log == expected
    assert text.startswith(f"{expected[0][0]}: ")  # one line per call, from the tool's own message


async def test_specialist_uses_previous_step_rows_as_filters(local_client) -> None:
    log: list = []
    rows = [{"pipeline_name": "pl_ingest_sales"}, {"pipeline_name": "pl_copy_crm_accounts"}]
    previous = [TaskResult(agent="log_analytics", question="failed pipelines?", status="ok", response="(prose ignored)",
                           evidence=[ToolEvidence(tool="list_failed_pipelines", status="ok", rows=rows, total=2, shown=2)])]
    text = await run_specialist(local_client, "servicenow", "Is there an open incident for any of them?",
                                recording_servicenow(log), previous=previous)
    assert [(name, args.get("text")) for name, args in log] == [
        ("list_incidents", "pl_ingest_sales"), ("list_incidents", "pl_copy_crm_accounts")]
    assert text.count("No incidents match.") == 2


async def test_specialist_reports_a_failed_tool_plainly(local_client) -> None:
    @tool
    def check_snowflake_health(region: str | None = None) -> str:
        """Snowflake status."""
        raise RuntimeError("status page unreachable")

    text = await run_specialist(local_client, "service_health", "Is Snowflake degraded?", [check_snowflake_health])
    assert text.startswith("check_snowflake_health: failed")


# --- qualities ------------------------------------------------------------------------------

async def test_same_input_same_output_and_streaming_matches(local_client) -> None:
    role_input = planner_input("Which pipelines failed today and are there incidents for them?")
    first = await local_reply(local_client, role_input)
    assert first == await local_reply(local_client, role_input)
    message = Message("user", ["x"])
    attach_role_input(message, role_input)
    stream = local_client.get_response([message], stream=True, options={"response_format": UserModeOutput})
    assert "".join([update.text async for update in stream]) == first
    assert (await local_client.get_response([message], options={})).model == MODEL_ID


def test_each_planner_call_takes_well_under_two_milliseconds(local_client) -> None:
    message = Message("user", ["x"])
    attach_role_input(message, planner_input(
        "hey - pl_load_finance_dwh failed around 2am, what was the error and is snowflake having problems in "
        "west europe? also any open P1/P2 incidents for Data Platform Ops?"))
    calls = 200
    started = time.process_time()  # this process's CPU: a test file busy on the other worker does not count
    for _ in range(calls):
        local_client.respond([message], {})
    per_call_ms = (time.process_time() - started) * 1000 / calls
    print(f"\nplanner: {per_call_ms:.3f} ms per call")
    assert per_call_ms < 2.0
