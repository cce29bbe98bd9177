"""``LogAnalyticsPipelineRunsBackend``: Data Factory runs from Azure Monitor Logs (KQL on ADF tables).

Runs the KQL of ``backends.log_analytics_kql`` on ``ADFPipelineRun`` / ``ADFActivityRun`` with
``azure.monitor.query.aio.LogsQueryClient`` and reads the rows back into records. Values from
people or models never reach KQL raw: run ids must be GUIDs, names become escaped string
literals. Partial results are returned with a "partial results: …" warning. Rows are read into
records by ``backends.log_analytics_rows``; a pipeline's history covers ``HISTORY_LOOKBACK``.

Retries: the SDK client is built with ``retry_total=0`` and every call runs under
``backends.http.call_azure``. One loop, not two: the SDK's own policy would retry inside our
deadline and multiply attempts (4 x 4), and it ignores our injected sleep in tests.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from azure.core.credentials_async import AsyncTokenCredential
from azure.monitor.query import LogsQueryPartialResult
from azure.monitor.query.aio import LogsQueryClient

from opsagent.backends.base import (
    AROUND_TOLERANCE,
    HISTORY_LOOKBACK,
    Clock,
    Page,
    PipelineHistory,
    PipelineInfo,
    PipelineRun,
    PipelineStatusSummary,
    RunCount,
    RunDetails,
    RunGrouping,
    RunSearch,
)
from opsagent.backends.http import RetryPolicy, call_azure
from opsagent.backends.log_analytics_kql import (
    COUNT_GROUPS,
    INVENTORY_ROWS,
    count_query,
    details_query,
    failed_runs_query,
    history_query,
    pipelines_query,
    runs_query,
    status_query,
)
from opsagent.backends.log_analytics_rows import (
    Row,
    describe,
    describe_run,
    parse_activity_from_row,
    parse_count_from_row,
    parse_history,
    parse_rows,
    parse_run_from_row,
    parse_summary_from_row,
    text,
    total_of,
)
from opsagent.errors import BackendNotFoundError
from opsagent.settings import Settings

logger = logging.getLogger(__name__)
BACKEND = "Log Analytics"
DETAILS_LOOKBACK = timedelta(days=30)
_RUN_TAIL = timedelta(days=1)
"""Searching around a time point, rows this long after the reach are read too: the run's final row and activities."""
_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class LogAnalyticsPipelineRunsBackend:
    """Pipeline runs from one Log Analytics workspace. Close with ``aclose``."""

    kind = "log_analytics"

    def __init__(
        self,
        client: LogsQueryClient,
        workspace_id: str,
        *,
        policy: RetryPolicy,
        clock: Clock = _utc_now,
        history: timedelta = HISTORY_LOOKBACK,
    ) -> None:
        self._client = client
        self._workspace_id = workspace_id
        self._policy = policy
        self._clock = clock
        self._history = history

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        credential: AsyncTokenCredential,
        policy: RetryPolicy | None = None,
        client_options: Mapping[str, Any] | None = None,
        clock: Clock = _utc_now,
    ) -> LogAnalyticsPipelineRunsBackend:
        """Build the client for LOG_ANALYTICS_WORKSPACE_ID at LOG_ANALYTICS_ENDPOINT.

        Args:
            credential: async Azure credential, owned (and closed) by the caller.
            client_options: extra ``LogsQueryClient`` keywords (tests pass an
                ``authentication_policy`` so a plain-http fake works).
            clock: "now", where a pipeline's history search ends.
        """
        options = {"retry_total": 0, **(client_options or {})}
        client = LogsQueryClient(credential, endpoint=settings.log_analytics_endpoint, **options)
        return cls(client, settings.log_analytics_workspace_id or "",
                   policy=policy or RetryPolicy.from_settings(settings), clock=clock)

    async def aclose(self) -> None:
        await self._client.close()

    async def list_failed_runs(
        self, *, start: datetime, end: datetime, limit: int, pipeline_name: str | None = None, factory: str | None = None
    ) -> Page[PipelineRun]:
        kql = failed_runs_query(start, end, limit, pipeline_name=pipeline_name, factory=factory)
        rows, warnings = await self._query(kql, (start, end), describe("failed pipeline runs", start, end,
                                                                         pipeline_name=pipeline_name, factory=factory))
        items = parse_rows(rows, parse_run_from_row, warnings)
        return Page(items=items, total=total_of(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def pipeline_status(
        self, *, start: datetime, end: datetime, pipeline_name: str | None, limit: int, factory: str | None = None
    ) -> Page[PipelineStatusSummary]:
        kql = status_query(start, end, limit, pipeline_name=pipeline_name, factory=factory)
        rows, warnings = await self._query(kql, (start, end), describe("pipeline status", start, end,
                                                                         pipeline_name=pipeline_name, factory=factory))
        items = parse_rows(rows, parse_summary_from_row, warnings)
        return Page(items=items, total=total_of(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def run_details(
        self, *, run_id: str | None = None, pipeline_name: str | None = None,
        around: datetime | None = None, within: timedelta = AROUND_TOLERANCE,
    ) -> RunDetails:
        """One run by id (a GUID); else the run of the pipeline with that exact name (case-insensitive)
        starting closest to ``around`` (at most ``within`` away); else that pipeline's latest run."""
        around = None if run_id else around
        described = describe_run(run_id, pipeline_name, around=around, within=within)
        if run_id is not None and not _GUID.match(run_id.strip()):
            raise BackendNotFoundError(f"{run_id!r} is not a pipeline run id (expected a GUID)",
                                       backend=BACKEND, query=described)
        if not run_id and not pipeline_name:
            raise BackendNotFoundError("give a run id or a pipeline name", backend=BACKEND, query=described)
        wanted = run_id.strip().lower() if run_id else None  # ADF ids are lower-case
        kql = details_query(wanted, pipeline_name, around=around, within=within)
        span = DETAILS_LOOKBACK if around is None else (around - within, around + within + _RUN_TAIL)
        rows, warnings = await self._query(kql, span, described)
        runs = parse_rows([r for r in rows if r.get("Kind") == "pipeline"], parse_run_from_row, warnings)
        if not runs:
            searched = "" if around else " in the last 30 days"
            raise BackendNotFoundError(f"no pipeline run found for {described}{searched}",
                                       backend=BACKEND, query=described)
        activities = parse_rows([r for r in rows if r.get("Kind") == "activity"], parse_activity_from_row, warnings)
        return RunDetails(run=runs[0], activities=activities, warnings=warnings)

    async def list_pipelines(self, *, since: datetime) -> list[PipelineInfo]:
        described = f"pipelines with runs since {since:%Y-%m-%d %H:%M} UTC"
        rows, warnings = await self._query(pipelines_query(since), None, described)
        pipelines = [PipelineInfo(name=text(row, "PipelineName"), factory=text(row, "Factory"))
                     for row in rows if row.get("PipelineName")]
        for warning in warnings:
            logger.warning("pipeline inventory: %s", warning)
        if len(rows) >= INVENTORY_ROWS:
            logger.warning("pipeline inventory: stopped at %d (pipeline, factory) pairs", INVENTORY_ROWS)
        return pipelines

    async def list_runs(self, search: RunSearch, *, limit: int) -> Page[PipelineRun]:
        kql = runs_query(search.start, search.end, limit, statuses=search.statuses,
                         pipeline_name=search.pipeline_name, factory=search.factory, error_text=search.error_text)
        rows, warnings = await self._query(kql, (search.start, search.end), _describe_search("pipeline runs", search))
        items = parse_rows(rows, parse_run_from_row, warnings)
        return Page(items=items, total=total_of(rows, len(items)), warnings=warnings, unreadable=len(rows) - len(items))

    async def count_runs(self, search: RunSearch, *, group_by: RunGrouping) -> Page[RunCount]:
        kql = count_query(search.start, search.end, group_by=group_by, statuses=search.statuses,
                          pipeline_name=search.pipeline_name, factory=search.factory, error_text=search.error_text)
        described = _describe_search(f"pipeline runs per {group_by}", search)
        rows, warnings = await self._query(kql, (search.start, search.end), described)
        items = parse_rows(rows, parse_count_from_row, warnings)
        if len(rows) >= COUNT_GROUPS:
            warnings.append(f"counted the first {COUNT_GROUPS} {group_by}s with the most runs; there may be more")
        return Page(items=items, total=len(rows), warnings=warnings, unreadable=len(rows) - len(items))

    async def pipeline_history(self, pipeline_name: str, *, recent: int = 20) -> PipelineHistory:
        until = self._clock()
        since = until - self._history
        described = f"history of pipeline {pipeline_name!r} since {since:%Y-%m-%d %H:%M} UTC"
        rows, warnings = await self._query(history_query(pipeline_name.strip(), since, recent=recent),
                                           (since, until), described)
        history = parse_history(rows, pipeline_name=pipeline_name, since=since, until=until)
        if history.latest_run is None:
            raise BackendNotFoundError(f"no runs of pipeline {pipeline_name!r} since {since:%Y-%m-%d %H:%M} UTC",
                                       backend=BACKEND, query=described)
        return history.model_copy(update={"warnings": [*warnings, *history.warnings]})

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


def _describe_search(what: str, search: RunSearch) -> str:
    statuses = f" status in {','.join(search.statuses)}" if search.statuses else ""
    statuses += f" error holding {search.error_text!r}" if search.error_text else ""
    return describe(what + statuses, search.start, search.end, pipeline_name=search.pipeline_name,
                    factory=search.factory)
