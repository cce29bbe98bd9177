"""Shapes two more blind sets (dev12, truths written richly on purpose; dev13, 3am questions across systems)
showed the checks blocking true answers: totals and shares an answer works out (a column's sum, "of the 341
that finished", "out of 22"), "a third of all 24", a "none" whose noun is its sentence's or the one before,
"nobody" as a field's value or a claim about one record, judgements and advice, a record's empty links, "no
success since", a name led by a sentence's first word, advice that names a person, an age given as a reason,
"everything else … is operational". Evidence comes from the real tools on the demo data; each oracle is
computed from its rows, and each shape's lie is still caught."""

from __future__ import annotations

from datetime import datetime

from opsagent.intake.analyzer import analyse_question
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, only_the_right, rows_of


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_a_tables_column_total_and_a_share_of_a_total_worked_out_are_backed() -> None:
    pipelines = ("pl_transform_pricing_model", "pl_load_finance_dwh", "pl_transform_customer360")
    results = [result for name in pipelines for result in evidence("get_pipeline_history", pipeline_name=name)]
    runs = [row["run"] for row in rows_of(results[:1]) + rows_of(results[1:2]) + rows_of(results[2:])]
    took = sum(run["duration_min"] for run in runs)
    table = "\n".join(["| Pipeline | Took |", "|---|---|",
                       *(f"| {name} | {run['duration_min']:g} min |" for name, run in zip(pipelines, runs))])
    question = "how long did each of those take?"
    only_the_right(question, table + "\n\nTogether the three took {:g} min.", took, took + 20, results, "number")


def test_a_share_of_a_total_said_with_of_is_worked_out_from_the_answers_counts() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    runs, succeeded, failures = (sum(row[field] for row in rows) for field in ("runs", "succeeded", "failed"))
    said = (f"{runs} runs: {succeeded} succeeded, {failures} failed. Overall {succeeded} of the {runs} succeeded "
            f"({{:.1f}}%).")
    share, shown = 100 * succeeded / runs, {row.get("success_rate_pct") for row in rows}
    wrong = next(share + step for step in (-3.3, -4.4, -5.5) if round(share + step, 1) not in shown)
    question = "weekly numbers: total runs and success rate?"
    only_the_right(question, said, share, wrong, results, "number")


def test_a_total_is_a_sum_only_when_said_as_one_and_of_backed_parts() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    row = max(rows_of(results), key=lambda row: row["failed"])
    question = f"how did {row['pipeline_name']} do this week?"
    # every number of "56 runs: 40 succeeded and 16 failed" is the others' sum or difference: none vouches for another
    assert failed(question, f"{row['pipeline_name']} had {row['runs']} runs this week: {row['runs'] - row['failed'] * 2} "
                            f"succeeded and {row['failed'] * 2} failed.", results, "number")


def test_a_fraction_of_a_total_is_the_count_beside_it() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    total = sum(row["failed"] for row in rows)
    worst = max(rows, key=lambda row: row["failed"])
    share = next(word for word, part in (("half", 2), ("a third", 3), ("a quarter", 4)) if abs(worst["failed"] * part - total) <= total / 10)
    wrong = next(word for word, part in (("half", 2), ("a third", 3), ("a quarter", 4)) if word != share)
    said = f"Most failures: {worst['pipeline_name']}, {worst['failed']} ({{}} of all {total})."
    only_the_right("worst offender this week?", said, share, wrong, results, "number")


def test_a_none_naming_nothing_is_about_the_count_said_before_it() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    last = _moment(row["last_failure"]["start"])
    question = "has pl_transform_pricing_model failed recently?"
    said = f"It failed last on {last:%d %b} at {last:%H:%M} UTC. Nothing since {{}}."
    only_the_right(question, said, f"{last:%d %b}", f"{last.replace(day=last.day - 2):%d %b}", results, "negative_claim")
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    clean = sum(row["failed"] == 0 for row in rows)
    said = f"{len(rows) - clean} of {len(rows)} pipelines had at least one failed run; the other {{}} had none."
    only_the_right("how many pipelines failed in the last 7 days?", said, clean, clean + 2, results, "negative_claim")


def test_no_success_since_is_the_historys_last_success() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    success = _moment(row["last_success"]["start"])
    assert _moment(row["last_failure"]["start"]) > success  # the oracle: it has failed since
    question = "has the pos file gone missing before?"
    said = "Three failures in a row today, no success since {}."
    earlier = success.replace(hour=success.hour - 1)  # it succeeded after this: "no success since" is false
    only_the_right(question, said, f"{success:%H:%M} yesterday", f"{earlier:%H:%M} yesterday", results, "negative_claim")


