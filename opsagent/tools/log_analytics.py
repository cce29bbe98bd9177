"""Log Analytics specialist tools: Data Factory failures, per-pipeline status and run details (LLM-facing).

Sits between the log_analytics specialist agent and ``PipelineRunsBackend``: time phrases are
resolved against the injected clock, run ids are validated before any query, and the backend's
runs become the bounded ``ToolResult`` envelope (rows from ``pipeline_rows.py``, caps from
``rendering.py``). Every filter and the resolved window are stated in ``query`` and the message.
"""

# No `from __future__ import annotations`: MAF builds each tool's schema from its evaluated
# annotations, and the parameter descriptions use values of the factory's closure.

import re
import uuid
from datetime import datetime
from typing import Annotated

from agent_framework import FunctionTool, tool
from pydantic import Field

from opsagent.backends.base import AROUND_TOLERANCE, Backends, Clock, PipelineRun
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.pipeline_rows import activity_row, pipelines_sentence, run_message, run_row, summary_row
from opsagent.tools.rendering import (
    ArgumentError,
    ToolCall,
    clamp_limit,
    count_message,
    iso_minute,
    parse_point,
    window_after,
)
from opsagent.tools.timewindow import TimeWindow

SYSTEM = "Log Analytics"
_FACTORY_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
"""Data Factory names: letters, digits and hyphens, starting and ending with a letter or digit."""
_HOURS = f"{AROUND_TOLERANCE.total_seconds() / 3600:g} h"
_WINDOW_HELP = (
    "UTC time window of the runs (start included, end excluded), default '{default}': a phrase such as "
    "'last 24 hours', 'today', 'yesterday', 'last night', 'since yesterday', 'since 2025-01-09T18:00Z', or a "
    "range '2025-01-09T18:00Z to 2025-01-10T09:00Z'"
)
_FACTORY_HELP = (
    "Only runs in this Azure Data Factory: its name (case-insensitive), e.g. 'adf-prod-neu' (a factory in North "
    "Europe). Omit for every factory"
)
def make_log_analytics_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The three Data Factory tools, bound to ``backends.pipelines``, the clock and the row cap."""
    backend = backends.pipelines

    @tool
    async def list_failed_pipelines(
        time_window: Annotated[str, Field(description=_WINDOW_HELP.format(default="last 24 hours"))] = "last 24 hours",
        pipeline_name: Annotated[str | None, Field(description=(
            "Only failures of this pipeline: its name or part of it (case-insensitive), e.g. 'pl_ingest_sales'. "
            "Omit for every pipeline"))] = None,
        factory: Annotated[str | None, Field(description=_FACTORY_HELP)] = None,
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List failed Azure Data Factory pipeline runs in a time window, newest first, with their error codes.

        Use it for "which pipelines failed ...?", optionally for one pipeline or one factory. Each
        row has the run_id (pass it to get_pipeline_run_details for activity-level errors),
        pipeline name, factory, start time, duration, error code, failed activity and a short error
        message. Returns a JSON envelope with total, rows shown (at most the cap), truncation, the
        resolved window and filters in "query" and a message that states them. Never guess a run
        id; list first.
        """
        call = ToolCall("list_failed_pipelines", backend.kind, SYSTEM,
                        query={"time_window": time_window, "pipeline_name": pipeline_name, "factory": factory})

        async def work() -> ToolResult:
            window = call.window("time_window", time_window or "last 24 hours", clock())
            _note_future(call, window, clock())
            name, factory_name = _pipeline_filters(pipeline_name, factory)
            rows = clamp_limit(limit, max_rows, call.warnings)
            page = await backend.list_failed_runs(start=window.start, end=window.end, limit=rows,
                                                  pipeline_name=name, factory=factory_name)
            detail = f"{_filter_words(name, factory_name, matching='of pipelines matching')} {window_after('in', window)}"

            def message(shown: int) -> str:
                counted = count_message(page.total, shown, "failed pipeline run", detail=detail)
                return counted + pipelines_sentence(page.items[:shown], is_complete=shown >= page.total)

            return call.page_rows(page, run_row, message)

        return await call.run(work)

    @tool
    async def query_pipeline_status(
        pipeline_name: Annotated[str | None, Field(description="Pipeline name or part of it (case-insensitive); omit for all pipelines")] = None,
        time_window: Annotated[str, Field(description=_WINDOW_HELP.format(default="last 7 days"))] = "last 7 days",
        factory: Annotated[str | None, Field(description=_FACTORY_HELP)] = None,
        limit: Annotated[int | None, Field(description=f"Maximum pipelines (capped at {max_rows})")] = None,
    ) -> str:
        """Summarise Azure Data Factory pipelines in a time window: runs, succeeded, failed, cancelled, running, success rate and the latest run.

        Use it for "how is pipeline X doing?", "which pipelines are unhealthy this week?" or to find
        a pipeline's exact name. Rows are ordered by failures, then name; each carries last_run_id
        for get_pipeline_run_details. Returns a JSON envelope with total pipelines, rows shown (at
        most the cap), truncation, the resolved window and filters in "query" and a message that
        states them.
        """
        call = ToolCall("query_pipeline_status", backend.kind, SYSTEM,
                        query={"pipeline_name": pipeline_name, "time_window": time_window, "factory": factory})

        async def work() -> ToolResult:
            window = call.window("time_window", time_window or "last 7 days", clock())
            _note_future(call, window, clock())
            name, factory_name = _pipeline_filters(pipeline_name, factory)
            rows = clamp_limit(limit, max_rows, call.warnings)
            page = await backend.pipeline_status(start=window.start, end=window.end, pipeline_name=name,
                                                 limit=rows, factory=factory_name)
            failing = [item.pipeline_name for item in page.items if item.failed]
            with_failures = f" With failures: {', '.join(failing)}." if failing else ""
            detail = f"{_filter_words(name, factory_name, matching='matching')} with runs {window_after('in', window)}"

            def message(shown: int) -> str:
                return count_message(page.total, shown, "pipeline", detail=detail, order="with the most failures") + with_failures

            return call.page_rows(page, summary_row, message)

        return await call.run(work)

    @tool
    async def get_pipeline_run_details(
        run_id: Annotated[str | None, Field(description="Run id (UUID) from list_failed_pipelines or query_pipeline_status")] = None,
        pipeline_name: Annotated[str | None, Field(description=(
            "Exact pipeline name; used when no run_id is given: its latest run, or with 'around' its run "
            "closest to that time"))] = None,
        around: Annotated[str | None, Field(description=(
            "With pipeline_name: pick the run whose start is closest to this UTC time (at most 12 hours away), "
            "e.g. '2025-01-10T08:00Z' for 'the 8am run' (write the date-time; bare clock times are not read), "
            "or a phrase whose start is the time, e.g. 'yesterday' = yesterday 00:00. Omit for the latest run"))] = None,
    ) -> str:
        """Show one Azure Data Factory pipeline run with its activities and their error codes and messages.

        Give run_id for a specific run; or pipeline_name for that pipeline's latest run (whatever
        its status); or pipeline_name and around for its run closest to a time ("the 8am run").
        Returns a JSON envelope with one row: the run (status, start, end, duration, error) and its
        activities in order, including the failed activity's error; the message says which run was
        picked and, with around, how far its start is from the asked time. Never guess a run id;
        list first with list_failed_pipelines or query_pipeline_status.
        """
        call = ToolCall("get_pipeline_run_details", backend.kind, SYSTEM,
                        query={"run_id": run_id, "pipeline_name": pipeline_name, "around": around})

        async def work() -> ToolResult:
            wanted_id = _validate_run_id(run_id) if run_id else None
            name = pipeline_name.strip() if pipeline_name and pipeline_name.strip() else None
            if wanted_id is None and name is None:
                raise ArgumentError("Give run_id (a UUID from list_failed_pipelines) or pipeline_name; never guess a run id.")
            call.query["run_id"] = wanted_id
            point = _around_point(call, around, wanted_id=wanted_id, now=clock())
            call.subject = _run_subject(wanted_id, name, point)
            details = await backend.run_details(run_id=wanted_id, pipeline_name=None if wanted_id else name,
                                                around=point)
            run = details.run
            if wanted_id and name and name.lower() != run.pipeline_name.lower():
                call.warnings.append(f"Run {wanted_id} belongs to {run.pipeline_name}, not {name!r}.")
            activities = [activity_row(item) for item in details.activities[:max_rows]]
            if len(details.activities) > max_rows:
                call.warnings.append(f"Showing the first {max_rows} of {len(details.activities)} activities.")
            row = run_row(run, text_chars=200) | {
                "factory": run.factory, "status": run.status, "end": iso_minute(run.end),
                "failure_type": run.failure_type, "parameters": run.parameters, "activities": activities,
            }
            message = run_message(run, details.activities, which=_which_run(run, wanted_id=wanted_id, point=point))
            return call.rows([row], total=1, message=message, backend_warnings=details.warnings)

        return await call.run(work)

    return [list_failed_pipelines, query_pipeline_status, get_pipeline_run_details]


