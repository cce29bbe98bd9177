"""Backend interfaces and the records they return. Knows nothing about LLMs.

Each domain has one Protocol with two kinds of implementation: ``demo`` (SQLite, the embedded
default) and a real client (ServiceNow Table API, Azure Monitor Logs, status pages / Resource
Health). Backends raise ``BackendError`` subclasses; the tools turn those into readable text.
Each Protocol also lists what exists (pipelines, configuration items, assignment groups, health
components) so names in a question can be checked before planning; callers cache those lists.
All times are timezone-aware UTC datetimes.

The records live with their domain (``tickets``, ``pipeline_records``, ``health_records``; the
shared ``Page`` and ``Clock`` in ``page``); this module gathers them and holds ``Backends``, the
set one runtime uses, so callers import from one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from opsagent.backends.health_records import (
    ComponentHealth,
    ComponentInfo,
    HealthBackend,
    HealthIncident,
    HealthReport,
    HealthStatus,
    Platform,
)
from opsagent.backends.page import Clock, Page, RecordT
from opsagent.backends.pipeline_records import (
    AROUND_TOLERANCE,
    HISTORY_LOOKBACK,
    ActivityRun,
    FailureGroup,
    PipelineHistory,
    PipelineInfo,
    PipelineRun,
    PipelineRunsBackend,
    PipelineStatusSummary,
    RunCount,
    RunDetails,
    RunGrouping,
    RunSearch,
    RunStatus,
)
from opsagent.backends.tickets import (
    Approval,
    ChangeOrder,
    ChangeQuery,
    ChangeRequest,
    ChangeRisk,
    ChangeState,
    ChangeType,
    Incident,
    IncidentOrder,
    IncidentQuery,
    IncidentState,
    Priority,
    ServiceNowBackend,
)

__all__ = [
    "AROUND_TOLERANCE", "HISTORY_LOOKBACK", "ActivityRun", "Approval", "Backends", "ChangeOrder", "ChangeQuery", "ChangeRequest",
    "ChangeRisk", "ChangeState", "ChangeType", "Clock", "ComponentHealth", "ComponentInfo", "FailureGroup",
    "HealthBackend", "HealthIncident", "HealthReport", "HealthStatus", "Incident", "IncidentOrder",
    "IncidentQuery", "IncidentState", "Page", "PipelineHistory", "PipelineInfo", "PipelineRun",
    "PipelineRunsBackend", "PipelineStatusSummary", "Platform", "Priority", "RecordT", "RunCount", "RunDetails",
    "RunGrouping", "RunSearch", "RunStatus", "ServiceNowBackend",
]


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