def test_a_records_empty_links_back_no_linked_record() -> None:
    results = evidence("get_incident", number="INC0010049")
    [row] = rows_of(results)
    assert row["links"] == []  # the oracle: nothing is linked
    question = "is INC0010049 linked to a problem or a change?"
    assert not failed(question, "INC0010049 has no linked records: no problem, no change, no parent incident.",
                      results, "negative_claim")
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    assert row["links"]  # the oracle: this one has a linked change
    assert failed("is INC0010048 linked to a change?", "INC0010048 has no linked records.", results, "negative_claim")


def test_nobody_as_a_value_and_judgements_and_advice_are_no_empty_searches() -> None:
    results = evidence("list_incidents", assignment_group="Cloud Infrastructure", state="open")
    rows = rows_of(results)
    nobody = next(row for row in rows if not row["assigned_to"])
    question = "cloud infra tickets nobody has?"
    assert not failed(question, f"- {nobody['number']} · P{nobody['priority']} · {nobody['state']} · nobody", results,
                      "negative_claim")
    results = evidence("get_change_request", number="CHG0030022")
    [change] = rows_of(results)
    assert change["approval"] != "approved"
    question = "is the emergency change approved?"
    assert not failed(question, "No — it is still awaiting approval; nobody has signed it off.", results,
                      "negative_claim")
    assert not failed(question, "So unless it fails again, there's nothing for anyone to do before tomorrow.",
                      results, "negative_claim")
    assert not failed(question, "Nothing in the records ties them together.", results, "negative_claim")


def test_a_sentences_first_word_before_a_name_is_no_person() -> None:
    results = evidence("list_incidents", text="vpn")
    people = {row["assigned_to"] for row in rows_of(results) if row["assigned_to"]}
    first = next(iter(people)).split()[0]
    assert f"{first} Ahmadi" not in people  # the oracle: a surname no row gives
    question = "is the vpn thing related to the firmware change?"
    assert not failed(question, f"Since {first} took the ticket the tunnel has been stable.", results, "identifier")
    assert failed(question, f"{first} Ahmadi took the ticket.", results, "identifier")


def test_everything_else_is_operational_beside_the_one_component_degraded() -> None:
    results = evidence("check_snowflake_health")
    rows = [row for row in rows_of(results) if row["kind"] == "component"]
    bad = [row for row in rows if row["status"] != "operational"]
    assert len(bad) == 1  # the oracle: one component is not operational
    question = "is snowflake ok?"
    said = f"{bad[0]['name']} is {bad[0]['status']} in {bad[0]['region']}. Everything else on Snowflake is operational."
    assert not failed(question, said, results, "value")
    assert failed(question, "Snowflake is operational.", results, "value")


def test_an_age_given_as_a_reason_and_advice_naming_a_person_claim_no_link() -> None:
    results = evidence("get_incident", number="INC0010054")
    [row] = rows_of(results)
    days = (NOW - _moment(row["opened_at"])).days
    question = "why is INC0010054 still sitting there? can sofia take it?"
    assert not failed(question, f"It feels long because it's been {days} days.", results, "link")
    assert not failed(question, "You (or a DBA lead) can set Assigned to = Sofia Lindqvist on INC0010054 directly.",
                      results, "link")


def test_a_record_number_of_any_kind_must_be_one_the_data_shows() -> None:
    results = evidence("get_incident", number="INC0010049")
    [row] = rows_of(results)
    assert "PRB" not in str(row)  # the oracle: no problem record in the rows
    question = "is INC0010049 linked to a problem record?"
    assert failed(question, "INC0010049 is linked to problem PRB0040012.", results, "identifier")
    assert not failed(question, "INC0010049 is linked to no problem record.", results, "identifier")


def test_another_tickets_title_or_identity_beside_a_ticket_is_caught() -> None:
    results = evidence("list_incidents", configuration_item="dbx-prod-weu")
    rows = rows_of(results)
    named = next(row for row in rows if "pl_transform_customer360" in row["short_description"])
    other = next(row for row in rows if row["number"] != named["number"])
    question = "which INC is tracking the pl_transform_customer360 failures?"
    said = "**{}** — " + named["short_description"].split(";")[0] + "."
    only_the_right(question, said, named["number"], other["number"], results, "value")
    said = "Add it to **{}** — that's the ticket for the pl_transform_customer360 notebook failures."
    only_the_right(question, said, named["number"], other["number"], results, "link")


def test_a_length_beside_its_own_clock_range_is_that_ranges() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(results)
    start, end = _moment(row["run"]["start"]), _moment(row["run"]["end"])
    minutes = round((end - start).total_seconds() / 60)
    question = "how long did the finance load run before it fell over?"
    said = f"It ran about {{}} minutes ({start:%H:%M} → {end:%H:%M} UTC) before failing."
    only_the_right(question, said, minutes, round(row["durations"]["median_min"]), results, "number")


