"""How Data Factory runs look in the tools' envelopes: rows, and the sentences that sum them up.

Sits between the Log Analytics tools (``tools/log_analytics.py``) and ``rendering.py``: each
record of ``PipelineRunsBackend`` becomes a compact row (UTC minutes, errors cut to a size the
model can read), and a list of runs gets a one-line count per pipeline.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from opsagent.backends.base import ActivityRun, PipelineRun, PipelineStatusSummary, RunCount, RunGrouping, RunStatus
from opsagent.tools.rendering import iso_minute, plural, shorten
from opsagent.tools.vocabularies import RUN_STATUS

_TARGET = re.compile(r"^Operation on target (\S+) failed: (.*)$", re.DOTALL)


def split_target(message: str) -> tuple[str, str]:
    """ADF's ``"Operation on target Copy_Sales failed: <error>"`` -> ``("Copy_Sales", "<error>")``."""
    match = _TARGET.match(message)
    return (match.group(1), match.group(2)) if match else ("", message)


def run_row(run: PipelineRun, *, text_chars: int = 120) -> dict[str, Any]:
    failed_activity, error = split_target(run.error_message)
    return {
        "run_id": run.run_id,
        "pipeline_name": run.pipeline_name,
        "factory": run.factory,
        "start": iso_minute(run.start),
        "duration_min": run.duration_minutes,
        "error_code": run.error_code,
        "failed_activity": failed_activity,
        "error_message": shorten(error, text_chars),
    }


def summary_row(summary: PipelineStatusSummary) -> dict[str, Any]:
    return {
        "pipeline_name": summary.pipeline_name,
        "runs": summary.runs,
        "succeeded": summary.succeeded,
        "failed": summary.failed,
        "cancelled": summary.cancelled,
        "running": summary.running,
        "success_rate_pct": summary.success_rate_pct,
        "last_status": summary.last_status,
        "last_run_id": summary.last_run_id,
        "last_start": iso_minute(summary.last_start),
        "last_success": iso_minute(summary.last_success),
    }


STATUS_FIELDS: dict[RunStatus, str] = {  # a run count's field per status
    "Succeeded": "succeeded", "Failed": "failed", "Cancelled": "cancelled", "InProgress": "in_progress",
    "Queued": "queued",
}


def statuses_in(text: str) -> set[str]:
    """The run statuses ``text``'s status words name, groups spelled out ("running or queued" → InProgress, Queued)."""
    return {status for _, value in RUN_STATUS.find(text) for status in RUN_STATUS.groups.get(value, (value,))}


def status_total(row: dict[str, Any], statuses: Iterable[str]) -> int | None:
    """A run count row's runs of ``statuses`` together ("finished": its succeeded, failed and cancelled); ``None`` when
    the row does not count one of them."""
    fields = [STATUS_FIELDS[status] for status in statuses if status in STATUS_FIELDS]
    return sum(row[field] for field in fields) if all(isinstance(row.get(field), int) for field in fields) else None


def count_fields_in(text: str) -> list[str]:
    """The per-status fields of a run count that ``text``'s status words name ("had no failed run" → ``failed``,
    "nothing running or queued" → ``in_progress``, ``queued``)."""
    statuses = statuses_in(text)
    return [field for status, field in STATUS_FIELDS.items() if status in statuses]


_GROUPS: dict[RunGrouping, str] = {"pipeline": "pipelines", "factory": "factories"}


def count_row(count: RunCount, *, key: str, statuses: list[RunStatus] | None) -> dict[str, Any]:
    """``{"pipeline_name": …, "count": 12, "failed": 3, …}``: the count, then the count per status counted."""
    fields = [STATUS_FIELDS[status] for status in statuses] if statuses else list(STATUS_FIELDS.values())
    return {key: count.name, "count": count.runs} | {field: getattr(count, field) for field in fields}


def counts_message(counts: list[RunCount], shown: int, *, group_by: RunGrouping, detail: str) -> str:
    """"24 pipeline runs (status 'failed') in … across 5 pipelines: pl_a 11, pl_b 6, …" over every group."""
    runs = sum(item.runs for item in counts)
    if not counts:
        return f"No pipeline runs{detail}."
    listed = ", ".join(f"{item.name} {item.runs}" for item in counts[:shown])
    rest = f", and {len(counts) - shown} more" if shown < len(counts) else ""
    groups = f"{len(counts)} {group_by if len(counts) == 1 else _GROUPS[group_by]}"
    return f"{plural(runs, 'pipeline run')}{detail} across {groups}: {listed}{rest}."


def activity_row(activity: ActivityRun) -> dict[str, Any]:
    row: dict[str, Any] = {
        "activity_name": activity.activity_name,
        "activity_type": activity.activity_type,
        "status": activity.status,
        "start": iso_minute(activity.start),
        "end": iso_minute(activity.end),
    }
    if activity.error_code or activity.error_message:
        row |= {
            "error_code": activity.error_code,
            "failure_type": activity.failure_type,
            "error_message": shorten(activity.error_message),
        }
    return row


def pipelines_sentence(runs: list[PipelineRun], *, is_complete: bool) -> str:
    """`` Pipelines: pl_a (3), pl_b (1).`` counted over the rows shown."""
    if not runs:
        return ""
    counts = Counter(run.pipeline_name for run in runs)
    listed = ", ".join(f"{name} ({count})" for name, count in counts.most_common())
    return f" {'Pipelines' if is_complete else 'Pipelines among the rows shown'}: {listed}."


def run_message(run: PipelineRun, activities: list[ActivityRun], *, which: str) -> str:
    """"<which> (<run id>): Failed, started …, 25.0 min. Failed activity: Copy_Sales (2200)." """
    duration = f", {run.duration_minutes} min" if run.duration_minutes is not None else ""
    message = f"{which} ({run.run_id}): {run.status}, started {iso_minute(run.start)}{duration}."
    failed = [item for item in activities if item.status == "Failed"]
    if failed:
        message += " Failed activity: " + ", ".join(f"{item.activity_name} ({item.error_code})" for item in failed) + "."
    return message
