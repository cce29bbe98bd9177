"""Data Factory tools against the demo run history on a fixed clock."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import iso_minute
from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool, minutes_from_now

LAST_24H = (DEMO_NOW - timedelta(hours=24), DEMO_NOW)
WEEK = (DEMO_NOW - timedelta(days=7), DEMO_NOW)


def failed_run_ids(demo_sql: DemoSql, window: tuple[datetime, datetime], where: str = "1 = 1", *params: object) -> list[str]:
    """The oracle: ids of failed runs that started in ``window`` and match ``where``, newest first."""
    return [row[0] for row in demo_sql(
        f"SELECT run_id FROM pipeline_runs WHERE status = 'Failed' AND start_min >= ? AND start_min < ? AND {where} "
        "ORDER BY start_min DESC, run_id", minutes_from_now(window[0]), minutes_from_now(window[1]), *params)]


def run_ids(result: ToolResult) -> list[str]:
    return [row["run_id"] for row in result.items]


def assert_runs(result: ToolResult, expected: list[str]) -> None:
    """The envelope lists the oracle's runs in its order: all of them, or the first ones with honest counts."""
    listed = run_ids(result)
    assert (result.total, result.shown, result.truncated) == (len(expected), len(listed), len(listed) < len(expected))
    assert listed == expected[: len(listed)] and bool(listed) == bool(expected)


def per_pipeline(result: ToolResult) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in result.items:
        counts[row["pipeline_name"]] = counts.get(row["pipeline_name"], 0) + 1
    return counts


