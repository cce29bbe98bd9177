"""Log Analytics specialist tools: Data Factory runs (failed or of any status), exact counts, per-pipeline
status, run details and a pipeline's history (LLM-facing).

Sits between the log_analytics specialist agent and ``PipelineRunsBackend``: time phrases are
resolved against the injected clock, run ids and names are checked before any query
(``run_arguments.py``), and the backend's runs become the bounded ``ToolResult`` envelope (rows from
``pipeline_rows.py`` and ``run_history.py``, caps from ``rendering.py``). Every filter and the
resolved window are stated in ``query`` and the message. Parameter descriptions come from the
catalog (``catalog_runs.py``).
"""

from __future__ import annotations

from functools import partial

from agent_framework import FunctionTool

from opsagent.backends.base import Backends, Clock, Page, PipelineRun, RunDetails, RunGrouping, RunSearch
from opsagent.contracts.tool_result import ToolResult
from opsagent.errors import BackendNotFoundError
from opsagent.tools import run_arguments as args
from opsagent.tools.filters import vocabulary_filter
from opsagent.tools.pipeline_rows import (
    activity_row,
    count_row,
    counts_message,
    pipelines_sentence,
    run_message,
    run_row,
    summary_row,
)
from opsagent.tools.rendering import ArgumentError, ToolCall, clamp_limit, count_message, iso_minute, window_after
from opsagent.tools.run_history import history_message, history_row
from opsagent.tools.timewindow import TimeWindow
from opsagent.tools.toolkit import Toolset
from opsagent.tools.vocabularies import RUN_STATUS

SYSTEM = "Log Analytics"


