"""Shapes a blind set of handover-style answers (dev15: long true answers with one lie in them) showed the checks
blocking true statements: a "none" about one factory from a search of every factory, "no error" of a run whose
error fields are empty, "nothing degraded" over a whole health listing, a sentence retelling an error message
(its "cancelled" is the message's word), a run looked up by id as the pipeline the question names, a file name
before the error's own "not found", a ticket quiet "for more than a day", "no ETA in the ticket". Evidence comes
from the real tools on the demo data; each oracle is computed from its rows, and each shape's lie is caught."""

from __future__ import annotations

from datetime import timedelta

from opsagent.backends.pipeline_records import PipelineInfo
from opsagent.contracts.evidence import TaskResult
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, only_the_right, rows_of

FACTORIES = ("adf-prod-weu", "adf-prod-neu")


def failed_with_names(question: str, text: str, results: list[TaskResult], kind: str | None,
                      known: tuple[str, ...] = FACTORIES) -> list[str]:
    """``failed`` with inventory names known (as the runtime's grounding has them)."""
    analysis = analyse_question(question, now=NOW, inventory=InventorySnapshot())
    return [check.detail for check in evaluate(text, results, analysis=analysis, question=question, known_names=known)
            if not check.passed and kind in (None, check.kind)]


def test_a_none_about_one_factory_rests_on_a_complete_search_of_every_factory() -> None:
    question = "what failed in adf in the last 24h"
    results = evidence("list_failed_pipelines")
    rows = rows_of(results)
    assert rows and len(rows) == results[0].evidence[0].total
    seen = {row["factory"] for row in rows}
    quiet, busy = next(name for name in FACTORIES if name not in seen), next(name for name in FACTORIES if name in seen)
    for kind in ("negative_claim", "identifier"):
        assert not failed_with_names(question, f"All of them were in {busy}. Nothing failed in {quiet}.", results, kind)
        assert failed_with_names(question, f"Nothing failed in {busy}.", results, kind) if kind == "negative_claim" \
            else True
    # a search narrowed to the other factory says nothing of this one
    narrowed = evidence("list_failed_pipelines", factory=busy)
    assert failed_with_names(f"what failed in {busy} in the last 24h", f"Nothing failed in {quiet}.", narrowed,
                             "negative_claim")


def test_no_error_of_runs_whose_error_fields_are_empty() -> None:
    question = "anything queued or running in adf right now?"
    results = evidence("list_pipeline_runs", status="active")
    rows = rows_of(results)
    assert rows and all(not row["error_code"] and not row["error_message"] for row in rows)
    said = f"{rows[0]['pipeline_name']} is {rows[0]['status']} since {rows[0]['start'][11:16]}, no error."
    assert not failed(question, said, results, "negative_claim")
    runs = evidence("list_pipeline_runs", status="Failed")
    bad = rows_of(runs)[0]
    assert bad["error_code"]
    assert failed("any failed runs today?", f"{bad['pipeline_name']} failed at {bad['start'][11:16]}, no error.", runs,
                  "negative_claim")


def test_nothing_degraded_is_no_row_of_a_complete_health_listing_in_that_state() -> None:
    question = "azure in north europe, anything degraded?"
    results = evidence("check_azure_service_health", region="north europe")
    statuses = {row.get("status") for row in rows_of(results) if row.get("kind") == "component"}
    absent = "degraded" if "degraded" not in statuses else "partial outage"
    present = next(status for status in statuses if status != "operational")
    only_the_right(question, "Nothing {}.", absent, present.replace("_", " "), results, "negative_claim")


def test_a_sentence_retelling_an_error_message_says_its_words_not_the_runs_status() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_load_finance_dwh")
    [row] = [row for row in rows_of(results) if row.get("status")]
    message = row["error_message"]
    assert "canceled" in message and row["status"] == "Failed"
    question = "why did the finance load fail?"
    retold = ("pl_load_finance_dwh: ERROR 57014, the statement reached its statement or warehouse timeout of 3,600 "
              "seconds on WH_FINANCE and was cancelled.")
    assert not failed(question, retold, results, "value")
    assert failed(question, "pl_load_finance_dwh was cancelled at 04:00.", results, "value")


