"""Claims the answer checks read beyond ids and counts: actions taken, a record's own times, components'
statuses and lengths of time. Evidence comes from the real tools on the demo data (the oracle is its rows)."""

from __future__ import annotations

import asyncio
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from opsagent.agents.specialists import SPECIALISTS
from opsagent.backends.demo import make_demo_backends
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.intake.analyzer import analyse_question
from opsagent.settings import Settings
from opsagent.workflows.action_claims import action_claims
from opsagent.workflows.grounding_check import evaluate

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("sentence", "claimed"), [
    ("I've acknowledged INC0010052 and paged the on-call.", ["acknowledge"]),
    ("I triggered a rerun of pl_ingest_sales.", ["trigger"]),
    ("I'll escalate it to Network Operations now.", ["escalate"]),
    ("I ran a search for failed runs in the last 24 hours.", []),
    ("I'll start with the open P1 incidents.", []),
    ("I'll update you if anything changes.", []),
    ("Should I open an incident for this?", []),
    ('You asked: "can I restart pl_ingest_sales?"', []),
    ("Phase I started at 10:00.", []),
    ("I have gone ahead and approved CHG0030022.", ["approve"]),
    ("I can't rerun pl_ingest_sales: OpsAgent only reads.", []),
    ("I have not paged anyone.", []),
    ("I checked the runs and found 3 failures.", []),
    ("We have three open incidents.", []),
    ("I've paged Leila Sato, the Network Operations on-call, about INC0010042.", ["page"]),
    ("I fixed it.", ["fix"]),
    ("I set the window to the last 24 hours.", []),
    ("I can page them if you want?", []),
    ("Paged Elif Demir about INC0010052.", ["page"]),  # the report without its "I"
    ("Notified them at 06:40.", ["page"]),
    ("Escalated to Database Administration at 06:00.", []),  # a record's history: no person told
    ("Resized WH_FINANCE to Large and reran the load.", []),  # a past fix, as a record's notes write it
    ("Rerun kicked off for pl_ingest_sales.", ["rerun"]),  # an act reported by its noun, without an actor
    ("**Retry triggered for pl_load_finance_dwh.** The failed run it replaces:", ["retry"]),
    ("Done — page sent to the Database Administration on-call.", ["page"]),
    ("Escalation has been requested for INC0010052.", ["escalate"]),
    ("The run started at 04:00 and failed at 04:03.", []),  # a run is a record: its start is a fact
    ("Restart requested by Priya Nair at 07:10.", []),  # a record's history names who asked
    ("Retry started automatically after the first attempt failed.", []),
    ("Done — paged the Analytics Engineering on-call.", ["page"]),
    ("Ticket acknowledged and assigned to you.", ["assign"]),
    ("Rerun started at 05:12 and failed after 3 minutes.", []),  # a run's own state and time
    ("Rollback requested via CHG0030022, still in Authorize.", []),  # a record's history: where it was asked
    ("Page sent at 06:35 per the incident timeline.", []),
    ("Notification sent to the Teams channel failed.", []),
])
def test_an_action_is_a_claim_only_when_the_writer_says_it_acted(sentence: str, claimed: list[str]) -> None:
    assert action_claims(sentence) == claimed


def evidence(tool: str, **arguments: object) -> list[TaskResult]:
    """The tool's real output on the demo data, as the workflow records it."""
    async def call(directory: Path) -> ToolEvidence:
        backends = make_demo_backends(Settings(data_dir=directory), lambda: NOW)
        tools = {item.name: item for spec in SPECIALISTS
                 for item in spec.load_tool_factory()(backends, clock=lambda: NOW, max_rows=20)}
        try:
            [content] = await tools[tool].invoke(arguments=arguments)
        finally:
            await backends.aclose()
        return ToolEvidence.from_output(tool, dict(arguments), content.text, call_id="call_1")

    with tempfile.TemporaryDirectory() as directory:
        item = asyncio.run(call(Path(directory)))
    return [TaskResult(agent="x", question="?", status="ok", part="p1", evidence=[item])]


def failed(text: str, results: list[TaskResult]) -> list[str]:
    analysis = analyse_question("what happened?", now=NOW)  # the check's clock: "ago" is counted from it
    return [check.detail for check in evaluate(text, results, analysis=analysis) if not check.passed]


def test_a_clock_time_said_of_a_record_is_one_of_its_own() -> None:
    results = evidence("get_change_request", number="CHG0030015")
    row = results[0].evidence[0].rows[0]
    start, end = str(row["start_date"])[11:16], str(row["end_date"])[11:16]
    assert not failed(f"CHG0030015 runs from {start} to {end} UTC.", results)
    wrong = f"{(int(end[:2]) + 1) % 24:02d}:{end[3:]}"
    assert failed(f"CHG0030015 runs from {start} to {wrong} UTC.", results)


