"""The offline model's answers against the truth: each expectation is a query on the demo SQLite file the
tools read, never a copy of the rule under test. Questions are general shapes, one per answer template
(which, count, existence, a record's why, health, which of A have B); the eval suite has the real wordings.
"""

from __future__ import annotations

import re

import pytest

from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat

OPEN = ("New", "In Progress", "On Hold")
DAY = 1440


async def ask(make_runtime, question: str):
    runtime = make_runtime()
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question), workflow="dynamic")
    finally:
        await runtime.aclose()
    assert answer.metadata.route == "execute", answer.text
    return answer


def ids_in(text: str, pattern: str) -> set[str]:
    return set(re.findall(pattern, text))


async def test_which_names_exactly_the_records_the_data_holds(demo_runtime, demo_sql) -> None:
    truth = {number for (number,) in demo_sql(
        "SELECT number FROM incidents WHERE priority = 1 AND state IN (?, ?, ?)", *OPEN)}
    answer = await ask(demo_runtime, "which P1 incidents are open?")
    assert ids_in(answer.summary, r"INC\d{7}") == truth


async def test_a_count_is_the_number_of_matching_records(demo_runtime, demo_sql) -> None:
    [(count,)] = demo_sql("SELECT COUNT(*) FROM change_requests WHERE approval = 'requested'")
    answer = await ask(demo_runtime, "how many changes are waiting for approval?")
    assert answer.summary.startswith(f"{count} change request"), answer.summary


async def test_failed_pipelines_are_those_with_a_failed_run_in_the_window(demo_runtime, demo_sql) -> None:
    truth = {name for (name,) in demo_sql(
        "SELECT DISTINCT pipeline_name FROM pipeline_runs WHERE status = 'Failed' AND start_min >= ? AND start_min < 0",
        -DAY)}
    answer = await ask(demo_runtime, "which pipelines failed in the last 24 hours?")
    assert ids_in(answer.summary, r"pl_[a-z0-9_]+") == truth


@pytest.mark.parametrize("pipeline", ["pl_ingest_sales", "pl_transform_customer360"])
async def test_why_a_pipeline_failed_is_its_latest_run(demo_runtime, demo_sql, pipeline: str) -> None:
    [(run_id, code)] = demo_sql("SELECT run_id, error_code FROM pipeline_runs WHERE pipeline_name = ? "
                                "ORDER BY start_min DESC LIMIT 1", pipeline)
    answer = await ask(demo_runtime, f"why did {pipeline} fail?")
    assert run_id in answer.summary and code in answer.summary


@pytest.mark.parametrize("platform", ["Snowflake", "Databricks", "Azure"])
async def test_a_health_yes_or_no_follows_the_components_status(demo_runtime, demo_sql, platform: str) -> None:
    [(broken,)] = demo_sql("SELECT COUNT(*) FROM health_components WHERE platform = ? AND status != 'operational'",
                           platform)
    answer = await ask(demo_runtime, f"is {platform} degraded?")
    assert answer.summary.startswith("Yes —" if broken else "No —"), answer.summary


@pytest.mark.parametrize("pipeline", ["pl_ingest_sales", "pl_export_marketing"])
async def test_existence_is_yes_only_when_a_matching_record_exists(demo_runtime, demo_sql, pipeline: str) -> None:
    like = f"%{pipeline}%"
    [(count,)] = demo_sql("SELECT COUNT(*) FROM incidents WHERE state IN (?, ?, ?) AND (short_description LIKE ? "
                          "OR description LIKE ?)", *OPEN, like, like)
    answer = await ask(demo_runtime, f"is there an open incident for {pipeline}?")
    assert answer.summary.startswith("Yes —" if count else "No —"), answer.summary


async def test_which_of_a_have_b_counts_each_item_the_first_step_found(demo_runtime, demo_sql) -> None:
    failed = [name for (name,) in demo_sql(
        "SELECT DISTINCT pipeline_name FROM pipeline_runs WHERE status = 'Failed' AND start_min >= ? AND start_min < 0",
        -DAY)]
    having = [name for name in failed if demo_sql(
        "SELECT 1 FROM incidents WHERE state IN (?, ?, ?) AND (short_description LIKE ? OR description LIKE ?)",
        *OPEN, f"%{name}%", f"%{name}%")]
    answer = await ask(demo_runtime, "which pipelines failed in the last 24 hours, and is there an open incident "
                                     "for any of them?")
    assert f"{len(having)} of the {len(failed)} pipelines" in answer.summary
    assert answer.summary.split(f"{len(having)} of the", 1)[0].count("Yes —") <= 1
    assert (f"Yes — {len(having)} of the" in answer.summary) == bool(having)
