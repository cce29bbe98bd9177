"""list_pipeline_runs, count_pipeline_runs and get_pipeline_history on the demo run history (fixed clock).

Every expectation comes from the demo SQLite file (``demo_sql``), never from the code under test.
"""

from __future__ import annotations

import statistics
from datetime import timedelta

import pytest

from opsagent.backends.base import Backends, FailureGroup, PipelineHistory, PipelineRun
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import MAX_OUTPUT_CHARS
from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool, RunToolText, minutes_from_now

DAY = (minutes_from_now(DEMO_NOW - timedelta(hours=24)), 0.0)
WEEK = (minutes_from_now(DEMO_NOW - timedelta(days=7)), 0.0)
HISTORY_START = minutes_from_now(DEMO_NOW - timedelta(days=14))


def when(offset: float) -> str:
    return (DEMO_NOW + timedelta(minutes=offset)).strftime("%Y-%m-%dT%H:%MZ")


def run_ids(demo_sql: DemoSql, window: tuple[float, float], where: str = "1 = 1", *params: object) -> list[str]:
    return [row[0] for row in demo_sql(
        f"SELECT run_id FROM pipeline_runs WHERE start_min >= ? AND start_min < ? AND {where} "
        "ORDER BY start_min DESC, run_id", *window, *params)]


def listed(result: ToolResult) -> list[str]:
    return [row["run_id"] for row in result.items]


@pytest.mark.parametrize(("arguments", "window", "where"), [
    ({"status": "Cancelled", "time_window": "last 7 days"}, WEEK, "status = 'Cancelled'"),
    ({"status": "active"}, DAY, "status IN ('Queued', 'InProgress')"),
    ({"status": "running"}, DAY, "status = 'InProgress'"),
    ({"status": "not succeeded", "time_window": "last 7 days", "factory": "ADF-PROD-NEU"}, WEEK,
     "status != 'Succeeded' AND factory = 'adf-prod-neu'"),
    ({"status": "succeeded, failed", "pipeline_name": "sales"}, DAY,
     "status IN ('Succeeded', 'Failed') AND pipeline_name LIKE '%sales%'"),
    ({}, DAY, "1 = 1"),
], ids=["cancelled-week", "active", "running", "not-succeeded-in-a-factory", "two-statuses-one-pipeline", "all"])
async def test_list_pipeline_runs_by_status(run_tool: RunTool, demo_sql: DemoSql, arguments: dict,
                                            window: tuple[float, float], where: str) -> None:
    expected = run_ids(demo_sql, window, where)
    assert expected, "a case that matches nothing proves nothing"
    result = await run_tool("list_pipeline_runs", max_rows=100, **arguments)
    shown = listed(result)  # all of them, or as many as the size budget holds, in the oracle's order
    assert (result.status, result.total, shown) == ("ok", len(expected), expected[: len(shown)]) and shown
    assert result.truncated == (len(shown) < len(expected))
    statuses = dict(demo_sql("SELECT run_id, status FROM pipeline_runs"))
    assert all(row["status"] == statuses[row["run_id"]] for row in result.items)


async def test_list_pipeline_runs_says_the_status_and_rejects_unknown_ones(run_tool: RunTool) -> None:
    result = await run_tool("list_pipeline_runs", status="queued")
    assert result.message.startswith("1 pipeline run (status 'queued') in last 24 hours")
    bad = await run_tool("list_pipeline_runs", status="exploded")
    assert bad.error_kind == "bad_arguments" and "unknown value 'exploded'" in bad.message


@pytest.mark.parametrize(("group_by", "column"), [("pipeline", "pipeline_name"), ("factory", "factory")])
@pytest.mark.parametrize(("status", "where"), [("all", "1 = 1"), ("failed", "status = 'Failed'"),
                                                ("not succeeded", "status != 'Succeeded'")])
