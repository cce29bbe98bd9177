"""DemoPipelineRunsBackend: Data Factory pipeline and activity runs from the demo SQLite file.

Implements ``PipelineRunsBackend`` (``backends/base.py``) with the semantics of the project's KQL
(``docs/backends.md`` §2): one row per run, windows on the run start, runs (failed or of any
status) newest first, per-pipeline summaries ordered by failures then name, counts per pipeline or
factory by ``GROUP BY`` (exact), activities in execution order; a pipeline's history in ``history.py``. Pipeline
names match as substrings and factories exactly, both ignoring case.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from opsagent.backends.base import (
    AROUND_TOLERANCE,
    ActivityRun,
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
from opsagent.backends.demo.history import pipeline_history
from opsagent.backends.demo.store import DemoStore, Where, offset, to_record
from opsagent.backends.pipeline_records import squashed
from opsagent.errors import BackendNotFoundError

_SYSTEM = "Log Analytics"
_RUN_TIMES = {"start_min": "start", "end_min": "end"}
# SQLite fills bare columns next to MAX() from the row holding the maximum: the latest run.
_SUMMARY_SQL = """
WITH runs AS (SELECT * FROM pipeline_runs {where}),
latest AS (
    SELECT pipeline_name, status AS last_status, run_id AS last_run_id, start_min AS last_start
    FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY pipeline_name ORDER BY start_min DESC) AS n FROM runs)
    WHERE n = 1
)
SELECT runs.pipeline_name, COUNT(*) AS runs,
       SUM(status = 'Succeeded') AS succeeded, SUM(status = 'Failed') AS failed,
       SUM(status = 'Cancelled') AS cancelled, SUM(status IN ('Queued', 'InProgress')) AS running,
       latest.last_start, latest.last_status, latest.last_run_id,
       MAX(CASE WHEN status = 'Succeeded' THEN start_min END) AS last_success
FROM runs JOIN latest USING (pipeline_name)
GROUP BY runs.pipeline_name
ORDER BY failed DESC, runs.pipeline_name ASC
"""


_COUNT_SQL = """
SELECT {column} AS name, COUNT(*) AS runs, SUM(status = 'Succeeded') AS succeeded, SUM(status = 'Failed') AS failed,
       SUM(status = 'Cancelled') AS cancelled, SUM(status = 'InProgress') AS in_progress,
       SUM(status = 'Queued') AS queued
