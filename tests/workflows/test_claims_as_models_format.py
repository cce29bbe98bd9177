"""Answers as hosted models format them: markdown emphasis, field bullets under a record, lists of runs under
the line that introduces them, quoted error text, a record's own words told again, lengths in two units, a
universal question ("are all …?"), a "none" bounded by its own "since …". Evidence comes from the real tools
on the demo data; each oracle is computed from its rows (the right statement passes, the altered one fails)."""

from __future__ import annotations

from datetime import timedelta

from opsagent.contracts.evidence import TaskResult
from opsagent.tools.timewindow import iso_moment
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import INVENTORY, failed, judged_lead, only_the_right, rows_of


def both(*results: list[TaskResult]) -> list[TaskResult]:
    return [item for result in results for item in result]


def test_a_field_bullet_under_a_record_is_a_value_of_that_record() -> None:
    results = evidence("get_change_request", number="CHG0030022")
    [row] = rows_of(results)
    other = next(value for value in ("Low", "Moderate", "High") if value.lower() != row["risk"].lower())
    text = "**CHG0030022** is in **{state}**.\n\n- Type: {type}\n- Risk: {risk}"
    question = "is CHG0030022 approved?"
    assert not failed(question, text.format(state=row["state"], type=row["type"], risk=row["risk"]), results, "value")
    assert failed(question, text.format(state=row["state"], type=row["type"], risk=other), results, "value")


def test_a_run_listed_under_a_pipeline_must_be_that_pipelines_run() -> None:
    own = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(own)
    pipeline = rows[0]["pipeline_name"]
    mine = next(row["run_id"] for row in rows if row["pipeline_name"] == pipeline)
    theirs = next(row["run_id"] for row in rows if row["pipeline_name"] != pipeline)
    text = f"Failed runs of **{pipeline}**:\n\n- `{{run}}` — failed"
    question = f"which runs of {pipeline} failed?"
    assert not failed(question, text.format(run=mine), own, "link")
    assert failed(question, text.format(run=theirs), own, "link")


def test_a_markdown_since_time_is_checked_as_a_start() -> None:
    results = evidence("check_snowflake_health", region="West Europe")
    component = next(row for item in results[0].evidence for row in item.rows
                     if row.get("kind") == "component" and row.get("since"))
    began = iso_moment(component["since"])
    assert began is not None
    question = "since when has snowflake been slow in west europe?"
    assert not failed(question, f"Since **{began:%H:%M} UTC** — {component['name']} is degraded.", results, "placement")
    later = began.replace(hour=(began.hour + 3) % 24)
    assert failed(question, f"Since **{later:%H:%M} UTC** — {component['name']} is degraded.", results, "placement")


def test_a_quoted_error_and_a_records_own_words_are_not_claims_of_the_writer() -> None:
    results = evidence("get_incident", number="INC0010054")
    [row] = rows_of(results)
    description = row["description"]
    question = "what's INC0010054 about?"
    # told again with its own numbers and comparison, and a message quoted with a "cannot"
    assert not failed(question, f"The description says: {description}", results)
    assert not failed(question, f"- {description.rstrip('.')}, per the ticket.", results, "number")
    assert failed(question, "Finance analysts report queries taking 40 times longer than any other warehouse.",
                  results)


def test_a_length_in_two_units_is_one_length() -> None:
    results = evidence("list_incidents", state="open", order="oldest")
    oldest = rows_of(results)[0]
    opened = iso_moment(oldest["opened_at"])
    assert opened is not None
    age = NOW - opened
    days, hours = age.days, age.seconds // 3600
    question = "what's the oldest open ticket?"
    assert not failed(question, f"{oldest['number']} has been open {days} d {hours} h.", results, "number")
    assert failed(question, f"{oldest['number']} has been open {days} d {(hours + 5) % 24} h.", results, "number")


def test_are_all_needs_every_row_of_the_wider_search() -> None:
    results = evidence("list_incidents", state="open", priority=2, priority_match="exactly")
    groups = {row["assignment_group"] for row in rows_of(results)}
    known = [group for group in sorted(groups) if group in INVENTORY.assignment_groups]
    assert known, "a group the inventory of these tests knows"
    for group in known:
        judged_lead(f"are all the open p2s with {group.lower()}?", groups == {group}, results,
                    " — see the open P2 incidents below.")


def test_a_none_bounded_by_its_own_since_is_backed_by_the_rows_after_it() -> None:
    results = evidence("list_failed_pipelines", factory="adf-prod-neu", time_window="last 14 days")
    rows = rows_of(results)
    assert rows and results[0].evidence[0].total == len(rows), "every row seen"
    starts = sorted(moment for row in rows if (moment := iso_moment(row["start"])))
    last = starts[-1]
    question = "has anything failed in adf-prod-neu in the last 14 days?"
    assert not failed(question, f"Nothing has failed since the {last:%-d %b} run.", results, "negative_claim")
    earlier = starts[0]
    assert failed(question, f"Nothing has failed since {earlier:%H:%M} on {earlier:%-d %b}.", results, "negative_claim")