async def test_count_pipeline_runs_is_exact_per_group(run_tool: RunTool, demo_sql: DemoSql, group_by: str,
                                                      column: str, status: str, where: str) -> None:
    expected = demo_sql(f"SELECT {column}, COUNT(*), SUM(status = 'Failed') FROM pipeline_runs WHERE start_min >= ? "
                        f"AND start_min < ? AND {where} GROUP BY {column} ORDER BY 2 DESC, 1", *WEEK)
    result = await run_tool("count_pipeline_runs", group_by=group_by, status=status, time_window="last 7 days",
                            max_rows=3)
    assert [(row[column], row["count"], row.get("failed")) for row in result.items] == [
        (name, count, failed if status != "succeeded" else None) for name, count, failed in expected[:3]]
    assert (result.total, result.shown, result.truncated) == (len(expected), min(3, len(expected)), len(expected) > 3)
    runs = sum(count for _, count, _ in expected)
    assert result.message.startswith(f"{runs} pipeline runs"), "the total counts every group, not the rows shown"
    assert result.message.split(": ", 1)[1].startswith(", ".join(f"{n} {c}" for n, c, _ in expected[:3]))


async def test_count_rows_show_only_the_statuses_counted(run_tool: RunTool) -> None:
    row = (await run_tool("count_pipeline_runs", status="failed, cancelled", time_window="last 7 days")).items[0]
    assert set(row) == {"pipeline_name", "count", "failed", "cancelled"} and row["count"] == row["failed"] + row["cancelled"]


def history_oracle(demo_sql: DemoSql, pipeline: str) -> dict:
    rows = demo_sql("SELECT run_id, status, start_min, end_min, error_code, failure_type FROM pipeline_runs "
                    "WHERE pipeline_name = ? AND start_min >= ? ORDER BY start_min DESC", pipeline, HISTORY_START)
    failures = [row for row in rows if row[1] == "Failed"]
    successes = [row for row in rows if row[1] == "Succeeded"]
    return {"runs": rows, "failures": failures, "successes": successes}


async def test_history_of_a_failing_pipeline(run_tool: RunTool, demo_sql: DemoSql) -> None:
    oracle = history_oracle(demo_sql, "pl_ingest_sales")
    latest = oracle["runs"][0]
    result = await run_tool("get_pipeline_history", pipeline_name="pl_ingest_sales")
    (row,) = result.items
    assert (row["runs_searched"], row["searched_from"], row["searched_to"]) == (
        len(oracle["runs"]), when(HISTORY_START), when(0))
    assert row["last_failure"]["run_id"] == oracle["failures"][0][0] == latest[0]
    assert row["last_success"]["run_id"] == oracle["successes"][0][0]
    durations = [end - start for _, _, start, end, *_ in oracle["successes"][:20]]
    assert row["durations"]["successful_runs"] == len(durations)
    assert row["durations"]["median_min"] == round(statistics.median(durations), 1)
    assert (row["durations"]["shortest_min"], row["durations"]["longest_min"]) == (min(durations), max(durations))
    assert row["run"]["run_id"] == latest[0] and row["run"]["duration_min"] == latest[3] - latest[2]
    assert "shorter than any of the 20 recent successful runs" in row["run"]["compared"]
    assert "14 days" in result.message and f"Last failure {when(latest[2])}" in result.message


async def test_history_groups_earlier_failures_by_error(run_tool: RunTool, demo_sql: DemoSql) -> None:
    groups = demo_sql(
        "SELECT r.error_code, a.activity_name, r.failure_type, COUNT(*), MIN(r.start_min), MAX(r.start_min) "
        "FROM pipeline_runs r JOIN activity_runs a ON a.run_id = r.run_id AND a.status = 'Failed' "
        "WHERE r.pipeline_name = 'pl_ingest_sales' AND r.status = 'Failed' AND r.start_min >= ? "
        "GROUP BY 1, 2, 3 ORDER BY 4 DESC, 6 DESC", HISTORY_START)
    assert len(groups) >= 2, "the demo has two kinds of failure for this pipeline"
    row = (await run_tool("get_pipeline_history", pipeline_name="PL_INGEST_SALES")).items[0]
    assert [(g["error_code"], g["failed_activity"], g["failure_type"], g["count"], g["first_seen"], g["last_seen"])
            for g in row["failure_groups"]] == [(c, a, t, n, when(first), when(last)) for c, a, t, n, first, last in groups]
    assert [g["like_the_run"] for g in row["failure_groups"]] == [True] + [False] * (len(groups) - 1)
    for group in row["failure_groups"]:  # when each kind of failure happened: the latest five, newest first
        starts = demo_sql(
            "SELECT r.start_min FROM pipeline_runs r JOIN activity_runs a ON a.run_id = r.run_id AND a.status = 'Failed' "
            "WHERE r.pipeline_name = 'pl_ingest_sales' AND r.status = 'Failed' AND r.start_min >= ? AND r.error_code = ? "
            "AND a.activity_name = ? AND r.failure_type = ? ORDER BY r.start_min DESC LIMIT 5", HISTORY_START,
            group["error_code"], group["failed_activity"], group["failure_type"])
        assert group["starts"] == [when(start) for (start,) in starts] and len(starts) == min(group["count"], 5)


