"""Runs of any status, exact counts and a pipeline's history through the real LogsQueryClient: the exact KQL sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from azure.core.pipeline.policies import SansIOHTTPPolicy

from opsagent.backends.base import RunSearch
from opsagent.backends.http import RetryPolicy
from opsagent.backends.log_analytics import LogAnalyticsPipelineRunsBackend
from opsagent.errors import BackendNotFoundError
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeCredential, FakeServer, json_reply

WORKSPACE = "0b9d2c4e-1111-4a2b-9c3d-5e6f7a8b9c0d"
QUERY_PATH = f"/v1/workspaces/{WORKSPACE}/query"
UTC = timezone.utc
NOW = datetime(2025, 1, 10, 9, 30, tzinfo=UTC)
START, END = datetime(2025, 1, 10, tzinfo=UTC), datetime(2025, 1, 11, tzinfo=UTC)
FACTORY = 'extract(@"(?i)/factories/([^/]+)/?$", 1, coalesce(_ResourceId, ResourceId))'
WINDOW = "| where TimeGenerated between (datetime(2025-01-10T00:00:00Z) .. datetime(2025-01-11T00:00:00Z))"
RUN_COLUMNS = "RunId, PipelineName, Factory, Status, Start, End, TimeGenerated, FailureType, ErrorCode, ErrorMessage, Parameters"
COLUMNS = [("Kind", "string"), ("RunId", "string"), ("PipelineName", "string"), ("Factory", "string"),
           ("Status", "string"), ("Start", "datetime"), ("End", "datetime"), ("FailureType", "string"),
           ("ErrorCode", "string"), ("ErrorMessage", "string"), ("FailedActivity", "string"), ("Count", "long"),
           ("FirstSeen", "datetime"), ("Starts", "dynamic")]


def table(columns: list[tuple[str, str]], rows: list[list[Any]]) -> dict[str, Any]:
    return {"tables": [{"name": "PrimaryResult", "columns": [{"name": n, "type": t} for n, t in columns], "rows": rows}]}


@pytest.fixture
async def backend(server: FakeServer, policy: RetryPolicy) -> AsyncIterator[LogAnalyticsPipelineRunsBackend]:
    settings = Settings(log_analytics_workspace_id=WORKSPACE, log_analytics_endpoint=server.url)
    la = LogAnalyticsPipelineRunsBackend.from_settings(
        settings, credential=FakeCredential(), policy=policy, clock=lambda: NOW,
        client_options={"authentication_policy": SansIOHTTPPolicy()})
    yield la
    await la.aclose()


async def test_runs_of_some_statuses_newest_start_first(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("RunId", "string"), ("Total", "long")], [])))
    await backend.list_runs(RunSearch(start=START, end=END, statuses=["InProgress", "Queued"], pipeline_name="sales",
                                      factory="adf-x"), limit=7)
    assert server.requests[0].json()["query"] == f"""let runs = ADFPipelineRun
{WINDOW}
| where PipelineName contains "sales"
| where {FACTORY} =~ "adf-x"
| summarize arg_max(TimeGenerated, *) by RunId
| where Status in ("InProgress", "Queued");
let total = toscalar(runs | count);
runs
| order by Start desc
| take 7
| extend Factory = {FACTORY}, Parameters = parse_json(Parameters), Total = total
| project {RUN_COLUMNS}, Total"""


@pytest.mark.parametrize(("statuses", "line"), [
    (["Cancelled"], '| where Status in ("Cancelled", "Canceled", "Canceling");'),
    (["Failed"], '| where Status == "Failed";'),
    (None, "| summarize arg_max(TimeGenerated, *) by RunId;"),
], ids=["cancel-spellings", "one-status", "any-status"])
async def test_status_filter_lines(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend,
                                   statuses: list[str] | None, line: str) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("RunId", "string"), ("Total", "long")], [])))
    await backend.list_runs(RunSearch(start=START, end=END, statuses=statuses), limit=5)
    assert line in server.requests[0].json()["query"].splitlines()


async def test_counts_per_factory_are_summarized_by_the_workspace(
    server: FakeServer, backend: LogAnalyticsPipelineRunsBackend
) -> None:
    columns = [("Name", "string"), ("Runs", "long"), ("Succeeded", "long"), ("Failed", "long"), ("Cancelled", "long"),
               ("InProgress", "long"), ("Queued", "long")]
    rows = [["adf-prod-weu", 1234, 0, 1234, 0, 0, 0], ["adf-prod-neu", 56, 0, 56, 0, 0, 0]]
    server.script("POST", QUERY_PATH, json_reply(table(columns, rows)))
    page = await backend.count_runs(RunSearch(start=START, end=END, statuses=["Failed"]), group_by="factory")
    assert server.requests[0].json()["query"] == f"""ADFPipelineRun
{WINDOW}
| extend Factory = {FACTORY}
| summarize arg_max(TimeGenerated, Status) by RunId, PipelineName, Factory
| where Status == "Failed"
| summarize Runs = count(), Succeeded = countif(Status == "Succeeded"), Failed = countif(Status == "Failed"),
    Cancelled = countif(Status in ("Cancelled", "Canceled", "Canceling")), InProgress = countif(Status == "InProgress"),
    Queued = countif(Status == "Queued") by Name = Factory
