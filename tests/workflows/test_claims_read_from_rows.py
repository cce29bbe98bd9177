"""Claims the checks read from the rows themselves: a qualifier no search applied but every row can say (a group,
an assignee, an age), "every run", a run's time against its usual, when something began, who holds a ticket, a
whole platform's status, a fix, how long something took, and a "none" resting on a search narrowed by a name
nobody asked for. Evidence comes from the real tools on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

import statistics
from datetime import timedelta

from opsagent.contracts.evidence import TaskResult
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from opsagent.tools.catalog import tool_spec
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.grounding_check import evaluate
from opsagent.workflows.health_claims import OVERALL
from tests.workflows.test_claim_kinds import NOW, evidence

INVENTORY = InventorySnapshot(assignment_groups=("Data Platform Ops", "Cloud Infrastructure", "Network Operations",
                                                 "Database Administration"))


def failed(question: str, text: str, results: list[TaskResult], kind: str | None = None) -> list[str]:
    analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
    return [f"{check.kind}: {check.detail}" for check in evaluate(text, results, analysis=analysis, question=question)
            if not check.passed and (kind is None or check.kind == kind)]


def judged_lead(question: str, yes: bool, results: list[TaskResult], rest: str) -> None:
    """The lead the rows say (``yes``, computed by the test from them) passes; the other one fails."""
    truth, lie = ("Yes", "No") if yes else ("No", "Yes")
    assert not failed(question, f"{truth}{rest}", results, "lead")
    assert failed(question, f"{lie}{rest}", results, "lead")


def only_the_right(question: str, said: str, right: object, wrong: object, results: list[TaskResult],
                   kind: str) -> None:
    """``said`` (a template with one ``{}``) with the value the rows give passes; with another one it fails."""
    assert not failed(question, said.format(right), results, kind)
    assert failed(question, said.format(wrong), results, kind)


def combined(first: list[TaskResult], second: list[TaskResult]) -> list[TaskResult]:
    """Two calls' evidence as one answer's (the second under its own call id)."""
    second[0].evidence[0] = second[0].evidence[0].model_copy(update={"call_id": "call_2"})
    return first + second


def rows_of(results: list[TaskResult]) -> list[dict]:
    return [dict(row) for item in results[0].evidence for row in item.rows]


def test_a_group_no_search_applied_is_read_from_every_rows_group() -> None:
    question = "does data platform ops have a P1 open?"
    results = evidence("list_incidents", state="open", priority=1, priority_match="exactly")
    rows = rows_of(results)
    assert rows and all("assignment_group" in row for row in rows)
    judged_lead(question, any(row["assignment_group"] == "Data Platform Ops" for row in rows), results,
                " — see the open P1 incidents below.")


def test_an_age_no_search_applied_is_read_from_every_rows_opening_time() -> None:
    question = "any ticket been sitting unassigned for over a week?"
    results = evidence("list_incidents", state="open", assigned_to="unassigned", order="oldest")
    rows = rows_of(results)
    older = [row["number"] for row in rows if row["opened_at"] <= (NOW - timedelta(days=7)).strftime("%Y-%m-%dT%H:%MZ")]
    judged_lead(question, bool(older), results, " — see the unassigned tickets below.")
    if not older:  # the "none" is backed by every row seen, none of them that old
        assert not failed(question, "No — none of them has waited more than a week.", results, "negative_claim")


def test_a_none_from_a_search_narrowed_by_another_name_backs_nothing() -> None:
    results = evidence("list_incidents", state="open", configuration_item="vm-shir-02", text="pl_copy_crm_accounts")
    assert not rows_of(results), "the narrowed search finds nothing"
    claim = "No — there is no open incident for pl_copy_crm_accounts."
    assert failed("is there a ticket open for the crm copy pipeline?", claim, results, "negative_claim")
    assert not failed("any open ticket on vm-shir-02 about pl_copy_crm_accounts?", claim, results, "negative_claim")


def test_every_run_means_each_row() -> None:
    results = evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours")
    statuses = [row["status"] for row in rows_of(results)]
    assert statuses
    judged_lead("has pl_copy_crm_accounts failed on every run in the last 24 hours?",
                all(status == "Failed" for status in statuses), results, " — see its runs below.")


def test_longer_than_usual_is_judged_on_the_runs_place_among_its_successful_runs() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    minutes = row["run"].get("running_for_min", row["run"].get("duration_min"))
    upper = statistics.quantiles(_successful_minutes(), n=4, method="inclusive")[2]
    judged_lead("is pl_transform_pricing_model taking longer than normal?", minutes > upper, results,
                f" — its latest run took {minutes:g} minutes.")


def _successful_minutes() -> list[float]:
    """The oracle: the durations of the pipeline's recent successful runs, from the run listing itself."""
    runs = rows_of(evidence("list_pipeline_runs", pipeline_name="pl_transform_pricing_model", status="Succeeded",
                            time_window="last 14 days", limit=20))
    return [float(row["duration_min"]) for row in runs if row.get("duration_min") is not None]