class LogAnalyticsTools(Toolset):
    """The Data Factory tools over ``backends.pipelines``."""

    specialist = "log_analytics"

    def call(self, tool: str, **query: object) -> ToolCall:
        return ToolCall(tool, self.backends.pipelines.kind, SYSTEM, query=dict(query))

    def window(self, call: ToolCall, phrase: str | None, default: str) -> TimeWindow:
        """The resolved run window (recorded in ``query``), with a note when it lies in the future."""
        now = self.clock()
        window = call.window("time_window", phrase or default, now)
        args.note_future(call, window, now)
        return window

    async def list_failed_pipelines(
        self, time_window: str = "last 24 hours", pipeline_name: str | None = None, factory: str | None = None,
        limit: int | None = None, error_text: str | None = None,
    ) -> str:
        """List failed Azure Data Factory pipeline runs in a time window, newest first, with their error codes.

        Use it for "which pipelines failed ...?", optionally for one pipeline or one factory. Each
        row has the run_id (pass it to get_pipeline_run_details for activity-level errors),
        pipeline name, factory, start time, duration, error code, failed activity and a short error
        message; error_text keeps the failures whose error holds those words ("which failed with a
        timeout?"). Returns a JSON envelope with total, rows shown (at most the cap), truncation, the
        resolved window and filters in "query" and a message that states them. Never guess a run
        id; list first.
        """
        call = self.call("list_failed_pipelines", time_window=time_window, pipeline_name=pipeline_name, factory=factory,
                         error_text=error_text)

        async def work() -> ToolResult:
            window = self.window(call, time_window, "last 24 hours")
            name, factory_name = args.pipeline_filters(pipeline_name, factory)
            words = args.error_words_given(error_text)
            page = await self.backends.pipelines.list_runs(
                RunSearch(start=window.start, end=window.end, statuses=["Failed"], pipeline_name=name,
                          factory=factory_name, error_text=words),
                limit=clamp_limit(limit, self.max_rows, call.warnings))
            detail = (f"{args.error_words(words)}{args.filter_words(name, factory_name, matching='of pipelines matching')} "
                      f"{window_after('in', window)}")

            def message(shown: int) -> str:
                counted = count_message(page.total, shown, "failed pipeline run", detail=detail)
                return counted + pipelines_sentence(page.items[:shown], is_complete=shown >= page.total)

            return call.page_rows(page, run_row, message)

        return await call.run(work)

    async def query_pipeline_status(
        self, pipeline_name: str | None = None, time_window: str = "last 7 days", factory: str | None = None,
        limit: int | None = None,
    ) -> str:
        """Summarise Azure Data Factory pipelines in a time window: runs, succeeded, failed, cancelled, running, success rate and the latest run.

        Use it for "how is pipeline X doing?", "which pipelines are unhealthy this week?" or to find
        a pipeline's exact name. Rows are ordered by failures, then name; each carries last_run_id
        for get_pipeline_run_details. Returns a JSON envelope with total pipelines, rows shown (at
        most the cap), truncation, the resolved window and filters in "query" and a message that
        states them.
        """
        call = self.call("query_pipeline_status", pipeline_name=pipeline_name, time_window=time_window, factory=factory)

        async def work() -> ToolResult:
            window = self.window(call, time_window, "last 7 days")
            name, factory_name = args.pipeline_filters(pipeline_name, factory)
            page = await self.backends.pipelines.pipeline_status(
                start=window.start, end=window.end, pipeline_name=name,
                limit=clamp_limit(limit, self.max_rows, call.warnings), factory=factory_name)
            failing = [item.pipeline_name for item in page.items if item.failed]
            with_failures = f" With failures: {', '.join(failing)}." if failing else ""
            detail = f"{args.filter_words(name, factory_name, matching='matching')} with runs {window_after('in', window)}"

            def message(shown: int) -> str:
                return count_message(page.total, shown, "pipeline", detail=detail, order="with the most failures") + with_failures

            return call.page_rows(page, summary_row, message)

        return await call.run(work)

    async def get_pipeline_run_details(
        self, run_id: str | None = None, pipeline_name: str | None = None, around: str | None = None,
    ) -> str:
        """Show one Azure Data Factory pipeline run with its activities and their error codes and messages.

        Give run_id for a specific run; or pipeline_name for that pipeline's latest run (whatever
        its status); or pipeline_name and around for its run closest to a time ("the 8am run").
        Returns a JSON envelope with one row: the run (status, start, end, duration, error) and its
        activities in order, including the failed activity's error; the message says which run was
        picked and, with around, how far its start is from the asked time. Never guess a run id;
        list first with list_failed_pipelines or query_pipeline_status.
        """
        call = self.call("get_pipeline_run_details", run_id=run_id, pipeline_name=pipeline_name, around=around)

        async def work() -> ToolResult:
            wanted_id = args.validate_run_id(run_id) if run_id else None
            name = pipeline_name.strip() if pipeline_name and pipeline_name.strip() else None
            if wanted_id is None and name is None:
                raise ArgumentError("Give run_id (a UUID from list_failed_pipelines) or pipeline_name; never guess a run id.")
            call.query["run_id"] = wanted_id
            point = args.around_point(call, around, wanted_id=wanted_id, now=self.clock())
            call.subject = args.run_subject(wanted_id, name, point)
            details = await self.backends.pipelines.run_details(
                run_id=wanted_id, pipeline_name=None if wanted_id else name, around=point)
            if wanted_id and name and name.lower() != details.run.pipeline_name.lower():
                call.warnings.append(f"Run {wanted_id} belongs to {details.run.pipeline_name}, not {name!r}.")
            message = run_message(details.run, details.activities,
                                  which=args.which_run(details.run, wanted_id=wanted_id, point=point))
            return call.rows([self.details_row(call, details)], total=1, message=message,
                             backend_warnings=details.warnings)

        return await call.run(work)

    async def list_pipeline_runs(
        self, status: str = "all", time_window: str = "last 24 hours", pipeline_name: str | None = None,
        factory: str | None = None, limit: int | None = None, error_text: str | None = None,
    ) -> str:
        """List Azure Data Factory pipeline runs of any status in a time window, newest first.

        Use it for "what is running / queued now?", "which runs were cancelled?", "did X succeed
        overnight?": status is one or more of Failed, Cancelled, InProgress, Queued, Succeeded (or
        'active', 'finished', 'all', or 'not <status>'), optionally for one pipeline or factory.
        Rows carry the run_id (for get_pipeline_run_details), status, start, end, duration and any
        error. Returns a JSON envelope with total, rows shown (at most the cap), truncation, the
        resolved filters in "query" and a message that states them. Never guess a run id.
        """
        call = self.call("list_pipeline_runs", status=status, time_window=time_window, pipeline_name=pipeline_name,
                         factory=factory, error_text=error_text)

        async def work() -> ToolResult:
            search, words = self.search(call, status, time_window, pipeline_name, factory, error_text)
            rows = clamp_limit(limit, self.max_rows, call.warnings)
            page = await self.backends.pipelines.list_runs(search, limit=rows)

            def message(shown: int) -> str:
                counted = count_message(page.total, shown, "pipeline run", detail=words)
                return counted + pipelines_sentence(page.items[:shown], is_complete=shown >= page.total)

            return call.page_rows(page, lambda run: run_row(run) | {"status": run.status, "end": iso_minute(run.end)},
                                  message)

        return await call.run(work)

    async def count_pipeline_runs(
        self, group_by: RunGrouping = "pipeline", status: str = "all", time_window: str = "last 24 hours",
        factory: str | None = None, pipeline_name: str | None = None, limit: int | None = None,
        error_text: str | None = None,
    ) -> str:
        """Count Azure Data Factory pipeline runs per pipeline or per factory in a time window (exact counts, however many runs).

        Use it for "how many runs failed per pipeline this week?", "which factory ran the most?",
        "how many times did X run today?". Each row has the pipeline (or factory), its count and
        the count per status; rows come most runs first. The message gives the total over every
        group. Returns a JSON envelope with the number of groups, rows shown (at most the cap) and
        the resolved filters in "query".
        """
        call = self.call("count_pipeline_runs", group_by=group_by, status=status, time_window=time_window,
                         factory=factory, pipeline_name=pipeline_name, error_text=error_text)

        async def work() -> ToolResult:
            search, words = self.search(call, status, time_window, pipeline_name, factory, error_text)
            page = await self.backends.pipelines.count_runs(search, group_by=group_by)
            rows = clamp_limit(limit, self.max_rows, call.warnings)
            key = "pipeline_name" if group_by == "pipeline" else "factory"
            render = partial(count_row, key=key, statuses=search.statuses)
            counted = Page(items=page.items[:rows], total=page.total, warnings=page.warnings, unreadable=page.unreadable)
            return call.page_rows(counted, render, partial(counts_message, page.items, group_by=group_by, detail=words))

        return await call.run(work)

    async def get_pipeline_history(self, pipeline_name: str, run_id: str | None = None,
                                   error_text: str | None = None) -> str:
        """Show a Data Factory pipeline's history: last failure and last success, how long its runs usually take, how a run compares, and its earlier failures grouped by error.

        Use it for "when did X last fail / last work?", "is this run slower than usual?", "has it
        failed like this before?". It searches the whole history the logs keep (the message states
        the dates). Give run_id to compare that run; else the pipeline's latest (or current) run is
        compared with the median and spread of its recent successful runs. Failure groups (error
        code, failed activity, failure type) carry their count and first / last seen; the one like
        the compared run is marked. Give error_text ("has it failed with 'X' before?") for only the
        kinds of failure whose error holds those words. Returns a JSON envelope with one row.
        """
        call = self.call("get_pipeline_history", pipeline_name=pipeline_name, run_id=run_id, error_text=error_text)

        async def work() -> ToolResult:
            name = pipeline_name.strip()
            wanted_id = args.validate_run_id(run_id) if run_id else None
            call.query["run_id"], call.subject = wanted_id, f"runs of pipeline {name!r}"
            history = await self.backends.pipelines.pipeline_history(name)
            run = history.latest_run if wanted_id is None else await self.run_of(call, wanted_id, history.pipeline_name)
            if run is None:
                raise BackendNotFoundError(f"no runs of {name!r}", backend=SYSTEM)
            call.query |= {"searched_from": iso_minute(history.searched_from),
                           "searched_to": iso_minute(history.searched_to)}
            row = history_row(history, run, now=self.clock(), max_groups=self.max_rows,
                              error_text=args.error_words_given(error_text) or "")
            which = f"Run {run.run_id}" if wanted_id else "The latest run"
            matched = not row.get("error_text") or row["failures_with_error_text"]  # a filter that matched nothing:
            return call.rows([row] if matched else [], total=1 if matched else 0,  # no row, like any search
                             message=history_message(history, row, which=which), backend_warnings=history.warnings)

        return await call.run(work)

    async def run_of(self, call: ToolCall, run_id: str, pipeline_name: str) -> PipelineRun:
        """The run asked about, which must belong to the pipeline."""
        call.subject = f"pipeline run {run_id}"
        run = (await self.backends.pipelines.run_details(run_id=run_id)).run
        if run.pipeline_name.lower() != pipeline_name.lower():
            raise ArgumentError(f"run_id: run {run_id} belongs to {run.pipeline_name}, not {pipeline_name}.")
        return run

    def search(
        self, call: ToolCall, status: str, time_window: str | None, pipeline_name: str | None, factory: str | None,
        error_text: str | None = None,
    ) -> tuple[RunSearch, str]:
        """The runs a listing or a count asks for, and the filters in words for its message."""
        window = self.window(call, time_window, "last 24 hours")
        name, factory_name = args.pipeline_filters(pipeline_name, factory)
        statuses = vocabulary_filter(call, status or "all", RUN_STATUS, argument="status")
        state_words = "" if statuses.is_everything else f" ({statuses.words()})"
        text = args.error_words_given(error_text)
        words = f"{state_words}{args.error_words(text)}{args.filter_words(name, factory_name, matching='of pipelines matching')} " \
                f"{window_after('in', window)}"
        return RunSearch(start=window.start, end=window.end, statuses=statuses.restriction, pipeline_name=name,
                         factory=factory_name, error_text=text), words

    def details_row(self, call: ToolCall, details: RunDetails) -> dict[str, object]:
        """A run with its activities (at most the row cap of them, the cut noted)."""
        run = details.run
        activities = [activity_row(item) for item in details.activities[: self.max_rows]]
        if len(details.activities) > self.max_rows:
            call.warnings.append(f"Showing the first {self.max_rows} of {len(details.activities)} activities.")
        return run_row(run, text_chars=200) | {
            "factory": run.factory, "status": run.status, "end": iso_minute(run.end),
            "failure_type": run.failure_type, "parameters": run.parameters, "activities": activities,
        }


def make_log_analytics_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The Data Factory tools, bound to ``backends.pipelines``, the clock and the row cap."""
    return LogAnalyticsTools(backends, clock=clock, max_rows=max_rows).functions()
