"""The offline model on a record's past: the last failure or success, a run against the usual, earlier failures
like one, past incidents like one and a ticket's own words. Each expectation is a query on the demo SQLite file
the tools read (never the rule under test); the questions are shapes, several pipelines and tickets each."""

from __future__ import annotations

import re
import statistics

import pytest

from tests.llm.test_local_truth import ask

PIPELINES = ["pl_ingest_sales", "pl_sync_hr_workday", "pl_transform_customer360", "pl_copy_erp_orders"]
NOT_OPEN = ("Resolved", "Closed", "Canceled")


def latest(demo_sql, pipeline: str, status: str) -> str:
    [(run_id,)] = demo_sql("SELECT run_id FROM pipeline_runs WHERE pipeline_name = ? AND status = ? "
                           "ORDER BY start_min DESC LIMIT 1", pipeline, status)
    return run_id


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("shape", ["when did {} last fail?", "last failure of {}?"])
async def test_the_last_failure_is_the_latest_failed_run_whenever_it_was(demo_runtime, demo_sql, pipeline: str,
                                                                        shape: str) -> None:
    answer = await ask(demo_runtime, shape.format(pipeline))
    assert latest(demo_sql, pipeline, "Failed") in answer.summary, answer.summary


@pytest.mark.parametrize("pipeline", PIPELINES)
async def test_the_last_success_is_the_latest_succeeded_run(demo_runtime, demo_sql, pipeline: str) -> None:
    answer = await ask(demo_runtime, f"when did {pipeline} last succeed?")
    assert latest(demo_sql, pipeline, "Succeeded") in answer.summary, answer.summary


@pytest.mark.parametrize("pipeline", ["pl_transform_pricing_model", "pl_ingest_iot_telemetry", "pl_load_finance_dwh",
                                      "pl_copy_erp_orders"])
async def test_slower_than_usual_compares_the_latest_run_with_its_recent_successes(demo_runtime, demo_sql,
                                                                                   pipeline: str) -> None:
    [(run_id, start, end)] = demo_sql("SELECT run_id, start_min, end_min FROM pipeline_runs WHERE pipeline_name = ? "
                                      "ORDER BY start_min DESC LIMIT 1", pipeline)
    usual = [end_ - start_ for start_, end_ in demo_sql(
        "SELECT start_min, end_min FROM pipeline_runs WHERE pipeline_name = ? AND status = 'Succeeded' AND "
        "end_min IS NOT NULL AND run_id != ? ORDER BY start_min DESC LIMIT 20", pipeline, run_id)]
    slower = (end - start) > statistics.quantiles(usual, n=4, method="inclusive")[2]
    answer = await ask(demo_runtime, f"is the latest {pipeline} run slower than usual?")
    assert answer.summary.startswith("Yes —" if slower else "No —"), answer.summary
    assert f"{end - start:.1f} min" in answer.summary


@pytest.mark.parametrize("pipeline", ["pl_transform_customer360", "pl_export_marketing", "pl_copy_erp_orders"])
async def test_failed_like_this_before_counts_the_failures_with_the_last_ones_error(demo_runtime, demo_sql,
                                                                                     pipeline: str) -> None:
    [(code, failure_type)] = demo_sql("SELECT error_code, failure_type FROM pipeline_runs WHERE pipeline_name = ? "
                                      "AND status = 'Failed' ORDER BY start_min DESC LIMIT 1", pipeline)
    [(alike,)] = demo_sql("SELECT COUNT(*) FROM pipeline_runs WHERE pipeline_name = ? AND status = 'Failed' AND "
                          "error_code = ? AND failure_type = ?", pipeline, code, failure_type)
    [(latest_status,)] = demo_sql("SELECT status FROM pipeline_runs WHERE pipeline_name = ? ORDER BY start_min DESC "
                                  "LIMIT 1", pipeline)
    answer = await ask(demo_runtime, f"has {pipeline} failed like this before?")
    if alike > 1:
        assert answer.summary.startswith("Yes —"), answer.summary
    elif latest_status == "Failed":
        assert answer.summary.startswith("No —"), answer.summary
    else:  # "like this" after a successful run points at nothing: the facts, no yes or no
        assert not answer.summary.startswith(("Yes —", "No —")) and "only one" in answer.summary, answer.summary
    assert code in answer.summary
    assert alike == 1 or f"{alike} failures" in answer.summary


@pytest.mark.parametrize("number", ["INC0010042", "INC0010052", "INC0010054"])
@pytest.mark.parametrize("shape", ["seen {} before?", "any past incidents like {}?"])
async def test_past_incidents_like_one_share_its_ci_and_are_no_longer_open(demo_runtime, demo_sql, number: str,
                                                                            shape: str) -> None:
    [(ci,)] = demo_sql("SELECT configuration_item FROM incidents WHERE number = ?", number)
    same_ci = {found for (found,) in demo_sql("SELECT number FROM incidents WHERE configuration_item = ? AND state IN "
                                              "(?, ?, ?)", ci, *NOT_OPEN)}
    still_open = {found for (found,) in demo_sql("SELECT number FROM incidents WHERE state NOT IN (?, ?, ?)",
                                                 *NOT_OPEN)} - {number}
    answer = await ask(demo_runtime, shape.format(number))
    said = set(re.findall(r"INC\d{7}", answer.summary))
    assert same_ci and same_ci <= set(re.findall(r"INC\d{7}", answer.text)), answer.text
    assert said & same_ci and not said & still_open, answer.summary


@pytest.mark.parametrize("shape", ["why was {} canceled?", "what does {} say?"])
async def test_a_tickets_own_words_answer_why_and_what_it_says(demo_runtime, demo_sql, shape: str) -> None:
    for number, description, notes in demo_sql("SELECT number, description, close_notes FROM incidents WHERE "
                                               "state = 'Canceled' AND description != '' ORDER BY number LIMIT 2"):
        answer = await ask(demo_runtime, shape.format(number))
        said = " ".join(answer.summary.split())
        assert " ".join(description.split())[:60] in said or " ".join(notes.split())[:60] in said, said


@pytest.mark.parametrize("pipeline", ["pl_ingest_sales", "pl_transform_customer360"])
@pytest.mark.parametrize("shape", ["when else did {} fail?", "has {} failed like this before?"])
async def test_earlier_failures_like_the_last_one_are_listed_with_their_times(demo_runtime, demo_sql, pipeline: str,
                                                                               shape: str) -> None:
    from datetime import timedelta

    from tests.llm.conftest import NOW

    [(code, failure_type)] = demo_sql("SELECT error_code, failure_type FROM pipeline_runs WHERE pipeline_name = ? "
                                      "AND status = 'Failed' ORDER BY start_min DESC LIMIT 1", pipeline)
    starts = demo_sql("SELECT start_min FROM pipeline_runs WHERE pipeline_name = ? AND status = 'Failed' AND "
                      "error_code = ? AND failure_type = ? AND start_min >= ? ORDER BY start_min DESC LIMIT 5",
                      pipeline, code, failure_type, -14 * 24 * 60)
    assert len(starts) > 1, "the demo has earlier failures like the last one"
    answer = await ask(demo_runtime, shape.format(pipeline))
    for (start,) in starts[1:]:  # the earlier ones, each with its own time
        assert f"{NOW + timedelta(minutes=start):%Y-%m-%d %H:%M}" in answer.summary, answer.summary
