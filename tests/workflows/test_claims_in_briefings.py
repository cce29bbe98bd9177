"""Long answers as assistants write briefings and histories: clauses that change subject ("…, and CHG… runs …"),
a pronoun for the record named just before, lists in parentheses, "none of them", a count of "the other" ones, a
count bounded by "since", a count of different CIs, an activity's own length, "the same error as", who a record is
assigned to, health statements with a region each. Evidence comes from the real tools on the demo data; each
oracle is computed from its rows (the statement the rows back passes, the altered one fails)."""

from __future__ import annotations

from datetime import timedelta

from opsagent.contracts.evidence import TaskResult
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, judged_lead, only_the_right, rows_of


def both(*results: list[TaskResult]) -> list[TaskResult]:
    return [item for result in results for item in result]


def clock(value: str) -> str:
    moment = iso_moment(value)
    assert moment is not None
    return f"{moment:%H:%M}"


def test_a_clause_that_names_another_record_after_and_starts_a_new_statement() -> None:
    results = evidence("list_change_requests", state="open", window="next 12 hours")
    rows = rows_of(results)
    waiting = next(row for row in rows if row["approval"] == "requested")
    approved = next(row for row in rows if row["approval"] == "approved")
    question = "anything coming up on the change calendar?"
    text = (f"{{first}} is due at {clock(waiting['start_date'])} but still waiting for approval, and {{second}} runs "
            f"{clock(approved['start_date'])} to {clock(approved['end_date'])}.")
    assert not failed(question, text.format(first=waiting["number"], second=approved["number"]), results, "value")
    assert failed(question, f"{approved['number']} is still waiting for approval.", results, "value")


def test_it_in_a_clause_after_one_about_a_record_is_that_record() -> None:
    results = evidence("list_incidents", configuration_item="fw-hub-weu")
    [row] = rows_of(results)
    other = "On Hold" if row["state"] != "On Hold" else "In Progress"
    only_the_right("whats open on fw-hub-weu?", f"{row['number']} is a P{row['priority']}; it's {{}} for now.",
                   row["state"], other, results, "value")


def test_who_a_record_is_assigned_to_is_its_rows_assignee() -> None:
    results = evidence("list_incidents", state="open", assignment_group="Data Platform Ops")
    rows = rows_of(results)
    owned = next(row for row in rows if row.get("assigned_to"))
    someone_else = next(row["assigned_to"] for row in rows_of(evidence("list_incidents", state="open"))
                        if row.get("assigned_to") and row["assigned_to"].split()[0] != owned["assigned_to"].split()[0])
    question = "who has the DPO tickets?"
    first = owned["assigned_to"].split()[0]
    assert not failed(question, f"{owned['number']} is assigned to {first}.", results, "value")
    assert failed(question, f"{owned['number']} is assigned to {someone_else.split()[0]}.", results, "value")


def test_a_dash_inside_parentheses_does_not_end_the_statement() -> None:
    results = evidence("list_incidents", state="open", assignment_group="Analytics Engineering")
    first, second = rows_of(results)[:2]
    text = (f"{first['number']} (P{first['priority']} - {first['short_description']}) and {second['number']} "
            f"(P{second['priority']} - {second['short_description']}).")
    assert not failed("what does analytics engineering have open?", text, results)


def test_none_of_them_is_read_over_every_row_shown() -> None:
    results = evidence("list_incidents", state="resolved, closed", resolved_within="this week")
    states = {row["state"] for row in rows_of(results)}
    question = "anything resolved or closed this week?"
    for state in ("Closed", "Resolved"):
        said = f"{len(states)} were resolved this week; none of them has been {state.lower()} yet."
        assert bool(failed(question, said, results, "negative_claim")) == (state in states)


def test_the_other_ones_are_counted_without_those_named() -> None:
    results = evidence("list_incidents", state="open", assigned_to="unassigned", opened_within="today")
    rows = rows_of(results)
    named = rows[0]
    text = f"{named['number']} came in unassigned. The other {{}} unassigned tickets from today are still New or later."
    only_the_right("any unassigned tickets that came in today?", text, len(rows) - 1, len(rows) + 1, results,
                   "number")


