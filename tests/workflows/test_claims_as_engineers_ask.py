"""Shapes an eighth blind set of answers showed the checks missed: "is anyone working on …?" (an assignee, not a
state), a service and region as written ("adf", "weu"), a count of pipelines over failed runs, an act done "for
you", what holds a ticket on hold, and "It's INC…" to "which ticket covers …?". Evidence comes from the real tools
on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from opsagent.intake.analyzer import analyse_question
from opsagent.workflows.action_claims import action_claims
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import INVENTORY, failed, judged_lead, only_the_right, rows_of


def test_is_anyone_working_on_a_ticket_is_read_from_its_assignee() -> None:
    results = evidence("list_incidents", text="WH_FINANCE")
    [row] = rows_of(results)
    judged_lead("is anyone actually working the WH_FINANCE slowness ticket?", bool(row["assigned_to"]), results,
                f" — {row['number']} is {row['state']}.")


def test_someone_assigned_is_a_filter_and_anyone_who_opened_a_ticket_is_not() -> None:
    def assignees(question: str) -> list[list[str]]:
        analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
        return [item.values for item in analysis.filters if item.field == "assignee"]

    assert assignees("has anybody picked up the p1?") == [["any_assignee"]]
    assert assignees("tickets nobody has picked up") == [["unassigned"]]
    assert assignees("did anyone open an incident for the finance load failure?") == []


def test_a_service_and_a_region_as_written_are_applied_by_a_regional_health_check() -> None:
    results = evidence("check_azure_service_health", region="weu")
    [factory] = [row for row in rows_of(results) if row.get("name") == "Data Factory" and row.get("region") == "West Europe"]
    judged_lead("is adf healthy in weu?", factory["status"] == "operational", results, " — Data Factory in West Europe.")


def test_a_count_of_pipelines_is_a_count_of_distinct_pipelines_not_of_errors() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(results)
    pipelines = {row["pipeline_name"] for row in rows}
    wrong = len({row["error_message"] for row in rows})  # a count of different errors, not of pipelines
    assert wrong != len(pipelines)
    question = "how many pipelines failed in the last 24h?"
    only_the_right(question, "{} pipelines failed in the last 24 hours.", len(pipelines), wrong, results, "number")
    assert not failed(question, f"{len(rows)} pipeline runs failed in the last 24 hours.", results, "number")
    runs_each = [sum(1 for row in rows if row["pipeline_name"] == name) for name in pipelines]
    twice = sum(1 for count in runs_each if count == 2)
    assert twice and not failed(question, f"{twice} pipelines failed twice.", results, "number")


def test_an_act_done_for_the_user_or_a_person_told_is_an_action_claim() -> None:
    assert action_claims("✅ INC0010052 acknowledged and reassigned to you.") == ["reassign"]
    assert action_claims("Elif has been notified.") == ["page"]
    assert action_claims("Leila has been paged by the NOC at 07:10.") == []  # a record's history: who did it
    assert action_claims("The window planned for you is 17:00 to 19:00.") == []
    assert action_claims("I can't page anyone; Elif has not been notified.") == []


def test_what_holds_a_ticket_on_hold_is_in_its_own_text() -> None:
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    [held] = re.findall(r"[Oo]n hold awaiting ([^,.]+)", row["description"])
    invented = "the vendor to renew an expired certificate"
    assert not any(word in str(row).lower() for word in ("vendor", "renew", "expired", "certificate"))
    question = "why is inc0010048 on hold?"
    assert not failed(question, f"It's on hold waiting for {held}.", results, "link")
    assert failed(question, f"It's on hold waiting for {invented}.", results, "link")



def test_a_hold_until_a_time_already_given_names_no_cause() -> None:
    """"CHG… is planned for Monday, so INC… stays on hold until at least then": "then" is the time just given."""
    results = evidence("list_change_requests", configuration_item="sqlmi-prod-weu")
    change = rows_of(results)[0]["number"]
    question = "whats the change number for that and when is it?"
    assert not failed(question, f"{change} is planned, so the ticket stays on hold until at least then.", results,
                      "link")
    assert failed(question, f"{change} is planned, so the ticket stays on hold until the vendor renews a certificate.",
                  results, "link")


def test_the_record_an_answer_identifies_goes_with_what_the_question_names() -> None:
    results = evidence("list_incidents", state="open", priority=2)
    rows = rows_of(results)
    right = next(row["number"] for row in rows if "pl_ingest_sales" in str(row))
    wrong = next(row["number"] for row in rows if "pl_ingest_sales" not in str(row))
    only_the_right("which ticket covers the pl_ingest_sales failures?", "It's **{}**, the open P2.", right, wrong,
                   results, "link")


def test_a_value_after_its_field_label_belongs_to_the_record_before() -> None:
    results = evidence("list_incidents", text="packet loss")
    [row] = rows_of(results)
    other = 3 if row["priority"] != 3 else 2
    only_the_right("whats the priority on the vpn packet loss ticket and who has it",
                   f"**{row['number']}** — **Priority:** P{{}} · **State:** {row['state']}", row["priority"], other,
                   results, "value")


def test_a_colon_after_a_sentence_still_starts_the_list_it_introduces() -> None:
    results = evidence("list_incidents", priority=2)
    rows = rows_of(results)
    assert all(row["assigned_to"] for row in rows)
    top = min(rows, key=lambda row: row["priority"])
    text = (f"No — all {len(rows)} open P1/P2 tickets have an owner: {top['assigned_to'].split()[0]} has the "
            f"P{top['priority']} ({top['number']}).")
    assert not failed("are any of the p1/p2s unassigned?", text, results)


def test_a_search_with_no_window_holds_every_time_a_none_is_said_of() -> None:
    results = evidence("list_incidents", state="all", text="pl_load_finance_dwh")
    opened = {row["opened_at"][:10] for row in rows_of(results)}
    question = "was any incident raised for pl_load_finance_dwh this morning?"
    said = "No incident was raised for pl_load_finance_dwh this morning."
    assert bool(failed(question, said, results, "negative_claim")) == (NOW.date().isoformat() in opened)
    today = evidence("list_incidents", state="all", text="pl_ingest_sales")
    assert any(row["opened_at"][:10] == NOW.date().isoformat() for row in rows_of(today))
    assert failed(question.replace("pl_load_finance_dwh", "pl_ingest_sales"),
                  said.replace("pl_load_finance_dwh", "pl_ingest_sales"), today, "negative_claim")


def test_no_sign_of_it_is_the_answers_no_not_a_claim_that_nothing_matched() -> None:
    results = evidence("query_pipeline_status", pipeline_name="pl_copy_erp_orders", time_window="last 24 hours")
    [row] = rows_of(results)
    question = "did the shir upgrade yesterday break erp orders?"
    assert not failed(question, f"No sign of it. It ran {row['runs']} times and {row['failed']} failed.", results,
                      "negative_claim")


def test_open_before_an_article_is_the_verb_not_the_state() -> None:
    def states(question: str) -> list[list[str]]:
        analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
        return [item.values for item in analysis.filters if item.field == "incident_state"]

    assert states("did anyone open an incident for the finance load failure?") == []
    assert states("any open incidents on vm-shir-01?") == [["open"]]


def test_a_negation_about_no_kind_of_record_is_a_detail_not_a_claim_that_nothing_matched() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours", pipeline_name="pl_export_marketing")
    [row] = rows_of(results)
    question = "what code did the marketing upload fail with last night?"
    detail = "The call to the audiences API timed out and no HTTP status came back."
    assert not failed(question, detail, results, "negative_claim")
    assert row["error_code"]  # a failed run was found, so "nothing failed" is still a claim, and wrong
    assert failed(question, "Nothing failed in the last 24 hours.", results, "negative_claim")


def test_an_iso_window_written_with_its_end_time_alone_is_times_not_numbers() -> None:
    results = evidence("get_change_request", number="CHG0030016")
    [row] = rows_of(results)
    start, end = row["start_date"], row["end_date"]
    assert str(int(end[11:13])) not in re.findall(r"\d+", str({**row, "end_date": "", "start_date": ""}))
    question = "what day is the snowflake upgrade?"
    assert not failed(question, f"It runs {start[11:16]}–{end[11:16]} UTC ({start} → {end[11:]}).", results, "number")


def test_a_state_word_after_another_noun_and_a_moment_word_is_that_moment() -> None:
    results = evidence("get_incident", number="INC0010042")
    [row] = rows_of(results)
    assert row["state"] != "Closed"
    question = "did tuesday's vpn firmware change cause INC0010042?"
    assert not failed(question, f"{row['number']} was opened 44 hours after that window closed.", results, "value")
    assert failed(question, f"{row['number']} is closed.", results, "value")


def test_a_negation_told_again_from_a_records_own_error_is_no_claim_that_nothing_matched() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours", pipeline_name="pl_ingest_sales")
    rows = rows_of(results)
    [file] = {name for row in rows for name in re.findall(r"'(\w+\.csv)'", row["error_message"])}
    assert all("find" in row["error_message"].lower() for row in rows)
    question = "did the firewall change break pl_ingest_sales?"
    said = f"All {len(rows)} failures are the same {rows[0]['error_code']} — source file {file} not found."
    assert not failed(question, said, results, "negative_claim")
    assert failed(question, "Source file orders.csv not found, and nothing else failed.", results, "negative_claim")


def test_the_other_n_is_the_rows_less_those_the_answer_names() -> None:
    results = evidence("check_snowflake_health")
    [degraded] = [row for row in rows_of(results) if row.get("kind") == "component"]  # a report lists problems
    [counted] = re.findall(r"(\d+) of (\d+) components", results[0].evidence[0].message)
    total = int(counted[1])
    question = "is snowflake healthy rn?"
    text = "{} is {}. The other {{}} components are operational.".format(degraded["name"], degraded["status"])
    only_the_right(question, text, total - 1, total - 3, results, "number")


def test_a_weekday_a_change_is_planned_for_is_its_own_coming_or_last_one() -> None:
    results = evidence("get_change_request", number="CHG0030021")
    [row] = rows_of(results)
    start = datetime.fromisoformat(row["start_date"].replace("Z", "+00:00"))
    assert start > NOW  # a change still to come
    right, wrong = start.strftime("%A"), (start + timedelta(days=1)).strftime("%A")
    only_the_right("when is the shir change?", f"{row['number']} is planned for {{}}.", right, wrong, results, "placement")


def test_a_request_to_move_a_change_is_an_action_and_a_reported_move_is_an_action_claim() -> None:
    analysis = analyse_question("move CHG0030021 to sunday, same time", now=NOW, inventory=INVENTORY)
    assert analysis.action is not None and analysis.action.targets == ["CHG0030021"]
    assert action_claims("Rescheduled: CHG0030021 now runs Sunday.") == ["reschedule"]
    assert action_claims("Resolved: INC0010014 on 28 Dec.") == []  # a record's own state as a heading


def test_a_fix_by_that_change_points_at_the_change_the_record_names_by_number() -> None:
    """"the proxy will be fixed by that change, so it stays on hold until then": the ticket's text names the fixing
    change by its number; a consequence after ", so" is no part of the cause."""
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    assert re.search(r"fixed by CHG\d+", row["work_notes"]), "the demo ticket names its fix by number"
    question = "which change is gonna fix the proxy for good?"
    said = "The work notes say the proxy will be fixed by that change, so INC0010048 stays on hold until then."
    assert not failed(question, said, results, "link")
    assert failed(question, said.replace("that change", "a firewall rule rollback"), results, "link")


def test_a_state_to_come_is_a_condition_not_the_records_state() -> None:
    """"INC… stays On Hold until it's done", "rerun once the status page shows Jobs operational": what is awaited,
    not what the record or the page says now (the same state said now is checked)."""
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    question = "which change fixes the proxy, and when?"
    said = f"{row['number']} stays {row['state']} until it's done."
    assert not failed(question, said, results, "value") and not failed(question, said, results, "link")
    assert failed(question, f"{row['number']} is done.", results, "value")
    health = evidence("check_databricks_health")
    degraded = next(item for item in rows_of(health) if item.get("kind") == "component" and item["status"] != "operational")
    question = "can i rerun c360 now?"
    assert not failed(question, f"I'd rerun once the status page shows {degraded['name']} operational.", health, "value")
    assert failed(question, f"The status page shows {degraded['name']} operational.", health, "value")


def test_nothing_newer_since_the_last_update_just_said_is_that_update() -> None:
    """"last updated at 05:20 — nothing newer on the ticket since then": the bound is the time said before the dash."""
    results = evidence("get_incident", number="INC0010042")
    [row] = rows_of(results)
    updated = datetime.fromisoformat(row["updated_at"].replace("Z", "+00:00"))
    question = "any update on it?"
    said = "It was last updated at {} — nothing newer on the ticket since then."
    only_the_right(question, said, f"{updated:%H:%M}", f"{updated + timedelta(hours=2):%H:%M}", results,
                   "negative_claim")


def test_a_component_word_inside_a_condition_is_no_status_of_it() -> None:
    """"If you have jobs against a North Europe instance, expect reconnects until the maintenance ends": what the
    user may have and what is to come, not a status of the Jobs component (which this report does not list)."""
    results = evidence("check_azure_service_health", service="SQL Managed Instance")
    question = "is sql managed instance healthy in both regions?"
    analysis = analyse_question(question, now=NOW)

    def unlisted(text: str) -> bool:
        return any(check.kind == "value" and not check.passed for check in evaluate(
            text, results, analysis=analysis, question=question, known_names=("Jobs",)))

    assert not unlisted("If you have jobs against a North Europe instance, expect brief reconnects until the "
                        "maintenance ends.")
    assert unlisted("Jobs is in maintenance in North Europe.")


def test_a_state_that_may_be_and_a_state_word_as_a_verb_are_no_state_claims() -> None:
    """"check whether INC… can be resolved", "add the run to INC… rather than open a new ticket": what may be done,
    not the ticket's state (which, said plainly, is still checked)."""
    results = evidence("get_incident", number="INC0010054")
    [row] = rows_of(results)
    assert row["state"] == "New"
    question = "should i raise a ticket for the finance failure?"
    for said in ("Once the window closes I'd check whether INC0010054 can be resolved.",
                 "I'd add the failed 04:00 run to INC0010054 rather than open a new ticket."):
        assert not failed(question, said, results, "value")
    assert failed(question, "INC0010054 is resolved.", results, "value")


def test_a_window_said_beside_a_ticket_is_not_held_to_the_tickets_times() -> None:
    """"Window is 08:00–11:00 UTC; once it closes, check INC…": the times of a change's window (told earlier or
    shown by a search), not the ticket's own; a time nothing shows is still caught."""
    results = evidence("list_change_requests", state="open") + evidence("get_incident", number="INC0010046")
    change = next(row for row in rows_of(results[:1]) if row["configuration_item"] == "fw-hub-weu")
    start, end = change["start_date"][11:16], change["end_date"][11:16]
    said = "Window is {}–" + end + " UTC; once it closes I'd check INC0010046."
    only_the_right("is the firewall change behind INC0010046?", said, start, "06:25", results, "placement")