def test_a_time_no_row_shows_fails_even_in_a_sentence_about_no_record() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    starts = [start for group in row["failure_groups"] for start in group["starts"]]
    earlier = starts[1]
    assert not failed("has it failed like this before?", f"Yes, it failed the same way at {earlier[11:16]} UTC on "
                      f"{earlier[:10]}.", results, "placement")
    shown = {start[11:16] for start in starts}
    invented = next(f"{hour:02d}:37" for hour in range(24) if f"{hour:02d}:37" not in shown)
    assert failed("has it failed like this before?", f"Yes, it failed the same way at {invented} UTC.", results,
                  "placement")


def test_since_is_when_something_began_not_when_it_was_updated() -> None:
    results = evidence("check_snowflake_health")
    incident = next(row for row in rows_of(results) if row.get("kind") == "incident")
    began, updated = incident["started_at"][11:16], incident["updated_at"][11:16]
    assert began != updated
    assert not failed("since when has snowflake had the latency problem", f"Since {began} UTC today.", results)
    assert failed("since when has snowflake had the latency problem", f"Since {updated} UTC today.", results)


def test_a_person_no_row_names_is_unsupported() -> None:
    results = evidence("list_incidents", state="open")
    held = next(row for row in rows_of(results) if row.get("assigned_to"))
    assert not failed("who has it?", f"{held['number']} is assigned to {held['assigned_to']}.", results, "identifier")
    assert failed("who has it?", f"{held['number']} was picked up by Ravi Patelson.", results, "identifier")


def test_a_whole_platforms_status_is_its_reports_overall_status() -> None:
    results = evidence("check_azure_service_health", region="north europe")
    overall = OVERALL.match(results[0].evidence[0].message).group(1)  # type: ignore[union-attr]
    assert tool_spec("check_azure_service_health").platform == "Azure"  # type: ignore[union-attr]
    other = "degraded" if overall == "operational" else "operational"
    question = "quick health sweep of north europe"
    assert failed(question, f"Every Azure service in North Europe is {other}.", results, "value")
    assert not failed(question, f"Azure in North Europe is {overall}.", results, "value")
    assert not failed(question, f"Azure incident 'Planned {other}' is listed below.", results, "value")


def test_a_fix_is_what_the_records_notes_say_was_done() -> None:
    results = evidence("get_incident", number="INC0010028")
    [row] = rows_of(results)
    assert "auto-inflate enabled" in row["close_notes"].lower() and "rais" not in row["close_notes"].lower()
    question = "how did we sort out INC0010028?"
    assert failed(question, "Amira fixed it by raising the Event Hubs throughput units manually.", results, "link")
    assert not failed(question, "Amira fixed it by enabling auto-inflate on the Event Hubs namespace.", results, "link")


def test_how_long_a_run_took_is_its_duration() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_archive_logs")
    minutes = rows_of(results)[0]["duration_min"]
    question = "how long did the archive logs run go before someone cancelled it"
    assert not failed(question, f"It ran for about {minutes:g} minutes before it was cancelled.", results, "number")
    assert failed(question, f"It ran for about {minutes + 24:g} minutes before it was cancelled.", results, "number")