async def test_history_compares_a_given_run_and_a_slow_success(run_tool: RunTool, demo_sql: DemoSql) -> None:
    oracle = history_oracle(demo_sql, "pl_transform_pricing_model")
    slow = oracle["runs"][0]
    assert slow[1] == "Succeeded" and slow[3] - slow[2] == 55
    latest = await run_tool("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    assert "longer than any of the" in latest.items[0]["run"]["compared"]
    older = oracle["successes"][3]
    given = await run_tool("get_pipeline_history", pipeline_name="pl_transform_pricing_model", run_id=older[0])
    assert given.items[0]["run"]["run_id"] == older[0] and given.message.count(f"Run {older[0]}") == 1
    baseline = [end - start for run_id, _, start, end, *_ in oracle["successes"][:20] if run_id != older[0]]
    assert given.items[0]["durations"]["successful_runs"] == len(baseline)


async def test_history_of_a_run_still_going_calls_it_neither_short_nor_finished(run_tool: RunTool,
                                                                                 demo_sql: DemoSql) -> None:
    running = demo_sql("SELECT pipeline_name, start_min FROM pipeline_runs WHERE status = 'InProgress' "
                       "ORDER BY start_min DESC")
    assert running, "the demo has a run in progress"
    pipeline, start = running[0]
    oracle = history_oracle(demo_sql, pipeline)
    assert oracle["runs"][0][1] == "InProgress"
    durations = sorted(end - begun for _, _, begun, end, *_ in oracle["successes"][:20])
    so_far = -start  # minutes from its start to now
    assert so_far < durations[0], "it has run less than any success so far: the case a finished run would be short"
    row = (await run_tool("get_pipeline_history", pipeline_name=pipeline)).items[0]
    assert row["run"]["running_for_min"] == round(so_far, 1) and row["run"].get("duration_min") is None
    assert "shorter" not in row["run"]["compared"] and "still running" in row["run"]["compared"]


async def test_history_errors_are_results(run_tool: RunTool, demo_sql: DemoSql) -> None:
    missing = await run_tool("get_pipeline_history", pipeline_name="pl_does_not_exist")
    assert (missing.status, missing.error_kind) == ("error", "not_found")
    [other] = demo_sql("SELECT run_id FROM pipeline_runs WHERE pipeline_name = 'pl_archive_logs' LIMIT 1")
    wrong = await run_tool("get_pipeline_history", pipeline_name="pl_ingest_sales", run_id=other[0])
    assert wrong.error_kind == "bad_arguments" and "belongs to pl_archive_logs" in wrong.message


class ManyFailureKinds:
    """A pipeline backend whose one pipeline failed 30 different ways, each with a long message."""

    kind = "fake"

    async def pipeline_history(self, pipeline_name: str, *, recent: int = 20) -> PipelineHistory:
        start = DEMO_NOW - timedelta(days=30)
        run = PipelineRun(run_id="00000000-0000-4000-8000-000000000001", pipeline_name=pipeline_name, status="Failed",
                          start=DEMO_NOW - timedelta(hours=1), end=DEMO_NOW, error_code="9029", failure_type="UserError",
                          error_message="Operation on target Step_29 failed: " + "x " * 400)
        groups = [FailureGroup(error_code=str(9000 + n), failed_activity=f"Step_{n}", failure_type="UserError",
                               count=60 - n, first_seen=start, last_seen=DEMO_NOW, last_run_id=run.run_id,
                               error_message="Operation on target X failed: " + "detail " * 200) for n in range(30)]
        return PipelineHistory(pipeline_name=pipeline_name, searched_from=start, searched_to=DEMO_NOW, runs=400,
                               latest_run=run, last_failure=run, failure_groups=groups)


async def test_a_history_with_many_kinds_of_failure_still_fits_and_keeps_the_runs_own(
    run_tool_text: RunToolText, demo_backends: Backends
) -> None:
    backends = Backends(servicenow=demo_backends.servicenow, pipelines=ManyFailureKinds(), health=demo_backends.health)
    text = await run_tool_text("get_pipeline_history", pipeline_name="pl_many", backends=backends)
    result = ToolResult.from_text(text)
    assert result is not None and result.status == "ok" and len(text) <= MAX_OUTPUT_CHARS
    groups = result.items[0]["failure_groups"]
    assert len(groups) == 8 and groups[-1]["failed_activity"] == "Step_29" and groups[-1]["like_the_run"]
    assert "30 kinds of failure; the 8 most frequent are shown." in result.message


def _squashed(text: str) -> str:
    return "".join(char for char in text.lower() if char.isalnum())


@pytest.mark.parametrize("words", ["file not found", "ADLS Gen2", "quantum flux"])
async def test_history_narrowed_to_failures_whose_error_holds_words(run_tool: RunTool, demo_sql: DemoSql,
                                                                     words: str) -> None:
    # the oracle: per kind of failure (code, activity, type), its latest message; a kind holds the words when its
    # code, activity, type or that message does (any case, spacing and punctuation)
    failures = demo_sql(
        "SELECT r.error_code, a.activity_name, r.failure_type, r.error_message, r.start_min "
        "FROM pipeline_runs r JOIN activity_runs a ON a.run_id = r.run_id AND a.status = 'Failed' "
        "WHERE r.pipeline_name = 'pl_ingest_sales' AND r.status = 'Failed' AND r.start_min >= ? "
        "ORDER BY r.start_min", HISTORY_START)
    kinds: dict[tuple, list] = {}
    for code, activity, kind, message, _ in failures:
        kinds.setdefault((code, activity, kind), []).append(message)
    holding = {key: len(messages) for key, messages in kinds.items()
               if _squashed(words) in _squashed(" ".join([*key, messages[-1]]))}
    result = await run_tool("get_pipeline_history", pipeline_name="pl_ingest_sales", error_text=words)
    if not holding:  # nothing holds them: no row, like any search whose filter matches nothing
        assert (result.items, result.total) == ([], 0)
        assert f"No failure of pl_ingest_sales whose error holds {words!r}" in result.message
        return
    (row,) = result.items
    assert {(g["error_code"], g["failed_activity"], g["failure_type"]): g["count"]
            for g in row["failure_groups"]} == holding
    assert row["failures_with_error_text"] == sum(holding.values()) < len(failures)


def _holding(demo_sql: DemoSql, window: tuple[float, float], words: str, status: str | None) -> list[tuple]:
    """(run_id, pipeline_name) of the runs in the window whose error code or message holds the words, newest first."""
    rows = demo_sql("SELECT run_id, pipeline_name, status, error_code, error_message FROM pipeline_runs "
                    "WHERE start_min >= ? AND start_min < ? ORDER BY start_min DESC, run_id", *window)
    return [(run_id, name) for run_id, name, state, code, message in rows if (status is None or state == status)
            and _squashed(words) in _squashed(f"{code} {message}")]


@pytest.mark.parametrize("words", ["timeout", "File Not-Found", "quantum flux"])
async def test_failed_runs_narrowed_to_an_errors_words(run_tool: RunTool, demo_sql: DemoSql, words: str) -> None:
    expected = _holding(demo_sql, WEEK, words, "Failed")
    result = await run_tool("list_failed_pipelines", time_window="last 7 days", error_text=words, limit=50)
    assert listed(result) == [run_id for run_id, _ in expected] and result.total == len(expected)
    assert f"whose error holds {words!r}" in result.message


async def test_run_counts_narrowed_to_an_errors_words(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected: dict[str, int] = {}
    for _, name in _holding(demo_sql, WEEK, "timeout", None):
        expected[name] = expected.get(name, 0) + 1
    assert len(expected) >= 2, "the demo has timeouts in more than one pipeline"
    result = await run_tool("count_pipeline_runs", time_window="last 7 days", error_text="timeout")
    assert {row["pipeline_name"]: row["count"] for row in result.items} == expected
