"""LogAnalyticsPipelineRunsBackend through the real aio LogsQueryClient against a loopback query API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from azure.core.pipeline.policies import SansIOHTTPPolicy

from opsagent.backends.http import RetryPolicy
from opsagent.backends.base import PipelineInfo, RunSearch
from opsagent.backends.log_analytics import LogAnalyticsPipelineRunsBackend
from opsagent.backends.log_analytics_kql import kql_string
from opsagent.errors import BackendAuthError, BackendError, BackendNotFoundError, BackendUnavailableError
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeCredential, FakeServer, ManualTime, Reply, json_reply

WORKSPACE = "0b9d2c4e-1111-4a2b-9c3d-5e6f7a8b9c0d"
QUERY_PATH = f"/v1/workspaces/{WORKSPACE}/query"
RUN_ID = "3f2b7c1e-8a4d-4e0b-9c61-2d5f0a7b9e13"
UTC = timezone.utc
START, END = datetime(2025, 1, 10, tzinfo=UTC), datetime(2025, 1, 11, tzinfo=UTC)
RUN_COLUMNS = [("RunId", "string"), ("PipelineName", "string"), ("Factory", "string"), ("Status", "string"),
               ("Start", "datetime"), ("End", "datetime"), ("TimeGenerated", "datetime"), ("FailureType", "string"),
               ("ErrorCode", "string"), ("ErrorMessage", "string"), ("Parameters", "dynamic")]


def table(columns: list[tuple[str, str]], rows: list[list[Any]]) -> dict[str, Any]:
    return {"tables": [{"name": "PrimaryResult", "columns": [{"name": n, "type": t} for n, t in columns], "rows": rows}]}


def failed_run_row(run_id: str = RUN_ID) -> list[Any]:
    return [run_id, "pl_ingest_sales", "adf-prod-weu", "Failed", "2025-01-10T02:00:00.0000000Z",
            "2025-01-10T02:14:07.5526831Z", "2025-01-10T02:14:07.5526831Z", "UserError", "2200",
            "Failure happened on 'Source' side.", '{"runDate":"2025-01-09","retries":2}']


@pytest.fixture
async def backend(server: FakeServer, policy: RetryPolicy) -> AsyncIterator[LogAnalyticsPipelineRunsBackend]:
    settings = Settings(log_analytics_workspace_id=WORKSPACE, log_analytics_endpoint=server.url)
    la = LogAnalyticsPipelineRunsBackend.from_settings(
        settings, credential=FakeCredential(), policy=policy, client_options={"authentication_policy": SansIOHTTPPolicy()}
    )
    yield la
    await la.aclose()


async def test_failed_runs_query_shape_and_parsing(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([*RUN_COLUMNS, ("Total", "long")], [[*failed_run_row(), 9]])))
    page = await backend.list_failed_runs(start=START, end=END, limit=5)
    (request,) = server.requests
    body = request.json()
    assert "summarize arg_max(TimeGenerated, *) by RunId" in body["query"]
    assert 'where Status == "Failed"' in body["query"] and "take 5" in body["query"]
    assert "between (datetime(2025-01-10T00:00:00Z) .. datetime(2025-01-11T00:00:00Z))" in body["query"]
    assert body["timespan"].startswith("2025-01-10T00:00:00")
    (run,) = page.items
    assert (run.run_id, run.status, run.factory, run.error_code) == (RUN_ID, "Failed", "adf-prod-weu", "2200")
    assert run.parameters == {"runDate": "2025-01-09", "retries": "2"}
    assert run.end is not None and run.end.tzinfo is not None and run.duration_minutes == 14.1
    assert page.total == 9 and page.warnings == []


FACTORY_OF_RUN = 'extract(@"(?i)/factories/([^/]+)/?$", 1, coalesce(_ResourceId, ResourceId))'


async def test_failed_runs_filter_by_factory_and_pipeline(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([*RUN_COLUMNS, ("Total", "long")], [])))
    await backend.list_failed_runs(start=START, end=END, limit=5, pipeline_name="ingest_sales", factory="ADF-Prod-NEU")
    query = server.requests[0].json()["query"]
    window = "| where TimeGenerated between (datetime(2025-01-10T00:00:00Z) .. datetime(2025-01-11T00:00:00Z))"
    assert (f'{window}\n| where PipelineName contains "ingest_sales"\n| where {FACTORY_OF_RUN} =~ "ADF-Prod-NEU"'
            "\n| summarize arg_max(TimeGenerated, *) by RunId") in query


ERROR_LINE = '| where replace_regex(tolower(strcat(ErrorCode, " ", ErrorMessage)), @"[^0-9a-z]+", "") contains '


@pytest.mark.parametrize(("words", "squashed"), [("File not-found", "filenotfound"), ('x" or 1==1 //', "xor11")])
async def test_error_words_filter_runs_after_their_latest_state(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend,
                                                                 words: str, squashed: str) -> None:
    # the words are matched letters-and-digits only on both sides, on the run's latest row; nothing else reaches KQL
    server.script("POST", QUERY_PATH, json_reply(table([*RUN_COLUMNS, ("Total", "long")], [])))
    await backend.list_runs(RunSearch(start=START, end=END, statuses=["Failed"], error_text=words), limit=5)
    query = server.requests[0].json()["query"]
    assert f'| summarize arg_max(TimeGenerated, *) by RunId\n| where Status == "Failed"\n{ERROR_LINE}"{squashed}";' in query
    assert words not in query  # the raw words never reach KQL


async def test_error_words_filter_a_count_on_the_runs_error(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("Name", "string"), ("Runs", "long")], [])))
    await backend.count_runs(RunSearch(start=START, end=END, statuses=None, error_text="Timeout"), group_by="pipeline")
    query = server.requests[0].json()["query"]
    assert ("| summarize arg_max(TimeGenerated, Status, ErrorCode, ErrorMessage) by RunId, PipelineName, Factory\n"
            f'{ERROR_LINE}"timeout"\n| summarize Runs = count()') in query


async def test_factory_filter_text_cannot_escape_its_string(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("PipelineName", "string"), ("Total", "long")], [])))
    await backend.pipeline_status(start=START, end=END, pipeline_name=None, limit=10, factory='x" or 1==1 //\nADFActivityRun')
    query = server.requests[0].json()["query"]
    assert f'| where {FACTORY_OF_RUN} =~ "x\\" or 1==1 //\\nADFActivityRun"\n' in query
    assert "PipelineName contains" not in query


async def test_run_details_around_picks_the_closest_start_within_reach(
    server: FakeServer, backend: LogAnalyticsPipelineRunsBackend
) -> None:
    columns = [("Kind", "string"), *RUN_COLUMNS]
    server.script("POST", QUERY_PATH, json_reply(table(columns, [["pipeline", *failed_run_row()]])))
    point = datetime(2025, 1, 10, 8, tzinfo=UTC)
    details = await backend.run_details(pipeline_name='pl_"sales', around=point, within=timedelta(hours=12))
    body = server.requests[0].json()
    assert body["query"].startswith(
        'let rid = toscalar(ADFPipelineRun | where PipelineName =~ "pl_\\"sales" and Start between '
        "(datetime(2025-01-09T20:00:00Z) .. datetime(2025-01-10T20:00:00Z))\n"
        "  | summarize Start = min(Start) by RunId\n"
        "  | extend Distance = abs(Start - datetime(2025-01-10T08:00:00Z))\n"
        "  | order by Distance asc, Start desc | take 1 | project RunId);")
    assert body["timespan"].startswith("2025-01-09T20:00:00") and body["timespan"].split("/")[1].startswith("2025-01-11T20:00:00")
    assert details.run.run_id == RUN_ID


async def test_run_details_around_not_found_names_the_search(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("Kind", "string"), *RUN_COLUMNS], [])))
    with pytest.raises(BackendNotFoundError, match=r"run of pipeline 'pl_x' starting within 12 h of 2025-01-10 08:00 UTC$"):
        await backend.run_details(pipeline_name="pl_x", around=datetime(2025, 1, 10, 8, tzinfo=UTC))


async def test_run_details_by_id_ignores_around(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("Kind", "string"), *RUN_COLUMNS], [["pipeline", *failed_run_row()]])))
    await backend.run_details(run_id=RUN_ID, around=datetime(2025, 1, 10, 8, tzinfo=UTC))
    body = server.requests[0].json()
    assert f'let rid = "{RUN_ID}";' in body["query"] and "Distance" not in body["query"]
    assert body["timespan"] == "PT2592000.0S", "the 30-day lookback, not the reach around a time point"


async def test_pipeline_inventory_query_and_parsing(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    rows = [["pl_ingest_iot_telemetry", "ADF-PROD-NEU"], ["pl_ingest_sales", "adf-prod-weu"], ["", "adf-prod-weu"]]
    server.script("POST", QUERY_PATH, json_reply(table([("PipelineName", "string"), ("Factory", "string")], rows)))
    pipelines = await backend.list_pipelines(since=datetime(2024, 12, 11, tzinfo=UTC))
    assert pipelines == [PipelineInfo(name="pl_ingest_iot_telemetry", factory="ADF-PROD-NEU"),
                         PipelineInfo(name="pl_ingest_sales", factory="adf-prod-weu")]
    body = server.requests[0].json()
    assert body["query"] == (
        "ADFPipelineRun\n| where TimeGenerated >= datetime(2024-12-11T00:00:00Z)\n"
        f"| extend Factory = {FACTORY_OF_RUN}\n| summarize by PipelineName, Factory\n"
        "| order by PipelineName asc, Factory asc\n| take 5000")
    assert body.get("timespan") is None


async def test_partial_error_becomes_a_warning(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    partial = table([*RUN_COLUMNS, ("Total", "long")], [[*failed_run_row(), 1]]) | {
        "error": {"code": "PartialError", "message": "There were some errors when processing your query.",
                  "details": [{"code": "EngineError", "message": "Query exceeded the memory limit"}]}}
    server.script("POST", QUERY_PATH, json_reply(partial))
    page = await backend.list_failed_runs(start=START, end=END, limit=5)
    assert len(page.items) == 1
    assert page.warnings == ["partial results: There were some errors when processing your query."]


async def test_semantic_error_is_clear_and_not_retried(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    error = {"error": {"message": "The request had some invalid properties", "code": "BadArgumentError",
                       "innererror": {"code": "SemanticError", "message": "A semantic error occurred.",
                                      "innererror": {"code": "SEM0100",
                                                     "message": "'where' operator: Failed to resolve column named 'Stat'"}}}}
    server.script("POST", QUERY_PATH, json_reply(error, 400))
    with pytest.raises(BackendError, match=r"^Log Analytics rejected the request \(HTTP 400\)$") as caught:
        await backend.list_failed_runs(start=START, end=END, limit=5)
    assert "BadArgumentError/SemanticError: 'where' operator: Failed to resolve column" in caplog.text  # operators
    assert type(caught.value) is BackendError and caught.value.query.startswith("failed pipeline runs")
    assert len(server.requests) == 1


async def test_throttling_and_5xx_are_retried_once_each(
    server: FakeServer, backend: LogAnalyticsPipelineRunsBackend, manual_time: ManualTime
) -> None:
    throttled = json_reply({"error": {"code": "TooManyRequests", "message": "slow down"}}, 429, Retry_After="4")
    ok = json_reply(table([("PipelineName", "string"), ("Runs", "long"), ("Total", "long")], []))
    server.script("POST", QUERY_PATH, throttled, Reply(504, body={"error": {"code": "GatewayTimeout"}}), ok)
    page = await backend.pipeline_status(start=START, end=END, pipeline_name=None, limit=10)
    assert page.items == [] and page.total == 0
    assert manual_time.sleeps == [4.0, 0.25] and len(server.requests) == 3, "no hidden SDK retries"


async def test_persistent_5xx_gives_up(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, Reply(503, body={"error": {"code": "ServiceUnavailable"}}))
    with pytest.raises(BackendUnavailableError, match="Log Analytics is unavailable after 4"):
        await backend.list_failed_runs(start=START, end=END, limit=5)


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_failures(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend, status: int) -> None:
    server.script("POST", QUERY_PATH, json_reply({"error": {"code": "InsufficientAccessError", "message": "no"}}, status))
    with pytest.raises(BackendAuthError, match=rf"not authorised for Log Analytics \(check credentials; HTTP {status}\)"):
        await backend.list_failed_runs(start=START, end=END, limit=5)


async def test_pipeline_status_escapes_the_name_and_parses_summaries(
    server: FakeServer, backend: LogAnalyticsPipelineRunsBackend
) -> None:
    columns = [("PipelineName", "string"), ("Runs", "long"), ("Succeeded", "long"), ("Failed", "long"),
               ("Cancelled", "long"), ("Running", "long"), ("LastStart", "datetime"), ("LastStatus", "string"),
               ("LastRunId", "string"), ("LastSuccess", "datetime"), ("Total", "long")]
    row = ["pl_ingest_sales", 6, 4, 1, 0, 1, "2025-01-10T22:00:00Z", "InProgress", RUN_ID, "2025-01-10T21:00:00Z", 1]
    server.script("POST", QUERY_PATH, json_reply(table(columns, [row])))
    page = await backend.pipeline_status(start=START, end=END, pipeline_name='sales" | take 1 //', limit=10)
    query = server.requests[0].json()["query"]
    assert 'where PipelineName contains "sales\\" | take 1 //"' in query
    assert 'LastSuccess = maxif(Start, Status == "Succeeded")' in query
    (summary,) = page.items
    assert (summary.runs, summary.failed, summary.last_status, summary.success_rate_pct) == (6, 1, "InProgress", 80.0)
    assert summary.last_success is not None and summary.last_success.isoformat() == "2025-01-10T21:00:00+00:00"


async def test_run_details_by_id_with_activity_errors(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    columns = [("Kind", "string"), *RUN_COLUMNS, ("ActivityRunId", "string"), ("ActivityName", "string"),
               ("ActivityType", "string")]
    pipeline = ["pipeline", *failed_run_row(), None, None, None]
    activity = ["activity", RUN_ID, None, None, "Failed", "2025-01-10T02:01:00Z", "2025-01-10T02:14:00Z",
                "2025-01-10T02:14:00Z", "UserError", "2200", "ErrorCode=UserErrorFileNotFound", None,
                "a-1", "Copy_Sales", "Copy"]
    server.script("POST", QUERY_PATH, json_reply(table(columns, [pipeline, activity])))
    details = await backend.run_details(run_id=RUN_ID.upper())
    assert f'let rid = "{RUN_ID}";' in server.requests[0].json()["query"], "ids are matched lower-case"
    assert details.run.pipeline_name == "pl_ingest_sales"
    (act,) = details.activities
    assert (act.activity_name, act.activity_type, act.error_message) == ("Copy_Sales", "Copy", "ErrorCode=UserErrorFileNotFound")


async def test_run_details_rejects_non_guid_ids_without_querying(
    server: FakeServer, backend: LogAnalyticsPipelineRunsBackend
) -> None:
    with pytest.raises(BackendNotFoundError, match="expected a GUID"):
        await backend.run_details(run_id='x" or 1==1')
    assert server.requests == []


async def test_run_details_latest_by_name_not_found(server: FakeServer, backend: LogAnalyticsPipelineRunsBackend) -> None:
    server.script("POST", QUERY_PATH, json_reply(table([("Kind", "string"), *RUN_COLUMNS], [])))
    with pytest.raises(BackendNotFoundError, match="latest run of pipeline 'pl_nope'"):
        await backend.run_details(pipeline_name="pl_nope")
    assert 'PipelineName =~ "pl_nope" | top 1 by Start desc' in server.requests[0].json()["query"]


@pytest.mark.parametrize(
    ("raw", "literal"),
    [("plain", '"plain"'), ('a"b', '"a\\"b"'), ("back\\slash", '"back\\\\slash"'), ("line\nbreak", '"line\\nbreak"')],
)
def test_kql_string_escaping(raw: str, literal: str) -> None:
    assert kql_string(raw) == literal