def test_negations_people_write_are_read_and_the_writers_own_limits_are_not() -> None:
    results = evidence("list_incidents", state="all", assignment_group="Database Administration",
                       resolved_within="this week")
    assert rows_of(results), "the group resolved something this week"
    question = "has the dba team resolved anything this week?"
    assert failed(question, "Database Administration hasn't resolved any incidents since Monday.", results,
                  "negative_claim")
    assert failed(question, "Nobody has raised or resolved an incident this week.", results, "negative_claim")
    assert not failed(question, "I can't page anyone from here.", results, "negative_claim")


def test_closed_out_means_resolved_or_closed() -> None:
    results = evidence("list_incidents", state="all", assignment_group="Database Administration",
                       resolved_within="this week")
    states = {row["state"] for row in rows_of(results)}
    assert states and states <= {"Resolved", "Closed"}
    question = "has the dba team closed out anything this week?"
    assert analyse_question(question, now=NOW).filters[0].values == ["resolved", "closed"]
    judged_lead(question, True, results, " — see below.")


def test_the_right_time_on_the_wrong_day_is_wrong() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(results)
    success = row["last_success"]["start"]  # e.g. 2025-01-09T04:00Z
    day = int(success[8:10])
    question = "when was the finance dwh load last green?"
    right = f"The last successful pl_load_finance_dwh run was on {day} Jan at {success[11:16]} UTC."
    wrong = f"The last successful pl_load_finance_dwh run was on {day - 1} Jan at {success[11:16]} UTC."
    assert not failed(question, right, results, "placement")
    assert failed(question, wrong, results, "placement")


def test_both_days_need_a_matching_row_in_each() -> None:
    today = evidence("list_failed_pipelines", pipeline_name="pl_transform_customer360", time_window="since yesterday")
    yesterday = evidence("list_pipeline_runs", pipeline_name="pl_transform_customer360", time_window="yesterday")
    results = [today[0], yesterday[0].model_copy(update={"part": "p1"})]
    day = (NOW - timedelta(days=1)).strftime("%Y-%m-%d")
    failed_on = {row["start"][:10] for item in results for row in item.evidence[0].rows if row.get("status", "Failed") == "Failed"}
    judged_lead("did pl_transform_customer360 fail both yesterday and today?",
                {day, NOW.strftime("%Y-%m-%d")} <= failed_on, results, " — see its runs below.")


def test_nothing_else_is_backed_by_a_complete_listing_the_answer_names_in_full() -> None:
    results = evidence("list_failed_pipelines", factory="adf-prod-neu", time_window="last 7 days")
    rows = rows_of(results)
    assert rows and results[0].evidence[0].total == len(rows)
    named = ", ".join(sorted({row["pipeline_name"] for row in rows}))
    question = "neu factory - anything fail in the past 7 days?"
    assert not failed(question, f"Yes: {named}. Nothing else in adf-prod-neu failed in that window.", results,
                      "negative_claim")
    assert failed(question, "Yes, a few runs. Nothing else in adf-prod-neu failed in that window.", results,
                  "negative_claim")


def test_a_cause_between_a_change_and_a_pipeline_needs_a_row_linking_them() -> None:
    change = evidence("get_change_request", number="CHG0030017")
    runs = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="since yesterday")
    results = [change[0], runs[0]]
    assert "pl_ingest_sales" not in str(rows_of(change)).lower()
    question = "did yesterday's SHIR upgrade cause the sales ingest failures?"
    assert failed(question, "CHG0030017 upgraded the SHIR, and pl_ingest_sales started failing as a result.", results,
                  "link")
    assert not failed(question, "No — pl_ingest_sales failed hours after CHG0030017's window ended.", results)


