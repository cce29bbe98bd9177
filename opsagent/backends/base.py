"""Backend interfaces and the records they return. Knows nothing about LLMs.

Each domain has one Protocol with two kinds of implementation: ``demo`` (SQLite, the embedded
default) and a real client (ServiceNow Table API, Azure Monitor Logs, status pages / Resource
Health). Backends raise ``BackendError`` subclasses; the tools turn those into readable text.
Each Protocol also lists what exists (pipelines, configuration items, assignment groups, health
components) so names in a question can be checked before planning; callers cache those lists.
All times are timezone-aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Annotated, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

RecordT = TypeVar("RecordT")

Clock = Callable[[], datetime]
"""Returns "now" (UTC, tz-aware). Injected so tests can fix time."""


class Page(BaseModel, Generic[RecordT]):
    """Some rows of a larger result: ``total`` counts every match, ``items`` holds at most the cap."""

    items: list[RecordT] = Field(default_factory=list)
    total: int = 0
    warnings: list[str] = Field(default_factory=list)
    """Partial results, skipped pages and similar limitations the user should hear about."""
    unreadable: int = 0
    """Matching records that came back but could not be parsed (counted in ``total``, not in ``items``)."""


# ------------------------------------------------------------------------------ ServiceNow
IncidentState = Literal["New", "In Progress", "On Hold", "Resolved", "Closed", "Canceled"]
ChangeType = Literal["normal", "standard", "emergency"]
ChangeRisk = Literal["Very High", "High", "Moderate", "Low"]
ChangeState = Literal["New", "Assess", "Authorize", "Scheduled", "Implement", "Review", "Closed", "Canceled"]
Approval = Literal["not requested", "requested", "approved", "rejected"]
Priority = Annotated[int, Field(ge=1, le=5)]
"""1 Critical, 2 High, 3 Moderate, 4 Low, 5 Planning."""


class Incident(BaseModel):
    number: str
    short_description: str
    description: str = ""
    state: IncidentState
    priority: int = Field(ge=1, le=5)
    impact: int = Field(default=2, ge=1, le=3)
    urgency: int = Field(default=2, ge=1, le=3)
    category: str = ""
    assignment_group: str = ""
    assigned_to: str = ""
    configuration_item: str = ""
    opened_at: datetime
    resolved_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def is_active(self) -> bool:
        return self.state in ("New", "In Progress", "On Hold")


class ChangeRequest(BaseModel):
    number: str
    short_description: str
    description: str = ""
    type: ChangeType
    state: ChangeState
    risk: ChangeRisk = "Moderate"
    approval: Approval = "not requested"
    start_date: datetime | None = None
    end_date: datetime | None = None
    configuration_item: str = ""
    assignment_group: str = ""
    assigned_to: str = ""


class IncidentQuery(BaseModel):
    """Filters for listing incidents, ANDed; a set (never empty) means "one of these", ``None`` means "any".

    ``opened_from``/``opened_before`` bound the opening time as ``[from, before)``.
    """

    states: list[IncidentState] | None = Field(default=None, min_length=1)
    priorities: list[Priority] | None = Field(default=None, min_length=1)
    assignment_group: str | None = None
    configuration_item: str | None = None
    text: str | None = None
    opened_from: datetime | None = None
    opened_before: datetime | None = None
    limit: int = Field(default=20, ge=1)


class ChangeQuery(BaseModel):
    """Filters for listing change requests, ANDed; a set (never empty) means "one of these", ``None`` means "any".

    The window matches changes whose planned window overlaps it.
    """

    states: list[ChangeState] | None = Field(default=None, min_length=1)
    types: list[ChangeType] | None = Field(default=None, min_length=1)
    risks: list[ChangeRisk] | None = Field(default=None, min_length=1)
    approvals: list[Approval] | None = Field(default=None, min_length=1)
    window_start: datetime | None = None
    window_end: datetime | None = None
    configuration_item: str | None = None
    text: str | None = None
    limit: int = Field(default=20, ge=1)


class ServiceNowBackend(Protocol):
    """Read access to incidents and change requests."""

    kind: str

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]: ...

    async def get_incident(self, number: str) -> Incident:
        """Raises ``BackendNotFoundError`` when no incident has that number."""
        ...

    async def list_change_requests(self, query: ChangeQuery) -> Page[ChangeRequest]: ...

    async def get_change_request(self, number: str) -> ChangeRequest:
        """Raises ``BackendNotFoundError`` when no change has that number."""
        ...

    async def list_configuration_items(self, *, limit: int = 500) -> list[str]:
        """Names of the configuration items that recent incidents and changes refer to (for name checks)."""
        ...

    async def list_assignment_groups(self, *, limit: int = 200) -> list[str]:
        """Names of the assignment groups of recent incidents and changes (for name checks)."""
        ...


# ------------------------------------------------------------------- Data Factory pipelines
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


# ------------------------------------------------------------------------ platform health
HealthStatus = Literal["operational", "degraded", "partial_outage", "major_outage", "maintenance", "unknown"]
Platform = Literal["Databricks", "Snowflake", "Azure"]


class ComponentHealth(BaseModel):
    name: str
    status: HealthStatus
    region: str = ""
    detail: str = ""


class HealthIncident(BaseModel):
    title: str
    status: str = ""
    impact: str = ""
    started_at: datetime | None = None
    updated_at: datetime | None = None
    url: str = ""
    latest_update: str = ""
    components: list[str] = Field(default_factory=list)


class HealthReport(BaseModel):
    platform: Platform
    overall: HealthStatus
    description: str = ""
    components: list[ComponentHealth] = Field(default_factory=list)
    incidents: list[HealthIncident] = Field(default_factory=list)
    checked_at: datetime
    source: str = ""
    """Where the report came from (a status page URL, "Azure Resource Health", "demo data")."""
    warnings: list[str] = Field(default_factory=list)


class ComponentInfo(BaseModel):
    """A component a health source reports on: ``name`` in ``region`` of ``platform``."""

    platform: Platform
    name: str
    region: str = ""


class HealthBackend(Protocol):
    """Platform health for Databricks, Snowflake and Azure."""

    kind: str

    async def list_components(self) -> list[ComponentInfo]:
        """Every component the health sources know (for name checks); a source that cannot be read
        contributes nothing and is logged, it does not fail the list."""
        ...

    async def databricks(self, *, region: str | None = None) -> HealthReport: ...

    async def snowflake(self, *, region: str | None = None) -> HealthReport: ...

    async def azure(self, *, service: str | None = None, region: str | None = None) -> HealthReport: ...


# ------------------------------------------------------------------------------ the set
@dataclass
class Backends:
    """The backends one runtime uses, plus whatever must be closed when it shuts down."""

    servicenow: ServiceNowBackend
    pipelines: PipelineRunsBackend
    health: HealthBackend
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for close in self.closers:
            await close()

    def describe(self) -> dict[str, str]:
        """Which kind of backend serves each domain (for /readyz and logs; no secrets)."""
        return {
            "servicenow": self.servicenow.kind,
            "log_analytics": self.pipelines.kind,
            "service_health": self.health.kind,
        }