async def test_list_failed_pipelines_last_24_hours(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = failed_run_ids(demo_sql, LAST_24H)
    counts = dict(demo_sql("SELECT pipeline_name, COUNT(*) FROM pipeline_runs WHERE status = 'Failed' "
                           "AND start_min >= -1440 GROUP BY pipeline_name"))
    result = await run_tool("list_failed_pipelines")
    assert (result.status, result.total, result.shown, result.truncated) == ("ok", len(expected), len(expected), False)
    assert run_ids(result) == expected and per_pipeline(result) == counts
    assert all(uuid.UUID(row["run_id"]).version == 4 for row in result.items)
    busiest = max(counts, key=counts.__getitem__)
    assert result.message.startswith(
        f"{len(expected)} failed pipeline runs in last 24 hours (2025-01-09T09:30Z to 2025-01-10T09:30Z). "
        f"Pipelines: {busiest} ({counts[busiest]})")
    assert result.query["time_window"] == {"phrase": "last 24 hours", "start": "2025-01-09T09:30Z", "end": "2025-01-10T09:30Z"}


async def test_list_failed_pipelines_rows_carry_the_failed_activity(run_tool: RunTool) -> None:
    latest = (await run_tool("list_failed_pipelines", limit=1)).items[0]
    assert (latest["pipeline_name"], latest["error_code"], latest["failed_activity"]) == ("pl_ingest_sales", "2200", "Copy_Sales")
    assert "UserErrorFileNotFound" in latest["error_message"]


MIDNIGHT = datetime(2025, 1, 10, tzinfo=UTC)
WINDOWS = [
    ("last 24 hours", LAST_24H),
    ("last night", (MIDNIGHT - timedelta(hours=6), MIDNIGHT + timedelta(hours=8))),
    ("today", (MIDNIGHT, MIDNIGHT + timedelta(days=1))),
    ("yesterday", (MIDNIGHT - timedelta(days=1), MIDNIGHT)),
    ("last hour", (DEMO_NOW - timedelta(hours=1), DEMO_NOW)),
    ("last 7 days", WEEK),
    ("since 2025-01-09T18:00Z", (datetime(2025, 1, 9, 18, tzinfo=UTC), DEMO_NOW)),
    ("2025-01-09T18:00Z to 2025-01-10T03:00Z", (datetime(2025, 1, 9, 18, tzinfo=UTC), MIDNIGHT + timedelta(hours=3))),
    ("next 7 days", (DEMO_NOW, DEMO_NOW + timedelta(days=7))),
]


@pytest.mark.parametrize(("phrase", "window"), WINDOWS, ids=[phrase for phrase, _ in WINDOWS])
async def test_list_failed_pipelines_time_windows(
    run_tool: RunTool, demo_sql: DemoSql, phrase: str, window: tuple[datetime, datetime]
) -> None:
    expected = failed_run_ids(demo_sql, window)
    result = await run_tool("list_failed_pipelines", time_window=phrase, max_rows=50)
    assert_runs(result, expected)
    resolved = result.query["time_window"]
    assert (resolved["start"], resolved["end"]) == (iso_minute(window[0]), iso_minute(window[1]))
    assert f"{iso_minute(window[0])} to {iso_minute(window[1])}" in result.message
    assert result.status == ("ok" if expected else "no_data")


async def test_list_failed_pipelines_cap(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = failed_run_ids(demo_sql, LAST_24H)
    result = await run_tool("list_failed_pipelines", max_rows=3)
    assert (result.total, result.shown, result.truncated) == (len(expected), 3, True)
    assert run_ids(result) == expected[:3]
    assert "showing the 3 most recent" in result.message and "Pipelines among the rows shown" in result.message


@pytest.mark.parametrize(
    ("arguments", "window", "where", "params", "words"),
    [
        ({"factory": "adf-prod-neu", "time_window": "last 7 days"}, WEEK, "factory = ?", ("adf-prod-neu",),
         " in factory 'adf-prod-neu'"),
        ({"factory": "ADF-PROD-NEU", "time_window": "last 7 days"}, WEEK, "factory = ?", ("adf-prod-neu",),
         " in factory 'ADF-PROD-NEU'"),
        ({"factory": "adf-prod-weu"}, LAST_24H, "factory = ?", ("adf-prod-weu",), " in factory 'adf-prod-weu'"),
        ({"pipeline_name": "pl_ingest_sales"}, LAST_24H, "pipeline_name = ?", ("pl_ingest_sales",),
         " of pipelines matching 'pl_ingest_sales'"),
        ({"pipeline_name": "CUSTOMER360", "factory": "adf-prod-weu", "time_window": "last 7 days"}, WEEK,
         "pipeline_name = ? AND factory = ?", ("pl_transform_customer360", "adf-prod-weu"),
         " of pipelines matching 'CUSTOMER360' in factory 'adf-prod-weu'"),
    ],
    ids=["factory", "factory-any-case", "other-factory", "pipeline", "pipeline-part-and-factory"],
)
async def test_list_failed_pipelines_filters(
    run_tool: RunTool, demo_sql: DemoSql, arguments: dict, window: tuple[datetime, datetime], where: str,
    params: tuple[str, ...], words: str,
) -> None:
    expected = failed_run_ids(demo_sql, window, where, *params)
    result = await run_tool("list_failed_pipelines", max_rows=50, **arguments)
    assert expected
    assert_runs(result, expected)
    assert result.message.startswith(f"{len(expected)} failed pipeline run{'s' if len(expected) != 1 else ''}{words} in ")
    if "factory" in arguments:
        assert {row["factory"] for row in result.items} == {arguments["factory"].lower()}
    if "pipeline_name" in arguments:
        assert all(arguments["pipeline_name"].lower() in row["pipeline_name"] for row in result.items)


async def test_list_failed_pipelines_factory_filter_finds_the_run_a_cap_would_hide(run_tool: RunTool, demo_sql: DemoSql) -> None:
    """The one North Europe failure of the week is not among the first rows of all failures; filtered, it is the row."""
    [neu_run] = failed_run_ids(demo_sql, WEEK, "factory = 'adf-prod-neu'")
    capped = await run_tool("list_failed_pipelines", time_window="last 7 days", max_rows=5)
    assert capped.truncated and neu_run not in run_ids(capped)
    filtered = await run_tool("list_failed_pipelines", time_window="last 7 days", factory="adf-prod-neu", max_rows=5)
    assert (run_ids(filtered), filtered.total, filtered.truncated) == ([neu_run], 1, False)
    assert filtered.query["factory"] == "adf-prod-neu"


@pytest.mark.parametrize("factory", ["North Europe", "adf_prod_neu", "-adf", "adf prod"])
async def test_list_failed_pipelines_refuses_what_is_not_a_factory_name(run_tool: RunTool, factory: str) -> None:
    result = await run_tool("list_failed_pipelines", factory=factory)
    assert (result.status, result.error_kind) == ("error", "bad_arguments")
    assert result.message.startswith(f"factory: {factory!r} is not a Data Factory name")


@pytest.mark.parametrize("tool", ["list_failed_pipelines", "query_pipeline_status", "list_pipeline_runs"])
@pytest.mark.parametrize("name", ["CHG0030015 (firewall)", "inc0010049"])
async def test_a_ticket_id_is_refused_as_a_pipeline_name(run_tool: RunTool, tool: str, name: str) -> None:
    """A small model once searched runs of the pipeline "CHG0030015 (firewall)" and reported the empty list as "no
    failures": a ticket's id is never part of a pipeline's name, so the model is told instead."""
    result = await run_tool(tool, pipeline_name=name)
    assert (result.status, result.error_kind) == ("error", "bad_arguments")
    assert result.message.startswith(f"pipeline_name: {name!r} names a ServiceNow record, not a pipeline")


async def test_list_failed_pipelines_unknown_factory_is_no_data(run_tool: RunTool) -> None:
    result = await run_tool("list_failed_pipelines", factory="adf-prod-xyz", time_window="last 7 days")
    assert (result.status, result.total) == ("no_data", 0)
    assert result.message.startswith("No failed pipeline runs in factory 'adf-prod-xyz' in last 7 days (")


async def test_list_failed_pipelines_bad_window(run_tool: RunTool) -> None:
    result = await run_tool("list_failed_pipelines", time_window="since the dawn of time")
    assert result.error_kind == "bad_arguments" and result.message.startswith("time_window: Unrecognised")


def pipelines_with_runs(demo_sql: DemoSql, window: tuple[datetime, datetime], where: str = "1 = 1", *params: object) -> set[str]:
    """The oracle: pipelines with a run that started in ``window`` and matches ``where``."""
    return {row[0] for row in demo_sql(
        f"SELECT DISTINCT pipeline_name FROM pipeline_runs WHERE start_min >= ? AND start_min < ? AND {where}",
        minutes_from_now(window[0]), minutes_from_now(window[1]), *params)}


async def test_query_pipeline_status_summarises_every_pipeline(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = pipelines_with_runs(demo_sql, WEEK)
    result = await run_tool("query_pipeline_status", max_rows=50)
    assert (result.total, result.shown) == (len(expected), len(expected))
    assert {row["pipeline_name"] for row in result.items} == expected
    failed = [row["failed"] for row in result.items]
    assert failed == sorted(failed, reverse=True)
    rows = {row["pipeline_name"]: row for row in result.items}
    assert rows["pl_ingest_sales"]["last_status"] == "Failed"
    assert rows["pl_ingest_web_events"]["last_status"] == "InProgress"
    assert rows["pl_refresh_powerbi_datasets"]["last_status"] == "Queued"
    assert rows["pl_archive_logs"]["last_status"] == "Cancelled"
    for row in result.items:
        assert row["runs"] == row["succeeded"] + row["failed"] + row["cancelled"] + row["running"]
        # "when did it last work?": the latest success, never later than the latest run
        assert (row["last_success"] is None) == (row["succeeded"] == 0)
        assert row["last_success"] is None or row["last_success"] <= row["last_start"]
    assert rows["pl_ingest_sales"]["last_success"] < rows["pl_ingest_sales"]["last_start"]  # its latest run failed


async def test_query_pipeline_status_filters_by_name_and_window(run_tool: RunTool, demo_sql: DemoSql) -> None:
    [(failed,)] = demo_sql("SELECT COUNT(*) FROM pipeline_runs WHERE pipeline_name = 'pl_transform_customer360' "
                           "AND status = 'Failed' AND start_min >= -1440")
    result = await run_tool("query_pipeline_status", pipeline_name="Customer360", time_window="last 24 hours")
    [row] = result.items
    assert (row["pipeline_name"], row["failed"], row["last_status"]) == ("pl_transform_customer360", failed, "Failed")
    assert result.message.startswith("1 pipeline matching 'Customer360' with runs in last 24 hours (2025-01-09T09:30Z to ")
    missing = await run_tool("query_pipeline_status", pipeline_name="pl_does_not_exist")
    assert (missing.status, missing.total) == ("no_data", 0)


@pytest.mark.parametrize("factory", ["adf-prod-neu", "Adf-Prod-Weu"])
async def test_query_pipeline_status_filters_by_factory(run_tool: RunTool, demo_sql: DemoSql, factory: str) -> None:
    expected = pipelines_with_runs(demo_sql, WEEK, "factory = ?", factory.lower())
    result = await run_tool("query_pipeline_status", factory=factory, max_rows=50)
    assert expected and {row["pipeline_name"] for row in result.items} == expected
    assert expected < pipelines_with_runs(demo_sql, WEEK), "the factory filter leaves the other factory's pipelines out"
    assert (result.total, result.shown) == (len(expected), len(expected))
    assert result.message.startswith(f"{len(expected)} pipelines in factory {factory!r} with runs in last 7 days (")


@pytest.mark.parametrize(
    ("phrase", "window"),
    [("since 2025-01-09T18:00Z", (datetime(2025, 1, 9, 18, tzinfo=UTC), DEMO_NOW)),
     ("2025-01-09T18:00Z to 2025-01-10T03:00Z", (datetime(2025, 1, 9, 18, tzinfo=UTC), MIDNIGHT + timedelta(hours=3)))],
    ids=["since-time", "time-range"],
)
async def test_query_pipeline_status_exact_windows(
    run_tool: RunTool, demo_sql: DemoSql, phrase: str, window: tuple[datetime, datetime]
) -> None:
    expected = pipelines_with_runs(demo_sql, window)
    result = await run_tool("query_pipeline_status", time_window=phrase, max_rows=50)
    assert expected and {row["pipeline_name"] for row in result.items} == expected
    runs = sum(row["runs"] for row in result.items)
    [(expected_runs,)] = demo_sql("SELECT COUNT(*) FROM pipeline_runs WHERE start_min >= ? AND start_min < ?",
                                  minutes_from_now(window[0]), minutes_from_now(window[1]))
    assert runs == expected_runs
    assert (result.query["time_window"]["start"], result.query["time_window"]["end"]) == tuple(map(iso_minute, window))
    assert f"with runs in {iso_minute(window[0])} to {iso_minute(window[1])}" in result.message


async def test_query_pipeline_status_cap(run_tool: RunTool, demo_sql: DemoSql) -> None:
    total = len(pipelines_with_runs(demo_sql, WEEK))
    result = await run_tool("query_pipeline_status", max_rows=3)
    assert (result.total, result.shown, result.truncated) == (total, 3, True)


async def test_get_pipeline_run_details_latest_run_of_a_pipeline(run_tool: RunTool) -> None:
    result = await run_tool("get_pipeline_run_details", pipeline_name="pl_ingest_sales")
    [run] = result.items
    assert (run["status"], run["error_code"], run["failed_activity"]) == ("Failed", "2200", "Copy_Sales")
    activities = [(a["activity_name"], a["status"]) for a in run["activities"]]
    assert activities == [("Lookup_Watermark", "Succeeded"), ("Copy_Sales", "Failed")]
    assert "UserErrorFileNotFound" in run["activities"][1]["error_message"]
    assert result.message.startswith(f"Latest run of pl_ingest_sales ({run['run_id']}): Failed")


async def test_get_pipeline_run_details_by_run_id_matches_the_failure_list(run_tool: RunTool) -> None:
    failures = await run_tool("list_failed_pipelines")
    row = next(item for item in failures.items if item["pipeline_name"] == "pl_transform_customer360")
    result = await run_tool("get_pipeline_run_details", run_id=row["run_id"].upper())
    [run] = result.items
    assert (run["run_id"], run["start"], run["error_code"]) == (row["run_id"], row["start"], "3200")
    failed = [a for a in run["activities"] if a["status"] == "Failed"]
    assert [a["activity_type"] for a in failed] == ["DatabricksNotebook"]


async def test_get_pipeline_run_details_running_run_has_no_end(run_tool: RunTool) -> None:
    [run] = (await run_tool("get_pipeline_run_details", pipeline_name="pl_ingest_web_events")).items
    assert (run["status"], run["end"], run["duration_min"]) == ("InProgress", None, None)
    assert run["activities"][-1]["status"] == "InProgress"


async def test_get_pipeline_run_details_warns_when_run_and_pipeline_disagree(run_tool: RunTool) -> None:
    status = await run_tool("query_pipeline_status", pipeline_name="pl_ingest_sales")
    run_id = status.items[0]["last_run_id"]
    result = await run_tool("get_pipeline_run_details", run_id=run_id, pipeline_name="pl_archive_logs")
    assert result.items[0]["pipeline_name"] == "pl_ingest_sales"
    assert result.warnings == [f"Run {run_id} belongs to pl_ingest_sales, not 'pl_archive_logs'."]


@pytest.mark.parametrize(
    ("arguments", "kind", "message"),
    [
        ({}, "bad_arguments", "Give run_id (a UUID from list_failed_pipelines) or pipeline_name; never guess a run id."),
        ({"run_id": "run-42"}, "bad_arguments", "run_id: 'run-42' is not a run id"),
        ({"run_id": "3f2b7c1e-8a4d-4e0b-9c61-2d5f0a7b9e13"}, "not_found",
         "No pipeline run 3f2b7c1e-8a4d-4e0b-9c61-2d5f0a7b9e13 found in Log Analytics."),
        ({"pipeline_name": "pl_imaginary"}, "not_found", "No runs of pipeline 'pl_imaginary' found in Log Analytics."),
    ],
    ids=["nothing", "malformed-id", "unknown-id", "unknown-pipeline"],
)
async def test_get_pipeline_run_details_errors(run_tool: RunTool, arguments: dict, kind: str, message: str) -> None:
    result = await run_tool("get_pipeline_run_details", **arguments)
    assert (result.status, result.error_kind) == ("error", kind)
    assert result.message.startswith(message)


async def test_cross_link_customer360_failures_match_databricks_degradation(run_tool: RunTool) -> None:
    failures = await run_tool("list_failed_pipelines")
    starts = [row["start"] for row in failures.items if row["pipeline_name"] == "pl_transform_customer360"]
    health = await run_tool("check_databricks_health", region="West Europe")
    [incident] = [item for item in health.items if item["kind"] == "incident"]
    assert incident["components"] == ["Azure West Europe - Jobs"]
    assert all(incident["started_at"] < start for start in starts)
    assert {row["error_code"] for row in failures.items if row["pipeline_name"] == "pl_transform_customer360"} == {"3200"}


def closest_run(demo_sql: DemoSql, pipeline: str, point: datetime) -> tuple[str, int] | None:
    """The oracle for ``around``: the run starting closest to ``point`` within 12 hours, and its distance in minutes."""
    at = minutes_from_now(point)
    rows = demo_sql("SELECT run_id, start_min FROM pipeline_runs WHERE pipeline_name = ? AND start_min BETWEEN ? AND ? "
                    "ORDER BY abs(start_min - ?), start_min DESC LIMIT 1", pipeline, at - 720, at + 720, at)
    return (rows[0][0], round(rows[0][1] - at)) if rows else None


def distance_words(minutes: int) -> str:
    hours, rest = divmod(abs(minutes), 60)
    parts = ([f"{hours} h"] if hours else []) + ([f"{rest} min"] if rest else [])
    return " ".join(parts) + (" after it" if minutes > 0 else " before it")


@pytest.mark.parametrize(
    ("pipeline", "around", "point"),
    [
        ("pl_transform_customer360", "2025-01-10T04:00Z", datetime(2025, 1, 10, 4, tzinfo=UTC)),
        ("pl_ingest_sales", "2025-01-10 05:00", datetime(2025, 1, 10, 5, tzinfo=UTC)),
        ("PL_LOAD_FINANCE_DWH", "2025-01-08T16:00Z", datetime(2025, 1, 8, 16, tzinfo=UTC)),
        ("pl_ingest_sales", "yesterday", datetime(2025, 1, 9, tzinfo=UTC)),
    ],
    ids=["the-4am-run", "space-separated", "hours-away-any-case", "phrase-start"],
)
async def test_get_pipeline_run_details_around_picks_the_closest_run(
    run_tool: RunTool, demo_sql: DemoSql, pipeline: str, around: str, point: datetime
) -> None:
    closest = closest_run(demo_sql, pipeline.lower(), point)
    assert closest is not None
    run_id, minutes = closest
    result = await run_tool("get_pipeline_run_details", pipeline_name=pipeline, around=around)
    [run] = result.items
    assert run["run_id"] == run_id
    assert result.message.startswith(
        f"Run of {pipeline.lower()} closest to {iso_minute(point)}, {distance_words(minutes)} ({run_id}): ")
    assert result.query["around"] == {
        "asked": around, "point": iso_minute(point), "searched_from": iso_minute(point - timedelta(hours=12)),
        "searched_to": iso_minute(point + timedelta(hours=12))}


async def test_get_pipeline_run_details_around_is_not_the_latest_run(run_tool: RunTool, demo_sql: DemoSql) -> None:
    """"The 4am run" of a pipeline that ran again since is that earlier run, with its own error."""
    latest = await run_tool("get_pipeline_run_details", pipeline_name="pl_transform_customer360")
    early = await run_tool("get_pipeline_run_details", pipeline_name="pl_transform_customer360", around="2025-01-10T04:00Z")
    assert latest.items[0]["run_id"] != early.items[0]["run_id"]
    assert early.items[0]["start"] < latest.items[0]["start"]
    assert early.items[0]["run_id"] == closest_run(demo_sql, "pl_transform_customer360", datetime(2025, 1, 10, 4, tzinfo=UTC))[0]


async def test_get_pipeline_run_details_around_with_no_run_near_says_what_was_searched(
    run_tool: RunTool, demo_sql: DemoSql
) -> None:
    point = datetime(2024, 12, 1, 8, tzinfo=UTC)
    assert closest_run(demo_sql, "pl_ingest_sales", point) is None
    result = await run_tool("get_pipeline_run_details", pipeline_name="pl_ingest_sales", around="2024-12-01T08:00Z")
    assert (result.status, result.error_kind, result.items) == ("error", "not_found", [])
    assert result.message == (
        "No run of pipeline 'pl_ingest_sales' starting between 2024-11-30T20:00Z and 2024-12-01T20:00Z "
        "(within 12 h of 2024-12-01T08:00Z) found in Log Analytics.")
    assert result.query["around"]["point"] == "2024-12-01T08:00Z"


async def test_get_pipeline_run_details_run_id_wins_over_around(run_tool: RunTool) -> None:
    latest = (await run_tool("get_pipeline_run_details", pipeline_name="pl_ingest_sales")).items[0]
    result = await run_tool("get_pipeline_run_details", run_id=latest["run_id"], around="2024-12-01T08:00Z")
    assert result.items[0]["run_id"] == latest["run_id"]
    assert result.warnings == ["around '2024-12-01T08:00Z' ignored: run_id names the run."]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"around": "2025-01-10T08:00Z"}, "Give run_id (a UUID from list_failed_pipelines) or pipeline_name"),
     ({"pipeline_name": "pl_ingest_sales", "around": "breakfast time"}, "around: Unrecognised time window 'breakfast time'")],
    ids=["no-pipeline", "not-a-time"],
)
async def test_get_pipeline_run_details_around_refusals(run_tool: RunTool, arguments: dict, message: str) -> None:
    result = await run_tool("get_pipeline_run_details", **arguments)
    assert (result.status, result.error_kind) == ("error", "bad_arguments")
    assert result.message.startswith(message)