def test_a_components_status_is_the_one_its_row_shows() -> None:
    results = evidence("check_azure_service_health", region="West Europe")
    rows = [row for row in results[0].evidence[0].rows if row.get("kind") == "component"]
    fine = next(row["name"] for row in rows if row["status"] == "operational")
    hurt = next(row["name"] for row in rows if row["status"] != "operational")
    assert not failed(f"{fine} is operational and {hurt} is {next(r['status'] for r in rows if r['name'] == hurt)}.",
                      results)
    assert failed(f"{fine} is degraded in West Europe.", results)


def test_a_length_of_time_is_a_span_of_the_evidence() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_ingest_sales")
    start = datetime.fromisoformat(str(results[0].evidence[0].rows[0]["start"]).replace("Z", "+00:00"))
    minutes = round((NOW - start).total_seconds() / 60)
    assert not failed(f"The latest pl_ingest_sales run started {minutes} minutes ago.", results)
    assert failed(f"The latest pl_ingest_sales run started {minutes + 30} minutes ago.", results)


def test_a_count_written_in_words_is_checked_like_one_in_digits() -> None:
    """"three open incidents" is a count of the search that applied "open" and the group: its total, not any
    subset's size; the failing claim quotes the words as written, so the repaired answer can drop them."""
    results = evidence("list_incidents", state="open", assignment_group="Analytics Engineering")
    total = results[0].evidence[0].total
    words = "zero one two three four five six seven eight nine ten".split()
    assert 2 <= total < len(words)
    assert not failed(f"Analytics Engineering has {words[total]} open incidents.", results)
    text = f"Analytics Engineering has {words[total - 1]} open incidents."
    analysis = analyse_question("what happened?", now=NOW)
    checks = [check for check in evaluate(text, results, analysis=analysis) if not check.passed]
    assert checks and all(check.claim in text for check in checks)  # each quotes the words as written (as a count
    assert any(str(total) in check.detail for check in checks)  # of the search, and as the name's own count)


def test_there_is_a_record_with_values_needs_a_row_showing_them() -> None:
    """"There is an approved emergency change" holds when a row of the search shows both values."""
    results = evidence("list_change_requests", type="emergency")
    shown = {str(row["approval"]).lower() for row in results[0].evidence[0].rows}
    absent = next(label for label in ("approved", "rejected", "requested") if label not in shown)
    present = sorted(shown)[0]
    assert not failed(f"Yes, there is a {present} emergency change on record.", results)
    assert failed(f"Yes, there is an {absent} emergency change on record.", results)
    assert not [detail for detail in failed(f"There is no {absent} emergency change on record.", results)
                if "rows shows" in detail]  # a "none" is the empty-search check's


def test_a_yes_or_no_about_a_record_described_by_its_words_reads_that_record() -> None:
    """"Is the emergency change for the portal approved?" is about the change whose text says "portal", not about
    whether any emergency change is approved; the lead is judged on that record's own approval."""
    results = evidence("list_change_requests", type="emergency")
    rows = results[0].evidence[0].rows
    portal = [row for row in rows if "portal" in str(row["short_description"]).lower()]
    assert len(portal) == 1 and len(rows) > 1 and any(row["approval"] == "approved" for row in rows)
    question = "is the emergency change for the portal approved yet?"
    truth = "Yes" if portal[0]["approval"] == "approved" else "No"
    other = "No" if truth == "Yes" else "Yes"
    analysis = analyse_question(question, now=NOW)
    leads = [check for check in evaluate(f"{other} — see the change below.", results, analysis=analysis)
             if check.kind == "lead"]
    assert leads and not leads[0].passed
    assert all(check.passed for check in evaluate(f"{truth} — see the change below.",
                                                  results, analysis=analysis) if check.kind == "lead")


def test_runs_said_to_fall_inside_a_window_all_of_them_must() -> None:
    """"All three pl_ingest_sales failures fall inside CHG…'s window" needs every run shown inside; "one of" one."""
    change = evidence("get_change_request", number="CHG0030015")
    runs = evidence("list_failed_pipelines", time_window="2025-01-10T00:00Z to 2025-01-10T09:00Z",
                    pipeline_name="pl_ingest_sales")
    row = change[0].evidence[0].rows[0]
    starts = [str(run["start"]) for run in runs[0].evidence[0].rows]
    inside = [start for start in starts if str(row["start_date"]) <= start < str(row["end_date"])]
    assert 0 < len(inside) < len(starts)  # the data has both: the oracle for the two sentences
    results = change + runs
    assert failed("All of the pl_ingest_sales failures fall inside the CHG0030015 window.", results)
    assert not failed("One of the pl_ingest_sales failures falls inside the CHG0030015 window.", results)


