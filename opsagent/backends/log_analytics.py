"""``LogAnalyticsPipelineRunsBackend``: Data Factory runs from Azure Monitor Logs (KQL on ADF tables).

Queries ``ADFPipelineRun`` / ``ADFActivityRun`` with ``azure.monitor.query.aio.LogsQueryClient``.
A run writes several rows (Queued/InProgress, then final), so every query dedupes with
``arg_max(TimeGenerated, *) by RunId``. JSON text columns go through ``parse_json``.
Values from people or models never reach KQL raw: run ids must be GUIDs, names become escaped
string literals. Partial results are returned with a "partial results: …" warning.

Retries: the SDK client is built with ``retry_total=0`` and every call runs under
``backends.http.call_azure``. One loop, not two: the SDK's own policy would retry inside our
deadline and multiply attempts (4 x 4), and it ignores our injected sleep in tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from azure.core.credentials_async import AsyncTokenCredential
from azure.monitor.query import LogsQueryPartialResult
from azure.monitor.query.aio import LogsQueryClient

from opsagent.backends.base import ActivityRun, Page, PipelineRun, PipelineStatusSummary, RunDetails
from opsagent.backends.http import RetryPolicy, call_azure
from opsagent.backends.records import parse_records
from opsagent.errors import BackendNotFoundError
from opsagent.settings import Settings

BACKEND = "Log Analytics"
DETAILS_LOOKBACK = timedelta(days=30)
_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_FACTORY = 'Factory = extract(@"(?i)/factories/([^/]+)", 1, ResourceId)'
_RUN_COLUMNS = "RunId, PipelineName, Factory, Status, Start, End, TimeGenerated, FailureType, ErrorCode, ErrorMessage, Parameters"
_STATUS_ALIASES = {"Canceling": "Cancelled", "Canceled": "Cancelled"}
Row = dict[str, Any]
ParsedT = TypeVar("ParsedT")


# region KQL
def kql_string(value: str) -> str:
    """A KQL double-quoted string literal: backslash, quote and control characters escaped."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{escaped}"'