def _note_future(call: ToolCall, window: TimeWindow, now: datetime) -> None:
    """Runs cannot have happened after now: an empty answer for a future window proves nothing yet."""
    if window.start > now:
        call.warnings.append(f"The whole window is after now ({iso_minute(now)}): these runs have not happened yet.")


def _validate_run_id(run_id: str) -> str:
    try:
        return str(uuid.UUID(run_id.strip()))
    except ValueError as error:
        raise ArgumentError(
            f"run_id: {run_id!r} is not a run id (a UUID such as 3f2b7c1e-8a4d-4e0b-9c61-2d5f0a7b9e13); "
            "never guess one, list first with list_failed_pipelines."
        ) from error


def _pipeline_filters(pipeline_name: str | None, factory: str | None) -> tuple[str | None, str | None]:
    """Blank filters are no filters; a factory must look like a Data Factory name."""
    name = pipeline_name.strip() if pipeline_name and pipeline_name.strip() else None
    factory_name = factory.strip() if factory and factory.strip() else None
    if factory_name and not _FACTORY_NAME.fullmatch(factory_name):
        raise ArgumentError(f"factory: {factory!r} is not a Data Factory name (letters, digits and hyphens, "
                            "e.g. 'adf-prod-neu'); give the factory's name, not a region or a description.")
    return name, factory_name


