"""Every workflow path, end to end, on the local rules model and the demo data: no network."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Annotated

import pytest

from agent_framework import tool
from pydantic import Field

from opsagent.agents.specialists import SPECIALISTS, SpecialistSpec
from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.tools.service_health import make_service_health_tools
from opsagent.workflows.runner import answer_chat


async def ask(runtime, question: str, history: list[MessageData] | None = None, workflow: str = "dynamic"):
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question, history), workflow=workflow)
    finally:
        await runtime.aclose()
    return answer


async def test_reject(local_runtime) -> None:
    answer = await ask(local_runtime(), "what's the weather going to be like in Oslo tomorrow?")
    assert answer.metadata.route == "reject" and not answer.metadata.tasks
    assert answer.metadata.model == "local-rules" and answer.metadata.provider == "local"


async def test_a_request_to_act_is_answered_as_one_with_the_record_it_names(local_runtime) -> None:
    answer = await ask(local_runtime(), "can you restart pl_ingest_sales?")
    assert answer.metadata.route == "action" and answer.summary.startswith("I can't rerun pl_ingest_sales")
    assert "read-only" in answer.summary and "Rerun" in answer.summary  # where to do it instead
    looked_up = {call.tool for task in answer.metadata.tasks for call in task.evidence}
    assert looked_up and all(tool.startswith(("get_", "list_", "query_")) for tool in looked_up)
    assert "pl_ingest_sales" in answer.text


async def test_clarify_then_answer_with_history(local_runtime) -> None:
    first = await ask(local_runtime(), "is it down?")
    assert first.metadata.route == "clarify"
    assert first.metadata.clarification and len(first.metadata.clarification.possible_interpretations) >= 2
    history = [MessageData(role="user", content="is it down?"), MessageData(role="assistant", content=first.text)]
    second = await ask(local_runtime(), "snowflake", history)
    assert second.metadata.route == "execute"
    assert [task.agent for task in second.metadata.tasks] == ["service_health"]
    assert [item.tool for item in second.metadata.tasks[0].evidence] == ["check_snowflake_health"]
    assert "Snowflake" in second.summary


async def test_parallel_health_checks(local_runtime) -> None:
    answer = await ask(local_runtime(), "Is Databricks or Snowflake degraded right now?")
    tasks = answer.metadata.tasks
    assert {task.step for task in tasks} == {1}
    assert sorted(item.tool for task in tasks for item in task.evidence) == [
        "check_databricks_health", "check_snowflake_health"]
    assert "degraded" in answer.summary and not answer.metadata.limitations


async def test_sequential_pipelines_then_incidents(local_runtime) -> None:
    answer = await ask(local_runtime(), "Which Data Factory pipelines failed in the last 24 hours, and is there an "
                                        "open incident for any of them?")
    first, second = answer.metadata.tasks[0], answer.metadata.tasks[1]
    assert (first.step, first.agent, second.step, second.agent) == (1, "log_analytics", 2, "servicenow")
    failed = {item.arguments.get("text") for item in second.evidence}
    assert "pl_ingest_sales" in failed and all(item.tool == "list_incidents" for item in second.evidence)
    assert "INC0010049" in answer.summary  # the demo incident about pl_ingest_sales, found via step 1
    assert answer.metadata.review and answer.metadata.review.verdicts[-1].is_complete


async def test_change_window_then_health(local_runtime) -> None:
    answer = await ask(local_runtime(), "Show me CHG0030012 and whether the services it touches are healthy.")
    assert [(task.step, task.agent) for task in answer.metadata.tasks] == [(1, "servicenow"), (2, "service_health")]
    assert answer.metadata.tasks[1].evidence[0].tool == "check_databricks_health"


def flaky_health_tools(backends, *, clock, max_rows):
    """The real health tools, except that Snowflake's status page fails on its first call."""
    real = {item.name: item for item in make_service_health_tools(backends, clock=clock, max_rows=max_rows)}
    calls = {"count": 0}

    async def check_snowflake_health(region: Annotated[str | None, Field(description="region")] = None) -> str:
        """Snowflake status (fails once)."""
        calls["count"] += 1
        if calls["count"] == 1:
            raise ConnectionError("status page timed out")
        return await real["check_snowflake_health"].invoke(arguments={"region": region})

    flaky = tool(check_snowflake_health, name="check_snowflake_health", description="Snowflake status.")
    return [real["check_databricks_health"], flaky, real["check_azure_service_health"]]


