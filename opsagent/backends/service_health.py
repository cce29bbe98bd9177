"""``LiveHealthBackend``: Snowflake, Databricks and Azure health from their live sources.

* Snowflake and Databricks: the public Atlassian Statuspage v2 ``/api/v2/summary.json``, fetched
  here and read by ``backends.statuspage`` (anything that is not Statuspage JSON, e.g. Databricks
  serving HTML, becomes an "unknown" report with a warning rather than an error).
* Databricks workspace probe (when DATABRICKS_HOST and DATABRICKS_TOKEN are set): two plain httpx
  GETs, ``/api/2.0/preview/scim/v2/Me`` and ``/api/2.0/sql/warehouses``. Not databricks-sdk: it is
  sync (a thread per call), large, brings its own retry loop and pins certifi; two GETs are not worth it.
* Azure: Resource Health (``ResourceHealthMgmtClient`` aio, SDK retries off, ``call_azure`` retries):
  availability of AZURE_RESOURCE_IDS and active ``ServiceIssue`` events for AZURE_SUBSCRIPTION_ID.

A source that fails never fails the report: its part becomes "unknown" plus a warning, so one
flaky page cannot hide what the others say. Resource Health and workspace replies are read by
``backends.resource_health``; a component that is not operational says since when, where the
source tells (a status-page incident's start or the component's last change; ``occuredTime``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from azure.core.credentials_async import AsyncTokenCredential
from azure.mgmt.resourcehealth.aio import ResourceHealthMgmtClient
from pydantic import SecretStr

from opsagent.backends.base import (
    Clock,
    ComponentHealth,
    ComponentInfo,
    HealthIncident,
    HealthReport,
    Platform,
)
from opsagent.backends.http import JsonResponse, RetryPolicy, call_azure, request_json
from opsagent.backends.resource_health import (
    event_severity,
    parse_component_from_availability,
    parse_incident_from_event,
    parse_warehouse,
)
from opsagent.backends.statuspage import (
    SUMMARY_PATH,
    matches,
    statuspage_components,
    statuspage_report,
    unknown_report,
    worst,
)
from opsagent.errors import BackendError
from opsagent.settings import Settings

logger = logging.getLogger(__name__)
DEFAULT_SNOWFLAKE_STATUS_URL = "https://status.snowflake.com"
DEFAULT_DATABRICKS_STATUS_URL = "https://status.databricks.com"
_AZURE_NOT_CONFIGURED = (
    "Azure health is not configured: set AZURE_SUBSCRIPTION_ID (and AZURE_RESOURCE_IDS for per-resource "
    "availability); credentials come from DefaultAzureCredential (e.g. AZURE_CLIENT_ID/SECRET/TENANT_ID)"
)


@dataclass(frozen=True)
class HealthSources:
    """Where each platform's health comes from."""

    snowflake_status_url: str = DEFAULT_SNOWFLAKE_STATUS_URL
    databricks_status_url: str = DEFAULT_DATABRICKS_STATUS_URL
    databricks_host: str | None = None
    databricks_token: SecretStr | None = None
    azure_subscription_id: str | None = None
    azure_resource_ids: tuple[str, ...] = ()