| order by Runs desc, Name asc
| take 1000"""
    assert [(item.name, item.runs, item.failed) for item in page.items] == [("adf-prod-weu", 1234, 1234),
                                                                           ("adf-prod-neu", 56, 56)]
    assert page.total == 2 and page.warnings == []


def run(kind: str, run_id: str, status: str, start: str, end: str | None, code: str = "", message: str = "") -> list[Any]:
    return [kind, run_id, "pl_ingest_sales", "adf-prod-weu", status, start, end, "UserError" if code else "", code,
            message, None, None, None, None]


async def test_pipeline_history_query_and_reading(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    failed = "Operation on target Copy_Sales failed: file not found"
    rows = [
        run("latest", "11111111-0000-4000-8000-000000000001", "Failed", "2025-01-10T08:42:00Z", "2025-01-10T08:45:00Z",
            "2200", failed),
        run("last_failure", "11111111-0000-4000-8000-000000000001", "Failed", "2025-01-10T08:42:00Z",
            "2025-01-10T08:45:00Z", "2200", failed),
        run("success", "11111111-0000-4000-8000-000000000003", "Succeeded", "2025-01-09T20:00:00Z", "2025-01-09T20:20:00Z"),
        run("success", "11111111-0000-4000-8000-000000000002", "Succeeded", "2025-01-09T23:40:00Z", "2025-01-10T00:03:00Z"),
        ["failure_group", "11111111-0000-4000-8000-000000000001", None, None, None, "2025-01-10T08:42:00Z", None,
         "UserError", "2200", failed, "Copy_Sales", 8, "2024-12-28T17:42:00Z",
         '["2025-01-02T08:42:00Z","2025-01-10T08:42:00Z","2024-12-28T17:42:00Z","2025-01-09T08:42:00Z",'
         '"2025-01-05T08:42:00Z","2025-01-07T08:42:00Z","2024-12-30T08:42:00Z","2025-01-01T08:42:00Z"]'],
        ["total", None, None, None, None, None, None, None, None, None, None, 112, None, None],
    ]
    server.script("POST", QUERY_PATH, json_reply(table(COLUMNS, rows)))
    history = await backend.pipeline_history("pl_ingest_sales", recent=20)
    body = server.requests[0].json()
    assert body["query"].startswith('let runs = ADFPipelineRun\n| where TimeGenerated >= datetime(2024-12-11T09:30:00Z)\n'
                                    '| where PipelineName =~ "pl_ingest_sales"\n| summarize arg_max(TimeGenerated, *) by RunId')
    assert "(succeeded | top 20 by Start desc | extend Kind = \"success\")" in body["query"]
    assert ("| summarize Count = count(), FirstSeen = min(Start), Starts = make_list(Start, 256),\n"
            "      arg_max(Start, RunId, ErrorMessage) by ErrorCode, FailedActivity, FailureType") in body["query"]
    assert body["timespan"].startswith("2024-12-11T09:30:00")
    assert (history.searched_from, history.searched_to, history.runs) == (NOW - timedelta(days=30), NOW, 112)
    assert history.latest_run is not None and history.latest_run.status == "Failed"
    assert [item.run_id[-1] for item in history.recent_successes] == ["2", "3"], "newest first"
    (group,) = history.failure_groups
    assert (group.error_code, group.failed_activity, group.count, group.first_seen.day, group.last_seen.day) == (
        "2200", "Copy_Sales", 8, 28, 10)
    assert [start.day for start in group.starts] == [10, 9, 7, 5, 2], "the latest five failures, newest first"


async def test_pipeline_history_without_runs_is_not_found(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table(COLUMNS, [["total", *([None] * 10), 0, None, None]])))
    with pytest.raises(BackendNotFoundError, match="no runs of pipeline 'pl_x' since 2024-12-11 09:30 UTC"):
        await backend.pipeline_history("pl_x")