def test_a_status_as_a_condition_or_for_some_services_is_no_platform_claim() -> None:
    results = evidence("check_databricks_health")
    rows = rows_of(results)
    bad = next(row for row in rows if row["kind"] == "component" and row["status"] != "operational")
    question = "can I rerun the notebook now?"
    assert not failed(question, f"I'd hold the rerun until {bad['name']} is back to operational.", results, "value")
    assert failed(question, f"{bad['name']} is operational in {bad['region']}.", results, "value")
    results = evidence("check_azure_service_health", region="west europe")
    overall = rows_of(results)
    assert any(row.get("status") not in (None, "operational", "Active") for row in overall if row["kind"] == "component")
    question = "is it just us or is azure down in west europe?"
    assert not failed(question, "Azure looks fine for Data Factory and Storage.", results, "value")
    assert failed(question, "Azure is operational in West Europe.", results, "value")


def test_none_since_a_day_in_an_answer_naming_the_run_reads_the_pipelines_history() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_web_events")
    [row] = rows_of(results)
    last = row["last_failure"]
    moment = _moment(last["start"])
    question = "why did web events fail wed night?"
    said = (f"The {moment:%a %d %b %H:%M} UTC run ({last['run_id']}) failed with {last['error_code']}. "
            "No failures since {}.")
    only_the_right(question, said, f"{moment:%A}", f"{moment.replace(day=moment.day - 2):%A}", results, "negative_claim")


def test_a_short_none_of_a_detail_is_no_empty_search() -> None:
    results = evidence("get_incident", number="INC0010049")
    question = "any eta on the sales fix?"
    assert not failed(question, "There's no ETA, and no linked change on the ticket.", results,
                      "negative_claim")
    assert failed(question, "There's no open incident for pl_ingest_sales.", results, "negative_claim")


def test_small_model_shapes_read_as_their_words_say() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [row] = rows_of(results)
    failure, success = _moment(row["last_failure"]["start"]), _moment(row["last_success"]["start"])
    ago = round((NOW - failure).total_seconds() / 60)
    question = "when did sales last fail?"
    # a time from now to a history's nested last failure; a short name for the pipeline; "no good run since"
    only_the_right(question, f"last failure {failure:%H:%M} UTC, {{}} minutes ago.", ago, ago + 30, results, "number")
    assert not failed(question, "ingest_sales failed again.", results, "identifier")
    assert failed(question, "ingest_salez failed again.", results, "identifier")
    said = f"Last good run {success:%H:%M} yesterday. So no good run since {{}}."
    only_the_right(question, said, f"{success:%H:%M} yesterday", f"{success.replace(hour=success.hour - 3):%H:%M} yesterday",
                   results, "negative_claim")


def test_a_difference_from_the_sentence_before_is_worked_out_but_not_by_rounding_a_half() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [row] = rows_of(results)
    took, median = row["run"]["duration_min"], row["durations"]["median_min"]
    p25 = row["durations"]["p25_min"]
    assert (took - p25) % 1 == 0.5  # the oracle: a half away from a whole number
    question = "was the pricing model slow?"
    said = (f"The run took {took:g} min. Usual is {median:g} min (middle half {p25:g}-{row['durations']['p75_min']:g} "
            "min). So {:g} min longer than the median.")
    only_the_right(question, said, took - median, took - p25 - 0.5, results, "number")


def test_an_error_codes_words_written_apart_are_the_errors_not_an_empty_search() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(results)
    sales = next(row for row in rows if "FileNotFound" in row["error_message"])
    question = "what failed in the last 24h?"
    assert not failed(question, f"Most is {sales['pipeline_name']}, file not found.", results, "negative_claim")
    assert failed(question, "No pipeline failed in the last 24 hours.", results, "negative_claim")


def test_an_everyday_word_is_a_component_only_with_a_status_beside_it() -> None:
    """"Monday was storage throttling — not the same problem", "a storage problem, not POS": kinds of failure, not
    the Storage component the status pages list (which no evidence here shows); "storage is degraded" and "storage
    is having problems" are claims about that component."""
    results = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="last 7 days")
    question = "it failed on monday too right? same thing?"
    analysis = analyse_question(question, now=NOW)

    def unknown(text: str) -> bool:
        return any(check.kind == "identifier" and not check.passed for check in evaluate(
            text, results, analysis=analysis, question=question, known_names=("Storage", "Notebooks")))

    assert not unknown("So Monday was storage throttling, today is a missing source file — not the same problem.")
    assert not unknown("Separately there were sink-side failures on 3 and 6 Jan — a storage problem, not POS.")
    assert unknown("So Monday was storage throttling: storage is degraded in West Europe.")
    assert unknown("Storage is having problems in West Europe, so it will fail again.".lower())