class LiveHealthBackend:
    """Health reports from status pages, an optional Databricks workspace probe and Azure Resource Health."""

    kind = "live"

    def __init__(
        self,
        sources: HealthSources,
        *,
        clock: Clock,
        policy: RetryPolicy,
        azure: ResourceHealthMgmtClient | None = None,
    ) -> None:
        self._sources = sources
        self._clock = clock
        self._policy = policy
        self._http = httpx.AsyncClient(headers={"Accept": "application/json"})
        self._azure = azure

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        clock: Clock,
        credential: AsyncTokenCredential | None = None,
        policy: RetryPolicy | None = None,
        arm_base_url: str | None = None,
        arm_options: Mapping[str, Any] | None = None,
    ) -> LiveHealthBackend:
        """Live sources from settings; status pages default to the vendors' public pages.

        ``credential`` (owned and closed by the caller) is needed only with AZURE_SUBSCRIPTION_ID;
        ``arm_base_url``/``arm_options`` point Resource Health at a fake in tests.
        """
        s = settings
        sources = HealthSources(
            snowflake_status_url=s.snowflake_status_url or DEFAULT_SNOWFLAKE_STATUS_URL,
            databricks_status_url=s.databricks_status_url or DEFAULT_DATABRICKS_STATUS_URL,
            databricks_host=s.databricks_host, databricks_token=s.databricks_token,
            azure_subscription_id=s.azure_subscription_id, azure_resource_ids=tuple(s.azure_resource_ids),
        )
        azure = None
        if s.azure_subscription_id:
            if credential is None:
                raise ValueError("AZURE_SUBSCRIPTION_ID is set, so LiveHealthBackend needs an Azure credential")
            options = {"retry_total": 0, **(arm_options or {})}
            azure = ResourceHealthMgmtClient(credential, s.azure_subscription_id, base_url=arm_base_url, **options)
        return cls(sources, clock=clock, policy=policy or RetryPolicy.from_settings(s), azure=azure)

    async def aclose(self) -> None:
        await self._http.aclose()
        if self._azure is not None:
            await self._azure.close()

    async def list_components(self) -> list[ComponentInfo]:
        """Status-page components, the Databricks workspace probe's (when configured) and the configured
        Azure resources, fetched now (the caller caches); a source that cannot be read is logged and skipped."""
        components: list[ComponentInfo] = []
        for platform, base_url in (("Snowflake", self._sources.snowflake_status_url),
                                   ("Databricks", self._sources.databricks_status_url)):
            components += await self._statuspage_components(platform, base_url)
        if self._sources.databricks_host and self._sources.databricks_token:
            probed, warnings = await self._probe_workspace()
            components += [ComponentInfo(platform="Databricks", name=c.name, region=c.region) for c in probed]
            for warning in warnings:
                logger.warning("health inventory: %s", warning)
        if self._azure is None:
            logger.warning("health inventory: %s", _AZURE_NOT_CONFIGURED)
        names = (resource_id.rstrip("/").rsplit("/", 1)[-1] for resource_id in self._sources.azure_resource_ids)
        return components + [ComponentInfo(platform="Azure", name=name) for name in names]

    async def snowflake(self, *, region: str | None = None, component: str | None = None) -> HealthReport:
        return await self._statuspage("Snowflake", self._sources.snowflake_status_url, region, component)

    async def databricks(self, *, region: str | None = None, component: str | None = None) -> HealthReport:
        report = await self._statuspage("Databricks", self._sources.databricks_status_url, region, component)
        if not (self._sources.databricks_host and self._sources.databricks_token):
            return report
        probed, warnings = await self._probe_workspace()
        probed = [c for c in probed if not component or matches(component, c.name)]
        components = [*report.components, *probed]
        statuses = [report.overall, *(c.status for c in probed)]
        return report.model_copy(update={"components": components, "overall": worst(statuses),
                                         "warnings": [*report.warnings, *warnings]})

    async def azure(self, *, service: str | None = None, region: str | None = None) -> HealthReport:
        if self._azure is None:
            return unknown_report("Azure", "Azure Resource Health", self._clock(), _AZURE_NOT_CONFIGURED)
        incidents, warnings = await self._azure_service_issues(self._azure, service, region)
        components, resource_warnings = await self._azure_resources(self._azure, region)
        warnings += resource_warnings
        statuses = [c.status for c in components] + [event_severity(i.impact) for i in incidents]
        overall = worst(statuses) if statuses else ("unknown" if warnings else "operational")
        scope = " ".join(p for p in (service, region) if p) or "the subscription"
        description = f"{len(incidents)} active Azure service issue(s) for {scope}"
        return HealthReport(platform="Azure", overall=overall, description=description, components=components,
                            incidents=incidents, checked_at=self._clock(), source="Azure Resource Health",
                            warnings=warnings)

    # region status pages and probes
    async def _statuspage(
        self, platform: Platform, base_url: str, region: str | None, component: str | None
    ) -> HealthReport:
        source, body, failure = await self._summary(platform, base_url)
        if failure:
            return unknown_report(platform, source, self._clock(), failure)
        return statuspage_report(platform, body, region=region, component=component, source=source,
                                 checked_at=self._clock())

    async def _statuspage_components(self, platform: Platform, base_url: str) -> list[ComponentInfo]:
        source, body, failure = await self._summary(platform, base_url)
        components = [] if failure else statuspage_components(platform, body)
        if not components:
            logger.warning("health inventory: %s", failure or f"{source} lists no Statuspage components")
        return components

    async def _summary(self, platform: Platform, base_url: str) -> tuple[str, Any, str | None]:
        """The page's ``summary.json`` URL and body, or why it could not be read."""
        source = base_url.rstrip("/") + SUMMARY_PATH
        try:
            return source, (await self._get(source, backend=f"{platform} status page")).body, None
        except BackendError as error:
            return source, None, f"{platform} status page could not be read: {error.message}"

    async def _probe_workspace(self) -> tuple[list[ComponentHealth], list[str]]:
        """Reachability + token check (``Me``), then SQL warehouse health; failures are warnings."""
        host = (self._sources.databricks_host or "").rstrip("/")
        try:
            await self._get(f"{host}/api/2.0/preview/scim/v2/Me", backend="Databricks workspace", bearer=True)
            body = (await self._get(f"{host}/api/2.0/sql/warehouses", backend="Databricks workspace", bearer=True)).body
        except BackendError as error:
            return [ComponentHealth(name="workspace", status="unknown", detail=host)], [
                f"Databricks workspace probe failed: {error.message}"]
        warehouses = body.get("warehouses") if isinstance(body, Mapping) else None
        probed = [ComponentHealth(name="workspace", status="operational", detail=f"{host} reachable, token accepted")]
        return probed + [parse_warehouse(w) for w in warehouses or [] if isinstance(w, Mapping)], []

    async def _get(self, url: str, *, backend: str, bearer: bool = False) -> JsonResponse:
        async def build() -> httpx.Request:
            token = self._sources.databricks_token
            headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if bearer and token else {}
            return self._http.build_request("GET", url, headers=headers)

        return await request_json(self._http, build, policy=self._policy, backend=backend, query=url)
    # endregion

    # region Azure Resource Health
    async def _azure_service_issues(
        self, client: ResourceHealthMgmtClient, service: str | None, region: str | None
    ) -> tuple[list[HealthIncident], list[str]]:
        async def collect() -> list[Mapping[str, Any]]:
            pager = client.events.list_by_subscription_id(filter="properties/eventType eq 'ServiceIssue'")
            return [event async for event in pager]

        try:
            events = await call_azure(collect, policy=self._policy, backend="Azure Resource Health",
                                      query="service issues")
        except BackendError as error:
            return [], [f"Azure service issues could not be read: {error.message}"]
        incidents = [parse_incident_from_event(e, service, region) for e in events]
        return [i for i in incidents if i is not None], []

    async def _azure_resources(
        self, client: ResourceHealthMgmtClient, region: str | None
    ) -> tuple[list[ComponentHealth], list[str]]:
        components: list[ComponentHealth] = []
        warnings: list[str] = []
        for resource_id in self._sources.azure_resource_ids:
            name = resource_id.rstrip("/").rsplit("/", 1)[-1]
            try:
                status = await self._availability(client, resource_id)
            except BackendError as error:
                components.append(ComponentHealth(name=name, status="unknown"))
                warnings.append(f"availability of {name} could not be read: {error.message}")
                continue
            component = parse_component_from_availability(name, status)
            if not region or not component.region or matches(region, component.region):
                components.append(component)
        return components, warnings

    async def _availability(self, client: ResourceHealthMgmtClient, resource_id: str) -> Mapping[str, Any]:
        async def get() -> Mapping[str, Any]:
            return await client.availability_statuses.get_by_resource(resource_id.lstrip("/"))

        return await call_azure(get, policy=self._policy, backend="Azure Resource Health", query=resource_id)
    # endregion
