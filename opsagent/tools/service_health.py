"""Service-health specialist tools: Databricks, Snowflake and Azure status (LLM-facing).

Sits between the service_health specialist agent and ``HealthBackend``. A report becomes a
bounded ``ToolResult``: active incidents first, then components that are not operational, then
(only when a region or service filter narrows the report) the operational ones, so the answer
to "is X degraded?" is always in the first rows and the message. Parameter descriptions come from
the catalog (``catalog_health.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agent_framework import FunctionTool

from opsagent.backends.base import Backends, Clock, ComponentHealth, HealthIncident, HealthReport
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import ToolCall, count_message, iso_minute, plural, shorten
from opsagent.tools.servicenow_filters import given
from opsagent.tools.toolkit import Toolset


def incident_item(incident: HealthIncident) -> dict[str, Any]:
    return {
        "kind": "incident",
        "title": incident.title,
        "status": incident.status,
        "impact": incident.impact,
        "started_at": iso_minute(incident.started_at),
        "updated_at": iso_minute(incident.updated_at),
        "components": incident.components,
        "latest_update": shorten(incident.latest_update),
        "url": incident.url,
    }


def component_item(component: ComponentHealth) -> dict[str, Any]:
    return {
        "kind": "component",
        "name": component.name,
        "region": component.region,
        "status": component.status,
        "detail": shorten(component.detail),
        "since": iso_minute(component.since),
    }


def since_sentence(problems: list[ComponentHealth]) -> str:
    """`` Since: Azure West Europe - Jobs degraded since 2025-01-10T02:30Z.`` for the problems whose source says when."""
    dated = [f"{c.region + ' - ' if c.region else ''}{c.name} {c.status} since {iso_minute(c.since)}"
             for c in problems if c.since]
    return f" Since: {'; '.join(dated)}." if dated else ""


def report_message(report: HealthReport) -> str:
    """"Databricks: degraded. 1 of 20 components not operational: Azure West Europe - Jobs (degraded). 1 active incident: …" """
    if not report.components:
        return f"{report.platform}: no components match the filter."
    problems = [c for c in report.components if c.status != "operational"]
    message = f"{report.platform}: {report.overall}."
    if problems:
        listed = ", ".join(f"{c.region} - {c.name} ({c.status})" for c in problems)
        message += f" {len(problems)} of {len(report.components)} components not operational: {listed}."
        message += since_sentence(problems)
    else:
        message += f" All {len(report.components)} components operational."
    if report.incidents:
        message += f" {plural(len(report.incidents), 'active incident')}: " + "; ".join(i.title for i in report.incidents) + "."
    return message


def report_result(call: ToolCall, report: HealthReport, *, max_rows: int, is_filtered: bool) -> ToolResult:
    call.query |= {"checked_at": iso_minute(report.checked_at), "status_source": report.source}
    problems = [c for c in report.components if c.status != "operational"]
    healthy = [c for c in report.components if c.status == "operational"] if is_filtered else []
    items = [*map(incident_item, report.incidents), *map(component_item, problems), *map(component_item, healthy)]
    message = report_message(report)
    if len(items) > max_rows:
        message += " " + count_message(len(items), max_rows, "row", order="most important")
    return call.rows(items[:max_rows], total=len(items), message=message, backend_warnings=report.warnings)


class HealthTools(Toolset):
    """The health tools over ``backends.health`` (the clock is unused: reports are current)."""

    specialist = "service_health"

    async def check(
        self, name: str, system: str, fetch: Callable[[], Awaitable[HealthReport]], **filters: str | None
    ) -> str:
        call = ToolCall(name, self.backends.health.kind, system, query=dict(filters), subject="status for that filter")

        async def work() -> ToolResult:
            report = await fetch()
            return report_result(call, report, max_rows=self.max_rows, is_filtered=any(filters.values()))

        return await call.run(work)

    async def check_databricks_health(self, region: str | None = None, component: str | None = None) -> str:
        """Check Databricks platform status (status page): overall status, components that are not operational (since when), and active incidents.

        Use it for "is Databricks degraded?", "since when is a component degraded in a region?" or to explain
        DatabricksNotebook failures (error 3200). Without a region or component only problems are
        listed; with one, every matching component is listed. Returns a JSON envelope whose message
        summarises the status.
        """
        return await self.check("check_databricks_health", "Databricks status",
                                lambda: self.backends.health.databricks(region=region, **given(component=component)),
                                region=region, **given(component=component))

    async def check_snowflake_health(self, region: str | None = None, component: str | None = None) -> str:
        """Check Snowflake platform status (status page): overall status, components that are not operational (since when), and active incidents.

        Use it for "is Snowflake degraded?", "since when has a component been degraded?" or to explain
        Snowflake timeouts in pipelines. Without a region or component only problems are listed;
        with one, every matching component is listed. Returns a JSON envelope whose message
        summarises the status.
        """
        return await self.check("check_snowflake_health", "Snowflake status",
                                lambda: self.backends.health.snowflake(region=region, **given(component=component)),
                                region=region, **given(component=component))

    async def check_azure_service_health(self, service: str | None = None, region: str | None = None) -> str:
        """Check Azure service health (Resource Health / Service Health) per service and region, with active service issues and maintenance (since when).

        Use it for "is an Azure service (Data Factory, Storage…) healthy in a region?". Without
        filters only problems are listed; with a service or region every matching component is
        listed. Returns a JSON envelope whose message summarises the status.
        """
        return await self.check("check_azure_service_health", "Azure Resource Health",
                                lambda: self.backends.health.azure(service=service, region=region),
                                service=service, region=region)


def make_service_health_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The health tools, bound to ``backends.health`` and the row cap."""
    return HealthTools(backends, clock=clock, max_rows=max_rows).functions()
