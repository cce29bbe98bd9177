"""Log Analytics specialist tools: Data Factory failures, per-pipeline status and run details (LLM-facing).

Sits between the log_analytics specialist agent and ``PipelineRunsBackend``: time phrases are
resolved against the injected clock, run ids are validated before any query, and the backend's
runs become the bounded ``ToolResult`` envelope via ``rendering.py``.
"""

# No `from __future__ import annotations`: MAF builds each tool's schema from its evaluated
# annotations, and the parameter descriptions use values of the factory's closure.

import re
import uuid
from collections import Counter
from typing import Annotated, Any

from agent_framework import FunctionTool, tool
from pydantic import Field

from opsagent.backends.base import ActivityRun, Backends, Clock, PipelineRun, PipelineStatusSummary
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import (
    ArgumentError,
    ToolCall,
    clamp_limit,
    count_message,
    iso_minute,
    shorten,
)

SYSTEM = "Log Analytics"
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
    }


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


def make_log_analytics_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The three Data Factory tools, bound to ``backends.pipelines``, the clock and the row cap."""
    backend = backends.pipelines

    @tool
    async def list_failed_pipelines(
        time_window: Annotated[str, Field(description="Plain time phrase, e.g. 'last 24 hours', 'since yesterday', 'last night', '2025-01-10'")] = "last 24 hours",
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List failed Azure Data Factory pipeline runs in a time window, newest first, with their error codes.

        Use it for "which pipelines failed ...?". Each row has the run_id (pass it to
        get_pipeline_run_details for activity-level errors), pipeline name, start time, duration,
        error code, failed activity and a short error message. Returns a JSON envelope with total, rows shown (at most the cap) and
        truncation. Never guess a run id; list first.
        """
        call = ToolCall("list_failed_pipelines", backend.kind, SYSTEM, query={"time_window": time_window})

        async def work() -> ToolResult:
            window = call.window("time_window", time_window or "last 24 hours", clock())
            rows = clamp_limit(limit, max_rows, call.warnings)
            page = await backend.list_failed_runs(start=window.start, end=window.end, limit=rows)

            def message(shown: int) -> str:
                counted = count_message(page.total, shown, "failed pipeline run", detail=f" in {window.label}")
                return counted + pipelines_sentence(page.items[:shown], is_complete=shown >= page.total)

            return call.page_rows(page, run_row, message)

        return await call.run(work)

    @tool
    async def query_pipeline_status(
        pipeline_name: Annotated[str | None, Field(description="Pipeline name or part of it (case-insensitive); omit for all pipelines")] = None,
        time_window: Annotated[str, Field(description="Plain time phrase, e.g. 'last 7 days', 'last 24 hours', 'this week'")] = "last 7 days",
        limit: Annotated[int | None, Field(description=f"Maximum pipelines (capped at {max_rows})")] = None,
    ) -> str:
        """Summarise Azure Data Factory pipelines in a time window: runs, succeeded, failed, cancelled, running, success rate and the latest run.

        Use it for "how is pipeline X doing?", "which pipelines are unhealthy this week?" or to find
        a pipeline's exact name. Rows are ordered by failures, then name; each carries last_run_id
        for get_pipeline_run_details. Returns a JSON envelope with total pipelines, rows shown (at
        most the cap) and truncation.
        """
        call = ToolCall("query_pipeline_status", backend.kind, SYSTEM,
                        query={"pipeline_name": pipeline_name, "time_window": time_window})

        async def work() -> ToolResult:
            window = call.window("time_window", time_window or "last 7 days", clock())
            rows = clamp_limit(limit, max_rows, call.warnings)
            page = await backend.pipeline_status(
                start=window.start, end=window.end, pipeline_name=pipeline_name or None, limit=rows
            )
            named = f" matching {pipeline_name!r}" if pipeline_name else ""
            failing = [item.pipeline_name for item in page.items if item.failed]
            with_failures = f" With failures: {', '.join(failing)}." if failing else ""

            def message(shown: int) -> str:
                detail = f"{named} with runs in {window.label}"
                return count_message(page.total, shown, "pipeline", detail=detail, order="with the most failures") + with_failures

            return call.page_rows(page, summary_row, message)

        return await call.run(work)

    @tool
    async def get_pipeline_run_details(
        run_id: Annotated[str | None, Field(description="Run id (UUID) from list_failed_pipelines or query_pipeline_status")] = None,
        pipeline_name: Annotated[str | None, Field(description="Exact pipeline name; used when no run_id is given, to show its latest run")] = None,
    ) -> str:
        """Show one Azure Data Factory pipeline run with its activities and their error codes and messages.

        Give run_id for a specific run, or pipeline_name for that pipeline's latest run (whatever
        its status). Returns a JSON envelope with one row: the run (status, start, end, duration,
        error) and its activities in order, including the failed activity's error. Never guess a
        run id; list first with list_failed_pipelines or query_pipeline_status.
        """
        call = ToolCall("get_pipeline_run_details", backend.kind, SYSTEM,
                        query={"run_id": run_id, "pipeline_name": pipeline_name})

        async def work() -> ToolResult:
            wanted_id = _validate_run_id(run_id) if run_id else None
            if wanted_id is None and not (pipeline_name and pipeline_name.strip()):
                raise ArgumentError("Give run_id (a UUID from list_failed_pipelines) or pipeline_name; never guess a run id.")
            call.query["run_id"] = wanted_id
            call.subject = f"pipeline run {wanted_id}" if wanted_id else f"runs of pipeline {pipeline_name!r}"
            details = await backend.run_details(run_id=wanted_id, pipeline_name=None if wanted_id else pipeline_name)
            run = details.run
            if wanted_id and pipeline_name and pipeline_name.strip().lower() != run.pipeline_name.lower():
                call.warnings.append(f"Run {wanted_id} belongs to {run.pipeline_name}, not {pipeline_name!r}.")
            activities = [activity_row(item) for item in details.activities[:max_rows]]
            if len(details.activities) > max_rows:
                call.warnings.append(f"Showing the first {max_rows} of {len(details.activities)} activities.")
            row = run_row(run, text_chars=200) | {
                "factory": run.factory, "status": run.status, "end": iso_minute(run.end),
                "failure_type": run.failure_type, "parameters": run.parameters, "activities": activities,
            }
            return call.rows([row], total=1, message=_run_message(run, details.activities, is_latest=not wanted_id),
                             backend_warnings=details.warnings)

        return await call.run(work)

    return [list_failed_pipelines, query_pipeline_status, get_pipeline_run_details]


def _validate_run_id(run_id: str) -> str:
    try:
        return str(uuid.UUID(run_id.strip()))
    except ValueError as error:
        raise ArgumentError(
            f"run_id: {run_id!r} is not a run id (a UUID such as 3f2b7c1e-8a4d-4e0b-9c61-2d5f0a7b9e13); "
            "never guess one, list first with list_failed_pipelines."
        ) from error


def _run_message(run: PipelineRun, activities: list[ActivityRun], *, is_latest: bool) -> str:
    which = f"Latest run of {run.pipeline_name}" if is_latest else f"Run of {run.pipeline_name}"
    duration = f", {run.duration_minutes} min" if run.duration_minutes is not None else ""
    message = f"{which} ({run.run_id}): {run.status}, started {iso_minute(run.start)}{duration}."
    failed = [item for item in activities if item.status == "Failed"]
    if failed:
        message += " Failed activity: " + ", ".join(f"{item.activity_name} ({item.error_code})" for item in failed) + "."
    return message
