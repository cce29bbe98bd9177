"""One pipeline's history from the demo SQLite file: latest run, last failure and success, recent
successful runs and earlier failures grouped by error (``PipelineRunsBackend.pipeline_history``).

Sits under ``DemoPipelineRunsBackend`` (``demo/pipelines.py``). The history searched is the whole
demo history (``history_days`` of ``data/pipelines.json``, stored in ``meta``); a failure's
activity is the run's failed activity in ``activity_runs``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta

from opsagent.backends.base import FailureGroup, PipelineHistory, PipelineRun
from opsagent.backends.demo.store import DemoStore, at, offset
from opsagent.errors import BackendNotFoundError

_SYSTEM = "Log Analytics"
_RUNS = "SELECT * FROM pipeline_runs WHERE lower(pipeline_name) = lower(?) AND start_min >= ?"
_GROUPS = """
WITH failed AS (
    SELECT r.run_id, r.start_min, r.error_code, r.error_message, r.failure_type,
           COALESCE((SELECT activity_name FROM activity_runs a WHERE a.run_id = r.run_id AND a.status = 'Failed'
                     ORDER BY position LIMIT 1), '') AS failed_activity
    FROM pipeline_runs r WHERE lower(r.pipeline_name) = lower(?) AND r.start_min >= ? AND r.status = 'Failed'
), ranked AS (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY error_code, failed_activity, failure_type ORDER BY start_min DESC) AS n,
           COUNT(*) OVER (PARTITION BY error_code, failed_activity, failure_type) AS count,
           MIN(start_min) OVER (PARTITION BY error_code, failed_activity, failure_type) AS first_seen
    FROM failed
)
SELECT error_code, failed_activity, failure_type, count, first_seen, start_min AS last_seen, run_id AS last_run_id,
       error_message,
       (SELECT group_concat(f.start_min) FROM failed f WHERE f.error_code IS ranked.error_code
          AND f.failed_activity IS ranked.failed_activity AND f.failure_type IS ranked.failure_type) AS starts
FROM ranked WHERE n = 1
ORDER BY count DESC, last_seen DESC
"""


def pipeline_history(
    store: DemoStore, pipeline_name: str, *, recent: int, to_run: Callable[[sqlite3.Row, datetime], PipelineRun]
) -> PipelineHistory:
    """The history of ``pipeline_name`` (exact name, any case) over the whole demo history."""
    now = store.now()
    since = now - timedelta(days=_history_days(store))
    params = [pipeline_name.strip(), offset(now, since)]

    def runs(condition: str, limit: int) -> list[PipelineRun]:
        sql = f"{_RUNS} {condition} ORDER BY start_min DESC, run_id LIMIT ?"
        return [to_run(row, now) for row in store.rows(sql, [*params, limit])]

    latest = runs("", 1)
    if not latest:
        raise BackendNotFoundError(f"No runs of pipeline {pipeline_name!r} in the demo history.", backend=_SYSTEM,
                                   query=f"pipeline_name={pipeline_name}")
    successes = runs("AND status = 'Succeeded' AND end_min IS NOT NULL", recent)
    total = store.rows(f"SELECT COUNT(*) FROM ({_RUNS})", params)[0][0]
    return PipelineHistory(
        pipeline_name=latest[0].pipeline_name, factory=latest[0].factory, searched_from=since, searched_to=now,
        runs=int(total), latest_run=latest[0], last_failure=next(iter(runs("AND status = 'Failed'", 1)), None),
        last_success=next(iter(successes), None), recent_successes=successes,
        failure_groups=[_group(row, now) for row in store.rows(_GROUPS, params)],
    )


def _history_days(store: DemoStore) -> float:
    rows = store.rows("SELECT value FROM meta WHERE key = 'pipeline_history_days'")
    return float(rows[0][0]) if rows else 14.0


def _group(row: sqlite3.Row, now: datetime) -> FailureGroup:
    return FailureGroup(error_code=row["error_code"], failed_activity=row["failed_activity"],
                        failure_type=row["failure_type"], count=row["count"],
                        first_seen=at(now, row["first_seen"]), last_seen=at(now, row["last_seen"]),
                        last_run_id=row["last_run_id"], error_message=row["error_message"],
                        starts=[now + timedelta(minutes=float(start)) for start in str(row["starts"] or "").split(",") if start])
