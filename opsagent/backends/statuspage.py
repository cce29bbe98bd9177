"""Atlassian Statuspage v2 summaries read into ``HealthReport``s, plus the health helpers they share.

Sits under ``backends.service_health`` (``LiveHealthBackend``), which fetches
``/api/v2/summary.json`` for Snowflake and Databricks and hands the body here. Pages change shape
(Databricks may serve HTML), so anything that is not Statuspage JSON becomes an "unknown" report
with a warning rather than an error. ``worst``, ``matches`` and ``unknown_report`` also serve the
Azure Resource Health and Databricks workspace parts of ``service_health``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from opsagent.backends.base import ComponentHealth, ComponentInfo, HealthIncident, HealthReport, HealthStatus, Platform

SUMMARY_PATH = "/api/v2/summary.json"
_COMPONENT_STATUS: dict[str, HealthStatus] = {
    "operational": "operational", "degraded_performance": "degraded", "partial_outage": "partial_outage",
    "major_outage": "major_outage", "under_maintenance": "maintenance",
    # Databricks' own words, in case its page speaks them
    "degraded": "degraded", "down": "major_outage", "scheduled maintenance": "maintenance",
    "down for maintenance": "maintenance",
}
_INDICATOR: dict[str, HealthStatus] = {
    "none": "operational", "minor": "degraded", "major": "partial_outage", "critical": "major_outage",
    "maintenance": "maintenance",
}
_SEVERITY: dict[HealthStatus, int] = {
    "operational": 0, "maintenance": 1, "degraded": 2, "partial_outage": 3, "major_outage": 4,
}


def statuspage_report(
    platform: Platform, body: Any, *, region: str | None, source: str, checked_at: datetime,
    component: str | None = None,
) -> HealthReport:
    """The report a fetched summary body gives, or an "unknown" one when it is not Statuspage JSON."""
    if not isinstance(body, Mapping) or not isinstance(body.get("components"), list):
        return unknown_report(platform, source, checked_at,
                              f"{source} did not return Statuspage JSON; set the {platform.upper()}_STATUS_URL setting")
    return _parse_report_from_statuspage(platform, body, region=region, component=component, source=source,
                                         checked_at=checked_at)


def statuspage_components(platform: Platform, body: Any) -> list[ComponentInfo]:
    """Every component a summary body lists (groups are regions), or ``[]`` when it is not Statuspage JSON."""
    if not isinstance(body, Mapping) or not isinstance(body.get("components"), list):
        return []
    return [ComponentInfo(platform=platform, name=str(c.get("name")), region=region)
            for c, region in _leaf_components(body) if c.get("name")]


def _leaf_components(body: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], str]]:
    """The components that are not groups, each with its group's name (on these pages, a region)."""
    raw = [c for c in body["components"] if isinstance(c, Mapping)]
    groups = {c.get("id"): str(c.get("name") or "") for c in raw if c.get("group")}
    return [(c, groups.get(c.get("group_id"), "")) for c in raw if not c.get("group")]


def _since(raw: Mapping[str, Any], status: HealthStatus, incidents: list[Mapping[str, Any]]) -> Any:
    """When a component that is not operational got there: the start of the earliest unresolved incident
    about it, else when its status last changed (``updated_at``)."""
    if status == "operational":
        return None
    starts = [i.get("started_at") or i.get("created_at") for i in incidents
              if any(isinstance(c, Mapping) and c.get("id") == raw.get("id") for c in i.get("components") or [])]
    return min((start for start in starts if start), default=None) or raw.get("updated_at") or None


def _parse_report_from_statuspage(
    platform: Platform, body: Mapping[str, Any], *, region: str | None, component: str | None, source: str,
    checked_at: datetime,
) -> HealthReport:
    """Without a region or component only non-operational components are listed (pages have ~100 of them)."""
    open_incidents = list(_items(body, "incidents"))
    components = []
    for c, group in _leaf_components(body):
        status = _COMPONENT_STATUS.get(str(c.get("status")), "unknown")
        components.append(ComponentHealth(name=str(c.get("name") or ""), status=status, region=group,
                                          detail=str(c.get("description") or ""),
                                          since=_since(c, status, open_incidents)))
    page_status = body.get("status") if isinstance(body.get("status"), Mapping) else {}
    indicator = _INDICATOR.get(str(page_status.get("indicator")))
    warnings: list[str] = []
    components = [c for c in components if (not region or matches(region, c.name, c.region))
                  and (not component or matches(component, c.name))]
    if region or component:
        if not components:
            asked = " and ".join(f"{kind} {value!r}" for kind, value in (("region", region), ("component", component))
                                 if value)
            warnings.append(f"no {platform} status component matches {asked}; showing the overall status")
        overall = worst([c.status for c in components]) if components else (indicator or "unknown")
    else:
        overall = indicator or worst([c.status for c in components])
        components = [c for c in components if c.status != "operational"]
    incidents = [_parse_incident_from_statuspage(i) for i in _items(body, "incidents", "scheduled_maintenances")]
    for wanted in filter(None, (region, component)):
        incidents = [i for i in incidents if not i.components or matches(wanted, *i.components)]
    return HealthReport(platform=platform, overall=overall, description=str(page_status.get("description") or ""),
                        components=components, incidents=incidents, checked_at=checked_at, source=source,
                        warnings=warnings)


def _parse_incident_from_statuspage(raw: Mapping[str, Any]) -> HealthIncident:
    updates = [u for u in raw.get("incident_updates") or [] if isinstance(u, Mapping)]
    return HealthIncident(
        title=str(raw.get("name") or ""), status=str(raw.get("status") or ""), impact=str(raw.get("impact") or ""),
        started_at=raw.get("started_at") or raw.get("scheduled_for") or raw.get("created_at"),
        updated_at=raw.get("updated_at"), url=str(raw.get("shortlink") or ""),
        latest_update=str(updates[0].get("body") or "") if updates else "",
        components=[str(c.get("name")) for c in raw.get("components") or [] if isinstance(c, Mapping)],
    )


def _items(body: Mapping[str, Any], *keys: str) -> Iterable[Mapping[str, Any]]:
    return [i for key in keys for i in body.get(key) or [] if isinstance(i, Mapping)]


# region shared health helpers
def worst(statuses: Iterable[HealthStatus]) -> HealthStatus:
    """The most severe known status; "unknown" when none is known."""
    known = [s for s in statuses if s in _SEVERITY]
    return max(known, key=_SEVERITY.__getitem__) if known else "unknown"


def matches(wanted: str, *names: str) -> bool:
    """Region/service match ignoring case, spaces and dashes ("westeurope" ~ "West Europe")."""
    key = re.sub(r"[^a-z0-9]", "", wanted.lower())
    return any(key in re.sub(r"[^a-z0-9]", "", name.lower()) for name in names if name)


def unknown_report(platform: Platform, source: str, checked_at: datetime, warning: str) -> HealthReport:
    """A report that could not be read: overall "unknown" and the reason as its one warning."""
    return HealthReport(platform=platform, overall="unknown", checked_at=checked_at, source=source, warnings=[warning])
# endregion
