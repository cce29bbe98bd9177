"""Shapes a tenth blind set of answers showed the checks misread: long, reasoned answers as a hosted model writes
them — "the only one", "both … inside that window" after a turn about a change, a time written right after its
day, "It's …" going on about the record before, "puts it down to" (a cause, not "down"), a quiet factory read
from the rows' factory, "the other 12 are …", word numbers in times, a ticket opened "for" the user. Evidence
comes from the real tools on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from opsagent.contracts.messages import MessageData
from opsagent.backends.pipeline_records import PipelineInfo
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from opsagent.workflows.grounding_check import evaluate
from opsagent.workflows.action_claims import action_claims
from opsagent.workflows.evidence_index import counted_nouns_in
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import INVENTORY, failed, judged_lead, only_the_right, rows_of


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_the_only_one_is_yes_for_exactly_one_row() -> None:
    results = evidence("list_pipeline_runs", status="Cancelled", time_window="this week")
    rows = rows_of(results)
    assert rows
    first = rows[0]["pipeline_name"]
    judged_lead(f"was the {first} run the only run that got cancelled this week?", len(rows) == 1, results,
                f" — the {first} run was cancelled by a user.")
    day = evidence("list_pipeline_runs", status="Cancelled", time_window="last 24 hours")
    [one] = rows_of(day)  # the oracle: one cancelled run that day
    other = next(row["pipeline_name"] for row in rows if row["pipeline_name"] != one["pipeline_name"])
    judged_lead(f"was the {one['pipeline_name']} run the only one cancelled in the last 24 hours?", True, day, ".")
    judged_lead(f"was the {other} run the only one cancelled in the last 24 hours?", False, day, ".")  # not the one


def test_that_window_after_a_turn_about_a_change_is_the_changes_window() -> None:
    history = [MessageData(role="user", content="what was CHG0030017 again?"),
               MessageData(role="assistant", content="CHG0030017 upgraded the SHIR on vm-shir-01 (planned 17:00–19:00).")]
    for question in ("did both crm copy failures happen inside that window?", "anything fail in that window?"):
        analysis = analyse_question(question, history, now=NOW, inventory=INVENTORY)
        assert [item.record for item in analysis.record_windows] == ["CHG0030017"], question


def test_both_inside_a_window_means_each_row_inside_it() -> None:
    change = evidence("get_change_request", number="CHG0030017")
    [row] = rows_of(change)
    start, end = _moment(row["start_date"]), _moment(row["end_date"])
    runs = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="since yesterday")
    starts = [_moment(run["start"]) for run in rows_of(runs)]
    assert len(starts) == 2 and any(start <= moment < end for moment in starts)  # one inside, at least
    judged_lead("did both pl_copy_crm_accounts failures happen inside CHG0030017's window?",
                all(start <= moment < end for moment in starts), change + runs, " — see the two runs below.")


def test_a_time_written_right_after_its_day_goes_with_that_day() -> None:
    results = evidence("find_similar_incidents", incident_number="INC0010052")
    row = rows_of(results)[0]
    opened, resolved = _moment(row["opened_at"]), _moment(row["resolved_at"])
    said = (f"{row['number']} is on the same CI, opened {{}} at {opened:%H:%M} and resolved at {resolved:%H:%M}.")
    right, wrong = f"{opened:%a} {opened.day} {opened:%b}", f"{opened - timedelta(days=1):%a} {opened.day - 1} {opened:%b}"
    only_the_right("has the portal had something like this before?", said, right, wrong, results, "placement")
    history = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [pipeline] = rows_of(history)
    success = _moment(pipeline["last_success"]["start"])
    said = f"On {{}}, {{}} {success:%b} at {success:%H:%M} UTC — that run took {pipeline['last_success']['duration_min']} minutes."
    before = success - timedelta(days=1)
    question = "when did pl_ingest_sales last actually work?"
    assert not failed(question, said.format(f"{success:%A} night", success.day), history, "placement")
    assert failed(question, said.format(f"{before:%A} night", before.day), history, "placement")


def test_a_sentence_opening_with_it_goes_on_about_the_record_before() -> None:
    results = evidence("get_change_request", number="CHG0030021")
    [row] = rows_of(results)
    other = next(risk for risk in ("High", "Low", "Moderate") if risk != row["risk"])
    said = f"{row['number']} is {row['state']}. It's a {row['type']}, {{}}-risk change."
    only_the_right("is that change approved and when does it go in?", said, row["risk"], other, results, "value")


def test_puts_it_down_to_is_a_cause_not_a_status() -> None:
    databricks = evidence("check_databricks_health", region="weu")
    snowflake = evidence("check_snowflake_health")
    cause = "a VM capacity shortage"
    assert cause.split()[-2] in str(rows_of(databricks)).lower() and "capacity" not in str(rows_of(snowflake)).lower()
    question = "whats behind the slowness?"
    said = "{} puts it down to " + cause + "."
    assert not failed(question, said.format("Databricks"), databricks, "value")  # "down to" is no major outage
    assert not failed(question, said.format("Databricks"), databricks, "link")
    assert failed(question, said.format("Snowflake"), snowflake, "link")


def test_a_cause_said_of_a_platform_in_an_aside_is_read_from_that_platforms_rows() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    health = evidence("check_databricks_health", region="weu")
    said = ("pl_transform_customer360 failed twice today. Both fall inside the Databricks incident — Jobs degraded "
            "because of {} — so those are very likely the outage.")
    only_the_right("has pl_transform_customer360 failed like this before?", said, "a VM capacity shortage",
                   "an expired certificate", history + health, "link")


def test_a_factory_no_search_applied_is_read_from_the_rows_factory() -> None:
    change = evidence("get_change_request", number="CHG0030015")
    [row] = rows_of(change)
    runs = evidence("list_failed_pipelines", time_window=f"since {row['start_date']}")
    factories = {run["factory"] for run in rows_of(runs)}
    assert rows_of(runs) and "adf-prod-neu" not in factories  # the oracle: every failure is another factory's
    inventory = InventorySnapshot(pipelines=tuple(PipelineInfo(name=run["pipeline_name"], factory=run["factory"])
                                                  for run in rows_of(runs)) + (PipelineInfo(name="pl_x", factory="adf-prod-neu"),))
    analysis = analyse_question("anything in the north europe factory fail since the firewall change CHG0030015 "
                                "started?", now=NOW, inventory=inventory)
    assert [item.value for item in analysis.entities if item.kind == "factory"] == ["adf-prod-neu"]
    truth, lie = ("Yes", "No") if "adf-prod-neu" in factories else ("No", "Yes")
    rest = f" — nothing in adf-prod-neu has failed since {row['number']}'s window opened."

    def failing(text: str) -> list[str]:
        return [check.kind for check in evaluate(text, change + runs, analysis=analysis, question=analysis.question)
                if not check.passed]

    assert failing(truth + rest) == [] and "lead" in failing(lie + rest)


def test_the_other_n_without_a_noun_is_the_rows_less_those_named() -> None:
    results = evidence("check_azure_service_health")
    components = [row for row in rows_of(results) if row.get("kind") == "component"]
    unwell = [row for row in components if row["status"] != "operational"]
    [total] = {int(count) for count in re.findall(r"of (\d+) components", results[0].evidence[0].message)}
    named = "; ".join(f"{row['region']} – {row['name']}: {row['status']}" for row in unwell)
    said = f"{len(unwell)} of the {total} Azure components aren't operational: {named}. The other {{}} are operational."
    only_the_right("how many azure components aren't fully healthy?", said, total - len(unwell),
                   total - len(unwell) - 1, results, "number")


def test_a_window_heading_and_times_in_words_are_not_counts() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(results)
    question = "about to take over on-call, whats the state of things?"
    assert not failed(question, f"**Pipelines (24 h):** {len(rows)} failed runs.", results, "number")
    history = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [pipeline] = rows_of(history)
    hours = (NOW - _moment(pipeline["last_success"]["start"])).total_seconds() / 3600
    assert 9 < hours < 10  # the oracle: "just under ten hours ago"
    assert not failed("when did pl_ingest_sales last work?", "Last night, just under ten hours ago.", history, "number")


def test_a_negation_in_the_rows_own_two_words_is_no_claim_that_nothing_matched() -> None:
    runs = rows_of(evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="since yesterday"))
    results = next(details for run in runs if "no proxy" in str(rows_of(
        details := evidence("get_pipeline_run_details", run_id=run["run_id"]))).lower())
    question = "what killed the midnight one?"
    said = "So the runtime could try the call but had no {} to reach the CRM host — consistent with lost proxy settings on vm-shir-01."
    only_the_right(question, said, "proxy", "firewall rule", results, "negative_claim")


def test_a_ticket_opened_for_the_user_is_an_action_claim() -> None:
    assert action_claims("I've opened a support case with Databricks for the cluster starts.") == ["open"]
    assert action_claims("I logged a ticket with Snowflake.") == ["log"]
    assert action_claims("I set the window to 2 hours.") == []
    assert action_claims("I ran the incident query again.") == []  # a ticket word before another noun: no ticket


def test_a_length_between_two_moments_is_measured_from_a_time_the_sentence_says() -> None:
    change = evidence("get_change_request", number="CHG0030015")
    [row] = rows_of(change)
    runs = evidence("list_failed_pipelines", time_window=f"since {row['start_date']}")
    start, first = _moment(row["start_date"]), min(_moment(run["start"]) for run in rows_of(runs))
    minutes = round((first - start).total_seconds() / 60)
    said = f"The first failure came at {first:%H:%M}, {{}} minutes after {row['number']} started at {start:%H:%M}."
    only_the_right("did the firewall change break the sales ingest?", said, minutes, minutes + 8, change + runs, "number")


def test_a_tools_none_message_told_again_is_checked_like_any_none() -> None:
    """A small model searched runs of a pipeline named by words that name none ("firewall") and wrote the tool's own
    "No failed pipeline runs … found" back: an echo of an unfit search is no evidence; of a fitting one it is."""
    unfit = evidence("list_failed_pipelines", pipeline_name="firewall")
    assert not rows_of(unfit) and unfit[0].evidence[0].message.startswith("No ")
    assert failed("did anything fail in CHG0030015's window?", unfit[0].evidence[0].message, unfit, "negative_claim")
    statuses = rows_of(evidence("query_pipeline_status", time_window="last 24 hours"))
    quiet = sorted(row["pipeline_name"] for row in statuses if row["runs"] and not row["failed"])[0]  # ran, never failed
    fitting = evidence("list_failed_pipelines", pipeline_name=quiet, time_window="last 24 hours")
    assert not rows_of(fitting)
    assert not failed(f"did {quiet} fail in the last 24 hours?", fitting[0].evidence[0].message, fitting, "negative_claim")
    change, incident = evidence("get_change_request", number="CHG0030013"), evidence("get_incident", number="INC0010042")
    [window], [ticket] = rows_of(change), rows_of(incident)
    end, opened = _moment(window["end_date"]), _moment(ticket["opened_at"])
    hours = round((opened - end).total_seconds() / 3600)
    assert hours > 24  # across days: the clock times alone cannot say it
    said = (f"{window['number']} ran {_moment(window['start_date']):%H:%M}–{end:%H:%M}, but {ticket['number']} was "
            f"opened at {opened:%H:%M}, about {{}} hours after that window closed.")
    only_the_right("did the vpn change cause INC0010042?", said, hours, hours + 6, change + incident, "number")


def test_a_status_asked_without_a_verb_is_a_yes_or_no_and_its_lead_is_judged() -> None:
    question = "sql managed instance ok in both regions?"
    assert [ask.shape for ask in analyse_question(question, now=NOW, inventory=INVENTORY).asks] == ["yes_no"]
    assert [ask.shape for ask in analyse_question("failed pipelines last 24h?", now=NOW).asks] != ["yes_no"]
    results = evidence("check_azure_service_health", service="SQL Managed Instance")
    components = [row for row in rows_of(results) if row.get("kind") == "component"]
    judged_lead(question, all(row["status"] == "operational" for row in components), results, " — see the regions below.")


def test_a_window_in_a_heading_is_a_label_but_a_length_in_parentheses_is_a_number() -> None:
    assert counted_nouns_in("Pipelines (24 h): 9 failed runs") == [(9.0, "runs")]
    assert (9.0, None) in counted_nouns_in("pl_x ran long (9 h) last night")  # checked like any length