def test_no_error_code_is_a_field_the_row_shows_empty() -> None:
    results = evidence("list_pipeline_runs", status="Cancelled", time_window="last 7 days")
    run = next(row for row in rows_of(results) if not row.get("error_code"))
    details = evidence("get_pipeline_run_details", run_id=run["run_id"])
    question = f"why didn't run {run['run_id']} finish?"
    assert not failed(question, "It was cancelled. No error code.", details, "negative_claim")
    failing = evidence("get_pipeline_run_details", pipeline_name="pl_ingest_sales")
    assert rows_of(failing)[0].get("error_code")
    assert failed("why did pl_ingest_sales fail?", "No error code.", failing, "negative_claim")


def test_a_failed_sentence_in_bold_is_the_one_left_out() -> None:
    from opsagent.intake.analyzer import analyse_question
    from opsagent.workflows.grounding_check import Thresholds, grounding_report

    results = evidence("get_incident", number="INC0010042")
    [row] = rows_of(results)
    wrong = next(state for state in ("Closed", "New", "On Hold") if state != row["state"])
    question = "who owns INC0010042?"
    text = (f"**INC0010042** is with **{row['assigned_to']}**.\n\n"
            f"- **INC0010042** — *{row['short_description']}*, {wrong}.")
    report = grounding_report(text, results, attempt=2, thresholds=Thresholds(), can_regenerate=False,
                              analysis=analyse_question(question, now=NOW), question=question)
    assert report.verdict == "partial" and row["assigned_to"] in report.kept and wrong not in report.kept


def test_counts_per_name_are_the_names_counts() -> None:
    results = evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours")
    rows = rows_of(results)
    question = "runs per factory last 24h?"
    right = ", ".join(f"{row['factory']} {row['count']}" for row in rows)
    assert not failed(question, f"By factory: {right}.", results, "number")
    wrong = ", ".join(f"{row['factory']} {row['count'] + 3}" for row in rows)
    assert failed(question, f"By factory: {wrong}.", results, "number")
    clean = [row for row in rows if row["failed"] == 0]
    failing = [row for row in rows if row["failed"] > 0]
    if clean:  # "adf-prod-neu ran 9, and none of them failed": that row counts no failure
        assert not failed(question, f"{clean[0]['factory']} ran {clean[0]['count']}, and none of them failed.",
                          results, "negative_claim")
    if failing:
        assert failed(question, f"{failing[0]['factory']} ran {failing[0]['count']}, and none of them failed.",
                      results, "negative_claim")


def test_a_none_for_a_day_the_sentence_names_reads_that_days_rows() -> None:
    results = evidence("list_pipeline_runs", pipeline_name="pl_ingest_sales", time_window="since yesterday")
    rows = rows_of(results)
    assert results[0].evidence[0].total == len(rows)
    day_failed = {day: any(row["status"] == "Failed" and row["start"].startswith(day) for row in rows)
                  for day in ("2025-01-09", "2025-01-10")}
    question = "did ingest sales fail both yesterday and today?"
    for day, word in (("2025-01-09", "yesterday"), ("2025-01-10", "today")):
        flagged = failed(question, f"None of {word}'s runs failed.", results, "negative_claim")
        assert bool(flagged) == day_failed[day], (word, flagged)


def test_where_a_run_failed_is_an_activity_that_failed() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_export_marketing")
    [row] = rows_of(results)
    fine = next(item["activity_name"] for item in row["activities"] if item["status"] == "Succeeded")
    only_the_right("pl_export_marketing last night - which step failed?", f"Failed with error {row['error_code']} in {{}}.",
                   row["failed_activity"], fine, results, "value")


def test_a_run_said_to_start_at_the_asked_time_must_have_started_then() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="today")
    rows = rows_of(results)
    asked = rows[-1]
    other = next(row for row in rows if row["run_id"] != asked["run_id"])
    clock = asked["start"][11:16]
    question = f"run id for the {clock} ingest_sales failure?"
    assert not failed(question, f"That's run {asked['run_id']} — it started {clock} UTC and failed.", results,
                      "placement")
    assert failed(question, f"That's run {other['run_id']} — it started {clock} UTC and failed.", results, "placement")


def test_judgements_advice_and_record_words_are_not_claims_about_the_data() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    question = "is the databricks mess why ingest_sales keeps failing?"
    later = (NOW.replace(minute=0) + timedelta(minutes=45)).strftime("%H:%M")
    assert not failed(question, "Nothing points to it.", results, "negative_claim")
    assert not failed(question, f"Worth another look if it still fails after {later}.", results, "placement")
    absent = next(word for word in ("cluster", "notebook", "warehouse") if word not in str(row).lower())
    present = next(word for word in ("file", "source", "copy") if word in str(row).lower())
    assert not failed(question, f"There is nothing about {absent}s in the error.", results, "negative_claim")
    assert failed(question, f"There is nothing about {present}s in the error.", results, "negative_claim")
