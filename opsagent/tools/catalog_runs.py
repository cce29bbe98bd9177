"""Catalog entries of the Data Factory tools: runs, per-pipeline status and run details (see ``catalog.py``)."""

from __future__ import annotations

from opsagent.backends.pipeline_records import HISTORY_LOOKBACK
from opsagent.tools.catalog_types import FilterSpec, ToolSpec, limit_filter

_WINDOW_HELP = (
    "UTC time window of the runs (start included, end excluded), default '{default}': a phrase such as "
    "'last 24 hours', 'today', 'yesterday', 'last night', 'since yesterday', 'since 2025-01-09T18:00Z', or a "
    "range '2025-01-09T18:00Z to 2025-01-10T09:00Z'"
)
_STATUS = FilterSpec(parameter="status", kind="choice", vocabulary="run_status", row_field="status", help=(
    "Run status: Failed, Cancelled, InProgress, Queued or Succeeded; 'active' (= Queued, InProgress), 'finished' "
    "(= Succeeded, Failed, Cancelled) or 'all' (default); a list ('Failed, Cancelled'); or 'not <status>'"))
_FACTORY = FilterSpec(parameter="factory", kind="name", inventory="factory", row_field="factory", about="Data Factory",
                      help=("Only runs in this Azure Data Factory: its name (case-insensitive) as the user or the "
                            "context wrote it ('<factory name>'). Omit for every factory"))


_ERROR_TEXT = FilterSpec(parameter="error_text", kind="text", row_field="error_message", about="words of an error", help=(
                             "Words of an error to look for, e.g. an error code or a phrase the user quoted (any "
                             "case; spaces and punctuation ignored): only runs whose error code or message holds "
                             "them. Omit for every run"))


def run_window(default: str) -> FilterSpec:
    """The run-start window of a listing, with its default."""
    return FilterSpec(parameter="time_window", kind="window", row_field="start", about="run start",
                      widest=f"last {HISTORY_LOOKBACK.days} days", help=_WINDOW_HELP.format(default=default))


def pipeline_filter(help: str) -> FilterSpec:
    return FilterSpec(parameter="pipeline_name", kind="name", inventory="pipeline", row_field="pipeline_name",
                      about="pipeline", help=help)


RUN_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(name="list_failed_pipelines", specialist="log_analytics", record="run", fixed={"run_status": "Failed"},
             purpose="failed Data Factory runs in a window", filters=(
                 run_window("last 24 hours"),
                 pipeline_filter("Only failures of this pipeline: its name or part of it (case-insensitive), as the "
                                 "user or a tool wrote it ('<pipeline name>'). Omit for every pipeline"),
                 _FACTORY, limit_filter(), _ERROR_TEXT)),
    ToolSpec(name="query_pipeline_status", specialist="log_analytics", record="pipeline",
             purpose="per-pipeline run counts, success rate and latest run in a window", filters=(
                 pipeline_filter("Pipeline name or part of it (case-insensitive); omit for all pipelines"),
                 run_window("last 7 days").model_copy(update={"row_field": "last_start"}),
                 _FACTORY, limit_filter("pipelines"))),
    ToolSpec(name="get_pipeline_run_details", specialist="log_analytics", record="run",
             purpose="one run with its activities and errors (by id, latest, or closest to a time)", filters=(
                 FilterSpec(parameter="run_id", kind="lookup", row_field="run_id",
                            help="Run id (a UUID) from list_failed_pipelines or query_pipeline_status"),
                 pipeline_filter("Exact pipeline name; used when no run_id is given: its latest run, or with "
                                 "'around' its run closest to that time"),
                 FilterSpec(parameter="around", kind="point", row_field="start", about="the run closest to a time",
                            help=("With pipeline_name: pick the run whose start is closest to this UTC time (at most "
                                  "12 hours away), e.g. '2025-01-10T08:00Z' for 'the 8am run' (write the date-time; "
                                  "bare clock times are not read), or a phrase whose start is the time, e.g. "
                                  "'yesterday' = yesterday 00:00. Omit for the latest run")))),
    ToolSpec(name="list_pipeline_runs", specialist="log_analytics", record="run",
             purpose="Data Factory runs of any status in a window, newest first", filters=(
                 _STATUS, run_window("last 24 hours"),
                 pipeline_filter("Only runs of this pipeline: its name or part of it (case-insensitive), as the user "
                                 "or a tool wrote it ('<pipeline name>'). Omit for every pipeline"),
                 _FACTORY, limit_filter(), _ERROR_TEXT)),
    ToolSpec(name="get_pipeline_history", specialist="log_analytics", record="pipeline", past=True,
             latest_of=(("run_status", "Failed"), ("run_status", "Succeeded")),
             purpose="a pipeline's last failure and success, usual run durations with a run compared, and its "
                     "earlier failures grouped by error, over the whole history kept", filters=(
                 pipeline_filter("The pipeline's exact name, as the user or a tool wrote it ('<pipeline name>')"),
                 FilterSpec(parameter="run_id", kind="lookup", row_field="run_id", help=(
                     "Run id (a UUID) of the run to compare with the usual; omit for the pipeline's latest (or "
                     "current) run")),
                 _ERROR_TEXT.model_copy(update={"row_field": "failure_groups", "narrows_to": (("run_status", "Failed"),),
                                                "help": (
                     "Words of an error to look for among its failures, e.g. an error code or a phrase the user "
                     "quoted (any case; spaces and punctuation ignored): only the kinds of failure whose code, "
                     "activity or latest message hold them. Omit for all")}))),
    ToolSpec(name="count_pipeline_runs", specialist="log_analytics", record="run_count",
             purpose="exact run counts per pipeline or per factory in a window, by status", filters=(
                 FilterSpec(parameter="group_by", kind="group_by", vocabulary="run_grouping", help=(
                     "'pipeline' (default): one count per pipeline; 'factory': one count per Data Factory")),
                 _STATUS, run_window("last 24 hours"), _FACTORY,
                 pipeline_filter("Only runs of pipelines whose name contains this (case-insensitive); omit for all"),
                 limit_filter("groups"), _ERROR_TEXT)),
)