def test_an_answer_naming_no_record_speaks_of_the_one_looked_up() -> None:
    """A run looked up by pipeline and time, and an answer that names neither id nor pipeline: its error code
    and its cause are that run's own ("the 3200 cluster launch error" is a code said, before the word)."""
    results = evidence("get_pipeline_run_details", pipeline_name="pl_transform_customer360", around="2025-01-10T03:20Z")
    [row] = results[0].evidence[0].rows
    code, message = str(row["error_code"]), str(row["error_message"])
    assert code and code not in message.split()
    assert not failed(f"The run failed with the {code} cluster launch error.", results)
    assert failed(f"The run failed with the {int(code) + 1} cluster launch error.", results)
    own_words = " ".join(message.split()[:6])
    assert not failed(f"It failed because {own_words}.", results)
    assert failed("It failed because the notebook couldn't import numpy after a library version conflict.", results)


def test_a_none_in_a_short_window_is_backed_by_a_wider_search_with_no_row_inside_it() -> None:
    """"Nothing failed in the last 30 minutes" after a 2-hour search: every row seen, none inside the half
    hour, backs it; "nothing in the last hour" over the same rows is contradicted by a row inside that hour."""
    results = evidence("list_failed_pipelines", time_window="last 2 hours")
    item = results[0].evidence[0]
    moments = [datetime.fromisoformat(str(row["start"]).replace("Z", "+00:00")) for row in item.rows]
    assert item.total == len(item.rows) > 0

    def flagged(question: str, minutes: int) -> bool:
        analysis = analyse_question(question, now=NOW)
        return any(not check.passed and check.kind == "negative_claim" for check in evaluate(
            f"No, nothing has failed in the last {minutes} minutes.", results, analysis=analysis))

    for minutes in (30, 60):
        inside = any(NOW - timedelta(minutes=minutes) <= moment for moment in moments)
        assert flagged(f"has anything failed in the last {minutes} minutes?", minutes) == inside
    assert {any(NOW - timedelta(minutes=m) <= moment for moment in moments) for m in (30, 60)} == {True, False}


def lead_passes(question: str, text: str, results: list[TaskResult]) -> bool:
    analysis = analyse_question(question, now=NOW)
    leads = [check for check in evaluate(text, results, analysis=analysis) if check.kind == "lead"]
    assert leads, text
    return all(check.passed for check in leads)


def test_a_whole_platform_report_answers_for_one_region() -> None:
    """"Is Snowflake degraded in North Europe?" over the unfiltered report: a region it lists nothing for is fine.
    The oracle is the report asked for that region alone."""
    whole = evidence("check_snowflake_health")
    regional = evidence("check_snowflake_health", region="North Europe")[0].evidence[0]
    fine = all(row["status"] == "operational" for row in regional.rows if row.get("kind") == "component")
    question = "is Snowflake degraded in North Europe?"
    truth, other = ("No", "Yes") if fine else ("Yes", "No")
    assert lead_passes(question, f"{truth} — see the report below.", whole)
    assert not lead_passes(question, f"{other} — see the report below.", whole)


def test_a_name_the_ask_leaves_out_does_not_answer_it() -> None:
    """"Any Azure service in West Europe unhealthy besides Databricks?": Databricks' own trouble is no yes."""
    results = evidence("check_azure_service_health", region="West Europe")
    rows = results[0].evidence[0].rows
    others = [row for row in rows if row.get("kind") == "component" and "databricks" not in row["name"].lower()
              and row["status"] != "operational"]
    assert any("databricks" in str(row).lower() for row in rows)  # the excluded one is in the report
    question = "is any Azure service in West Europe unhealthy besides Databricks?"
    truth, other = ("Yes", "No") if others else ("No", "Yes")
    assert lead_passes(question, f"{truth} — see the report below.", results)
    assert not lead_passes(question, f"{other} — see the report below.", results)


@pytest.mark.parametrize("pipeline", ["pl_export_marketing", "pl_copy_erp_orders"])
def test_a_failure_called_the_first_is_checked_against_the_history(pipeline: str) -> None:
    """"This is the first time pl_x failed" holds only when its history counts one failure; the first of
    several ("the first time on 31 December") is an ordinal, not that claim."""
    results = evidence("get_pipeline_history", pipeline_name=pipeline)
    [row] = results[0].evidence[0].rows
    failures = sum(group["count"] for group in row["failure_groups"])
    claim = f"This is the first time {pipeline} has failed in the history searched."
    assert bool(failed(claim, results)) == (failures > 1)
    assert not [detail for detail in failed(f"{pipeline} failed, the first time on {row['searched_from'][:10]}.",
                                            results) if "history counts" in detail]


def test_a_history_backs_what_its_runs_show_but_a_runs_activities_do_not() -> None:
    """A pipeline's history holds its last failure and success: "pl_x failed" is backed by it. A run's
    activities are parts of the run: a succeeded activity does not back "the run succeeded"."""
    history = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    assert history[0].evidence[0].rows[0]["last_failure"]
    assert not [detail for detail in failed("pl_load_finance_dwh failed.", history) if "status" in detail]
    details = evidence("get_pipeline_run_details", pipeline_name="pl_load_finance_dwh")
    [run] = details[0].evidence[0].rows
    assert run["status"] == "Failed" and any(step["status"] == "Succeeded" for step in run["activities"])
    assert failed("The latest pl_load_finance_dwh run succeeded.", details)
