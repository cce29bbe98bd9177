"""``LogAnalyticsPipelineRunsBackend``: Data Factory runs from Azure Monitor Logs (KQL on ADF tables).

Runs the KQL of ``backends.log_analytics_kql`` on ``ADFPipelineRun`` / ``ADFActivityRun`` with
``azure.monitor.query.aio.LogsQueryClient`` and reads the rows back into records. Values from
people or models never reach KQL raw: run ids must be GUIDs, names become escaped string
literals. Partial results are returned with a "partial results: …" warning.

Retries: the SDK client is built with ``retry_total=0`` and every call runs under
``backends.http.call_azure``. One loop, not two: the SDK's own policy would retry inside our
deadline and multiply attempts (4 x 4), and it ignores our injected sleep in tests.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from azure.core.credentials_async import AsyncTokenCredential
from azure.monitor.query import LogsQueryPartialResult
from azure.monitor.query.aio import LogsQueryClient

from opsagent.backends.base import (
    AROUND_TOLERANCE,
    ActivityRun,
    Page,
    PipelineInfo,
    PipelineRun,
    PipelineStatusSummary,
    RunDetails,
)
from opsagent.backends.http import RetryPolicy, call_azure
from opsagent.backends.log_analytics_kql import (
    INVENTORY_ROWS,
    details_query,
    failed_runs_query,
    pipelines_query,
    status_query,
)
from opsagent.backends.records import parse_records
from opsagent.errors import BackendNotFoundError
from opsagent.settings import Settings

logger = logging.getLogger(__name__)
BACKEND = "Log Analytics"
DETAILS_LOOKBACK = timedelta(days=30)
_RUN_TAIL = timedelta(days=1)
"""Searching around a time point, rows this long after the reach are read too: the run's final row and activities."""
_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_STATUS_ALIASES = {"Canceling": "Cancelled", "Canceled": "Cancelled"}
Row = dict[str, Any]
ParsedT = TypeVar("ParsedT")




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

    async def list_failed_runs(
        self, *, start: datetime, end: datetime, limit: int, pipeline_name: str | None = None, factory: str | None = None
    ) -> Page[PipelineRun]:
        kql = failed_runs_query(start, end, limit, pipeline_name=pipeline_name, factory=factory)
        rows, warnings = await self._query(kql, (start, end), _describe("failed pipeline runs", start, end,
                                                                         pipeline_name=pipeline_name, factory=factory))
        items = _parse_rows(rows, _parse_run_from_row, warnings)
        return Page(items=items, total=_total(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def pipeline_status(
        self, *, start: datetime, end: datetime, pipeline_name: str | None, limit: int, factory: str | None = None
    ) -> Page[PipelineStatusSummary]:
        kql = status_query(start, end, limit, pipeline_name=pipeline_name, factory=factory)
        rows, warnings = await self._query(kql, (start, end), _describe("pipeline status", start, end,
                                                                         pipeline_name=pipeline_name, factory=factory))
        items = _parse_rows(rows, _parse_summary_from_row, warnings)
        return Page(items=items, total=_total(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def run_details(
        self, *, run_id: str | None = None, pipeline_name: str | None = None,
        around: datetime | None = None, within: timedelta = AROUND_TOLERANCE,
    ) -> RunDetails:
        """One run by id (a GUID); else the run of the pipeline with that exact name (case-insensitive)
        starting closest to ``around`` (at most ``within`` away); else that pipeline's latest run."""
        around = None if run_id else around
        described = _describe_run(run_id, pipeline_name, around=around, within=within)
        if run_id is not None and not _GUID.match(run_id.strip()):
            raise BackendNotFoundError(f"{run_id!r} is not a pipeline run id (expected a GUID)",
                                       backend=BACKEND, query=described)
        if not run_id and not pipeline_name:
            raise BackendNotFoundError("give a run id or a pipeline name", backend=BACKEND, query=described)
        wanted = run_id.strip().lower() if run_id else None  # ADF ids are lower-case
        kql = details_query(wanted, pipeline_name, around=around, within=within)
        span = DETAILS_LOOKBACK if around is None else (around - within, around + within + _RUN_TAIL)
        rows, warnings = await self._query(kql, span, described)
        runs = _parse_rows([r for r in rows if r.get("Kind") == "pipeline"], _parse_run_from_row, warnings)
        if not runs:
            searched = "" if around else " in the last 30 days"
            raise BackendNotFoundError(f"no pipeline run found for {described}{searched}",
                                       backend=BACKEND, query=described)
        activities = _parse_rows([r for r in rows if r.get("Kind") == "activity"], _parse_activity_from_row, warnings)
        return RunDetails(run=runs[0], activities=activities, warnings=warnings)

    async def list_pipelines(self, *, since: datetime) -> list[PipelineInfo]:
        described = f"pipelines with runs since {since:%Y-%m-%d %H:%M} UTC"
        rows, warnings = await self._query(pipelines_query(since), None, described)
        pipelines = [PipelineInfo(name=_text(row, "PipelineName"), factory=_text(row, "Factory"))
                     for row in rows if row.get("PipelineName")]
        for warning in warnings:
            logger.warning("pipeline inventory: %s", warning)
        if len(rows) >= INVENTORY_ROWS:
            logger.warning("pipeline inventory: stopped at %d (pipeline, factory) pairs", INVENTORY_ROWS)
        return pipelines

    async def _query(
        self, kql: str, timespan: tuple[datetime, datetime] | timedelta | None, described: str
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
        last_success=row.get("LastSuccess") or None,
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


def _describe(what: str, start: datetime, end: datetime, *, pipeline_name: str | None, factory: str | None) -> str:
    """``failed pipeline runs pipeline~'sales' factory='adf-prod-weu' 2025-01-10 00:00..2025-01-11 00:00 UTC``."""
    named = f" pipeline~{pipeline_name!r}" if pipeline_name else ""
    named += f" factory={factory!r}" if factory else ""
    return f"{what}{named} {start:%Y-%m-%d %H:%M}..{end:%Y-%m-%d %H:%M} UTC"


def _describe_run(run_id: str | None, pipeline_name: str | None, *, around: datetime | None, within: timedelta) -> str:
    if run_id:
        return f"run {run_id}"
    if around is None:
        return f"latest run of pipeline {pipeline_name!r}"
    hours, point = f"{within.total_seconds() / 3600:g} h", around.astimezone(timezone.utc)
    return f"run of pipeline {pipeline_name!r} starting within {hours} of {point:%Y-%m-%d %H:%M} UTC"


def _total(rows: list[Row], fallback: int) -> int:
    try:
        return int(rows[0]["Total"]) if rows else 0
    except (KeyError, TypeError, ValueError):
        return fallback
# endregion