async def test_review_retry_refills_a_transient_failure(local_runtime) -> None:
    specs = [spec if spec.name != "service_health" else SpecialistSpec(spec.name, spec.config_file, flaky_health_tools)
             for spec in SPECIALISTS]
    answer = await ask(local_runtime(specialists=specs), "Is Snowflake degraded?")
    review = answer.metadata.review
    assert review is not None and review.retry_used and review.retry_accepted
    assert [plan.mode for plan in answer.metadata.plans] == ["user", "review"]
    assert review.verdicts[-1].is_complete
    assert answer.summary.startswith("Yes — Snowflake is degraded")


async def test_triage_workflow_fans_out(local_runtime) -> None:
    answer = await ask(local_runtime(), "Is Databricks degraded, and which pipelines failed today?", workflow="triage")
    assert answer.metadata.route == "execute"
    assert sorted(task.agent for task in answer.metadata.tasks) == ["log_analytics", "service_health"]
    assert all(task.status == "ok" for task in answer.metadata.tasks)


async def test_a_window_placed_by_a_record_is_searched_from_that_records_times(local_runtime) -> None:
    answer = await ask(local_runtime(), "did anything fail in the 2 hours after CHG0030015 started?")
    first, second = answer.metadata.tasks
    assert (first.step, first.agent, second.step, second.agent) == (1, "servicenow", 2, "log_analytics")
    [change] = first.evidence[0].rows
    [search] = second.evidence
    window = answer.metadata.analysis.record_windows[0]
    start, end = (datetime.fromisoformat(change[key].replace("Z", "+00:00")) for key in ("start_date", "end_date"))
    low, high = window.window(start, end, answer.metadata.analysis.now)
    assert search.arguments["time_window"] == f"{low:%Y-%m-%dT%H:%MZ} to {high:%Y-%m-%dT%H:%MZ}"
    assert answer.summary.startswith("Yes —" if search.rows else "No —"), answer.summary


async def test_a_record_the_first_record_names_is_looked_up_in_a_second_round(local_runtime) -> None:
    """One task, two rounds: the named ticket, then the record its own text links to (not a listing)."""
    answer = await ask(local_runtime(), "is the change that INC0010048 waits for approved?")
    [task] = answer.metadata.tasks
    first, *linked = task.evidence
    assert first.arguments["number"] == "INC0010048" and linked
    for item in linked:  # each from the first record's own text
        assert item.tool == "get_change_request" and item.arguments["number"].lower() in json.dumps(first.rows).lower()
    if len(linked) > 1:  # which of them it waits for is not known: no yes or no
        assert not answer.summary.startswith(("Yes", "No")), answer.summary


async def test_a_record_window_the_parallel_triage_could_not_use_is_named_as_a_limitation(local_runtime) -> None:
    """The triage workflow asks every specialist at once: the run search cannot know the change's times."""
    question = "did anything fail in the 2 hours after CHG0030015 started?"
    triage = await ask(local_runtime(), question, workflow="triage")
    assert triage.metadata.route in ("execute", "reject")
    dynamic = await ask(local_runtime(), question)
    assert not any("CHG0030015" in line for line in dynamic.limitations)


@pytest.mark.parametrize("priority", [1, 2, 3, 4])
async def test_two_predicates_of_one_subject_are_one_search_and_its_none_stands(demo_runtime, demo_sql, priority: int) -> None:
    """"which incidents are pN and are still unassigned": one ask, one search with both filters, and the tool's
    own words for what it applied ("priority exactly N") back the answer whether or not it finds any."""
    expected = sorted(number for (number,) in demo_sql(
        "SELECT number FROM incidents WHERE state IN ('New', 'In Progress', 'On Hold') AND priority = ? "
        "AND assigned_to = ''", priority))
    answer = await ask(demo_runtime(), f"which incidents are p{priority} and are still unassigned")
    assert len(answer.metadata.analysis.asks) == 1
    [call] = [call for task in answer.metadata.tasks for call in task.evidence]
    assert (call.tool, call.arguments.get("priority"), call.arguments.get("assigned_to")) == \
        ("list_incidents", priority, "unassigned")
    assert [report.verdict for report in answer.metadata.grounding][-1] == "pass", answer.text
    assert sorted(set(re.findall(r"INC\d{7}", answer.summary))) == expected
