"""Azure Resource Health and Databricks workspace replies read into health records.

Sits under ``LiveHealthBackend`` (``backends.service_health``): a SQL warehouse's health, an active
Azure service issue that touches the service / region asked about, a resource's availability (with
since when it is not available: ``occuredTime``, sic), and how severe an event's level is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from opsagent.backends.base import ComponentHealth, HealthIncident, HealthStatus
from opsagent.backends.statuspage import matches

_AVAILABILITY: dict[str, HealthStatus] = {
    "Available": "operational", "Degraded": "degraded", "Unavailable": "major_outage", "Unknown": "unknown",
}
_WAREHOUSE_HEALTH: dict[str, HealthStatus] = {"HEALTHY": "operational", "DEGRADED": "degraded", "FAILED": "major_outage"}


def parse_warehouse(raw: Mapping[str, Any]) -> ComponentHealth:
    health = raw.get("health") if isinstance(raw.get("health"), Mapping) else {}
    state = str(raw.get("state") or "")
    # A stopped warehouse is not unhealthy; without a health block only its state can speak.
    fallback: HealthStatus = "operational" if state in ("RUNNING", "STARTING", "STOPPED", "STOPPING") else "unknown"
    status = _WAREHOUSE_HEALTH.get(str(health.get("status")), fallback)
    detail = "; ".join(p for p in (state, str(health.get("summary") or "")) if p)
    return ComponentHealth(name=f"SQL warehouse {raw.get('name') or raw.get('id')}", status=status, detail=detail)


def parse_incident_from_event(
    event: Mapping[str, Any], service: str | None, region: str | None
) -> HealthIncident | None:
    """An active service issue touching the service/region asked about, else ``None``."""
    props = event.get("properties") or {}
    impacts = [(str(i.get("impactedService") or ""), str(r.get("impactedRegion") or ""))
               for i in props.get("impact") or [] for r in i.get("impactedRegions") or [{}]]
    wanted = [(s, r) for s, r in impacts
              if (not service or matches(service, s)) and (not region or matches(region, r))]
    if props.get("status") != "Active" or not wanted:
        return None
    return HealthIncident(
        title=str(props.get("title") or ""), status="Active", impact=str(props.get("eventLevel") or props.get("level") or ""),
        started_at=props.get("impactStartTime"), updated_at=props.get("lastUpdateTime"),
        latest_update=re.sub(r"<[^>]+>", " ", str(props.get("summary") or "")).strip()[:500],
        components=[f"{s} ({r})" if r else s for s, r in wanted],
    )


def parse_component_from_availability(name: str, status: Mapping[str, Any]) -> ComponentHealth:
    """Availability of one resource; since when it is not available: ``occuredTime`` (sic), when the state began."""
    props = status.get("properties") or {}
    detail = str(props.get("summary") or props.get("title") or "")
    health = _AVAILABILITY.get(str(props.get("availabilityState")), "unknown")
    since = props.get("occuredTime") or props.get("occurredTime") if health != "operational" else None
    return ComponentHealth(name=name, status=health, region=str(status.get("location") or ""), detail=detail,
                           since=since or None)


def event_severity(level: str) -> HealthStatus:
    return "partial_outage" if level in ("Critical", "Error") else "degraded"