def _kql_datetime(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return f"datetime({aware.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')})"


def _window(start: datetime, end: datetime) -> str:
    return f"| where TimeGenerated between ({_kql_datetime(start)} .. {_kql_datetime(end)})"


def _prepare_failed_runs_query(start: datetime, end: datetime, limit: int) -> str:
    return f"""let runs = ADFPipelineRun
{_window(start, end)}
| summarize arg_max(TimeGenerated, *) by RunId
| where Status == "Failed";
let total = toscalar(runs | count);
runs
| order by TimeGenerated desc
| take {int(limit)}
| extend {_FACTORY}, Parameters = parse_json(Parameters), Total = total
| project {_RUN_COLUMNS}, Total"""


def _prepare_status_query(start: datetime, end: datetime, pipeline_name: str | None, limit: int) -> str:
    name_filter = f"\n| where PipelineName contains {kql_string(pipeline_name)}" if pipeline_name else ""
    return f"""let summary = ADFPipelineRun
{_window(start, end)}{name_filter}
| summarize arg_max(TimeGenerated, Status, Start, End) by RunId, PipelineName
| summarize Runs = count(), Succeeded = countif(Status == "Succeeded"), Failed = countif(Status == "Failed"),
    Cancelled = countif(Status == "Cancelled"), Running = countif(Status in ("Queued", "InProgress")),
    arg_max(Start, Status, RunId) by PipelineName
| project-rename LastStart = Start, LastStatus = Status, LastRunId = RunId;
let total = toscalar(summary | count);
summary
| order by Failed desc, PipelineName asc
| take {int(limit)}
| extend Total = total"""


def _prepare_details_query(run_id: str | None, pipeline_name: str | None) -> str:
    if run_id:
        rid = kql_string(run_id)
    else:
        latest = f"ADFPipelineRun | where PipelineName =~ {kql_string(pipeline_name or '')} | top 1 by Start desc"
        rid = f"toscalar({latest} | project RunId)"
    return f"""let rid = {rid};
let pipe = ADFPipelineRun | where RunId == rid | summarize arg_max(TimeGenerated, *) by RunId
  | extend {_FACTORY}, Parameters = parse_json(Parameters)
  | project Kind = "pipeline", {_RUN_COLUMNS};
let acts = ADFActivityRun | where PipelineRunId == rid | summarize arg_max(TimeGenerated, *) by ActivityRunId
  | extend ErrorMessage = coalesce(ErrorMessage, tostring(parse_json(Error).message))
  | project Kind = "activity", RunId = PipelineRunId, ActivityRunId, ActivityName, ActivityType,
    Status, Start, End, TimeGenerated, FailureType, ErrorCode, ErrorMessage;
union pipe, acts
| order by Start asc"""
# endregion


class LogAnalyticsPipelineRunsBackend:
    """Pipeline runs from one Log Analytics workspace. Close with ``aclose``."""

    kind = "log_analytics"

    def __init__(
        self,
        client: LogsQueryClient,
        workspace_id: str,
        *,
        policy: RetryPolicy,
    ) -> None:
        self._client = client
        self._workspace_id = workspace_id
        self._policy = policy

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        credential: AsyncTokenCredential,
        policy: RetryPolicy | None = None,
        client_options: Mapping[str, Any] | None = None,
    ) -> LogAnalyticsPipelineRunsBackend:
        """Build the client for LOG_ANALYTICS_WORKSPACE_ID at LOG_ANALYTICS_ENDPOINT.

        Args:
            credential: async Azure credential, owned (and closed) by the caller.
            client_options: extra ``LogsQueryClient`` keywords (tests pass an
                ``authentication_policy`` so a plain-http fake works).
        """
        options = {"retry_total": 0, **(client_options or {})}
        client = LogsQueryClient(credential, endpoint=settings.log_analytics_endpoint, **options)
        return cls(client, settings.log_analytics_workspace_id or "",
                   policy=policy or RetryPolicy.from_settings(settings))

    async def aclose(self) -> None:
        await self._client.close()

    async def list_failed_runs(self, *, start: datetime, end: datetime, limit: int) -> Page[PipelineRun]:
        rows, warnings = await self._query(_prepare_failed_runs_query(start, end, limit), (start, end),
                                           f"failed pipeline runs {start:%Y-%m-%d %H:%M}..{end:%Y-%m-%d %H:%M} UTC")
        items = _parse_rows(rows, _parse_run_from_row, warnings)
        return Page(items=items, total=_total(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def pipeline_status(
        self, *, start: datetime, end: datetime, pipeline_name: str | None, limit: int
    ) -> Page[PipelineStatusSummary]:
        described = f"pipeline status {pipeline_name or '(all)'} {start:%Y-%m-%d %H:%M}..{end:%Y-%m-%d %H:%M} UTC"
        rows, warnings = await self._query(_prepare_status_query(start, end, pipeline_name, limit), (start, end), described)
        items = _parse_rows(rows, _parse_summary_from_row, warnings)
        return Page(items=items, total=_total(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def run_details(self, *, run_id: str | None = None, pipeline_name: str | None = None) -> RunDetails:
        """One run by id (a GUID), or the latest run of the pipeline with that exact name (case-insensitive)."""
        described = f"run {run_id}" if run_id else f"latest run of pipeline {pipeline_name!r}"
        if run_id is not None and not _GUID.match(run_id.strip()):
            raise BackendNotFoundError(f"{run_id!r} is not a pipeline run id (expected a GUID)",
                                       backend=BACKEND, query=described)
        if not run_id and not pipeline_name:
            raise BackendNotFoundError("give a run id or a pipeline name", backend=BACKEND, query=described)
        kql = _prepare_details_query(run_id.strip().lower() if run_id else None, pipeline_name)  # ADF ids are lower-case
        rows, warnings = await self._query(kql, DETAILS_LOOKBACK, described)
        runs = _parse_rows([r for r in rows if r.get("Kind") == "pipeline"], _parse_run_from_row, warnings)
        if not runs:
            raise BackendNotFoundError(f"no pipeline run found for {described} in the last 30 days",
                                       backend=BACKEND, query=described)
        activities = _parse_rows([r for r in rows if r.get("Kind") == "activity"], _parse_activity_from_row, warnings)
        return RunDetails(run=runs[0], activities=activities, warnings=warnings)

    async def _query(
        self, kql: str, timespan: tuple[datetime, datetime] | timedelta, described: str
    ) -> tuple[list[Row], list[str]]:
        """Run KQL and return the first table's rows as dicts, plus warnings for partial results."""

        async def run() -> Any:
            return await self._client.query_workspace(self._workspace_id, kql, timespan=timespan)

        result = await call_azure(run, policy=self._policy, backend=BACKEND, query=described)
        warnings: list[str] = []
        if isinstance(result, LogsQueryPartialResult):
            tables = result.partial_data or []
            error = result.partial_error
            warnings.append(f"partial results: {error.message if error else 'the query did not complete'}")
        else:
            tables = result.tables or []
        rows = [dict(zip(tables[0].columns, row)) for row in tables[0].rows] if tables else []
        return rows, warnings


# region parsing
def _parse_rows(rows: list[Row], parse: Callable[[Row], ParsedT], warnings: list[str]) -> list[ParsedT]:
    """Parse each row; rows that do not fit the model are skipped and counted in a warning."""
    parsed, skipped = parse_records(rows, parse, describe=lambda row: _text(row, "RunId"))
    if skipped:
        warnings.append(f"skipped {len(skipped)} row(s) that could not be read")
    return parsed


def _parse_run_from_row(row: Row) -> PipelineRun:
    return PipelineRun(
        run_id=str(row["RunId"]), pipeline_name=_text(row, "PipelineName"), factory=_text(row, "Factory"),
        status=_status(row.get("Status")), start=row.get("Start") or row.get("TimeGenerated"),
        end=_end(row.get("End")), failure_type=_text(row, "FailureType"), error_code=_text(row, "ErrorCode"),
        error_message=_text(row, "ErrorMessage"), parameters=_parse_parameters(row.get("Parameters")),
    )


def _parse_activity_from_row(row: Row) -> ActivityRun:
    return ActivityRun(
        activity_run_id=_text(row, "ActivityRunId"), activity_name=_text(row, "ActivityName"),
        activity_type=_text(row, "ActivityType"), status=_status(row.get("Status")),
        start=row.get("Start") or row.get("TimeGenerated"), end=_end(row.get("End")),
        error_code=_text(row, "ErrorCode"), error_message=_text(row, "ErrorMessage"),
        failure_type=_text(row, "FailureType"),
    )


def _parse_summary_from_row(row: Row) -> PipelineStatusSummary:
    return PipelineStatusSummary(
        pipeline_name=_text(row, "PipelineName"), runs=int(row.get("Runs") or 0),
        succeeded=int(row.get("Succeeded") or 0), failed=int(row.get("Failed") or 0),
        cancelled=int(row.get("Cancelled") or 0), running=int(row.get("Running") or 0),
        last_status=_status(row.get("LastStatus")) if row.get("LastStatus") else None,
        last_run_id=_text(row, "LastRunId"), last_start=row.get("LastStart") or None,
    )


def _text(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    return "" if value is None else str(value)


def _status(value: Any) -> Any:
    text = str(value or "")
    return _STATUS_ALIASES.get(text, text)


def _end(value: Any) -> datetime | None:
    """ADF writes ``1601-01-01`` as End while a run is still going."""
    if isinstance(value, datetime):
        return None if value.year < 1900 else value
    if isinstance(value, str) and value and not value.startswith("1601-"):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return None


def _parse_parameters(value: Any) -> dict[str, str]:
    """``dynamic`` columns arrive as JSON text; anything that is not an object is dropped."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else {}
        except ValueError:
            return {}
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}


def _total(rows: list[Row], fallback: int) -> int:
    try:
        return int(rows[0]["Total"]) if rows else 0
    except (KeyError, TypeError, ValueError):
        return fallback
# endregion
