"""Shapes a twelfth blind set of answers (dev11) showed the checks misread: a streak ("failed two nights in a
row"), a share of the rows just listed ("4 of them unassigned", "3 of them were the runtime being offline"),
"N other tickets", differences an answer works out ("+16.5 min", "17 min past its longest"), a count whose value
follows the noun ("three changes are waiting on approval"), a "none since" bounded by a day, by the moment just
said or by a clock time alone, a prediction, a record's own title, "N hours from now", a run id or a cause told of
another run, an error code said as "hit 2402", a stage, a region's status, and per-name counts among some rows.
Evidence comes from the real tools on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, judged_lead, only_the_right, rows_of

OPEN = ("New", "In Progress", "On Hold")


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _all_rows(results: list) -> list[dict]:
    return [dict(row) for result in results for item in result.evidence for row in item.rows]


def test_a_streak_is_judged_by_the_latest_runs_not_by_any_failure() -> None:
    for pipeline in ("pl_export_marketing", "pl_ingest_sales"):
        results = [*evidence("list_failed_pipelines", pipeline_name=pipeline, time_window="last 7 days"),
                   *evidence("get_pipeline_history", pipeline_name=pipeline)]
        failures = [_moment(row["start"]) for row in rows_of(results[:1])]
        [history] = rows_of(results[1:])
        last_success = _moment(history["last_success"]["start"])
        streak = sum(moment > last_success for moment in failures) >= 2
        judged_lead(f"has {pipeline} failed two nights in a row?", streak, results,
                    f" — {pipeline}'s last success was {last_success:%a %d %b %H:%M} UTC.")


def test_a_share_of_the_rows_listed_is_counted_by_what_they_show() -> None:
    results = evidence("list_incidents", opened_within="today")
    rows = rows_of(results)
    unassigned = sum(not row["assigned_to"] for row in rows)
    assert 0 < unassigned < len(rows)  # the oracle: some have an owner, some not
    said = f"{len(rows)} incidents were opened today, {{}} of them unassigned."
    question = "incidents opened today, how many nobody owns?"
    only_the_right(question, said, unassigned, unassigned + 1, results, "number")
    # by a word of their own text: "N of them were the runtime being offline"
    results = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 7 days")
    rows = rows_of(results)
    offline = sum("offline" in row["error_message"] for row in rows)
    assert 0 < offline < len(rows)
    said = f"{len(rows)} failures in the last 7 days; {{}} of them were vm-shir-01 being offline."
    question = "how many crm accounts failures this week were the shir being offline?"
    only_the_right(question, said, offline, offline - 1, results, "number")


def test_a_count_whose_value_follows_the_noun_is_that_values_count() -> None:
    results = evidence("list_change_requests", approval="requested")
    rows = rows_of(results)
    high = sum(row["risk"] == "High" for row in rows)
    question = "how many changes are waiting on approval and how many are high risk?"
    said = "{} changes are waiting on approval, {} of them High risk."
    assert not failed(question, said.format(len(rows), high), results, "number")
    assert failed(question, said.format(len(rows) - 1, high), results, "number")
    assert failed(question, said.format(len(rows), high + 1), results, "number")


def test_n_other_tickets_are_the_rows_less_the_one_named() -> None:
    results = evidence("list_incidents", configuration_item="dbx-prod-weu")
    rows = [row for row in rows_of(results) if row["state"] in OPEN]
    assert len(rows) > 2
    named = rows[0]["number"]
    question = "whats the inc number for the dbx-prod-weu issue?"
    said = f"It's {named}. There are {{}} other open tickets on dbx-prod-weu."
    only_the_right(question, said, len(rows) - 1, len(rows) + 1, results, "number")


def test_differences_worked_out_from_the_answers_own_numbers_are_backed() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    took, median, longest = row["run"]["duration_min"], row["durations"]["median_min"], row["durations"]["longest_min"]
    assert took > longest  # the oracle: the latest run is longer than any recent success
    question = "by how much did the pricing model run over?"
    said = (f"The latest run took {took:g} min against a median of {median:g} min (+{{:g}} min), {{:g}} min past its "
            f"longest recent success ({longest:g} min).")
    assert not failed(question, said.format(took - median, took - longest), results, "number")
    assert failed(question, said.format(took - median, took - longest + 10), results, "number")
    # "23 min longer" with no "than": the difference of the two numbers before it
    bare = f"It took {took:g} min against a {median:g}-min median: {took - median:g} min longer."
    assert not failed(question, bare, results, "number")
    # a total over one search's per-factory counts
    results = evidence("count_pipeline_runs", group_by="factory", time_window="last 7 days")
    rows = rows_of(results)
    total = sum(row["failed"] for row in rows)
    assert len(rows) > 1 and total not in {row["failed"] for row in rows}
    question = "how many failed runs this week across the factories?"
    said = "{} failed runs across both factories."
    only_the_right(question, said, total, total + 3, results, "number")


def test_none_since_a_day_is_none_after_that_days_last_failure() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_web_events", time_window="last 7 days")
    latest = max(_moment(row["start"]) for row in rows_of(results))
    question = "web events failed wed night right?"
    said = f"Yes — pl_ingest_web_events failed on {latest:%a %d %b} at {latest:%H:%M} UTC. There have been no failures since {{}}."
    only_the_right(question, said, f"{latest:%A}", f"{latest - timedelta(days=1):%A}", results, "negative_claim")


def test_a_bare_since_is_bounded_by_the_moment_just_said() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    [group] = [group for group in row["failure_groups"] if len(group["starts"]) > 1][:1]
    latest, earlier = (_moment(start) for start in group["starts"][:2])
    question = "has pl_transform_pricing_model failed at all recently?"
    said = "It failed with {} on {:%a %d %b %H:%M} UTC. There have been no failures since."
    assert not failed(question, said.format(group["error_code"], latest), results, "negative_claim")
    assert failed(question, said.format(group["error_code"], earlier), results, "negative_claim")


def test_no_update_since_a_clock_time_alone_is_the_last_updates() -> None:
    results = evidence("get_incident", number="INC0010031")
    [row] = rows_of(results)
    updated = _moment(row["updated_at"])
    assert updated.date() != NOW.date()  # the oracle: the clock alone, on another day than today
    question = "how long has INC0010031 been stuck?"
    said = "There's been no update since {} on the day it was opened."
    only_the_right(question, said, f"{updated:%H:%M}", f"{updated + timedelta(minutes=40):%H:%M}", results, "negative_claim")


def test_a_prediction_and_a_records_own_title_are_no_claims_of_the_data() -> None:
    results = evidence("get_change_request", number="CHG0030021")
    question = "anything in the next 24h that'll hit pl_copy_crm_accounts?"
    assert not failed(question, "Its description says to pause the triggers during the window, so expect no CRM "
                                "copies between 05:00 and 07:00.", results, "negative_claim")
    results = evidence("list_change_requests", configuration_item="snowflake-prod")
    row = next(row for row in rows_of(results) if " new " in f" {row['short_description']} ")
    title = row["short_description"]
    question = "any snowflake changes coming up?"
    assert row["state"] != "New"
    assert not failed(question, f"{row['number']} ({title}) is {row['state']} too.", results, "value")
    assert failed(question, f"{row['number']} is New.", results, "value")


def test_hours_from_now_are_counted_to_the_first_time_ahead() -> None:
    results = evidence("get_change_request", number="CHG0030022")
    [row] = rows_of(results)
    start, end = _moment(row["start_date"]), _moment(row["end_date"])
    hours = (start - NOW).total_seconds() / 3600
    assert hours > 0 and (end - NOW).total_seconds() / 3600 != hours
    question = "when would that change go in?"
    said = f"{row['number']} is planned for {start:%H:%M}–{end:%H:%M} UTC today, about {{:g}} hours from now."
    only_the_right(question, said, round(hours), round(hours) + 2, results, "number")


def test_a_run_id_and_a_cause_are_the_runs_the_answer_names() -> None:
    results = evidence("list_failed_pipelines", time_window="today")
    rows = rows_of(results)
    own = next(row for row in rows if row["pipeline_name"] == "pl_load_finance_dwh")
    other = next(row for row in rows if row["pipeline_name"] != "pl_load_finance_dwh")
    question = "run id of this morning's failed finance load?"
    dump = "pipeline: pl_load_finance_dwh\nrun_id: {}\nstart: " + f"{_moment(own['start']):%Y-%m-%d %H:%M} UTC"
    only_the_right(question, dump, own["run_id"], other["run_id"], results, "identifier")
    # a run named by its start ("the 00:10 run") failed for its own reason, not another run's
    results = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours")
    first, second = sorted(rows_of(results), key=lambda row: row["start"])[:2]
    assert "offline" in first["error_message"] and "offline" not in second["error_message"]
    question = "why did the later one fail? same as the first?"
    said = f"The {_moment(second['start']):%H:%M} run failed because the runtime vm-shir-01 was {{}}."
    only_the_right(question, said, "unable to connect to crm.example.com", "offline or unreachable", results, "link")


def test_an_error_code_said_as_hit_is_the_runs_own() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_web_events", time_window="last 7 days")
    rows = sorted(rows_of(results), key=lambda row: row["start"], reverse=True)
    latest, other = rows[0], next(row for row in rows if row["error_code"] != rows[0]["error_code"])
    question = "web events failed wed night right? what was it"
    said = (f"Yes — pl_ingest_web_events failed at {_moment(latest['start']):%H:%M} UTC (run {latest['run_id']}). "
            f"{{}} hit {{}}.")
    assert not failed(question, said.format(latest["failed_activity"], latest["error_code"]), results, "value")
    assert failed(question, said.format(other["failed_activity"], other["error_code"]), results, "value")


def test_a_stage_and_a_regions_status_are_the_rows() -> None:
    results = evidence("check_snowflake_health", region="west europe")
    [incident] = [row for row in rows_of(results) if row["kind"] == "incident"]
    assert incident["status"] != "resolved"
    question = "is snowflake still having issues in west europe?"
    assert failed(question, "Query Processing was degraded, and the incident is now resolved.", results, "value")
    results = evidence("check_azure_service_health", service="databricks")
    statuses = {row["region"]: row["status"] for row in rows_of(results) if row["kind"] == "component"}
    assert statuses.get("North Europe") == "operational"
    question = "what does azure say about databricks, is north europe hit too?"
    assert not failed(question, "North Europe is operational, so moving it would help.", results, "value")
    assert failed(question, "North Europe is degraded as well, so moving it wouldn't help.", results, "value")


def test_counts_per_name_among_the_rows_a_sentence_qualifies() -> None:
    results = evidence("list_incidents", opened_within="today")
    rows = rows_of(results)
    groups = {row["assignment_group"] for row in rows if not row["assigned_to"]}
    group = next(name for name in sorted(groups) if sum(row["assignment_group"] == name for row in rows)
                 != sum(row["assignment_group"] == name and not row["assigned_to"] for row in rows))
    unassigned = sum(row["assignment_group"] == group and not row["assigned_to"] for row in rows)
    question = "incidents opened today — how many nobody owns, by team?"
    said = f"The unassigned ones sit in {group} ({{}})."
    only_the_right(question, said, unassigned, unassigned + 3, results, "number")


def test_failure_words_beyond_failed_count_times_before() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_web_events")
    [row] = rows_of(results)
    group = next(group for group in row["failure_groups"] if group["count"] > 2)
    question = f"has {group['failed_activity']} in web events timed out before?"
    said = f"{group['failed_activity']} has timed out only once before."
    assert failed(question, said, results, "history")
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(results)
    like = next(group for group in row["failure_groups"] if group["like_the_run"])
    assert like["count"] > 1  # the oracle: the latest run's failure happened before
    assert failed("has the finance dwh load died like this before?",
                  f"No — this is the first time it has failed in {like['failed_activity']}.", results, "history")


def test_the_error_said_of_the_latest_run_is_its_own() -> None:
    results = [*evidence("get_pipeline_run_details", pipeline_name="pl_transform_customer360"),
               *evidence("find_similar_incidents", configuration_item="dbx-prod-weu")]
    [run] = [row for row in rows_of(results[:1]) if row.get("run_id")][:1]
    past = next(row for row in rows_of(results[1:]) if "numpy" in f"{row.get('short_description')} {row.get('fix')}")
    assert "numpy" not in str(run).lower()  # the oracle: the latest run's error is not the past incident's
    question = "why does customer360 keep failing? is it the library thing again?"
    said = (f"The latest run failed in {run['failed_activity']} with {run['error_code']}: {{}}. Last time "
            f"({past['number']}) the fix was {past['fix'][:40].rstrip()}.")
    own = run["error_message"].split(":")[-1][:80]
    assert not failed(question, said.format(own), results, "link")
    assert failed(question, said.format("an ImportError on numpy.core.multiarray from a library version conflict"),
                  results, "link")


def test_failures_said_to_line_up_with_a_change_are_placed_in_its_window() -> None:
    results = [*evidence("get_change_request", number="CHG0030012"),
               *evidence("list_failed_pipelines", pipeline_name="pl_transform_customer360", time_window="last 7 days")]
    [change] = rows_of(results[:1])
    start, end = _moment(change["start_date"]), _moment(change["end_date"])
    failures = [_moment(row["start"]) for row in rows_of(results[1:])]
    assert failures and not any(start <= moment < end for moment in failures)  # the oracle: none inside it
    question = "did the databricks runtime upgrade break customer360?"
    assert failed(question, f"{change['number']} touches dbx-prod-weu, and pl_transform_customer360's failures line "
                            "up with it.", results, "placement")


def test_a_none_of_a_run_status_is_backed_by_a_count_that_counts_none_of_it() -> None:
    """"2 runs today: 1 failed, 1 succeeded, nothing running or queued right now": a per-status count of the asked
    pipeline backs the none when that status counts zero, and only then."""
    rows = rows_of(evidence("count_pipeline_runs", time_window="today"))
    idle = next(row for row in rows if row["in_progress"] == row["queued"] == 0)
    busy = next(row for row in rows if row["in_progress"] + row["queued"] > 0)
    for row in (idle, busy):
        results = evidence("count_pipeline_runs", pipeline_name=row["pipeline_name"], time_window="today")
        said = f"{row['count']} runs of {row['pipeline_name']} today; nothing running or queued right now."
        assert bool(failed("how many times did it run today?", said, results, "negative_claim")) == (row is busy)


def test_a_none_of_a_value_the_search_left_open_is_read_from_the_rows_and_from_what_the_clause_says() -> None:
    """"has jonas got anything P2 or above open?" over every open ticket of his: "nothing at P2 or above" is read
    from each row's priority (the search applied no priority); "he has no P3 open" is not backed because the
    question asked about P2 — a row shows P3."""
    rows = rows_of(evidence("list_incidents", state="open"))
    people = {row["assigned_to"] for row in rows if row["assigned_to"]}
    held = {person: [row for row in rows if row["assigned_to"] == person] for person in people}
    calm = next(person for person, tickets in sorted(held.items()) if all(row["priority"] > 2 for row in tickets))
    urgent = next(person for person, tickets in sorted(held.items()) if any(row["priority"] <= 2 for row in tickets))
    for person in (calm, urgent):
        results = evidence("list_incidents", assigned_to=person)
        question = f"{person.split()[0].lower()} is off today - has he got anything P2 or above open that needs cover?"
        said = f"No — nothing at P2 or above for {person}."
        assert bool(failed(question, said, results, "negative_claim")) == (person == urgent)
    lower = held[calm][0]["priority"]
    results = evidence("list_incidents", assigned_to=calm)
    question = f"has {calm.split()[0].lower()} got anything P2 or above open?"
    assert failed(question, f"{calm} has no P{lower} ticket open.", results, "negative_claim")


def test_an_age_is_not_read_from_a_search_narrowed_to_recent_openings() -> None:
    """"whats been on hold for more than 2 days": a none read from each row's opening time backs it only over a
    search that did not itself keep the recent openings alone ("opened within the last 2 days" decides it)."""
    question = "whats been on hold for more than 2 days"
    said = "Nothing's been on hold longer than 2 days."
    recent = evidence("list_incidents", state="on_hold", opened_within="last 2 days")
    assert failed(question, said, recent, "negative_claim")
    every = evidence("list_incidents", state="on_hold")
    old = [row for row in rows_of(every) if _moment(row["opened_at"]) <= NOW - timedelta(days=2)]
    assert bool(failed(question, said, every, "negative_claim")) == bool(old)


def test_counts_by_status_beside_a_grouped_name_are_that_groups_own() -> None:
    """"adf-prod-weu: 40 runs — 38 succeeded, 2 failed": each status count is the factory's row's, not any number
    the evidence happens to hold (two rows made "2" pass)."""
    results = evidence("count_pipeline_runs", group_by="factory", time_window="yesterday")
    row = max(rows_of(results), key=lambda row: row["count"])
    question = "how many runs per factory yesterday + how many failed"
    said = f"- {row['factory']}: {row['count']} runs — {row['succeeded']} succeeded, {{}} failed"
    only_the_right(question, said, row["failed"], row["failed"] + 1, results, "number")
    # a share of the name's count right after it is no count of the name ("adf-prod-weu (1 of its 40 runs)")
    assert not failed(question, f"All failures in {row['factory']} ({row['failed']} of its {row['count']} runs).",
                      results, "number")
    week = evidence("count_pipeline_runs", group_by="factory", time_window="last 7 days")
    busiest = max(rows_of(week), key=lambda item: item["failed"])
    total = sum(item["failed"] for item in rows_of(week))
    assert total != busiest["failed"]  # a total said before the name is no count of the name's own
    assert not failed("how many failed this week?", f"{total} runs failed across the factories, most of them in "
                      f"{busiest['factory']}.", week, "number")
