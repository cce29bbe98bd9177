"""Data Factory tools against the demo run history on a fixed clock."""

from __future__ import annotations

import uuid

import pytest

from opsagent.contracts.tool_result import ToolResult
from tests.tools.conftest import RunTool

LAST_24H_FAILURES = {
    "pl_ingest_sales": 3, "pl_transform_customer360": 2, "pl_copy_crm_accounts": 2,
    "pl_load_finance_dwh": 1, "pl_export_marketing": 1,
}


def per_pipeline(result: ToolResult) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in result.items:
        counts[row["pipeline_name"]] = counts.get(row["pipeline_name"], 0) + 1
    return counts


async def test_list_failed_pipelines_last_24_hours(run_tool: RunTool) -> None:
    result = await run_tool("list_failed_pipelines")
    assert (result.status, result.total, result.shown, result.truncated) == ("ok", 9, 9, False)
    assert per_pipeline(result) == LAST_24H_FAILURES
    starts = [row["start"] for row in result.items]
    assert starts == sorted(starts, reverse=True)
    assert all("2025-01-09T09:30Z" <= start <= "2025-01-10T09:30Z" for start in starts)
    assert all(uuid.UUID(row["run_id"]).version == 4 for row in result.items)
    assert result.message.startswith("9 failed pipeline runs in last 24 hours. Pipelines: pl_ingest_sales (3)")


async def test_list_failed_pipelines_rows_carry_the_failed_activity(run_tool: RunTool) -> None:
    latest = (await run_tool("list_failed_pipelines", limit=1)).items[0]
    assert (latest["pipeline_name"], latest["error_code"], latest["failed_activity"]) == ("pl_ingest_sales", "2200", "Copy_Sales")
    assert "UserErrorFileNotFound" in latest["error_message"]


@pytest.mark.parametrize(
    ("phrase", "total"),
    [("last 24 hours", 9), ("last night", 8), ("today", 8), ("yesterday", 2), ("last hour", 1),
     ("last 7 days", 24), ("next 7 days", 0)],
)
async def test_list_failed_pipelines_time_windows(run_tool: RunTool, phrase: str, total: int) -> None:
    result = await run_tool("list_failed_pipelines", time_window=phrase)
    assert result.total == total
    window = result.query["time_window"]
    assert all(window["start"] <= row["start"] <= window["end"] for row in result.items)
    assert result.status == ("ok" if total else "no_data")


async def test_list_failed_pipelines_cap(run_tool: RunTool) -> None:
    result = await run_tool("list_failed_pipelines", max_rows=3)
    assert (result.total, result.shown, result.truncated) == (9, 3, True)
    assert "showing the 3 most recent" in result.message and "Pipelines among the rows shown" in result.message


async def test_list_failed_pipelines_bad_window(run_tool: RunTool) -> None:
    result = await run_tool("list_failed_pipelines", time_window="since the dawn of time")
    assert result.error_kind == "bad_arguments" and result.message.startswith("time_window: Unrecognised")


async def test_query_pipeline_status_summarises_every_pipeline(run_tool: RunTool) -> None:
    result = await run_tool("query_pipeline_status")
    assert (result.total, result.shown) == (15, 15)
    failed = [row["failed"] for row in result.items]
    assert failed == sorted(failed, reverse=True)
    rows = {row["pipeline_name"]: row for row in result.items}
    assert rows["pl_ingest_sales"]["last_status"] == "Failed"
    assert rows["pl_ingest_web_events"]["last_status"] == "InProgress"
    assert rows["pl_refresh_powerbi_datasets"]["last_status"] == "Queued"
    assert rows["pl_archive_logs"]["last_status"] == "Cancelled"
    for row in result.items:
        assert row["runs"] == row["succeeded"] + row["failed"] + row["cancelled"] + row["running"]


async def test_query_pipeline_status_filters_by_name_and_window(run_tool: RunTool) -> None:
    result = await run_tool("query_pipeline_status", pipeline_name="Customer360", time_window="last 24 hours")
    [row] = result.items
    assert (row["pipeline_name"], row["failed"], row["last_status"]) == ("pl_transform_customer360", 2, "Failed")
    missing = await run_tool("query_pipeline_status", pipeline_name="pl_does_not_exist")
    assert (missing.status, missing.total) == ("no_data", 0)


async def test_query_pipeline_status_cap(run_tool: RunTool) -> None:
    result = await run_tool("query_pipeline_status", max_rows=3)
    assert (result.total, result.shown, result.truncated) == (15, 3, True)


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