def test_a_value_is_pinned_on_the_record_it_is_said_of() -> None:
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    linked = next(link for link in row["links"] if link.get("state"))
    question = "show INC0010048"
    assert not failed(question, f"INC0010048 is {row['state']}, awaiting {linked['number']}.", results, "value")
    assert not failed(question, f"It is {row['state']}, and the change {linked['number']} is {linked['state']}.",
                      results, "value")
    other = "Closed" if linked["state"] != "Closed" else "Scheduled"
    assert failed(question, f"It is {row['state']}, and the change {linked['number']} is {other}.", results, "value")


def test_a_records_own_words_restated_are_not_the_writers_placement() -> None:
    results = evidence("get_incident", number="INC0010048")
    description = rows_of(results)[0]["description"]
    quoted = description.split(":")[0].replace("(", "").replace(")", "")
    assert "CHG0030017" in quoted
    assert not failed("show INC0010048", f"The description states that {quoted}.", results, "placement")


def test_a_person_said_to_act_must_be_in_the_data() -> None:
    results = evidence("list_incidents", state="open")
    held = next(row for row in rows_of(results) if row.get("assigned_to"))
    assert not failed("who has it?", f"{held['assigned_to']} picked up {held['number']}.", results, "identifier")
    assert failed("who has it?", f"Marco Bianchini in Analytics Engineering picked up {held['number']}.", results,
                  "identifier")


def test_a_regions_status_without_a_platform_name_is_that_regions_report() -> None:
    west = evidence("check_snowflake_health", region="west europe")
    overall = OVERALL.match(west[0].evidence[0].message).group(1)  # type: ignore[union-attr]
    other = "operational" if overall != "operational" else "degraded"
    question = "snowflake ok in west europe?"
    assert failed(question, f"Azure West Europe (Netherlands) is {other} again.", west, "value")
    assert not failed(question, f"Azure West Europe (Netherlands) is {overall}.", west, "value")


def test_a_total_over_per_pipeline_counts_is_a_count() -> None:
    results = evidence("count_pipeline_runs", group_by="pipeline", status="Failed", time_window="this week")
    total = sum(row["failed"] for row in rows_of(results))
    question = "how many failed runs since monday?"
    assert not failed(question, f"{total} failed runs since Monday.", results, "number")
    assert failed(question, f"{total + 3} failed runs since Monday.", results, "number")


def test_a_history_is_a_window_and_its_failures_are_counted_as_listed() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    [row] = rows_of(results)
    start, end = iso_moment(row["searched_from"]), iso_moment(row["searched_to"])
    assert start and end
    days = round((end - start).total_seconds() / 86400)
    today = [start for group in row["failure_groups"] if group["like_the_run"] for start in group["starts"]
             if start.startswith(NOW.strftime("%Y-%m-%d"))]
    like = next(group for group in row["failure_groups"] if group["like_the_run"])
    times = " and ".join(start[11:16] for start in today)
    question = "first time customer360 has failed on the cluster launch thing?"
    truth = (f"No. Besides today's {len(today)} failures ({times} UTC), it failed the same way before: "
             f"{like['count']} times in the last {days} days.")
    assert not failed(question, truth, results)
    if like["count"] > len(today):  # the oracle: more such failures than today's
        assert failed(question, f"Yes — today's {len(today)} failures ({times} UTC) are the first such failures.",
                      results, "history")


def test_times_and_lengths_people_write_are_read_as_such() -> None:
    results = evidence("list_incidents", state="open", priority=1)
    row = rows_of(results)[0]
    opened = iso_moment(row["opened_at"])
    assert opened is not None
    hours = (NOW - opened).total_seconds() / 3600
    whole, half = int(hours), " and a half" if hours - int(hours) >= 0.5 else ""
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    clock = f"{opened.hour % 12 or 12}:{opened.minute:02d}{'am' if opened.hour < 12 else 'pm'}"
    question = "any P1 open?"
    for said in (f"opened about {words[whole]}{half} hours ago", f"opened at {clock} UTC",
                 f"opened about {hours:.1f} hours ago"):
        assert not failed(question, f"Yes — {row['number']}, {said}.", results, "number"), said
    assert failed(question, f"Yes — {row['number']}, opened about {words[whole + 3]}{half} hours ago.", results,
                  "number")