def test_a_run_looked_up_by_its_id_is_a_run_of_the_pipeline_its_row_names() -> None:
    latest = evidence("get_pipeline_run_details", pipeline_name="pl_load_finance_dwh")
    run_id = rows_of(latest)[0]["run_id"]
    results = [*evidence("get_pipeline_run_details", run_id=run_id),  # this time, and last time
               *evidence("find_similar_incidents", pipeline_name="pl_load_finance_dwh")]
    question = "why did the finance load fail? same as last time with the suspended warehouse?"
    inventory = InventorySnapshot(pipelines=(PipelineInfo(name="pl_load_finance_dwh", factory="adf-prod-weu"),))
    analysis = analyse_question(question, now=NOW, inventory=inventory)
    assert [item.value for item in analysis.entities] == ["pl_load_finance_dwh"]  # "finance load", read as its name
    lead = "No — different this time: the run timed out after 62 minutes."
    assert not [check.detail for check in evaluate(lead, results, analysis=analysis, question=question)
                if check.kind == "lead" and not check.passed]


def test_a_file_name_before_the_errors_own_not_found_is_quoted_from_the_error() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales")
    message = rows_of(results)[0]["error_message"]
    assert "pos_export.csv" in message and "FileNotFound" in message
    question = "why is sales failing?"
    for row in ("| pl_ingest_sales | 2200 | {} not found |", "| 2200 in Copy_Sales | {} not found |",
                "customer360 = could not launch cluster, ingest_sales = {} not found.",  # whose error, then the error
                "pl_ingest_sales: {} not found."):
        only_the_right(question, row, "pos_export.csv", "sales_2025.csv", results, "negative_claim")


