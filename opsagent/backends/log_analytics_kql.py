"""KQL for ``LogAnalyticsPipelineRunsBackend``: the queries on ``ADFPipelineRun`` / ``ADFActivityRun``.

Sits under ``backends.log_analytics`` (which runs them). A run writes several rows
(Queued/InProgress, then final), so queries dedupe with ``arg_max(TimeGenerated, *) by RunId``.
Values from people or models never reach KQL raw: names become escaped string literals
(``kql_string``), run ids are checked to be GUIDs by the caller, numbers pass through ``int``.
The factory is the last segment of the run's resource id (``…/FACTORIES/<NAME>``), matched
ignoring case. Counts are computed by ``summarize`` (exact however many runs there are); one
pipeline's history is one ``union`` whose rows say what they are in ``Kind``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from opsagent.backends.pipeline_records import squashed

_FACTORY_NAME = 'extract(@"(?i)/factories/([^/]+)/?$", 1, coalesce(_ResourceId, ResourceId))'
_FACTORY = f"Factory = {_FACTORY_NAME}"
_RUN_COLUMNS = "RunId, PipelineName, Factory, Status, Start, End, TimeGenerated, FailureType, ErrorCode, ErrorMessage, Parameters"
INVENTORY_ROWS = 5000
"""At most this many (pipeline, factory) pairs are read for the pipeline inventory."""
COUNT_GROUPS = 1000
"""At most this many pipelines (or factories) are counted in one query (each count itself is exact)."""
_SPELLINGS = {"Cancelled": ("Cancelled", "Canceled", "Canceling")}
"""ADF writes a cancel more than one way; a filter on it matches them all."""


def kql_string(value: str) -> str:
    """A KQL double-quoted string literal: backslash, quote and control characters escaped."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{escaped}"'


