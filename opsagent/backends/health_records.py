"""Platform health: components, status-page incidents, reports, and ``HealthBackend``.

Re-exported by ``backends.base``. Implemented by ``backends.service_health`` (status pages, Azure
Resource Health) and ``backends.demo.health`` (SQLite); read by ``tools/service_health.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, Field

HealthStatus = Literal["operational", "degraded", "partial_outage", "major_outage", "maintenance", "unknown"]
Platform = Literal["Databricks", "Snowflake", "Azure"]


class ComponentHealth(BaseModel):
    name: str
    status: HealthStatus
    region: str = ""
    detail: str = ""
    since: datetime | None = None
    """Since when it has had this status (its status changed, or the incident about it started); set for
    components that are not operational when the source says."""


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

    async def databricks(self, *, region: str | None = None, component: str | None = None) -> HealthReport:
        """``region`` and ``component`` narrow the report to components whose region / name match (any case)."""
        ...

    async def snowflake(self, *, region: str | None = None, component: str | None = None) -> HealthReport: ...

    async def azure(self, *, service: str | None = None, region: str | None = None) -> HealthReport: ...
