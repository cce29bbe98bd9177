"""Every workflow path, end to end, on the local rules model and the demo data: no network."""

from __future__ import annotations

import json
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
    assert {task.step for task in tasks} == {1} and len(tasks) == 2
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


@pytest.mark.parametrize("question", [
    "did anything fail in the 2 hours after CHG0030015 started?",
    "Did anything fail during the window of CHG0030017?",
    "any pipeline failures in the 30 minutes before CHG0030015 began?",
])
async def test_a_window_placed_by_a_record_is_searched_from_that_records_times(local_runtime, question: str) -> None:
    answer = await ask(local_runtime(), question)
    first, second = answer.metadata.tasks
    assert (first.step, first.agent, second.step, second.agent) == (1, "servicenow", 2, "log_analytics")
    [change] = first.evidence[0].rows
    [search] = second.evidence
    window = answer.metadata.analysis.record_windows[0]
    start, end = (datetime.fromisoformat(change[key].replace("Z", "+00:00")) for key in ("start_date", "end_date"))
    low, high = window.window(start, end, answer.metadata.analysis.now)
    assert search.tool == "list_failed_pipelines"
    assert search.arguments["time_window"] == f"{low:%Y-%m-%dT%H:%MZ} to {high:%Y-%m-%dT%H:%MZ}"
    # the conclusion leads, and it says what the search found
    assert answer.summary.startswith("Yes —" if search.rows else "No —"), answer.summary
    assert change["number"] in answer.summary


@pytest.mark.parametrize(("question", "own", "linked_tool"), [
    ("is the change that INC0010048 waits for approved?", "INC0010048", "get_change_request"),
    ("is the incident that CHG0030021 is meant to fix still open?", "CHG0030021", "get_incident"),
])
async def test_a_record_linked_from_a_named_ticket_is_looked_up_from_that_tickets_own_text(
        local_runtime, question: str, own: str, linked_tool: str) -> None:
    """One task, two rounds: the named ticket, then the record its text links to (not a listing)."""
    answer = await ask(local_runtime(), question)
    [task] = answer.metadata.tasks
    first, second = task.evidence
    assert first.arguments["number"] == own and second.tool == linked_tool
    linked = second.arguments["number"]
    assert linked.lower() in json.dumps(first.rows).lower()  # the link came from the first record's own text
    assert not any(item.tool.startswith("list_") for item in task.evidence)
    row = second.rows[0]
    holds = row.get("approval") == "approved" if linked_tool == "get_change_request" else row["state"] in (
        "New", "In Progress", "On Hold")
    assert answer.summary.startswith(f"{'Yes' if holds else 'No'} — {linked}"), answer.summary


async def test_during_it_searches_the_window_of_the_record_the_first_step_found(local_runtime) -> None:
    answer = await ask(local_runtime(), "find the firewall change, then tell me which pipelines failed during it")
    first, second = answer.metadata.tasks
    [change] = first.evidence[0].rows
    [search] = second.evidence
    start, end = (change[key] for key in ("start_date", "end_date"))
    assert search.arguments["time_window"] == f"{start[:16]}Z to {end[:16]}Z".replace("ZZ", "Z")


async def test_counts_per_team_and_the_pipelines_without_failures_come_from_the_rows(local_runtime) -> None:
    per_team = await ask(local_runtime(), "how many open incidents does each team have?")
    listing, *per_group = per_team.metadata.tasks[0].evidence
    assert listing.total > len(listing.rows)  # the listing was capped: counting its rows would undercount
    counts = {item.arguments["assignment_group"]: item.total for item in per_group}
    assert sum(counts.values()) == listing.total
    for group, count in counts.items():
        assert f"{group} {count}" in per_team.summary
    clean = await ask(local_runtime(), "which pipelines have not failed in the last 24 hours?")
    [status] = clean.metadata.tasks[0].evidence
    assert status.tool == "query_pipeline_status"
    without = [row["pipeline_name"] for row in status.rows if row["failed"] == 0]
    with_failures = [row["pipeline_name"] for row in status.rows if row["failed"] > 0]
    assert without and all(name in clean.summary for name in without)
    assert not any(name in clean.summary for name in with_failures)
    assert clean.metadata.grounding[-1].verdict == "pass"


async def test_coming_up_is_about_upcoming_changes_not_platform_health(local_runtime) -> None:
    answer = await ask(local_runtime(), "are there any changes on vm-shir-01 coming up?")
    assert [task.agent for task in answer.metadata.tasks] == ["servicenow"]


@pytest.mark.parametrize("question", ["any sev1s?", "anything critical open right now?"])
async def test_a_stated_priority_alone_is_a_question_about_incidents(local_runtime, question: str) -> None:
    answer = await ask(local_runtime(), question)
    [task] = answer.metadata.tasks
    [search] = task.evidence
    assert (task.agent, search.tool, search.arguments["priority"]) == ("servicenow", "list_incidents", 1)
    assert answer.summary.startswith("Yes —" if search.rows else "No —")


@pytest.mark.parametrize(("question", "asks_failure"), [
    ("is pl_copy_crm_accounts still failing?", True),
    ("did pl_ingest_web_events finish?", False),
])
async def test_a_yes_no_question_about_the_latest_run_is_answered_from_its_status(
        local_runtime, question: str, asks_failure: bool) -> None:
    answer = await ask(local_runtime(), question)
    [run] = answer.metadata.tasks[0].evidence
    assert run.tool == "get_pipeline_run_details" and not answer.metadata.runbooks
    status = run.rows[0]["status"]
    yes = status == "Failed" if asks_failure else status in ("Succeeded", "Cancelled")
    assert answer.summary.startswith("Yes —" if yes else "No —"), answer.summary


async def test_pipelines_whose_latest_run_failed_come_from_every_pipelines_latest_status(local_runtime) -> None:
    answer = await ask(local_runtime(), "which pipelines are currently broken?")
    [status] = answer.metadata.tasks[0].evidence
    assert status.tool == "query_pipeline_status"
    broken = [row["pipeline_name"] for row in status.rows if row["last_status"] == "Failed"]
    fine = [row["pipeline_name"] for row in status.rows if row["last_status"] != "Failed"]
    assert broken and all(name in answer.summary for name in broken)
    assert not any(name in answer.summary for name in fine)


async def test_next_up_is_the_earliest_planned_start_still_ahead(local_runtime) -> None:
    answer = await ask(local_runtime(), "which change is next up?")
    [listing] = answer.metadata.tasks[0].evidence
    now = answer.metadata.analysis.now.strftime("%Y-%m-%dT%H:%MZ")
    ahead = [row for row in listing.rows if row["start_date"] >= now and row["state"] not in ("Closed", "Canceled")]
    first = min(ahead, key=lambda row: row["start_date"])
    assert answer.summary.startswith(f"Next up is {first['number']}")


async def test_a_record_window_the_parallel_triage_could_not_use_is_named_as_a_limitation(local_runtime) -> None:
    """The triage workflow asks every specialist at once: the run search cannot know the change's times."""
    question = "did anything fail in the 2 hours after CHG0030015 started?"
    triage = await ask(local_runtime(), question, workflow="triage")
    assert any("in the 2 hours after CHG0030015 started" in line for line in triage.limitations), triage.limitations
    dynamic = await ask(local_runtime(), question)
    assert not any("CHG0030015" in line for line in dynamic.limitations)