def _filter_words(pipeline_name: str | None, factory: str | None, *, matching: str) -> str:
    """`` of pipelines matching 'sales' in factory 'adf-prod-neu'`` (``matching``: "of pipelines matching"), or ``""``."""
    words = f" {matching} {pipeline_name!r}" if pipeline_name else ""
    return words + (f" in factory {factory!r}" if factory else "")


def _around_point(call: ToolCall, around: str | None, *, wanted_id: str | None, now: datetime) -> datetime | None:
    """The time point to search around (recorded in ``call.query``), or ``None``."""
    if not around or not around.strip():
        return None
    if wanted_id:
        call.warnings.append(f"around {around!r} ignored: run_id names the run.")
        return None
    point = parse_point(around, now, argument="around")
    call.query["around"] = {
        "asked": around, "point": iso_minute(point),
        "searched_from": iso_minute(point - AROUND_TOLERANCE), "searched_to": iso_minute(point + AROUND_TOLERANCE),
    }
    return point


def _run_subject(wanted_id: str | None, name: str | None, point: datetime | None) -> str:
    """What a not-found result says was missing, with what was searched."""
    if wanted_id:
        return f"pipeline run {wanted_id}"
    if point is None:
        return f"runs of pipeline {name!r}"
    return (f"run of pipeline {name!r} starting between {iso_minute(point - AROUND_TOLERANCE)} and "
            f"{iso_minute(point + AROUND_TOLERANCE)} (within {_HOURS} of {iso_minute(point)})")


def _which_run(run: PipelineRun, *, wanted_id: str | None, point: datetime | None) -> str:
    """"Latest run of X", "Run of X", or "Run of X closest to <time>, 12 min after it"."""
    if wanted_id:
        return f"Run of {run.pipeline_name}"
    if point is None:
        return f"Latest run of {run.pipeline_name}"
    minutes = round((run.start - point).total_seconds() / 60)
    if minutes == 0:
        return f"Run of {run.pipeline_name} closest to {iso_minute(point)}, starting at that time"
    side = "after" if minutes > 0 else "before"
    return f"Run of {run.pipeline_name} closest to {iso_minute(point)}, {_duration_words(abs(minutes))} {side} it"


def _duration_words(minutes: int) -> str:
    """``12 min``, ``2 h``, ``2 h 5 min``."""
    hours, rest = divmod(minutes, 60)
    return " ".join(part for part in (f"{hours} h" if hours else "", f"{rest} min" if rest else "") if part)