def test_a_ticket_quiet_for_more_than_a_length_is_its_last_update() -> None:
    opened = [row["number"] for row in rows_of(evidence("list_incidents", state="open", order="oldest"))]
    looked_up = [evidence("get_incident", number=number) for number in opened[:4]]
    results, quiet = min(((found, rows_of(found)[0]) for found in looked_up), key=lambda pair: pair[1]["updated_at"])
    idle = NOW - iso_moment(quiet["updated_at"])
    assert idle > timedelta(days=1), "the demo data has a ticket idle for over a day"
    said = f"{quiet['number']} was last updated {quiet['updated_at'][:16]}, so nothing has been written on it for {{}}."
    question = "any stale open tickets?"
    hours = int(idle.total_seconds() // 3600)
    only_the_right(question, said, "more than a day", f"more than {hours + 24} hours", results, "negative_claim")


def test_no_word_in_the_ticket_is_its_text_not_mentioning_it() -> None:
    results = evidence("get_incident", number="INC0010049")
    [row] = rows_of(results)
    text = " ".join(str(value) for value in row.values()).lower()
    present = next(word for word in ("sftp", "export", "rerun", "files") if word in text)
    assert "eta" not in text.split()
    question = "how long has INC0010049 been open?"
    only_the_right(question, "INC0010049 is In Progress. There's no {} in the ticket.", "ETA", present, results,
                   "negative_claim")


def test_nothing_unassigned_is_every_row_with_a_person() -> None:
    rows_by_group = {group: rows_of(evidence("list_incidents", state="open", assignment_group=group))
                     for group in ("Data Platform Ops", "Database Administration", "Cloud Infrastructure")}
    covered = next(group for group, rows in rows_by_group.items() if rows and all(row["assigned_to"] for row in rows))
    gap = next(group for group, rows in rows_by_group.items() if any(not row["assigned_to"] for row in rows))
    for group, backed in ((covered, True), (gap, False)):
        results = evidence("list_incidents", state="open", assignment_group=group)
        said = f"{len(rows_by_group[group])} open in {group}'s queue, nothing unassigned."
        assert bool(failed(f"what's in {group}'s queue?", said, results, "negative_claim")) != backed, group


def test_none_of_the_n_is_the_set_not_a_count_with_the_value() -> None:
    results = evidence("list_change_requests", state="scheduled")
    rows = rows_of(results)
    types = {row["type"] for row in rows}
    absent = next(kind for kind in ("emergency", "standard", "normal") if kind not in types)
    question = "anything risky going in over the weekend?"
    assert not failed(question, f"None of the {len(rows)} is an {absent} change.", results, "number")
    assert not failed(question, f"None of the {len(rows)} is an {absent} change.", results, "negative_claim")
    present = next(iter(types))
    assert failed(question, f"None of the {len(rows)} is a {present} change.", results, "negative_claim")


def test_failures_in_total_over_a_historys_groups_is_their_sum() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(results)
    counts = [group["count"] for group in row["failure_groups"]]
    assert len(counts) >= 2, "a history with two kinds of failure"
    total = sum(counts)
    others = {row["runs_searched"], *counts, len(counts), row["durations"]["successful_runs"]}
    wrong = next(number for number in range(total + 1, total + 20) if number not in others)
    only_the_right("has the finance load failed before?", f"{row['runs_searched']} runs in that history, {{}} failures "
                   "in total.", total, wrong, results, "number")


def test_a_day_of_the_month_after_its_weekday_is_a_date_not_a_number() -> None:
    saturday = (NOW + timedelta(days=(5 - NOW.weekday()) % 7)).replace(hour=0, minute=0)
    sunday = saturday + timedelta(days=1)
    results = evidence("list_change_requests", window=f"{saturday:%Y-%m-%dT%H:%MZ} to {sunday + timedelta(days=1):%Y-%m-%dT%H:%MZ}")
    count = len(rows_of(results))
    said = f"{{}} changes overlap Sat {saturday.day} – Sun {sunday.day} {sunday:%b}."
    assert saturday.day not in {count, count + 1}, "the day must not be the count itself"
    only_the_right("anything over the weekend?", said, count, count + 1, results, "number")


def test_every_sentence_of_a_bullet_led_by_its_record_is_about_that_record() -> None:
    results = evidence("list_change_requests", state="open")
    row = next(row for row in rows_of(results) if row.get("risk"))
    wrong = next(risk for risk in ("Low", "Moderate", "High", "Very High") if risk != row["risk"])
    said = f"3. **{row['number']}** — {row['short_description']}. {row['type'].capitalize()}, {{}} risk, {row['state']}."
    only_the_right("what's coming up?", said, row["risk"], wrong, results, "value")


def test_a_value_inside_a_condition_is_asserted_of_nothing() -> None:
    results = evidence("list_change_requests", state="authorize")
    [row, *_] = rows_of(results)
    question = "anything not approved yet?"
    said = f"{row['number']} is still in Authorize — if CAB doesn't authorise it, it won't go ahead."
    assert not failed(question, said, results, "value")
    assert failed(question, f"{row['number']} is not in Authorize — it won't go ahead.", results, "value")


def test_a_status_word_of_another_kind_of_record_is_no_none_over_health_rows() -> None:
    """"No active incidents" over a status page that shows one: "active" is a run status (Queued, InProgress), which
    no health row can show — that none is not backed by the rows' statuses."""
    results = evidence("check_databricks_health")
    assert any(row.get("kind") == "incident" for row in rows_of(results))
    assert failed("nothing on the databricks status page, right?",
                  "Right, the Databricks status page has no active incidents at the moment.", results, "negative_claim")


def test_a_difference_worked_out_from_a_length_the_answer_says() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(results)
    took, longest = row["run"]["duration_min"], row["durations"]["longest_min"]
    assert took > longest
    said = (f"It ran for {took:g} minutes before failing. Its longest good run took {longest:g} min, so this one ran "
            "{} minutes past it.")
    only_the_right("how long did the finance load run?", said, f"{took - longest:g}", f"{took - longest + 4:g}", results,
                   "number")


def test_a_component_a_problems_only_report_leaves_out_is_not_on_it() -> None:
    results = evidence("check_azure_service_health")
    listed = {row.get("name") for row in rows_of(results)}
    assert "Data Factory" not in listed, "the report lists problems only"
    question = "platform round-up: whats broken in azure?"
    assert not failed_with_names(question, "Data Factory isn't on the problem list in either region.", results, None,
                                 ("Data Factory",))
    assert failed_with_names(question, "Data Factory is degraded in West Europe.", results, None, ("Data Factory",))


def test_the_stage_of_an_incident_quoted_by_its_title_is_that_incidents() -> None:
    results = [*evidence("check_databricks_health"), *evidence("check_snowflake_health")]
    incidents = [row for result in results for item in result.evidence for row in item.rows if row.get("kind") == "incident"]
    first, other = incidents[0], next(row for row in incidents[1:] if row["status"] != incidents[0]["status"])
    said = f"Incident \"{first['title']}\" — status {{}}, impact {first['impact'].lower()}."
    only_the_right("platform round-up", said, first["status"].lower(), other["status"].lower(), results, "value")


def test_new_before_the_word_it_qualifies_is_the_adjective_not_the_state() -> None:
    results = evidence("get_incident", number="INC0010044")
    [row] = rows_of(results)
    assert row["state"] != "New"
    question = "what's on hold and what is it waiting on?"
    cell = f"| {row['number']} | {row['state']} | Elif Demir | new certificate from the certificate authority |"
    assert not failed(question, cell, results, "value")
    assert failed(question, f"| {row['number']} | New | waiting on the certificate authority |", results, "value")


def test_nobody_in_a_field_dump_is_the_records_empty_assignee() -> None:
    question = "number? and is anyone on it?"
    for number in ("INC0010054", "INC0010049"):
        results = evidence("get_incident", number=number)
        [row] = rows_of(results)
        dump = f"number: {number}\npriority: P{row['priority']}\nassigned_to: (nobody)"
        assert bool(failed(question, dump, results, "negative_claim")) == bool(row["assigned_to"]), number


def test_a_negation_the_error_itself_makes_told_with_other_words() -> None:
    failures = rows_of(evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts"))
    results = evidence("get_pipeline_run_details", run_id=failures[0]["run_id"])  # its whole error message
    assert "no proxy" in " ".join(str(row.get("error_message")) for row in rows_of(results))
    question = "why did crm fail after midnight?"
    only_the_right(question, "So the runtime first went down, then came back without a {}.", "proxy", "certificate",
                   results, "negative_claim")


def test_a_judgement_of_what_was_just_said_is_no_search_result() -> None:
    results = evidence("check_databricks_health")
    said = "A bigger driver or a retry policy won't add capacity; none of that helps a job cluster launch."
    assert not failed("will a rerun fix the c360 failure?", said, results, "negative_claim")


def test_a_none_with_an_aside_is_about_the_count_before_it() -> None:
    results = evidence("query_pipeline_status", time_window="last 24 hours")
    rows = rows_of(results)
    clean = sum(row["failed"] == 0 for row in rows)
    cancelled = next(row["pipeline_name"] for row in rows if row["failed"] == 0 and row.get("cancelled"))
    said = (f"{len(rows) - clean} of the {len(rows)} pipelines had at least one failure; the other {{}} had none "
            f"({cancelled} only had a cancelled run).")
    only_the_right("how many pipelines failed in the last 24h?", said, clean, clean - 2, results, "negative_claim")


def test_nothing_since_across_the_runs_is_the_historys_last_failure() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    last = iso_moment(row["last_failure"]["start"])
    said = (f"It failed on {last:%d %b} at {last:%H:%M} UTC. Nothing since {{}} across the {row['runs_searched']} "
            "runs in the 14 days of history.")
    only_the_right("has the pricing model failed before?", said, f"{last:%d %b}", f"{last - timedelta(days=3):%d %b}",
                   results, "negative_claim")


def test_a_none_that_introduces_a_list_is_about_each_record_listed() -> None:
    pipelines = sorted({row["pipeline_name"] for row in rows_of(evidence("list_failed_pipelines", time_window="today"))})
    searches = {name: evidence("list_incidents", text=name) for name in pipelines}
    results = [result for found in searches.values() for result in found]
    bare = [name for name, found in searches.items() if not rows_of(found)]
    ticketed = [name for name, found in searches.items() if rows_of(found)]
    assert bare and ticketed
    question = "did every pipeline that failed get a ticket?"
    said = "{} of them are covered.\n\n**No open ticket names these:**\n{}"
    listing = lambda names: "\n".join(f"- {name} — failed today" for name in names)  # noqa: E731
    known = tuple(pipelines)  # a free-text search for a name the inventory has
    assert not failed_with_names(question, said.format(len(ticketed), listing(bare)), results, "negative_claim", known)
    assert failed_with_names(question, said.format(len(ticketed) - 1, listing([*bare, ticketed[0]])), results,
                             "negative_claim", known)


def test_the_relaxations_above_keep_seeded_nones_out() -> None:
    """What the seeded mutations showed the first versions of these readings let through."""
    listing = evidence("list_incidents", state="open")
    assert "not found" in " ".join(str(row) for row in rows_of(listing)).lower()  # "none found" is not that
    assert failed("how many open incidents?", "No — none found.", listing, "negative_claim")
    latest = evidence("get_pipeline_run_details", pipeline_name="pl_copy_crm_accounts")  # one run, not its history
    assert rows_of(latest)[0]["status"] != "Failed"
    assert failed("is crm still failing?", "pl_copy_crm_accounts has no failed run.", latest, "negative_claim")
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    assert failed("has c360 failed like this before?", "pl_transform_customer360 has no run.", history, "negative_claim")


def test_a_review_of_these_readings_found_lies_they_let_through_and_they_are_caught() -> None:
    """A second pair of eyes wrote a lie of each new reading's shape; each is caught (the data contradicts it)."""
    neu = evidence("check_azure_service_health", region="north europe")
    assert any(row.get("status") == "degraded" for row in rows_of(evidence("check_azure_service_health")))
    assert failed("azure in north europe, anything degraded?", "Nothing degraded in West Europe.", neu, "negative_claim")
    assert failed("anything degraded in azure?", "Nothing degraded.", neu, "negative_claim")  # nobody asked for NEU
    dpo = evidence("list_incidents", state="open", assignment_group="Data Platform Ops")
    assert failed("what's in Data Platform Ops's queue?", "No P1 incidents are open anywhere.", dpo, "negative_claim")
    network = evidence("list_incidents", state="open", assignment_group="Network Operations")
    listed = "Most are covered.\n\n**No open ticket names these:**\n- pl_ingest_sales — failed today"
    assert failed_with_names("did every pipeline that failed get a ticket?", listed, network, "negative_claim",
                             ("pl_ingest_sales",))
    failures = evidence("list_failed_pipelines")
    assert failed_with_names("what failed in adf in the last 24h", "No successful runs in adf-prod-neu.", failures,
                             "negative_claim")
    finance = evidence("get_pipeline_run_details", pipeline_name="pl_load_finance_dwh")
    assert failed("why did the finance load fail?", "pl_load_finance_dwh reached its statement or warehouse timeout of "
                  "3,600 seconds on WH_FINANCE and its run status is Cancelled.", finance, "value")
    on_hold = evidence("get_incident", number="INC0010044")
    assert failed("what's INC0010044 waiting on?", "INC0010044 is New, with a renewal request raised with the "
                  "certificate authority until the new certificate arrives.", on_hold, "value")
    crm = evidence("get_incident", number="INC0010048")
    for lie in ("INC0010048 is new today.", "Ping Tomás if you need detail on INC0010048 which is Resolved now."):
        assert failed("status of INC0010048?", lie, crm, "value"), lie
    assert failed("status of INC0010048?", "INC0010048 is On Hold. There's no fix in the ticket.", crm, "negative_claim")
    counts = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")
    assert failed("failures this week?", "On Monday 17 runs failed.", counts, "number")
    status = evidence("query_pipeline_status", time_window="last 24 hours")
    assert failed("how did the pipelines do in the last 24h?", "Nothing in the last 24 hours across the 15 pipelines "
                  "(pl_copy_erp_orders ran 4 times cleanly).", status, "negative_claim")
    tickets = [*evidence("get_incident", number="INC0010052"), *evidence("get_incident", number="INC0010054")]
    assert failed("who is working the P1?", "INC0010052 is the P1, INC0010054 a P3 from this morning. Nobody is on "
                  "the P1 yet.", tickets, "negative_claim")
    health = evidence("check_azure_service_health")
    assert failed_with_names("what failed?", "adf-prod-neu wasn't running today, it was decommissioned last week.",
                             failures, None)
    assert failed_with_names("whats broken in azure?", "Storage is degraded in West Europe, not Data Factory.", health,
                             None, ("Storage", "Data Factory"))


def test_a_length_said_in_everyday_words_is_read_or_left_alone_never_a_crash() -> None:
    results = evidence("get_incident", number="INC0010033")
    [row] = rows_of(results)
    assert NOW - iso_moment(row["updated_at"]) > timedelta(days=2)
    question = "any stale open tickets?"
    for length in ("more than two days", "more than a few days", "over a couple of days", "more than a fortnight"):
        said = f"INC0010033 was last updated on 7 Jan, so nothing has been written on it for {length}."
        failed(question, said, results)  # no exception
    assert not failed(question, "INC0010033 was last updated on 7 Jan, so nothing has been written on it for more than "
                      "two days.", results, "negative_claim")


def test_a_pipelines_count_of_rows_from_a_capped_listing_is_no_count_of_its_runs() -> None:
    capped = evidence("list_failed_pipelines", time_window="last 7 days", limit=20)  # 18 of 24 shown
    item = capped[0].evidence[0]
    assert item.total > len(item.rows), "the listing is cut short"
    shown = sum(row["pipeline_name"] == "pl_ingest_sales" for row in item.rows)
    whole = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days", pipeline_name="pl_ingest_sales")
    [row] = rows_of(whole)
    assert shown != row["count"]
    question = "which pipeline failed most last week?"
    said = "The most failing pipeline last week is pl_ingest_sales with {} failed runs."
    assert failed(question, said.format(shown), capped, "number")
    assert not failed(question, said.format(row["count"]), [*capped, *whole], "number")


def test_a_short_negated_detail_at_the_end_of_a_long_clause_is_a_detail() -> None:
    """"rerun as soon as the files land, no ETA yet", "timed out with no HTTP status coming back": a detail of the
    record, however long the clause before it; a kind of record negated there still needs a search."""
    results = evidence("get_incident", number="INC0010049")
    question = "how long has INC0010049 been open?"
    assert not failed(question, "Amira will rerun the pipeline as soon as the files land, no ETA yet.", results,
                      "negative_claim")
    assert failed(question, "Amira will rerun the pipeline as soon as the files land, no change raised yet.", results,
                  "negative_claim")