FROM pipeline_runs {where}
GROUP BY {column}
ORDER BY runs DESC, name ASC
"""


class DemoPipelineRunsBackend:
    """ADF run history over the demo data set; times are anchored to the store's clock at each call."""

    kind = "demo"

    def __init__(self, store: DemoStore) -> None:
        self._store = store

    async def list_failed_runs(
        self, *, start: datetime, end: datetime, limit: int, pipeline_name: str | None = None, factory: str | None = None
    ) -> Page[PipelineRun]:
        now = self._store.now()
        where = self._filters(now, start, end, pipeline_name=pipeline_name, factory=factory).add("status = 'Failed'")
        rows, total = self._store.page("pipeline_runs", where, order="start_min DESC, run_id", limit=limit)
        return Page(items=[_run(row, now) for row in rows], total=total)

    async def pipeline_status(
        self, *, start: datetime, end: datetime, pipeline_name: str | None, limit: int, factory: str | None = None
    ) -> Page[PipelineStatusSummary]:
        now = self._store.now()
        where = self._filters(now, start, end, pipeline_name=pipeline_name, factory=factory)
        rows = self._store.rows(_SUMMARY_SQL.format(where=where.sql), where.params)
        items = [_summary(row, now) for row in rows[:limit]]
        return Page(items=items, total=len(rows))

    async def run_details(
        self, *, run_id: str | None = None, pipeline_name: str | None = None,
        around: datetime | None = None, within: timedelta = AROUND_TOLERANCE,
    ) -> RunDetails:
        now = self._store.now()
        if run_id:
            sql, params, asked = "SELECT * FROM pipeline_runs WHERE run_id = ?", [run_id.lower()], f"run_id={run_id}"
        elif pipeline_name and around is not None:
            point, reach = offset(now, around), within.total_seconds() / 60
            sql = ("SELECT * FROM pipeline_runs WHERE lower(pipeline_name) = lower(?) AND start_min BETWEEN ? AND ? "
                   "ORDER BY abs(start_min - ?), start_min DESC LIMIT 1")
            params = [pipeline_name.strip(), point - reach, point + reach, point]
            asked = (f"pipeline_name={pipeline_name} starting within {within.total_seconds() / 3600:g} h "
                     f"of {around:%Y-%m-%dT%H:%MZ}")
        elif pipeline_name:
            sql = "SELECT * FROM pipeline_runs WHERE lower(pipeline_name) = lower(?) ORDER BY start_min DESC LIMIT 1"
            params, asked = [pipeline_name.strip()], f"pipeline_name={pipeline_name}"
        else:
            raise ValueError("run_details needs a run_id or a pipeline_name")
        rows = self._store.rows(sql, params)
        if not rows:
            raise BackendNotFoundError(f"No pipeline run found for {asked}.", backend=_SYSTEM, query=asked)
        activities = self._store.rows(
            "SELECT * FROM activity_runs WHERE run_id = ? ORDER BY position", [rows[0]["run_id"]]
        )
        return RunDetails(run=_run(rows[0], now), activities=[_activity(row, now) for row in activities])

    async def list_pipelines(self, *, since: datetime) -> list[PipelineInfo]:
        rows = self._store.rows(
            "SELECT DISTINCT pipeline_name, factory FROM pipeline_runs WHERE start_min >= ? ORDER BY 1, 2",
            [offset(self._store.now(), since)],
        )
        return [PipelineInfo(name=row["pipeline_name"], factory=row["factory"]) for row in rows]

    async def list_runs(self, search: RunSearch, *, limit: int) -> Page[PipelineRun]:
        now = self._store.now()
        where = self._search(now, search)
        rows, total = self._store.page("pipeline_runs", where, order="start_min DESC, run_id", limit=limit)
        return Page(items=[_run(row, now) for row in rows], total=total)

    async def count_runs(self, search: RunSearch, *, group_by: RunGrouping) -> Page[RunCount]:
        where = self._search(self._store.now(), search)
        column = "pipeline_name" if group_by == "pipeline" else "factory"
        rows = self._store.rows(_COUNT_SQL.format(column=column, where=where.sql), where.params)
        return Page(items=[RunCount.model_validate(dict(row)) for row in rows], total=len(rows))

    async def pipeline_history(self, pipeline_name: str, *, recent: int = 20) -> PipelineHistory:
        return pipeline_history(self._store, pipeline_name, recent=recent, to_run=_run)

    def _search(self, now: datetime, search: RunSearch) -> Where:
        where = self._filters(now, search.start, search.end, pipeline_name=search.pipeline_name, factory=search.factory)
        if search.error_text and squashed(search.error_text):
            where.add("instr(squashed(error_code || ' ' || error_message), ?) > 0", squashed(search.error_text))
        return where.one_of("status", search.statuses)

    @staticmethod
    def _filters(
        now: datetime, start: datetime, end: datetime, *, pipeline_name: str | None, factory: str | None
    ) -> Where:
        where = Where().add("start_min >= ? AND start_min < ?", offset(now, start), offset(now, end))
        if factory:
            where.add("lower(factory) = lower(?)", factory.strip())
        return where.contains(("pipeline_name",), pipeline_name)


def _run(row: sqlite3.Row, now: datetime) -> PipelineRun:
    return to_record(PipelineRun, row, now, times=_RUN_TIMES, json_columns=("parameters",))


def _activity(row: sqlite3.Row, now: datetime) -> ActivityRun:
    return to_record(ActivityRun, row, now, times=_RUN_TIMES)


def _summary(row: sqlite3.Row, now: datetime) -> PipelineStatusSummary:
    return to_record(PipelineStatusSummary, row, now, times={"last_start": "last_start", "last_success": "last_success"})
