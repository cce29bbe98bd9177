"""Rows of Log Analytics query results read into records: runs, activities, summaries, counts, history.

Sits under ``LogAnalyticsPipelineRunsBackend`` (``backends.log_analytics``): the KQL of
``backends.log_analytics_kql`` projects known columns, but a workspace can hold odd rows, so each
is parsed on its own (``parse_rows`` skips and counts what does not fit). ADF's spellings are
normalised here: a cancel is "Cancelled", ``End`` = 1601-01-01 means still running.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from opsagent.backends.base import (
    ActivityRun,
    FailureGroup,
    PipelineHistory,
    PipelineRun,
    PipelineStatusSummary,
    RunCount,
)
from opsagent.backends.records import parse_records

Row = dict[str, Any]
ParsedT = TypeVar("ParsedT")
_STATUS_ALIASES = {"Canceling": "Cancelled", "Canceled": "Cancelled"}


def parse_rows(rows: list[Row], parse: Callable[[Row], ParsedT], warnings: list[str]) -> list[ParsedT]:
    """Parse each row; rows that do not fit the model are skipped and counted in a warning."""
    parsed, skipped = parse_records(rows, parse, describe=lambda row: text(row, "RunId"))
    if skipped:
        warnings.append(f"skipped {len(skipped)} row(s) that could not be read")
    return parsed


def parse_run_from_row(row: Row) -> PipelineRun:
    return PipelineRun(
        run_id=str(row["RunId"]), pipeline_name=text(row, "PipelineName"), factory=text(row, "Factory"),
        status=status(row.get("Status")), start=row.get("Start") or row.get("TimeGenerated"),
        end=end_time(row.get("End")), failure_type=text(row, "FailureType"), error_code=text(row, "ErrorCode"),
        error_message=text(row, "ErrorMessage"), parameters=parse_parameters(row.get("Parameters")),
    )


def parse_activity_from_row(row: Row) -> ActivityRun:
    return ActivityRun(
        activity_run_id=text(row, "ActivityRunId"), activity_name=text(row, "ActivityName"),
        activity_type=text(row, "ActivityType"), status=status(row.get("Status")),
        start=row.get("Start") or row.get("TimeGenerated"), end=end_time(row.get("End")),
        error_code=text(row, "ErrorCode"), error_message=text(row, "ErrorMessage"),
        failure_type=text(row, "FailureType"),
    )


def parse_summary_from_row(row: Row) -> PipelineStatusSummary:
    return PipelineStatusSummary(
        pipeline_name=text(row, "PipelineName"), runs=int(row.get("Runs") or 0),
        succeeded=int(row.get("Succeeded") or 0), failed=int(row.get("Failed") or 0),
        cancelled=int(row.get("Cancelled") or 0), running=int(row.get("Running") or 0),
        last_status=status(row.get("LastStatus")) if row.get("LastStatus") else None,
        last_run_id=text(row, "LastRunId"), last_start=row.get("LastStart") or None,
        last_success=row.get("LastSuccess") or None,
    )


def parse_count_from_row(row: Row) -> RunCount:
    return RunCount(name=text(row, "Name"), runs=int(row.get("Runs") or 0), succeeded=int(row.get("Succeeded") or 0),
                    failed=int(row.get("Failed") or 0), cancelled=int(row.get("Cancelled") or 0),
                    in_progress=int(row.get("InProgress") or 0), queued=int(row.get("Queued") or 0))


def parse_group_from_row(row: Row) -> FailureGroup:
    return FailureGroup(error_code=text(row, "ErrorCode"), failed_activity=text(row, "FailedActivity"),
                        failure_type=text(row, "FailureType"), count=int(row.get("Count") or 0),
                        first_seen=row.get("FirstSeen") or row.get("Start"), last_seen=row.get("Start"),
                        last_run_id=text(row, "RunId"), error_message=text(row, "ErrorMessage"),
                        starts=parse_list(row.get("Starts")))


def parse_history(rows: list[Row], *, pipeline_name: str, since: datetime, until: datetime) -> PipelineHistory:
    """The history ``history_query`` returns: rows told apart by ``Kind``; unreadable ones counted in a warning."""
    warnings: list[str] = []

    def runs(kind: str) -> list[PipelineRun]:
        ordered = sorted((row for row in rows if row.get("Kind") == kind), key=lambda row: str(row.get("Start")),
                         reverse=True)
        return parse_rows(ordered, parse_run_from_row, warnings)

    latest, failures, successes = runs("latest"), runs("last_failure"), runs("success")
    groups = parse_rows([row for row in rows if row.get("Kind") == "failure_group"], parse_group_from_row, warnings)
    total = next((int(row.get("Count") or 0) for row in rows if row.get("Kind") == "total"), len(latest))
    first = latest[0] if latest else None
    return PipelineHistory(
        pipeline_name=first.pipeline_name if first else pipeline_name, factory=first.factory if first else "",
        searched_from=since, searched_to=until, runs=total, latest_run=first,
        last_failure=next(iter(failures), None), last_success=next(iter(successes), None),
        recent_successes=successes, warnings=warnings,
        failure_groups=sorted(groups, key=lambda group: (-group.count, -group.last_seen.timestamp())),
    )


def text(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    return "" if value is None else str(value)


def status(value: Any) -> Any:
    spelled = str(value or "")
    return _STATUS_ALIASES.get(spelled, spelled)


def end_time(value: Any) -> datetime | None:
    """ADF writes ``1601-01-01`` as End while a run is still going."""
    if isinstance(value, datetime):
        return None if value.year < 1900 else value
    if isinstance(value, str) and value and not value.startswith("1601-"):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return None


def parse_list(value: Any) -> list[Any]:
    """A ``dynamic`` array column (JSON text or already a list); anything else is an empty list."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else []
        except ValueError:
            return []
    return list(value) if isinstance(value, list) else []


def parse_parameters(value: Any) -> dict[str, str]:
    """``dynamic`` columns arrive as JSON text; anything that is not an object is dropped."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else {}
        except ValueError:
            return {}
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}


def describe(what: str, start: datetime, end: datetime, *, pipeline_name: str | None, factory: str | None) -> str:
    """``failed pipeline runs pipeline~'sales' factory='adf-prod-weu' 2025-01-10 00:00..2025-01-11 00:00 UTC``."""
    named = f" pipeline~{pipeline_name!r}" if pipeline_name else ""
    named += f" factory={factory!r}" if factory else ""
    return f"{what}{named} {start:%Y-%m-%d %H:%M}..{end:%Y-%m-%d %H:%M} UTC"


def describe_run(run_id: str | None, pipeline_name: str | None, *, around: datetime | None, within: timedelta) -> str:
    if run_id:
        return f"run {run_id}"
    if around is None:
        return f"latest run of pipeline {pipeline_name!r}"
    hours, point = f"{within.total_seconds() / 3600:g} h", around.astimezone(timezone.utc)
    return f"run of pipeline {pipeline_name!r} starting within {hours} of {point:%Y-%m-%d %H:%M} UTC"


def total_of(rows: list[Row], fallback: int) -> int:
    try:
        return int(rows[0]["Total"]) if rows else 0
    except (KeyError, TypeError, ValueError):
        return fallback
