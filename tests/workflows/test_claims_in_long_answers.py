"""Long answers as large hosted models write them: a bold lead, tables, field dumps, shares worked out, hedges and
next steps. Each test reads one shape that such answers use; the evidence is the real tools' output on the demo
data and each oracle is computed from its rows (the true statement passes, the altered one fails)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.claims import carry_subjects
from opsagent.workflows.derived_numbers import derived_numbers, fraction_claims
from opsagent.workflows.evidence_index import EvidenceIndex, numbers_in
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_as_models_format import both
from tests.workflows.test_claims_read_from_rows import failed, only_the_right, rows_of


def test_a_length_into_a_window_is_the_gap_from_its_start() -> None:
    change = evidence("get_change_request", number="CHG0030017")
    runs = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts")
    [row] = rows_of(change)
    start, end = iso_moment(row["start_date"]), iso_moment(row["end_date"])
    inside = next(run for run in rows_of(runs) if start <= iso_moment(run["start"]) < end)
    gap = int((iso_moment(inside["start"]) - start).total_seconds() // 60)
    said = f"So {iso_moment(inside['start']):%H:%M} is the in-window outage ({{}} minutes into CHG0030017's window)."
    only_the_right("did the crm failures fall in the shir upgrade window?", said, gap, gap + 9, both(change, runs),
                   "number")


def test_a_ratio_in_brackets_is_worked_out_from_the_answers_numbers() -> None:
    text = "The latest took 3 min vs an 18-min median ({}) — it dies right at the copy."
    assert "0.2×" in derived_numbers(text.format("0.2×"))  # 3 / 18 rounds to 0.2
    assert not any("0.5" in piece for piece in derived_numbers(text.format("0.5×")))


def test_one_in_n_is_a_share_of_two_counts_the_answer_gives() -> None:
    rows = rows_of(evidence("list_pipeline_runs", pipeline_name="pl_ingest_sales", time_window="last 7 days"))
    runs, failures = len(rows), sum(1 for row in rows if row["status"] == "Failed")
    assert 0 < failures < runs
    one_in = round(runs / failures)
    text = f"{runs} runs this week: {runs - failures} succeeded, {failures} failed, roughly 1 in {{}} runs failed."
    assert f"1 in {one_in}" in derived_numbers(text.format(one_in))
    assert not any(piece.startswith("1 in") for piece in derived_numbers(text.format(one_in + 2)))


def test_a_sum_of_a_tables_first_rows_is_worked_out_where_a_sentence_says_it_sums() -> None:
    results = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")
    rows = sorted(rows_of(results), key=lambda row: -row["count"])
    total = sum(row["count"] for row in rows)
    top_two = rows[0]["count"] + rows[1]["count"]
    table = "\n".join(["| pipeline | failures |", "|---|---|", *(f"| {row['pipeline_name']} | {row['count']} |" for row in rows)])
    said = f"**{total} failed runs in the last 7 days.**\n\n{table}\n\nThe top two make up {{}} of the {total}."
    assert top_two + 2 not in {sum(row["count"] for row in rows[:end]) for end in range(len(rows) + 1)}
    only_the_right("which pipelines failed most this week and how concentrated?", said, top_two, top_two + 2,
                   results, "number")


def test_a_share_of_all_runs_may_take_its_whole_from_anywhere_in_the_answer() -> None:
    rows = rows_of(evidence("count_pipeline_runs", group_by="factory"))
    total = sum(row["count"] for row in rows)
    failed_runs = sum(row.get("failed", 0) for row in rows)
    assert 0 < failed_runs < total
    share = round(100 * failed_runs / total)
    lines = [f"{total} runs in total across the factories.", *(f"- {row['factory']}: {row['count']} runs" for row in rows),
             f"All {failed_runs} failures are {{}}% of all runs."]
    text = "\n".join(lines)
    assert f"{share}%" in derived_numbers(text.format(share))
    wrong = next(value for value in range(share + 3, 100) if all(  # no share any two counts here give
        abs(100 * part / whole - value) > 1 and abs(100 * (whole - part) / whole - value) > 1
        for whole in [total, *(row["count"] for row in rows)] for part in [failed_runs, *(row["count"] for row in rows)]
        if part <= whole))
    assert f"{wrong}%" not in derived_numbers(text.format(wrong))
    assert "100%" in derived_numbers("- neu: 9 of 9 runs succeeded — 100%.")


def test_a_fraction_of_a_kind_is_of_a_count_of_that_kind_the_answer_gives() -> None:
    rows = sorted(rows_of(evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")),
                  key=lambda row: -row["count"])
    total, worst = sum(row["count"] for row in rows), rows[0]
    fraction = next(name for name, part in (("half", 1 / 2), ("a third", 1 / 3), ("a quarter", 1 / 4))
                    if abs(worst["count"] - part * total) <= max(1.0, total / 10))
    other = next(name for name, part in (("half", 1 / 2), ("a third", 1 / 3), ("a quarter", 1 / 4))
                 if abs(worst["count"] - part * total) > max(1.0, total / 10))
    text = f"{total} failed runs this week.\n- Most: {worst['pipeline_name']} with {worst['count']} — {{}} of all failed runs."
    [(_, holds, _)] = fraction_claims(text.format(fraction))
    [(_, wrong_holds, _)] = fraction_claims(text.format(other))
    assert holds and not wrong_holds


def test_a_tool_named_as_a_next_step_is_no_record() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    question = "what failed in the last 24 hours?"
    only_the_right(question, "`{}` for adf-prod-weu would be the next drill-down.", "list_failed_pipelines",
                   "list_failed_pipeline_runs", results, "identifier")


def test_a_state_word_with_its_moment_is_an_event_that_a_later_state_keeps() -> None:
    results = evidence("get_incident", number="INC0010014")
    [row] = rows_of(results)
    assert row["state"] == "Closed" and row["resolved_at"]
    resolved = iso_moment(row["resolved_at"])
    question = "was the finance warehouse suspended like last time?"
    assert not failed(question, f"Last time: INC0010014 (Closed, P3, resolved {resolved:%H:%M} UTC).", results, "value")
    assert failed(question, "Last time: INC0010014 (In Progress, P3).", results, "value")
    assert failed(question, f"Last time: INC0010014 (On Hold, P3, resolved {resolved:%H:%M} UTC).", results, "value")


def test_what_advice_would_bring_about_is_not_the_records_state() -> None:
    results = evidence("get_incident", number="INC0010046")
    [row] = rows_of(results)
    assert row["state"] == "New"
    question = "who should take the firewall ticket?"
    assert not failed(question, "Assign INC0010046 to Leila so it gets closed once the change is verified.", results,
                      "value")
    assert failed(question, "INC0010046 is closed; Leila verified the change.", results, "value")


def test_a_record_to_act_on_in_advice_is_no_link_the_data_must_show() -> None:
    results = both(evidence("get_incident", number="INC0010054"),
                   evidence("list_incidents", assignment_group="Data Platform Ops"))  # the group is one the data shows
    assert rows_of(results)[0]["assignment_group"] != "Data Platform Ops"
    question = "anyone looking at the failed finance load?"
    advice = "Open a Data Platform Ops incident for the failed load (or add the run to INC0010054) so it has an owner."
    assert not failed(question, advice, results)
    assert failed(question, "INC0010054 is with Data Platform Ops.", results)


def test_a_platform_in_a_ci_name_and_a_page_incident_by_its_title_are_not_the_sentences_subject() -> None:
    snowflake = evidence("check_snowflake_health")
    run = evidence("list_failed_pipelines", pipeline_name="pl_load_finance_dwh")
    started = iso_moment(rows_of(run)[0]["start"])
    question = "why did the finance load fail?"
    said = f"- Copy_Finance_Facts failed at {{}} on the sink side (target snowflake-prod.FINANCE_DWH)."
    only_the_right(question, said, f"{started:%H:%M}", f"{started.replace(minute=(started.minute + 17) % 60):%H:%M}",
                   both(run, snowflake), "placement")
    azure, databricks = evidence("check_azure_service_health", service="Azure Databricks"), evidence("check_databricks_health")
    incident = next(row for row in rows_of(databricks) if row.get("kind") == "incident" and row.get("updated_at"))
    updated = iso_moment(incident["updated_at"])
    said = f"Incident *{incident['title']}* — updated {{}} UTC."
    only_the_right("dbx weu degraded since when?", said, f"{updated:%H:%M}",
                   f"{updated.replace(minute=(updated.minute + 23) % 60):%H:%M}", both(azure, databricks), "placement")


def test_when_to_check_again_is_advice_not_a_length_the_data_shows() -> None:
    results = evidence("check_snowflake_health")
    question = "sf slow in weu?"
    assert not failed(question, "Tell finance it's recovering; re-check in 30–60 minutes.", results, "number")
    assert failed(question, "The slowdown lasted 37 minutes.", results, "number")


def test_a_numbered_lists_places_and_a_name_written_apart_are_no_numbers() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_transform_customer360")
    question = "how far did the customer360 run get?"
    steps = "The run:\n1. Copy_Customer_Staging — succeeded\n2. Notebook_Build_Customer360 — failed\n"
    assert not failed(question, steps + "So the Customer 360 build did not finish.", results, "number")
    assert failed(question, steps + "So the Customer 365 build did not finish.", results, "number")


def test_field_lines_under_a_record_led_bullet_or_line_are_its_fields() -> None:
    results = evidence("get_change_request", number="CHG0030016")
    [row] = rows_of(results)
    wrong = next(risk for risk in ("Low", "Moderate", "High") if risk != row["risk"])
    question = "snowflake business critical upgrade - risk?"
    bullets = f"- **CHG0030016** — {row['short_description']}\n- Risk: {{}}\n- State: {row['state']}"
    only_the_right(question, bullets, row["risk"], wrong, results, "value")
    plain = f"CHG0030016 — {row['short_description']}\nRisk: {{}}\nState: {row['state']}"
    only_the_right(question, plain, row["risk"], wrong, results, "value")
    # a field line after a blank line is no longer under the record
    assert "chg0030016" not in carry_subjects(f"CHG0030016 — upgrade\n\nNext step: ask CAB").split("\n")[-1]


def test_a_share_beside_a_count_of_zero_is_read_without_dividing_by_it() -> None:
    found = derived_numbers("0 runs failed in adf-prod-neu — 0% of 0 runs; 9 of 9 runs in weu succeeded (100%).")
    assert "100%" in found


def test_a_count_of_runs_in_a_line_about_one_run_is_its_pipelines_count() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    durations, run = row["durations"], row["run"]
    said = (f"**Latest run** — {run['run_id']}, **{run['status']}**\n"
            f"- Usual duration: median {durations['median_min']:g} min over the last {{}} successful runs")
    only_the_right("pricing model's last run looked slow?", said, durations["successful_runs"],
                   durations["successful_runs"] + 3, results, "number")


def test_finished_runs_are_a_rows_succeeded_failed_and_cancelled() -> None:
    results = evidence("count_pipeline_runs", group_by="factory")
    row = next(row for row in rows_of(results) if row["failed"] and row["in_progress"] + row["queued"])
    finished = row["succeeded"] + row["failed"] + row["cancelled"]
    wrong = next(value for value in range(finished + 1, 1000) if value not in {
        number for other in rows_of(results) for number in other.values() if isinstance(number, int)} | {
        sum(other[field] for other in rows_of(results)) for field in ("count", "succeeded", "failed")})
    said = f"- **{row['factory']}:** counting only the {{}} finished runs, {row['failed']} failed."
    only_the_right("failure rate per factory last 24h?", said, finished, wrong, results, "number")


def test_a_value_after_a_count_of_several_is_the_sets_and_the_count_is_checked() -> None:
    results = evidence("list_incidents", assignment_group="Data Platform Ops")
    rows = rows_of(results)
    on_hold = [row["number"] for row in rows if row["state"] == "On Hold"]
    in_progress = sum(1 for row in rows if row["state"] == "In Progress")
    assert len(on_hold) == 1 and in_progress > 1
    question = "how many open tix does data platform ops have, how many on hold?"
    truth = f"{in_progress} of the {len(rows)} are In Progress and 1 is On Hold ({on_hold[0]})."
    assert not failed(question, truth, results)
    lie = f"{in_progress - 1} of the {len(rows)} are In Progress and 2 are On Hold ({on_hold[0]})."
    assert failed(question, lie, results, "number")
    only_the_right(question, f"Data Platform Ops — open: {len(rows)}, on hold: {{}}", len(on_hold), len(on_hold) + 1,
                   results, "number")


def test_about_n_minutes_between_two_moments_is_rounded_as_people_round() -> None:
    snowflake = evidence("check_snowflake_health")
    runs = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="today")
    since = min(iso_moment(row["since"]) for row in rows_of(snowflake) if row.get("since"))
    first = min(iso_moment(row["start"]) for row in rows_of(runs))
    gap = (since - first).total_seconds() / 60
    rounded = int(round(gap / 10) * 10)
    assert rounded != gap, "the data must need rounding for this test"
    said = f"Snowflake has been degraded since {since:%H:%M} UTC — about {{}} minutes after the first sales failure."
    only_the_right("is the sales ingest related to the snowflake outage?", said, rounded, rounded + 40,
                   both(snowflake, runs), "number")


def test_a_cause_ends_where_a_new_clause_joins_after_a_comma() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="today")
    first = min(iso_moment(row["start"]) for row in rows_of(results))
    said = (f"pl_ingest_sales fails because {{}}, and its first failure at {first:%H:%M} UTC came before Snowflake's "
            "latency incident began.")
    only_the_right("is the sales ingest related to the snowflake outage?", said, "its source file is missing",
                   "its warehouse was suspended", results, "link")


def test_a_tickets_opening_time_holds_in_a_sentence_that_places_other_events_too() -> None:
    ticket, runs = evidence("get_incident", number="INC0010049"), evidence(
        "list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="today")
    [row] = rows_of(ticket)
    opened, updated = iso_moment(row["opened_at"]), iso_moment(row["updated_at"])
    first = min(iso_moment(run["start"]) for run in rows_of(runs))
    assert opened != updated
    said = f"Sales first failed at {first:%H:%M} UTC and INC0010049 was opened at {{}}, some time later."
    # the ticket's other time (its last update) is not when it was opened
    only_the_right("when was the sales ticket opened vs when sales first broke?", said, f"{opened:%H:%M}",
                   f"{updated:%H:%M}", both(ticket, runs), "placement")


def test_a_labelled_count_needs_a_values_own_word_and_a_share_needs_its_verb() -> None:
    results = evidence("list_pipeline_runs", time_window="last 24 hours")
    question = "failure rate last 24h?"
    # "failure rate: 9%" is no count of failures; "7 of the 9 failures happened after midnight" counts a subset
    assert not failed(question, "Failure rate: 9%", results, "number")
    assert not any("the rows have" in check for check in failed(question, "7 of the 9 failures were after midnight.",
                                                                   results, "number"))


def test_nothing_about_a_word_is_read_in_the_text_of_the_record_the_sentence_is_about() -> None:
    change, health = evidence("get_change_request", number="CHG0030015"), evidence("check_databricks_health")
    [row] = rows_of(change)
    assert "databricks" not in row["description"].lower() and "subnet" in row["description"].lower()
    assert "databricks" in str(rows_of(health)).lower()  # another record's text says it
    said = f"**CHG0030015** — {row['short_description']}. It adds a rule collection (see INC0010046) — nothing about {{}}."
    only_the_right("could the firewall change have broken customer360?", said, "Databricks", "the analytics subnet",
                   both(change, health), "negative_claim")


def test_no_other_kind_of_failure_needs_a_history_with_one_kind() -> None:
    question = "has it failed like this before?"
    for pipeline in ("pl_export_marketing", "pl_copy_crm_accounts"):
        results = evidence("get_pipeline_history", pipeline_name=pipeline)
        [row] = rows_of(results)
        groups = row["failure_groups"]
        said = f"{pipeline}: {groups[0]['count']} failures with {groups[0]['error_code']} in its history. No other kind of failure."
        assert bool(failed(question, said, results, "negative_claim")) == (len(groups) > 1), pipeline


def test_a_one_off_denied_is_no_first_failure() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_export_marketing")
    [row] = rows_of(results)
    assert sum(group["count"] for group in row["failure_groups"]) > 1
    question = "has pl_export_marketing failed like this before?"
    only_the_right(question, "pl_export_marketing is failing intermittently {} a one-off.", "rather than", "— it's",
                   results, "history")


def test_a_negation_in_a_table_cell_is_read_in_that_cell() -> None:
    failures = rows_of(evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts"))
    results = evidence("get_pipeline_run_details", run_id=failures[0]["run_id"])  # its whole error message
    message = " ".join(str(row.get("error_message")) for row in rows_of(results)).lower()
    assert "no proxy" in message and "certificate" not in message
    said = "| UserErrorHttpConnectionFailed — no {} | UserError | 1 | Fri 10 Jan 00:10 | Fri 10 Jan 00:10 |"
    # the error's own negation, told in its cell; a kind of record denied in a cell still needs a search of it
    only_the_right("seen that proxy error before?", said, "proxy", "incident raised", results, "negative_claim")


def test_no_run_since_beside_a_pipelines_latest_run_is_its_status_summarys() -> None:
    results = evidence("query_pipeline_status", time_window="last 24 hours")
    rows = {row["pipeline_name"]: row for row in rows_of(results)}
    row = rows["pl_load_finance_dwh"]
    latest = iso_moment(row["last_start"])
    said = f"| pl_load_finance_dwh | {{}} | ❌ {row['last_status']} — no run since |"
    earlier = latest.replace(hour=(latest.hour + 23) % 24)
    only_the_right("everything that failed last night — recovered?", said, f"{latest:%H:%M}", f"{earlier:%H:%M}",
                   results, "negative_claim")


def test_a_supposition_and_advice_are_no_search_results() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    question = "pricing model's last run looked slow?"
    assert not failed(question, "A slow cluster start would add minutes without failing the run.", results,
                      "negative_claim")
    assert not failed(question, "It still succeeded, so nothing to rerun.", results, "negative_claim")
    assert failed(question, "No failures in its history.", results, "negative_claim")


def test_a_margin_by_which_one_number_beats_another_is_worked_out() -> None:
    text = "The longest of those 19 was 38 min, so this 55-minute run beat that by {} minutes."
    assert any("17" in piece for piece in derived_numbers(text.format(17)))
    assert not any("12" in piece for piece in derived_numbers(text.format(12)))


def test_not_since_a_time_may_be_when_the_last_one_ended() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    success = row["last_success"]
    ended = iso_moment(success["end"])
    assert f"{ended:%H:%M}" != f"{iso_moment(success['start']):%H:%M}"
    said = "Net effect: sales data hasn't loaded since {} UTC yesterday."
    only_the_right("how long since sales last loaded?", said, f"{ended:%H:%M}",
                   f"{ended.replace(minute=(ended.minute + 7) % 60):%H:%M}", results, "placement")


def test_a_clock_time_with_how_long_ago_it_was_is_that_span_to_now() -> None:
    ticket = evidence("get_incident", number="INC0010049")
    runs = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="today")
    opened = iso_moment(rows_of(ticket)[0]["opened_at"])
    hours = round((NOW - opened).total_seconds() / 3600)
    wrong = hours - 2
    # another moment of the evidence is that long ago: the span must be the one from the time said
    assert any(abs((NOW - iso_moment(run["start"])).total_seconds() / 3600 - wrong) < 1 for run in rows_of(runs))
    said = f"INC0010049 was opened today at {opened:%H:%M} UTC (about {{}} hours ago)."
    only_the_right("when was the sales ticket opened?", said, hours, wrong, both(ticket, runs), "number")


def test_a_row_of_a_table_is_one_statement_though_a_cell_holds_a_semicolon() -> None:
    results = evidence("list_incidents", state="open", priority=2, priority_match="exactly")
    row = next(row for row in rows_of(results) if row["number"] == "INC0010050")
    wrong = next(state for state in ("New", "On Hold", "Resolved") if state != row["state"])
    said = (f"| INC0010050 | Databricks job clusters slow to start; pl_transform_customer360 notebook failing | {{}} | "
            f"{row['assignment_group']} |")
    assert not failed("any p2 open more than 2 days?", said.format(row["state"]), results, "value")
    assert not failed("any p2 open more than 2 days?", f"| INC0010050 | {{}} | {row['assignment_group']} |".format(
        row["state"]), results, "value")
    assert failed("any p2 open more than 2 days?", f"| INC0010050 | {wrong} | {row['assignment_group']} |", results, "value")


def test_a_moment_worked_out_for_what_may_come_is_no_time_the_data_must_show() -> None:
    results = evidence("get_incident", number="INC0010042")
    [row] = rows_of(results)
    opened = iso_moment(row["opened_at"])
    crossing = opened + timedelta(days=2)
    question = "any p2 open more than 2 days?"
    assert not failed(question, f"INC0010042 would cross the 2-day mark on {crossing:%A} at {crossing:%H:%M} UTC if "
                                "it's still open.", results, "placement")
    assert failed(question, f"INC0010042 was opened on {crossing:%A} at {opened:%H:%M} UTC.", results, "placement")


def test_advice_a_condition_and_a_hedged_guess_are_no_search_results() -> None:
    results = evidence("list_incidents", assigned_to="Elif Demir")
    assert rows_of(results), "Elif holds tickets: a plain none about her is false"
    question = "who has capacity to take the openssl ticket?"
    for advice in ("Elif is carrying the only P1, so I wouldn't add anything to her plate.",
                   "2. Consider a file-presence check before Copy_Sales so a missing file doesn't page anyone.",
                   "Ask Leila whether the carrier answered; if they find nothing, the firmware is the next suspect.",
                   "Possibly the same job-cluster delays hitting it without quite failing."):
        assert not failed(question, advice, results, "negative_claim"), advice
    assert failed(question, "Elif has no open incidents.", results, "negative_claim")
    # a field's own word ("nothing assigned": assigned_to) is no detail of a record: the none needs a search
    assert failed(question, "Elif has nothing assigned right now.", results, "negative_claim")


def test_a_length_in_two_units_joined_by_and_is_one_length() -> None:
    results = evidence("get_incident", number="INC0010036")
    [row] = rows_of(results)
    age = NOW - iso_moment(row["opened_at"])
    days, hours = age.days, age.seconds // 3600
    said = f"INC0010036 has been open for {days} days and {{}} hours (since it was opened)."
    only_the_right("how long has INC0010036 been open?", said, hours, hours + 3, results, "number")


def test_a_length_ahead_is_the_gap_from_now_to_a_moment_after_it() -> None:
    results = evidence("get_change_request", number="CHG0030019")
    [row] = rows_of(results)
    ahead = iso_moment(row["start_date"]) - NOW
    assert ahead > timedelta(days=1)
    for said in (f"CHG0030019 is planned for {iso_moment(row['start_date']):%a %d %b %H:%M} UTC (in {{}} days).",
                 "CHG0030019 starts in {} days.", "The quota change is still {} days away."):
        only_the_right("when is CHG0030019 planned?", said, ahead.days, ahead.days + 3, results, "number")
    hours = int(ahead.total_seconds() // 3600)
    only_the_right("when is CHG0030019 planned?", "CHG0030019 kicks off in {} hours.", hours, hours + 30, results, "number")


def test_a_length_ahead_a_record_says_itself_is_its_own_words() -> None:
    results = evidence("get_incident", number="INC0010044")
    [row] = rows_of(results)
    own = re.search(r"expires in \d+ days", row["short_description"])
    assert own and not any(moment > NOW for moment in (iso_moment(value) for value in row.values()
                                                        if isinstance(value, str) and re.match(r"\d{4}-", value)))
    assert not failed("anything about the api-gateway cert?", f"INC0010044 says the certificate {own.group()}.",
                      results, "number")


@pytest.mark.parametrize("said", ["So nothing has moved on it since {}.", "Nothing has been added to the ticket since {}."])
def test_a_ticket_unchanged_since_a_day_is_its_last_update_that_day(said: str) -> None:
    results = evidence("get_incident", number="INC0010031")
    [row] = rows_of(results)
    updated = iso_moment(row["updated_at"])
    assert updated.date() < NOW.date() - timedelta(days=1)  # a weekday names that day, not today's
    question, said = "how long has INC0010031 been sitting there?", f"INC0010031 is On Hold. {said}"
    assert not failed(question, said.format(f"{updated:%A}"), results, "negative_claim")
    only_the_right(question, said, f"{updated:%a %-d %b %H:%M} UTC", f"{updated - timedelta(hours=1):%a %-d %b %H:%M} UTC",
                   results, "negative_claim")


def test_nothing_on_it_since_is_since_the_last_update_just_said_of_any_record_named() -> None:
    incident, change = evidence("get_incident", number="INC0010036"), evidence("get_change_request", number="CHG0030019")
    [row] = rows_of(incident)
    updated = iso_moment(row["updated_at"])
    said = ("**INC0010036 has been open since {opened}; the quota change CHG0030019 is planned for {start}.**\n"
            "- Last updated {{}} UTC — nothing on it since.").format(
        opened=f"{iso_moment(row['opened_at']):%a %-d %b %H:%M}",
        start=f"{iso_moment(rows_of(change)[0]['start_date']):%a %-d %b %H:%M}")
    only_the_right("datalake capacity inc - how long open and when's the quota cr", said, f"{updated:%a %-d %b %H:%M}",
                   f"{updated - timedelta(hours=1):%a %-d %b %H:%M}", both(incident, change), "negative_claim")


def test_a_bare_since_after_a_date_and_a_clock_apart_is_since_that_moment() -> None:
    results = evidence("list_failed_pipelines", factory="adf-prod-neu", time_window="last 7 days")
    starts = sorted(iso_moment(row["start"]) for row in rows_of(results))
    assert starts
    latest = starts[-1]
    said = "The last failure in adf-prod-neu: {:%a %-d %b}, {:%H:%M} UTC. Nothing in neu has failed since, so it is clean."
    assert not failed("adf neu - any failures last 7d?", said.format(latest, latest), results, "negative_claim")
    earlier = latest - timedelta(hours=2)
    assert failed("adf neu - any failures last 7d?", said.format(earlier, earlier), results, "negative_claim")


def test_a_since_followed_by_its_reason_in_brackets_is_bounded_by_the_moment_before() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    failures = sorted((iso_moment(start) for group in row["failure_groups"] for start in group["starts"]), reverse=True)
    latest, earlier = failures[0], failures[1]
    success = iso_moment(row["last_success"]["start"])
    assert success > latest
    said = "It last failed on {:%a %-d %b %H:%M} UTC. Nothing has failed since (the last run, {:%H:%M}, succeeded)."
    assert not failed("has pricing model failed lately?", said.format(latest, success), results, "negative_claim")
    assert failed("has pricing model failed lately?", said.format(earlier, success), results, "negative_claim")



def test_a_condition_on_a_time_to_come_is_no_length_but_its_count_is_checked() -> None:
    results = evidence("list_pipeline_runs", status="active")
    active = len(rows_of(results))
    assert active
    said = "If the {} queued or running runs are still there in 10–15 minutes, check the integration runtime."
    only_the_right("whats running or queued in adf rn", said, active, active + 3, results, "number")


def test_a_share_placed_in_time_counts_the_rows_on_that_side_of_the_moment() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    starts = [iso_moment(row["start"]) for row in rows_of(results)]
    midnight = NOW.replace(hour=0, minute=0)
    after = sum(1 for start in starts if start >= midnight)
    assert 0 < after < len(starts)
    said = f"{{}} of the {len(starts)} failures happened after midnight; the rest came the evening before."
    only_the_right("how many pipelines failed in the last 24h?", said, after, after - 1, results, "number")


def test_a_share_before_a_day_of_a_failure_groups_latest_starts_counts_the_unlisted_ones_too() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    group = next(group for group in row["failure_groups"] if group["count"] > len(group["starts"]))
    today = sum(1 for start in group["starts"] if iso_moment(start).date() == NOW.date())
    assert today
    said = f"- {group['count']} failures with {group['error_code']}; {{}} of them before today"
    only_the_right("how often has it hit that error in the last 2 wks?", said, group["count"] - today,
                   group["count"] - today + 1, results, "number")


def test_each_percentage_takes_the_pair_said_just_before_it() -> None:
    rows = rows_of(evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours"))
    row = max(rows, key=lambda row: row["count"])
    runs, succeeded, failed_runs = row["count"], row.get("succeeded", 0), row.get("failed", 0)
    assert 0 < failed_runs < runs and succeeded
    share = round(100 * failed_runs / runs, 1)
    text = f"{succeeded} of {runs} succeeded ({round(100 * succeeded / runs)}%) and {failed_runs} failed ({{}}% of its runs)."
    assert f"{share:g}%" in derived_numbers(text.format(f"{share:g}"))
    assert not any(piece.startswith(f"{share + 5:g}") for piece in derived_numbers(text.format(f"{share + 5:g}")))


def test_a_none_of_a_row_named_by_its_own_part_is_that_rows_count() -> None:
    results = evidence("count_pipeline_runs", group_by="factory", status="Failed", time_window="last 24 hours")
    counted = {row["factory"]: row["count"] for row in rows_of(results)}
    searched = rows_of(evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours"))
    quiet = [row["factory"] for row in searched if row["factory"] not in counted]
    busy = [name for name, count in counted.items() if count]
    assert quiet and busy
    both_counts = evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours")
    part = {name: name.split("-")[-1] for name in [*quiet, *busy]}
    assert len(set(part.values())) == len(part)  # each factory's last part is its own
    said = "All the failures were in {}; {} had none."
    only_the_right("split of runs by factory last 24h?", said.format(part[busy[0]], "{}"), part[quiet[0]],
                   part[busy[0]], both_counts, "negative_claim")


def test_a_value_with_places_is_its_rounding_to_those_places_only() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rates = [row["success_rate_pct"] for row in rows_of(results) if row.get("success_rate_pct") not in (None, 0, 100)]
    rate = next(rate for rate in rates if abs(rate - round(rate)) > 0.25)
    said = "Its success rate over the week was {}%."
    only_the_right("how reliable were the pipelines this week?", said, f"{rate:.1f}", f"{rate + 0.4:.1f}", results, "number")


def test_a_share_of_a_named_rows_own_counts_needs_no_part_said() -> None:
    results = evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours")
    row = max(rows_of(results), key=lambda row: row["count"])
    share = round(100 * row["failed"] / row["count"], 1)
    said = f"{row['factory']} had {row['count']} runs; {{}}% of them failed."
    only_the_right("failure rate per factory last 24h?", said, f"{share:g}", f"{share + 5:g}", results, "number")


def test_a_ratio_to_its_usual_and_a_difference_with_a_minus_sign_are_worked_out() -> None:
    [row] = rows_of(evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model"))
    took, usual = row["run"]["duration_min"], row["durations"]["median_min"]
    ratio = round(took / usual, 1)
    text = f"The latest run took {took:g} min, about {{}}× its usual {usual:g} min."
    assert f"{ratio:g}×" in derived_numbers(text.format(f"{ratio:g}"))
    assert not derived_numbers(text.format(f"{ratio + 0.5:g}"))
    row_line = f"| pl_x | {usual:g} min | {took:g} min | {{}} min |"
    assert any(piece.endswith(f"{took - usual:g}") for piece in derived_numbers(row_line.format(f"−{took - usual:g}")))
    assert not derived_numbers(row_line.format(f"−{took - usual + 3:g}"))


def test_versions_are_labels_and_a_question_inside_a_sentence_asserts_nothing() -> None:
    assert numbers_in("worth checking release 2.14, runtime 15.4 and the 5.44.1 agent") == []
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    runs = len(rows_of(results))
    assert not failed("what failed?", f"Worth checking whether {runs + 7} other runs were hit.", results, "number")
    assert failed("what failed?", f"{runs + 7} other runs were hit.", results, "number")


def test_a_version_a_record_names_backs_the_same_version_said_bare() -> None:
    results = evidence("get_change_request", number="CHG0030022")
    [row] = rows_of(results)
    version = re.search(r"release (\d+\.\d+)", row["short_description"]).group(1)
    other = f"{version.split('.')[0]}.{int(version.split('.')[1]) + 1}"
    only_the_right("anything on the change calendar today?", "CHG0030022 (scale out app-portal-weu / roll back {}).",
                   version, other, results, "number")


def test_a_share_said_of_a_part_is_not_backed_by_the_named_rows_own_ratio() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    total = sum(row["failed"] for row in rows)
    row = next(row for row in rows if row["pipeline_name"] == "pl_ingest_sales")
    of_failures, of_its_runs = (f"{100 * row['failed'] / whole:.1f}" for whole in (total, row["runs"]))
    assert of_failures != of_its_runs and not of_its_runs.endswith(".0")
    said = f"{total} failed runs this week; pl_ingest_sales alone is {row['failed']} of them — {{}}%."
    only_the_right("which pipeline fails most this week?", said, of_failures, of_its_runs, results, "number")


def test_a_second_percentage_after_a_parts_own_is_the_named_rows_share() -> None:
    results = evidence("count_pipeline_runs", group_by="factory", time_window="today")
    row = max(rows_of(results), key=lambda row: row["count"])
    active = row["in_progress"] + row["queued"]
    finished = row["count"] - active
    assert active and row["failed"]
    said = (f"- {row['factory']}: {row['failed']} of its {finished} finished runs failed — "
            f"{round(100 * row['failed'] / finished)}% ({{}}% if you count the {active} still active)")
    right = round(100 * row["failed"] / row["count"])
    only_the_right("runs today per factory + fail rate", said, right, right + 7, results, "number")


def test_a_none_from_error_words_backs_only_the_words_asked() -> None:
    # the same empty search (failed runs today whose error holds words the data never has) backs "none" for a
    # question that asked those words, and nothing for one that did not: words nobody asked narrowed it
    words = "quantum flux"
    results = evidence("list_failed_pipelines", time_window="today", error_text=words)
    assert not rows_of(results) and rows_of(evidence("list_failed_pipelines", time_window="today"))
    said = f"No — no pipeline failed with '{words}' today."
    assert not failed(f"did anything fail with '{words}' today?", said, results, "negative_claim")
    assert failed("did anything fail today?", "No — nothing failed today.", results, "negative_claim")


def test_still_asks_the_latest_finished_run_and_chat_leads_are_leads() -> None:
    # "still broken?" is answered by the latest finished run, not by whether any run in the window failed; "yep" and
    # "nope" lead like "Yes —" and "No —"
    results = evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="last 48 hours")
    rows = [row for row in rows_of(results) if row["status"] not in ("InProgress", "Queued")]
    latest = max(rows, key=lambda row: iso_moment(row["start"]))
    assert any(row["status"] == "Failed" for row in rows), "the window holds a failure"
    still = latest["status"] == "Failed"
    question = "is pl_copy_crm_accounts still broken?"
    right, wrong = ("yep still broken", "nope, looks ok now") if still else ("nope, looks ok now", "yep still broken")
    assert not failed(question, f"{right} — latest run {latest['start']} {latest['status']}.", results, "lead")
    assert failed(question, f"{wrong} — latest run {latest['start']} {latest['status']}.", results, "lead")


def test_a_yes_that_counts_all_of_them_counts_those_with_the_unapplied_qualifier() -> None:
    results = evidence("list_incidents", priority=2)  # open P1/P2s; no search applied the age
    rows = rows_of(results)
    older = [row["number"] for row in rows if iso_moment(row["opened_at"]) < NOW - timedelta(days=1)]
    assert older and len(older) < len(rows)
    question = "any p1/p2 thats been open more than a day?"
    assert not failed(question, f"Yes — {len(older)} of them: {', '.join(older)}.", results, "lead")
    assert failed(question, f"Yes — all {len(rows)} open P1/P2s are candidates: {', '.join(older)}.", results, "lead")


def test_a_count_opening_with_a_value_counts_what_the_question_asks_about() -> None:
    results = evidence("list_change_requests", state="open")
    waiting = sum(row["approval"] == "requested" for row in rows_of(results))
    only_the_right("which open crs are still waiting on approval", "{} waiting on approval (approval = requested):",
                   waiting, waiting - 1, results, "number")


def _week_of_failures():
    counts = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")
    status = evidence("query_pipeline_status", time_window="last 7 days")
    status[0].evidence[0] = status[0].evidence[0].model_copy(update={"call_id": "call_2"})
    return counts + status


def test_the_top_rows_of_a_keyed_list_sum_like_a_tables() -> None:
    results = _week_of_failures()
    failed_per = sorted(((row["count"], row["pipeline_name"]) for row in rows_of(results[:1])), reverse=True)
    listing = "\n".join(f"- {name} — {count}" for count, name in failed_per)
    total = sum(count for count, _ in failed_per)
    top_two = failed_per[0][0] + failed_per[1][0]
    said = f"{total} failed runs in total:\n\n{listing}\n\nThe top two account for {{}} of the {total}."
    only_the_right("how many failures per pipeline this week?", said, top_two, top_two + 1, results, None)


def test_the_other_pipelines_had_none_over_a_window_wider_than_asked() -> None:
    # "this week" (Monday on) asked, the last 7 days searched: a pipeline with no failure in the 7 days had none
    # this week either, so "the other N had none" counts the 7-day rows with no failure
    results = _week_of_failures()
    clean = sum(row["failed"] == 0 for row in rows_of(results[1:]))
    assert clean and NOW.weekday() < 6  # Monday is inside the 7 days
    only_the_right("weekly review: how many pipelines had failures this week", "The other {} pipelines had no failures.",
                   clean, clean + 1, results, "negative_claim")


def test_a_length_with_both_its_ends_said_is_the_gap_between_them() -> None:
    results = evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="last 48 hours")
    good = sorted(iso_moment(row["end"]) for row in rows_of(results) if row["status"] == "Succeeded" and row.get("end"))
    earlier, later = max(((a, b) for a, b in zip(good, good[1:])), key=lambda pair: pair[1] - pair[0])
    hours = round((later - earlier).total_seconds() / 3600)
    assert hours >= 3, "the demo has a long gap between two good loads"
    only_the_right("how long were we without a good crm load?",
                   f"Gap between successful loads: ~{{}} hours ({earlier:%H:%M} → {later:%H:%M}).", hours, hours - 2,
                   results, "number")


def test_a_day_range_is_dates_not_numbers() -> None:
    results = evidence("list_failed_pipelines", time_window="last 7 days", factory="adf-prod-neu")
    start = NOW - timedelta(days=7)
    said = f"Just one failure in adf-prod-neu in the last 7 days ({start.day}–{NOW.day} {NOW:%b})."
    assert len(rows_of(results)) == 1 and start.day not in (1, 7)
    assert not failed("has anything in adf-prod-neu failed this past week?", said, results, "number")


def test_a_length_without_a_success_is_the_time_since_the_last_one() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    hours = round((NOW - iso_moment(row["last_success"]["start"])).total_seconds() / 3600)
    assert hours >= 3
    only_the_right("how bad is pl_ingest_sales this week?", "pl_ingest_sales: ~{} h without a successful load.",
                   hours, hours - 3, results, "negative_claim")
    only_the_right("how bad is pl_ingest_sales this week?", "No successful pl_ingest_sales load for about {} hours.",
                   hours, hours + 3, results, "negative_claim")


def test_a_share_of_them_is_of_a_count_said_before_it() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    status = evidence("query_pipeline_status", pipeline_name="pl_ingest_sales", time_window="last 7 days")
    status[0].evidence[0] = status[0].evidence[0].model_copy(update={"call_id": "call_2"})
    results = history + status
    groups, week = rows_of(history)[0]["failure_groups"], rows_of(status)[0]
    total, top = sum(group["count"] for group in groups), groups[0]["count"]
    share = round(100 * top / total)
    # a share the sentence before offers ("56 runs … 45 of them would be 80%"): not what "of them" is of
    other = round(100 * (week["runs"] - total) / week["runs"])
    assert len(groups) > 1 and other != share and not EvidenceIndex.build(results).vouches_for_number(float(other))
    only_the_right("how bad is pl_ingest_sales?", f"{week['runs']} runs in 7 days, {week['failed']} failed. "
                   f"Over 14 days: {total} failures, {top} of them file-not-found ({{}}%).", share, other, results, "number")


def test_a_count_of_a_window_no_search_applied_is_counted_from_the_rows_placed_in_it() -> None:
    # "9 failed runs yesterday" over a search of the last 24 hours (a small model's answer): that search holds
    # only part of yesterday, so nothing backs a count of it; "today" lies inside it and is counted from its rows
    day = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(day)
    assert len(rows) == day[0].evidence[0].total
    today = sum(iso_moment(row["start"]) >= NOW.replace(hour=0, minute=0) for row in rows)
    assert 0 < today < len(rows)
    def placed(question: str, said: str) -> list[str]:
        return [detail for detail in failed(question, said, day, "number") if "no search applied that window" in detail]

    assert placed("what failed yesterday?", f"There are {len(rows)} failed pipeline runs from yesterday.")
    assert not placed("what failed yesterday?", f"{len(rows)} failed runs in the last 24 hours.")
    assert not placed("what failed today?", f"{today} failed runs today.")
    assert placed("what failed today?", f"{len(rows)} failed runs today.")


def test_an_empty_search_for_error_words_nobody_asked_settles_no_yes_or_no() -> None:
    # failures of pl_ingest_sales whose error holds words the data never has: empty; the question asks whether it
    # failed at all, which that search cannot say (and its rows say nothing)
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="last 7 days",
                       error_text="quantum flux")
    assert not rows_of(results) and rows_of(evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales",
                                                     time_window="last 7 days"))
    assert not any("found nothing" in detail for detail in failed(
        "did pl_ingest_sales fail in the last 7 days?", "Yes — pl_ingest_sales failed this week.", results, "lead"))