def test_a_count_bounded_by_since_counts_the_rows_after_it() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours", pipeline_name="pl_ingest_sales")
    starts = sorted(iso_moment(row["start"]) for row in rows_of(results))
    bound = starts[0].replace(minute=0)  # the hour the first failure fell in: a bound the writer chose
    after = sum(start >= bound for start in starts)
    only_the_right("is the sales pipeline still failing?", f"pl_ingest_sales has failed {{}} times since "
                   f"{bound:%H:%M}.", after, after + 1, results, "placement")


def test_a_count_of_different_cis_is_the_number_of_distinct_cis() -> None:
    results = evidence("list_incidents", state="open", assignment_group="Data Platform Ops")
    rows = rows_of(results)
    cis = {row["configuration_item"] for row in rows}
    only_the_right("how many open tickets has data platform ops got, and on how many different CIs?",
                   f"{len(rows)} open incidents across {{}} CIs.", len(cis), len(cis) + 1, results, "number")


def test_how_long_an_activity_took_is_a_length_of_the_data() -> None:
    run = next(row for row in rows_of(evidence("list_failed_pipelines", time_window="last 24 hours"))
               if row["pipeline_name"] == "pl_load_finance_dwh")
    results = evidence("get_pipeline_run_details", run_id=run["run_id"])
    activity = rows_of(results)[0]["activities"][0]
    minutes = int((iso_moment(activity["end"]) - iso_moment(activity["start"])).total_seconds() // 60)
    only_the_right("how long did the finance load run before it died?",
                   f"{activity['activity_name']} alone took {{}} minutes.", minutes, minutes + 7, results, "number")


def test_the_same_error_as_is_backed_by_two_rows_sharing_it() -> None:
    runs = evidence("list_failed_pipelines", time_window="last 24 hours", pipeline_name="pl_ingest_sales")
    codes = [row["error_code"] for row in rows_of(runs)]
    assert len(codes) > len(set(codes))  # the data: the failures share an error
    question = "did the sales ingest fail the same way each time?"
    said = "The 08:12 failure is the same error as the two before it."
    assert not failed(question, said, runs, "comparison")
    one = evidence("get_pipeline_run_details", run_id=rows_of(runs)[0]["run_id"])
    assert failed(question, said, one, "comparison")  # the other side was never fetched


def test_a_lead_over_two_searches_each_applying_one_qualifier_reads_the_rows() -> None:
    p1 = evidence("list_incidents", priority=1, priority_match="exactly")
    team = evidence("list_incidents", assignment_group="Data Platform Ops")
    yes = any(row["assignment_group"] == "Data Platform Ops" for row in rows_of(p1))
    judged_lead("is anyone from data platform ops on the p1?", yes, both(p1, team), " — see the tickets below.")


def test_health_statements_with_a_region_each_are_read_apart() -> None:
    results = evidence("check_azure_service_health")
    problems = [row for row in rows_of(results) if row.get("kind") == "component" and row["status"] != "operational"]
    first, second = problems[:2]
    assert first["region"] != second["region"] and first["status"] != second["status"]
    question = "anything going on with azure?"
    said = (f"Azure lists the {first['name']} issue in {first['region']} and planned {second['name']} "
            f"{second['status']} in {second['region']}.")
    assert not failed(question, said, results, "value")
    assert failed(question, f"{first['name']} is {second['status']} in {first['region']}.", results, "value")


def test_a_component_named_after_its_cloud_is_not_the_cloud() -> None:
    results = evidence("check_azure_service_health", region="North Europe")
    fine = [row["name"] for row in rows_of(results) if row.get("kind") == "component" and row["status"] == "operational"]
    assert "Azure Databricks" in fine
    question = "anything going on with azure in north europe?"
    assert not failed(question, f"{', '.join(fine)} are all operational there.", results, "value")
    assert failed(question, "Every Azure service in North Europe is operational.", results, "value")


def test_a_state_outside_a_run_in_a_window_is_not_a_run_placed_in_it() -> None:
    results = both(evidence("get_change_request", number="CHG0030017"),
                   evidence("query_pipeline_status", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours"))
    question = "why did the crm copy fail?"
    assert not failed(question, "CHG0030017 left the integration runtime offline during its window, so "
                                "pl_copy_crm_accounts failed twice.", results, "placement")
    assert failed(question, "pl_copy_crm_accounts failed during CHG0030017's window.", results, "placement")


def test_a_schedule_and_a_lateness_are_no_claims_of_cause_or_state() -> None:
    change = evidence("get_change_request", number="CHG0030022")
    [row] = rows_of(change)
    question = "approve CHG0030022"
    assert not failed(question, f"Its window is {clock(row['start_date'])} to {clock(row['end_date'])} UTC, so it is "
                                "due to start in about an hour.", change, "link")
    assert failed(question, "CHG0030022 is late due to a failed approval by the CAB.", change, "link")
    resolved = evidence("list_incidents", state="resolved, closed", resolved_within="this week")
    late = next(row for row in rows_of(resolved) if "delayed" in row["short_description"])
    pipeline = late["short_description"].split()[0]
    assert not failed("what was fixed?", f"{late['number']}: {pipeline} running 40 minutes late.", resolved, "value")


def test_a_closed_incident_was_fixed() -> None:
    results = evidence("get_incident", number="INC0010014")
    [row] = rows_of(results)
    assert row["state"] in ("Resolved", "Closed")
    assert not failed("was it fixed?", f"{row['number']} was fixed.", results, "value")
    open_one = evidence("get_incident", number="INC0010049")
    assert failed("was it fixed?", "INC0010049 was fixed.", open_one, "value")


def test_the_new_as_an_adjective_is_not_the_state_new() -> None:
    results = evidence("get_change_request", number="CHG0030015")
    [row] = rows_of(results)
    assert row["state"] != "New"
    question = "what does CHG0030015 do?"
    assert not failed(question, "CHG0030015 adds a rule collection for the new analytics subnet.", results, "value")
    assert failed(question, "CHG0030015 is New.", results, "value")


def test_a_yes_that_counts_counts_the_rows_having_what_was_asked() -> None:
    results = evidence("list_incidents", state="open", assigned_to="unassigned", opened_within="today")
    rows = rows_of(results)
    p3 = [row for row in rows if row["priority"] == 3]
    assert 1 <= len(p3) < len(rows)  # the data: the wider search holds other priorities too
    only_the_right("any unassigned p3s that came in today?", "Yes, {} came in today and nobody has them.", len(p3),
                   len(rows), results, "lead")


def test_names_and_groups_in_the_same_order_are_paired_respectively() -> None:
    results = evidence("list_incidents", state="open", priority=3, priority_match="exactly")
    by_team: dict[str, list[str]] = {}
    for row in rows_of(results):
        by_team.setdefault(row["assignment_group"], []).append(row["number"])
    first, second = [team for team, numbers in by_team.items() if len(numbers) == 2][:2]
    groups = f"{' and '.join(by_team[first])}; {' and '.join(by_team[second])}"
    swapped = f"{' and '.join(by_team[second])}; {' and '.join(by_team[first])}"
    said = f"{first} and {second} have two each ({{}})."
    def links_failed(text: str) -> bool:
        return any(not check.passed and check.kind == "link" for check in evaluate(text, results, known_names=by_team))
    assert not links_failed(said.format(groups)) and links_failed(said.format(swapped))


def test_values_after_a_record_and_a_dash_are_that_records_not_a_pipeline_named_later() -> None:
    results = evidence("list_incidents", configuration_item="dbx-prod-weu")
    row = next(row for row in rows_of(results) if row.get("assigned_to") and row["state"] == "In Progress")
    said = (f"{row['number']} — {row['assigned_to'].split()[0]}'s P{row['priority']}, in progress, for the slow "
            f"job clusters in West Europe and the failing pl_transform_customer360 notebook.")
    assert not failed("which ticket tracks the customer360 failures?", said, results, "value")


def test_whether_one_thing_is_why_another_fails_is_not_whether_it_fails() -> None:
    results = both(evidence("get_pipeline_run_details", pipeline_name="pl_ingest_sales"),
                   evidence("check_databricks_health"))
    [run] = rows_of(results[:1])
    assert run["status"] == "Failed"  # "does it keep failing?" would be a yes
    question = "is the databricks mess why pl_ingest_sales keeps failing?"
    assert not failed(question, "No, that's a coincidence of timing.", results, "lead")


def test_nothing_about_a_word_in_the_error_reads_the_errors_words() -> None:
    results = both(evidence("get_pipeline_run_details", pipeline_name="pl_ingest_sales"),
                   evidence("check_databricks_health"))
    error = next(row["error_message"] for row in rows_of(results) if row.get("error_message")).lower()
    question = "is the databricks mess why ingest_sales keeps failing?"
    said = "The failing step can't find its file - nothing about {} in the error."
    assert "cluster" not in error and "file" in error
    only_the_right(question, said, "clusters", "files", results, "negative_claim")


def test_a_run_placed_in_a_window_by_its_clock_time_is_that_run() -> None:
    results = both(evidence("get_change_request", number="CHG0030017"),
                   evidence("list_failed_pipelines", time_window="since 2025-01-09T12:00Z",
                            pipeline_name="pl_copy_crm_accounts"))
    [change], rows = rows_of(results[:1]), rows_of(results[1:])
    window = (iso_moment(change["start_date"]), iso_moment(change["end_date"]))
    runs = [iso_moment(row["start"]) for row in rows]
    inside = next(moment for moment in runs if window[0] <= moment < window[1])
    outside = next(moment for moment in runs if not window[0] <= moment < window[1])
    question = "was the midnight crm copy failure inside the shir upgrade window?"
    only_the_right(question, "The {} failure of pl_copy_crm_accounts fell inside CHG0030017's planned window.",
                   f"{inside:%H:%M}", f"{outside:%H:%M}", results, "placement")
    hours = round((outside - window[1]).total_seconds() / 3600)
    assert not failed(question, f"No. The {outside:%H:%M} failure came about {hours} hours after it closed.", results)


def test_a_value_a_records_text_says_in_other_words_is_restated() -> None:
    results = evidence("find_similar_incidents", pipeline_name="pl_copy_supplier_invoices")
    [row] = rows_of(results)
    assert "successfully" in row["fix"]  # the record says the rerun succeeded, in its own words
    question = "how'd we fix the supplier sftp failure last time?"
    assert not failed(question, f"{row['number']}: the pl_copy_supplier_invoices run was repeated, which worked.",
                      results, "value")


def test_a_pipelines_run_counts_after_a_colon_and_a_records_own_title_are_no_claims_of_the_writer() -> None:
    status = evidence("query_pipeline_status", time_window="last 24 hours")
    row = next(row for row in rows_of(status) if row["failed"] == 0 and row["runs"] > 1)
    said = f"{row['pipeline_name']}: 0 of {row['runs']} runs failed, last run {row['last_status']}."
    assert not failed("how are the pipelines doing?", said, status, "value")
    similar = evidence("find_similar_incidents", text="key vault access policy change")
    titled = next(item for item in rows_of(similar) if " broke " in item["short_description"])
    quoted = f"{titled['number']}: {titled['short_description']}; see also CHG0030015."
    assert not failed("seen this before?", quoted, similar, "link")


def test_a_table_cell_after_a_ticket_and_a_dash_is_that_tickets_title() -> None:
    """"| Amira | INC… — pl_ingest_sales source file not found | P2 | In Progress |": the state is the ticket's, not
    the pipeline's its title names; another state for the ticket is caught."""
    results = evidence("list_incidents", assignment_group="Data Platform Ops")
    row = next(row for row in rows_of(results) if "pl_" in row["short_description"])
    other = next(state for state in ("On Hold", "In Progress", "New") if state != row["state"])
    table = ("| who | ticket | prio | state |\n|---|---|---|---|\n"
             f"| {row['assigned_to']} | {row['number']} — {row['short_description']} | P{row['priority']} | {{}} |")
    only_the_right("who's carrying what in the queue?", table, row["state"], other, results, "value")


def test_a_consequence_after_so_has_a_subject_of_its_own() -> None:
    """"Yesterday's only failed run was pl_copy_crm_accounts at 18:12, so sales didn't fail yesterday": the "didn't
    fail" is the consequence's subject's, not the run named before the comma (whose failure stays checked)."""
    results = evidence("list_failed_pipelines", time_window="yesterday")
    [run] = rows_of(results)[:1]
    assert all(row["pipeline_name"] != "pl_ingest_sales" for row in rows_of(results))
    question = "sales ingest — been failing since yesterday or just today?"
    said = f"Yesterday's only failed run was {run['pipeline_name']} at {clock(run['start'])} UTC, so sales didn't fail."
    assert not failed(question, said, results, "value")
    assert failed(question, f"{run['pipeline_name']} didn't fail yesterday, so sales didn't either.", results, "value")


def test_a_window_said_in_the_sentence_after_a_change_is_that_changes() -> None:
    """"That's CHG…. It's planned for 09:00–14:00 UTC": "it" is the change named before, and a window's bounds are
    its own times — even a bound that happens to be the clock's time now (09:00), which a time the question gave
    may otherwise restate."""
    results = evidence("get_change_request", number="CHG0030012")
    [change] = rows_of(results)
    start, end = clock(change["start_date"]), clock(change["end_date"])
    assert start != f"{NOW:%H:%M}"
    said = f"That's {change['number']}, {change['short_description']}. It's planned for {{}}–{end} UTC."
    only_the_right("and the runtime upgrade this weekend, when exactly?", said, start, f"{NOW:%H:%M}", results,
                   "placement")


def test_a_run_placed_right_as_a_window_closed_started_within_the_hour_after_its_end() -> None:
    """"the failing run started at 04:00, right as the change window closed" when the window closed at 04:00 a day
    earlier: the run's own start decides, not its clock time alone."""
    change = evidence("get_change_request", number="CHG0030024")
    [window] = rows_of(change)
    end = iso_moment(window["end_date"])
    assert end is not None
    question = "did CHG0030024 break the finance load?"
    said = (f"{window['number']} ran until {end:%H:%M}. The pl_load_finance_dwh run started at {end:%H:%M}, right as "
            "the change window closed.")
    runs = evidence("list_pipeline_runs", pipeline_name="pl_load_finance_dwh", time_window="last 7 days")
    assert any(iso_moment(row["start"]) == end for row in rows_of(runs))
    assert not failed(question, said, both(change, runs), "placement")
    failures = evidence("list_failed_pipelines", pipeline_name="pl_load_finance_dwh", time_window="last 7 days")
    assert all(iso_moment(row["start"]) != end for row in rows_of(failures))
    assert failed(question, said.replace("The pl_", "The failing pl_"), both(change, failures), "placement")


def test_it_after_a_change_that_speaks_of_runs_is_not_the_change() -> None:
    """"CHG… ran 17:00–19:00. It's no longer failing — the 06:12 run succeeded": "it" is the pipeline, whose run
    time the change's rows do not hold."""
    results = both(evidence("get_change_request", number="CHG0030017"),
                   evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="today"))
    [change] = rows_of(results[:1])
    run = next(row for row in rows_of(results[1:]) if row["status"] == "Succeeded")
    said = (f"{change['number']} ran {clock(change['start_date'])}–{clock(change['end_date'])}. It's no longer failing "
            f"— the {{}} run succeeded.")
    only_the_right("is crm still failing since the upgrade?", said, clock(run["start"]), "03:33", results, "placement")


def test_a_tickets_title_after_a_dash_is_no_status_of_a_component() -> None:
    """"INC… (P4, New) — notebooks slow to attach: Notebooks shows operational": the ticket's own title says what was
    reported; what the status page shows is said after the colon and checked."""
    results = both(evidence("list_incidents", configuration_item="dbx-prod-weu"),
                   evidence("check_databricks_health", region="weu"))
    ticket = next(row for row in rows_of(results[:1]) if "slow" in row["short_description"].lower()
                  and "notebook" in row["short_description"].lower())
    title = " ".join(ticket["short_description"].split()[:4]).lower()
    component = next(row for row in rows_of(results[1:]) if row.get("kind") == "component"
                     and str(row["name"]).lower().startswith("notebook"))
    other = "degraded" if component["status"] == "operational" else "operational"
    said = f"- {ticket['number']} (P{ticket['priority']}, {ticket['state']}) — {title}: {component['name']} shows {{}}."
    only_the_right("how many open tickets on dbx-prod-weu rn?", said, component["status"], other, results, "value")


def test_it_after_a_ticket_that_speaks_of_a_status_page_keeps_the_pages_times() -> None:
    """"INC0010050 is Priya's P2. It's tied to the Jobs degradation in West Europe that began at 02:00": the time is
    the status page's (a review found the ticket's "it" had taken it); a time neither shows is still caught."""
    results = both(evidence("get_incident", number="INC0010050"), evidence("check_databricks_health"))
    began = next(row for row in rows_of(results[1:]) if row.get("kind") == "component" and row["status"] != "operational")
    said = "INC0010050 is Priya's P2, In Progress. It's tied to the Databricks Jobs degradation that began at {}."
    only_the_right("whats INC0010050?", said, clock(began["since"]), "05:55", results, "placement")


def test_an_aside_in_parentheses_after_a_full_stop_is_a_sentence_of_its_own() -> None:
    """"INC… is P3, New, not assigned yet. (The only other ticket, INC…, is Closed.)": the first sentence's values are
    not the aside's ticket's; the aside's own state is still checked."""
    results = evidence("list_incidents", text="WH_FINANCE", state="all")
    first, other = rows_of(results)[:2]
    assert first["state"] != other["state"]
    said = (f"{first['number']} is P{first['priority']}, {first['state']}, not assigned to anyone yet. (The only other "
            f"WH_FINANCE ticket, {other['number']}, is {{}}.)")
    only_the_right("anything open for WH_FINANCE?", said, other["state"], first["state"], results, "value")


def test_new_before_a_capitalised_word_is_the_adjective() -> None:
    """"fixed by storing the supplier's new SFTP credentials": not the state New of the ticket named."""
    results = evidence("get_incident", number="INC0010021")
    [row] = rows_of(results)
    assert row["state"] != "New"
    only_the_right("seen the supplier sftp thing before?", f"{row['number']} {{}}.",
                   "was fixed by storing the supplier's new SFTP credentials", "is new", results, "value")


def test_an_hour_the_question_typed_alone_may_be_said_as_a_clock() -> None:
    """"page her, the dashboard is due at 10" → "Exec dashboard due 10:00": the question's time, not a row's."""
    results = evidence("get_incident", number="INC0010050")
    said = "Something like: 'Exec dashboard due {} — any ETA on the rerun?'"
    only_the_right("page her, the exec dashboard is due at 10", said, "10:00", "10:40", results, "placement")


def test_every_run_since_a_clock_time_is_each_run_after_it() -> None:
    """"every pl_copy_crm_accounts run since the window closed at 19:00 has succeeded": each run that started after
    the last 19:00 must have (a failure at 00:10 makes it false); a bound after the last failure makes it true."""
    results = evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours")
    rows = rows_of(results)
    last_failure = max(iso_moment(row["start"]) for row in rows if row["status"] == "Failed")
    question = "did the fix hold? crm accounts been ok since the restart?"
    said = "Yes — every pl_copy_crm_accounts run since {} UTC has succeeded."
    only_the_right(question, said, f"{last_failure + timedelta(minutes=5):%H:%M}",
                   f"{last_failure - timedelta(minutes=5):%H:%M}", results, "value")
