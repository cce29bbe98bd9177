"""Data Factory pipeline and activity runs, their summaries, and ``PipelineRunsBackend``.

Re-exported by ``backends.base``. Implemented by ``backends.log_analytics`` (KQL) and
``backends.demo.pipelines`` (SQLite); read by the tools in ``tools/log_analytics.py``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal, Protocol

from pydantic import BaseModel, Field, field_validator

from opsagent.backends.page import Page

HISTORY_LOOKBACK = timedelta(days=30)
"""How far back a pipeline's history is searched: the default retention of a Log Analytics workspace."""

RunStatus = Literal["Queued", "InProgress", "Succeeded", "Failed", "Cancelled"]


class PipelineRun(BaseModel):
    run_id: str
    pipeline_name: str
    factory: str = ""
    status: RunStatus
    start: datetime
    end: datetime | None = None
    failure_type: str = ""
    error_code: str = ""
    error_message: str = ""
    parameters: dict[str, str] = Field(default_factory=dict)

    @property
    def duration_minutes(self) -> float | None:
        return None if self.end is None else round((self.end - self.start).total_seconds() / 60, 1)


class ActivityRun(BaseModel):
    activity_run_id: str = ""
    activity_name: str
    activity_type: str = ""
    status: RunStatus
    start: datetime
    end: datetime | None = None
    error_code: str = ""
    error_message: str = ""
    failure_type: str = ""


class PipelineStatusSummary(BaseModel):
    pipeline_name: str
    runs: int = 0
    succeeded: int = 0
    failed: int = 0
    cancelled: int = 0
    running: int = 0
    last_status: RunStatus | None = None
    last_run_id: str = ""
    last_start: datetime | None = None
    last_success: datetime | None = None
    """When the latest succeeded run in the window started ("when did it last work?")."""

    @property
    def success_rate_pct(self) -> float | None:
        finished = self.runs - self.running
        return None if finished <= 0 else round(100.0 * self.succeeded / finished, 1)


class RunDetails(BaseModel):
    run: PipelineRun
    activities: list[ActivityRun] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class PipelineInfo(BaseModel):
    """A pipeline that has runs, and the Data Factory it runs in."""

    name: str
    factory: str = ""


RunGrouping = Literal["pipeline", "factory"]


def squashed(text: str) -> str:
    """ASCII letters and digits only, lower case: how error words are matched, so that "file not found" finds
    "UserErrorFileNotFound" and "Execution-Timeout" finds "execution timeout" (KQL's regex classes are ASCII, so
    both backends keep the same characters)."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


class RunSearch(BaseModel):
    """Which runs: started in ``[start, end)``, with one of ``statuses`` (``None``: any), of pipelines whose
    name contains ``pipeline_name`` and in the factory named ``factory`` (both ignoring case), and whose error
    code or message holds ``error_text`` (``squashed`` on both sides)."""

    start: datetime
    end: datetime
    statuses: list[RunStatus] | None = Field(default=None, min_length=1)
    pipeline_name: str | None = None
    factory: str | None = None
    error_text: str | None = None


class RunCount(BaseModel):
    """How many runs one pipeline (or factory) had, in all and per status."""

    name: str
    runs: int = 0
    succeeded: int = 0
    failed: int = 0
    cancelled: int = 0
    in_progress: int = 0
    queued: int = 0


FAILURE_STARTS = 5
"""How many start times a failure group lists."""


class FailureGroup(BaseModel):
    """Earlier failures of a pipeline with the same error code and failure type in the same activity."""

    error_code: str = ""
    failed_activity: str = ""
    failure_type: str = ""
    count: int = 0
    first_seen: datetime
    last_seen: datetime
    last_run_id: str = ""
    error_message: str = ""
    """The latest such failure's message."""
    starts: list[datetime] = Field(default_factory=list)
    """When the latest such failures started, newest first (at most ``FAILURE_STARTS``): "when did it fail like
    this before?" is answered with dates, not only the first and the last."""

    @field_validator("starts")
    @classmethod
    def _latest_first(cls, starts: list[datetime]) -> list[datetime]:
        return sorted(starts, reverse=True)[:FAILURE_STARTS]


class PipelineHistory(BaseModel):
    """One pipeline over the whole history searched: its last failure and success, its recent
    successful runs (for durations) and its failures grouped by error."""

    pipeline_name: str
    factory: str = ""
    searched_from: datetime
    searched_to: datetime
    runs: int = 0
    latest_run: PipelineRun | None = None
    last_failure: PipelineRun | None = None
    last_success: PipelineRun | None = None
    recent_successes: list[PipelineRun] = Field(default_factory=list)
    """The latest successful (finished) runs, newest first."""
    failure_groups: list[FailureGroup] = Field(default_factory=list)
    """Most failures first, then the latest."""
    warnings: list[str] = Field(default_factory=list)


AROUND_TOLERANCE = timedelta(hours=12)
"""How far from the asked time a run may start and still be "the run around" that time."""


class PipelineRunsBackend(Protocol):
    """Azure Data Factory pipeline and activity runs (Log Analytics ``ADFPipelineRun``/``ADFActivityRun``).

    Windows select runs by time, ``[start, end)``: by run start in the demo, by the time of the run's
    log rows (``TimeGenerated``) in Log Analytics. ``pipeline_name`` filters match a substring
    (case-insensitive); ``factory`` filters match the Data Factory name exactly (case-insensitive).
    """

    kind: str

    async def list_failed_runs(
        self, *, start: datetime, end: datetime, limit: int, pipeline_name: str | None = None, factory: str | None = None
    ) -> Page[PipelineRun]: ...

    async def pipeline_status(
        self, *, start: datetime, end: datetime, pipeline_name: str | None, limit: int, factory: str | None = None
    ) -> Page[PipelineStatusSummary]:
        """Per-pipeline counts in the window, most failures first."""
        ...

    async def run_details(
        self, *, run_id: str | None = None, pipeline_name: str | None = None,
        around: datetime | None = None, within: timedelta = AROUND_TOLERANCE,
    ) -> RunDetails:
        """One run by id; else the run of the named pipeline (exact name, case-insensitive) starting
        closest to ``around``, at most ``within`` away; else its latest run. Raises ``BackendNotFoundError``."""
        ...

    async def list_pipelines(self, *, since: datetime) -> list[PipelineInfo]:
        """Every pipeline with a run since ``since``, with its factory, ordered by name (for name checks)."""
        ...

    async def list_runs(self, search: RunSearch, *, limit: int) -> Page[PipelineRun]:
        """Runs of any status (or those of ``search.statuses``), newest start first."""
        ...

    async def count_runs(self, search: RunSearch, *, group_by: RunGrouping) -> Page[RunCount]:
        """Exact counts per pipeline or per factory (the backend counts), most runs first, then by name."""
        ...

    async def pipeline_history(self, pipeline_name: str, *, recent: int = 20) -> PipelineHistory:
        """The pipeline (exact name, case-insensitive) over the whole history the backend keeps, which
        ``searched_from``/``searched_to`` state; ``recent`` successful runs at most. Raises
        ``BackendNotFoundError`` when it has no run there."""
        ...
