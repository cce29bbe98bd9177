"""DemoHealthBackend: Databricks, Snowflake and Azure health from the demo SQLite file.

Implements ``HealthBackend`` (``backends/base.py``). Region and service / component filters are
forgiving ("weu", "westeurope" and "West Europe" all match "Azure West Europe"); a filter that
matches no component gives an empty report with a warning that lists what exists, never an
invented status. A component that is not operational says since when (``since`` in the data).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

from opsagent.backends.base import ComponentHealth, ComponentInfo, HealthIncident, HealthReport, Platform
from opsagent.backends.demo.store import DemoStore, at, normalise, to_record

_SEVERITY: Mapping[str, int] = MappingProxyType(
    {"operational": 0, "maintenance": 1, "degraded": 2, "partial_outage": 3, "major_outage": 4}
)
_DESCRIPTIONS: Mapping[str, str] = MappingProxyType({
    "operational": "All Systems Operational",
    "maintenance": "Service Under Maintenance",
    "degraded": "Partially Degraded Service",
    "partial_outage": "Partial System Outage",
    "major_outage": "Major System Outage",
    "unknown": "No matching components",
})
_ALIASES: Mapping[str, str] = MappingProxyType({
    "weu": "westeurope", "neu": "northeurope", "eus2": "eastus2", "adf": "datafactory", "dbx": "databricks",
    "kv": "keyvault", "sqlmi": "sqlmanagedinstance", "vm": "virtualmachines", "blob": "storage",
    "adls": "storage", "eventhub": "eventhubs",
})


class DemoHealthBackend:
    """Status-page style health over the demo data set."""

    kind = "demo"

    def __init__(self, store: DemoStore) -> None:
        self._store = store

    async def list_components(self) -> list[ComponentInfo]:
        rows = self._store.rows("SELECT platform, name, region FROM health_components ORDER BY platform, position")
        return [ComponentInfo(platform=row["platform"], name=row["name"], region=row["region"]) for row in rows]

    async def databricks(self, *, region: str | None = None, component: str | None = None) -> HealthReport:
        return self._report("Databricks", region=region, service=component)

    async def snowflake(self, *, region: str | None = None, component: str | None = None) -> HealthReport:
        return self._report("Snowflake", region=region, service=component)

    async def azure(self, *, service: str | None = None, region: str | None = None) -> HealthReport:
        return self._report("Azure", region=region, service=service)

    def _report(self, platform: Platform, *, region: str | None, service: str | None = None) -> HealthReport:
        now = self._store.now()
        rows = self._store.rows("SELECT * FROM health_components WHERE platform = ? ORDER BY position", [platform])
        chosen = [row for row in rows if _matches(region, row["region"]) and _matches(service, row["name"])]
        components = [
            ComponentHealth(name=row["name"], status=row["status"], region=row["region"], detail=row["detail"],
                            since=at(now, row["since_min"]))
            for row in chosen
        ]
        affected = {f"{c.region} - {c.name}" for c in components}
        incidents = [
            incident for incident in self._incidents(platform, now) if affected.intersection(incident.components)
        ]
        overall = max((c.status for c in components), key=_SEVERITY.__getitem__, default="unknown")
        warnings = [] if components else [_no_match(platform, rows, region=region, service=service)]
        return HealthReport(
            platform=platform,
            overall=overall,
            description=_DESCRIPTIONS[overall],
            components=components,
            incidents=incidents,
            checked_at=now,
            source=self._source(platform),
            warnings=warnings,
        )

    def _incidents(self, platform: Platform, now: datetime) -> list[HealthIncident]:
        rows = self._store.rows("SELECT * FROM health_incidents WHERE platform = ?", [platform])
        return [_incident(row, now) for row in rows]

    def _source(self, platform: Platform) -> str:
        rows = self._store.rows("SELECT value FROM meta WHERE key = ?", [f"health_source:{platform}"])
        return rows[0][0] if rows else "demo data"


def _matches(wanted: str | None, actual: str) -> bool:
    if not wanted:
        return True
    key = normalise(wanted)
    return _ALIASES.get(key, key) in normalise(actual)


def _no_match(platform: str, rows: list[sqlite3.Row], *, region: str | None, service: str | None) -> str:
    regions = ", ".join(dict.fromkeys(row["region"] for row in rows))
    services = ", ".join(dict.fromkeys(row["name"] for row in rows))
    noun = "service" if platform == "Azure" else "component"
    asked = " and ".join(f"{kind} {value!r}" for kind, value in (("region", region), (noun, service)) if value)
    return f"No {platform} component matches {asked}; regions: {regions}; components: {services}."


def _incident(row: sqlite3.Row, now: datetime) -> HealthIncident:
    times = {"started_min": "started_at", "updated_min": "updated_at"}
    return to_record(HealthIncident, row, now, times=times, json_columns=("components",))