def _kql_datetime(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return f"datetime({aware.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')})"


def _window(start: datetime, end: datetime) -> str:
    return f"| where TimeGenerated between ({_kql_datetime(start)} .. {_kql_datetime(end)})"


def _filters(pipeline_name: str | None, factory: str | None) -> str:
    """Pipeline (substring) and factory (whole name) filters, both case-insensitive, values escaped."""
    lines = [f"| where PipelineName contains {kql_string(pipeline_name)}"] if pipeline_name else []
    lines += [f"| where {_FACTORY_NAME} =~ {kql_string(factory)}"] if factory else []
    return "".join(f"\n{line}" for line in lines)


def status_filter(statuses: Sequence[str] | None) -> str:
    """A line ``| where Status == "Failed"`` (one) or ``in (…)`` (several); ADF's other spellings of a cancel count too."""
    if not statuses:
        return ""
    spelled = [spelling for status in statuses for spelling in _SPELLINGS.get(status, (status,))]
    if len(spelled) == 1:
        return f"\n| where Status == {kql_string(spelled[0])}"
    return f"\n| where Status in ({', '.join(kql_string(item) for item in spelled)})"


def error_filter(error_text: str | None) -> str:
    """A line keeping the runs whose error code or message holds the words, both sides ``squashed`` (letters and
    digits only, lower case: "file not found" finds "UserErrorFileNotFound"); no line without words."""
    words = squashed(error_text or "")
    if not words:
        return ""
    return f'\n| where replace_regex(tolower(strcat(ErrorCode, " ", ErrorMessage)), @"[^0-9a-z]+", "") contains {kql_string(words)}'


def runs_query(start: datetime, end: datetime, limit: int, *, statuses: Sequence[str] | None,
               pipeline_name: str | None, factory: str | None, error_text: str | None = None) -> str:
    """Runs (one row per run, its latest state) with one of ``statuses``, newest start first, with the total."""
    return f"""let runs = ADFPipelineRun
{_window(start, end)}{_filters(pipeline_name, factory)}
| summarize arg_max(TimeGenerated, *) by RunId{status_filter(statuses)}{error_filter(error_text)};
let total = toscalar(runs | count);
runs
| order by Start desc
| take {int(limit)}
| extend {_FACTORY}, Parameters = parse_json(Parameters), Total = total
| project {_RUN_COLUMNS}, Total"""


def failed_runs_query(
    start: datetime, end: datetime, limit: int, *, pipeline_name: str | None, factory: str | None
) -> str:
    return runs_query(start, end, limit, statuses=["Failed"], pipeline_name=pipeline_name, factory=factory)


def count_query(start: datetime, end: datetime, *, group_by: str, statuses: Sequence[str] | None,
                pipeline_name: str | None, factory: str | None, error_text: str | None = None) -> str:
    """Exact run counts per pipeline or per factory (``summarize … by``), most runs first."""
    name = "PipelineName" if group_by == "pipeline" else "Factory"
    cancelled = ", ".join(kql_string(item) for item in _SPELLINGS["Cancelled"])
    return f"""ADFPipelineRun
{_window(start, end)}{_filters(pipeline_name, factory)}
| extend {_FACTORY}
| summarize arg_max(TimeGenerated, Status{", ErrorCode, ErrorMessage" if error_filter(error_text) else ""}) by RunId, \
PipelineName, Factory{status_filter(statuses)}{error_filter(error_text)}
| summarize Runs = count(), Succeeded = countif(Status == "Succeeded"), Failed = countif(Status == "Failed"),
    Cancelled = countif(Status in ({cancelled})), InProgress = countif(Status == "InProgress"),
    Queued = countif(Status == "Queued") by Name = {name}
| order by Runs desc, Name asc
| take {COUNT_GROUPS}"""


def history_query(pipeline_name: str, since: datetime, *, recent: int) -> str:
    """One pipeline since ``since``: its latest run, last failure and success, ``recent`` successful runs,
    failures grouped by error code, failed activity and failure type, and its number of runs (by ``Kind``)."""
    return f"""let runs = ADFPipelineRun
| where TimeGenerated >= {_kql_datetime(since)}
| where PipelineName =~ {kql_string(pipeline_name)}
| summarize arg_max(TimeGenerated, *) by RunId
| extend {_FACTORY}, Parameters = parse_json(Parameters)
| project {_RUN_COLUMNS};
let failed = runs | where Status == "Failed";
let succeeded = runs | where Status == "Succeeded";
union
  (runs | top 1 by Start desc | extend Kind = "latest"),
  (failed | top 1 by Start desc | extend Kind = "last_failure"),
  (succeeded | top {int(recent)} by Start desc | extend Kind = "success"),
  (failed | extend FailedActivity = extract(@"^Operation on target (\\S+) failed", 1, ErrorMessage)
    | summarize Count = count(), FirstSeen = min(Start), Starts = make_list(Start, 256),
      arg_max(Start, RunId, ErrorMessage) by ErrorCode, FailedActivity, FailureType
    | extend Kind = "failure_group"),
  (runs | count | extend Kind = "total")"""


def status_query(
    start: datetime, end: datetime, limit: int, *, pipeline_name: str | None, factory: str | None
) -> str:
    return f"""let summary = ADFPipelineRun
{_window(start, end)}{_filters(pipeline_name, factory)}
| summarize arg_max(TimeGenerated, Status, Start, End) by RunId, PipelineName
| summarize Runs = count(), Succeeded = countif(Status == "Succeeded"), Failed = countif(Status == "Failed"),
    Cancelled = countif(Status == "Cancelled"), Running = countif(Status in ("Queued", "InProgress")),
    LastSuccess = maxif(Start, Status == "Succeeded"), arg_max(Start, Status, RunId) by PipelineName
| project-rename LastStart = Start, LastStatus = Status, LastRunId = RunId;
let total = toscalar(summary | count);
summary
| order by Failed desc, PipelineName asc
| take {int(limit)}
| extend Total = total"""


def pipelines_query(since: datetime) -> str:
    return f"""ADFPipelineRun
| where TimeGenerated >= {_kql_datetime(since)}
| extend {_FACTORY}
| summarize by PipelineName, Factory
| order by PipelineName asc, Factory asc
| take {INVENTORY_ROWS}"""


def details_query(
    run_id: str | None, pipeline_name: str | None, *, around: datetime | None, within: timedelta
) -> str:
    named = f"ADFPipelineRun | where PipelineName =~ {kql_string(pipeline_name or '')}"
    if run_id:
        rid = kql_string(run_id)
    elif around is not None:  # the run starting closest to the point, within reach; the later one on a tie
        reach = f"{_kql_datetime(around - within)} .. {_kql_datetime(around + within)}"
        rid = (f"toscalar({named} and Start between ({reach})\n  | summarize Start = min(Start) by RunId"
               f"\n  | extend Distance = abs(Start - {_kql_datetime(around)})"
               "\n  | order by Distance asc, Start desc | take 1 | project RunId)")
    else:
        rid = f"toscalar({named} | top 1 by Start desc | project RunId)"
    return f"""let rid = {rid};
let pipe = ADFPipelineRun | where RunId == rid | summarize arg_max(TimeGenerated, *) by RunId
  | extend {_FACTORY}, Parameters = parse_json(Parameters)
  | project Kind = "pipeline", {_RUN_COLUMNS};
let acts = ADFActivityRun | where PipelineRunId == rid | summarize arg_max(TimeGenerated, *) by ActivityRunId
  | extend ErrorMessage = coalesce(ErrorMessage, tostring(parse_json(Error).message))
  | project Kind = "activity", RunId = PipelineRunId, ActivityRunId, ActivityName, ActivityType,
    Status, Start, End, TimeGenerated, FailureType, ErrorCode, ErrorMessage;
union pipe, acts
| order by Start asc"""
