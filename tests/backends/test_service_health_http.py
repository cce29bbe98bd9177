"""LiveHealthBackend against loopback Statuspage, Databricks workspace and Resource Health fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime, timezone
from typing import Any

import pytest
from azure.core.pipeline.policies import SansIOHTTPPolicy

from opsagent.backends.http import RetryPolicy
from opsagent.backends.service_health import LiveHealthBackend
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeCredential, FakeServer, ManualTime, Reply, json_reply

NOW = datetime(2025, 1, 10, 3, 0, tzinfo=timezone.utc)
SUMMARY = "/api/v2/summary.json"
SUB = "6a1b2c3d-0000-4000-8000-000000000001"
FACTORY = f"/subscriptions/{SUB}/resourceGroups/rg-data/providers/Microsoft.DataFactory/factories/adf-prod-weu"
Factory = Callable[..., LiveHealthBackend]


def component(cid: str, name: str, status: str, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "name": name, "status": status, "group": False, "group_id": None, "position": 1,
            "only_show_if_degraded": False} | extra


def summary(indicator: str, components: list[dict[str, Any]], incidents: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"page": {"id": "abcd1234", "name": "Snowflake", "url": "https://status.snowflake.com"},
            "status": {"indicator": indicator, "description": "Partially Degraded Service"},
            "components": components, "incidents": incidents or [], "scheduled_maintenances": []}


SNOWPIPE_INCIDENT = {
    "id": "i1", "name": "Delayed Snowpipe ingestion", "status": "identified", "impact": "minor",
    "created_at": "2025-01-10T02:40:00Z", "shortlink": "https://stspg.io/x1",
    "components": [{"id": "c1", "name": "Azure - West Europe (Netherlands)"}],
    "incident_updates": [{"status": "identified", "body": "We have identified the cause.", "created_at": "2025-01-10T02:55:00Z"}],
}


@pytest.fixture
async def make_backend(server: FakeServer, policy: RetryPolicy) -> AsyncIterator[Factory]:
    made: list[LiveHealthBackend] = []

    def make(**settings: Any) -> LiveHealthBackend:
        values = {"snowflake_status_url": server.url, "databricks_status_url": server.url} | settings
        backend = LiveHealthBackend.from_settings(
            Settings(**values), clock=lambda: NOW, credential=FakeCredential(), policy=policy,
            arm_base_url=server.url, arm_options={"authentication_policy": SansIOHTTPPolicy()},
        )
        made.append(backend)
        return backend

    yield make
    for backend in made:
        await backend.aclose()


async def test_all_operational(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", SUMMARY, json_reply(summary("none", [component("c1", "AWS - US West (Oregon)", "operational")])))
    report = await make_backend().snowflake()
    assert (report.overall, report.components, report.incidents) == ("operational", [], [])
    assert report.source == f"{server.url}/api/v2/summary.json" and report.checked_at == NOW


async def test_degraded_region_with_incident(server: FakeServer, make_backend: Factory) -> None:
    components = [
        {"id": "g1", "name": "Azure", "status": "degraded_performance", "group": True, "components": ["c1", "c2"]},
        component("c1", "West Europe (Netherlands)", "degraded_performance", group_id="g1"),
        component("c2", "East US 2 (Virginia)", "operational", group_id="g1"),
        component("c3", "AWS - EU (Frankfurt)", "major_outage"),
    ]
    other = SNOWPIPE_INCIDENT | {"id": "i2", "components": [{"name": "AWS - EU (Frankfurt)"}], "name": "Frankfurt down"}
    server.script("GET", SUMMARY, json_reply(summary("major", components, [SNOWPIPE_INCIDENT, other])))
    report = await make_backend().snowflake(region="westeurope")
    assert report.overall == "degraded", "the region's own status, not the page-wide indicator"
    assert [(c.name, c.status, c.region) for c in report.components] == [("West Europe (Netherlands)", "degraded", "Azure")]
    (incident,) = report.incidents
    assert (incident.title, incident.url, incident.latest_update) == (
        "Delayed Snowpipe ingestion", "https://stspg.io/x1", "We have identified the cause.")
    assert incident.started_at == datetime(2025, 1, 10, 2, 40, tzinfo=timezone.utc)


async def test_unmatched_region_warns_and_uses_the_indicator(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", SUMMARY, json_reply(summary("minor", [component("c1", "AWS - US West", "degraded_performance")])))
    report = await make_backend().snowflake(region="Mars North")
    assert report.overall == "degraded" and report.components == []
    assert report.warnings == ["no Snowflake status component matches region 'Mars North'; showing the overall status"]


@pytest.mark.parametrize(
    ("reply", "warning"),
    [(Reply(200, body="<!doctype html><html>Databricks Status</html>", headers={"Content-Type": "text/html"}),
      "Databricks status page could not be read: Databricks status page answered HTTP 200 with text/html, not JSON"),
     (json_reply({"status": "ok"}), "/api/v2/summary.json did not return Statuspage JSON; set the DATABRICKS_STATUS_URL")],
    ids=["html", "not-statuspage-json"],
)
async def test_non_statuspage_answer_is_unknown_with_warning(
    server: FakeServer, make_backend: Factory, reply: Reply, warning: str
) -> None:
    server.script("GET", SUMMARY, reply)
    report = await make_backend().databricks()
    assert report.overall == "unknown" and report.platform == "Databricks"
    assert len(report.warnings) == 1 and warning in report.warnings[0]


async def test_status_page_503_is_retried(server: FakeServer, make_backend: Factory, manual_time: ManualTime) -> None:
    server.script("GET", SUMMARY, Reply(503, body="busy"), json_reply(summary("none", [])))
    report = await make_backend().snowflake()
    assert report.overall == "operational" and len(manual_time.sleeps) == 1


async def test_status_page_down_is_unknown_not_an_exception(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", SUMMARY, Reply(502, body="bad gateway"))
    report = await make_backend().snowflake()
    assert report.overall == "unknown"
    assert report.warnings[0].startswith("Snowflake status page could not be read: Snowflake status page is unavailable")


async def test_databricks_workspace_probe(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", SUMMARY, json_reply(summary("none", [])))
    server.script("GET", "/api/2.0/preview/scim/v2/Me", json_reply({"userName": "svc@example.com"}))
    warehouses = [{"id": "w1", "name": "bi", "state": "RUNNING", "health": {"status": "DEGRADED", "summary": "slow start"}},
                  {"id": "w2", "name": "etl", "state": "STOPPED"}]
    server.script("GET", "/api/2.0/sql/warehouses", json_reply({"warehouses": warehouses}))
    report = await make_backend(databricks_host=server.url, databricks_token="dapi-secret").databricks()
    assert report.overall == "degraded"
    assert [(c.name, c.status) for c in report.components] == [
        ("workspace", "operational"), ("SQL warehouse bi", "degraded"), ("SQL warehouse etl", "operational")]
    assert server.calls("/api/2.0/sql/warehouses")[0].headers["authorization"] == "Bearer dapi-secret"
    assert "authorization" not in server.calls(SUMMARY)[0].headers, "the token never goes to the public page"


async def test_databricks_probe_rejected_token_is_a_warning(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", SUMMARY, json_reply(summary("none", [])))
    server.script("GET", "/api/2.0/preview/scim/v2/Me", json_reply({"error_code": "401", "message": "Invalid token"}, 401))
    report = await make_backend(databricks_host=server.url, databricks_token="bad").databricks()
    assert report.overall == "operational"
    assert report.warnings == [
        "Databricks workspace probe failed: not authorised for Databricks workspace (check credentials; HTTP 401)"]


async def test_azure_without_subscription_explains_what_to_configure(make_backend: Factory) -> None:
    report = await make_backend().azure()
    assert report.overall == "unknown" and "set AZURE_SUBSCRIPTION_ID" in report.warnings[0]


def event(title: str, status: str, service: str, region: str, level: str = "Warning") -> dict[str, Any]:
    return {"id": f"/subscriptions/{SUB}/providers/Microsoft.ResourceHealth/events/{title}", "name": title,
            "type": "/providers/Microsoft.ResourceHealth/events",
            "properties": {"eventType": "ServiceIssue", "eventSource": "ServiceHealth", "status": status, "title": title,
                           "summary": "<p>Customers may see <b>delays</b>.</p>", "eventLevel": level,
                           "impactStartTime": "2025-01-10T01:30:00Z", "lastUpdateTime": "2025-01-10T02:30:00Z",
                           "impact": [{"impactedService": service,
                                       "impactedRegions": [{"impactedRegion": region, "status": status}]}]}}


async def test_azure_resource_health_and_service_issues(server: FakeServer, make_backend: Factory) -> None:
    events_path = f"/subscriptions/{SUB}/providers/Microsoft.ResourceHealth/events"
    server.script("GET", events_path, json_reply({"value": [
        event("ADF delays", "Active", "Data Factory", "West Europe", "Critical"),
        event("SQL blip", "Active", "SQL Database", "West Europe"),
        event("Old issue", "Resolved", "Data Factory", "West Europe"),
    ]}))
    status_path = f"{FACTORY}/providers/Microsoft.ResourceHealth/availabilityStatuses/current"
    server.script("GET", status_path, json_reply({
        "id": status_path, "name": "current", "location": "westeurope",
        "properties": {"availabilityState": "Degraded", "summary": "Pipeline runs are delayed", "reasonType": "Unplanned"}}))
    backend = make_backend(azure_subscription_id=SUB, azure_resource_ids=[FACTORY])
    report = await backend.azure(service="data factory", region="westeurope")
    assert server.calls(events_path)[0].param("$filter") == "properties/eventType eq 'ServiceIssue'"
    assert report.overall == "partial_outage" and report.warnings == []
    (incident,) = report.incidents
    assert (incident.title, incident.impact, incident.components) == ("ADF delays", "Critical", ["Data Factory (West Europe)"])
    assert incident.latest_update == "Customers may see  delays ."
    (resource,) = report.components
    assert (resource.name, resource.status, resource.region) == ("adf-prod-weu", "degraded", "westeurope")


async def test_azure_forbidden_is_unknown_with_warnings(server: FakeServer, make_backend: Factory) -> None:
    forbidden = json_reply({"error": {"code": "AuthorizationFailed", "message": "no access"}}, 403)
    server.script("GET", f"/subscriptions/{SUB}/providers/Microsoft.ResourceHealth/events", forbidden)
    report = await make_backend(azure_subscription_id=SUB).azure()
    assert report.overall == "unknown"
    assert report.warnings == [
        "Azure service issues could not be read: not authorised for Azure Resource Health (check credentials; HTTP 403)"]


async def test_component_inventory_from_status_pages_probe_and_resources(
    server: FakeServer, make_backend: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    components = [
        {"id": "g1", "name": "Azure West Europe", "status": "degraded_performance", "group": True, "components": ["c1"]},
        component("c1", "Jobs", "degraded_performance", group_id="g1"),
        component("c2", "AWS - EU (Frankfurt)", "operational"),
    ]
    server.script("GET", SUMMARY, json_reply(summary("minor", components)))
    server.script("GET", "/api/2.0/preview/scim/v2/Me", json_reply({"userName": "svc@example.com"}))
    server.script("GET", "/api/2.0/sql/warehouses", json_reply({"warehouses": [{"id": "w1", "name": "bi", "state": "RUNNING"}]}))
    backend = make_backend(databricks_host=server.url, databricks_token="dapi-secret", azure_subscription_id=SUB,
                           azure_resource_ids=[FACTORY])
    caplog.set_level("WARNING")
    inventory = await backend.list_components()
    page_components = [("Jobs", "Azure West Europe"), ("AWS - EU (Frankfurt)", "")]
    assert [(c.platform, c.name, c.region) for c in inventory] == [
        *(("Snowflake", name, region) for name, region in page_components),
        *(("Databricks", name, region) for name, region in page_components),
        ("Databricks", "workspace", ""), ("Databricks", "SQL warehouse bi", ""), ("Azure", "adf-prod-weu", ""),
    ]
    assert len(server.calls(SUMMARY)) == 2, "one summary per status page, nothing else fetched for the pages"
    assert not server.calls(f"{FACTORY}/providers/Microsoft.ResourceHealth/availabilityStatuses/current")
    assert "health inventory" not in caplog.text


async def test_component_inventory_skips_what_cannot_be_read_and_says_so(
    server: FakeServer, make_backend: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    server.script("GET", SUMMARY, Reply(200, body="<html>status</html>", headers={"Content-Type": "text/html"}))
    caplog.set_level("WARNING")
    assert await make_backend().list_components() == []
    assert "Snowflake status page could not be read" in caplog.text
    assert "Databricks status page could not be read" in caplog.text
    assert "Azure health is not configured: set AZURE_SUBSCRIPTION_ID" in caplog.text


async def test_since_when_a_component_is_degraded_and_the_component_filter(server: FakeServer, make_backend: Factory) -> None:
    components = [
        component("c1", "Snowpipe", "degraded_performance", updated_at="2025-01-10T02:50:00Z"),
        component("c2", "Query Processing", "partial_outage", updated_at="2025-01-10T02:00:00Z"),
        component("c3", "Snowsight", "operational", updated_at="2025-01-09T12:00:00Z"),
    ]
    incident = SNOWPIPE_INCIDENT | {"started_at": "2025-01-10T02:35:00Z", "components": [{"id": "c1", "name": "Snowpipe"}]}
    server.script("GET", SUMMARY, json_reply(summary("minor", components, [incident])))
    backend = make_backend()
    report = await backend.snowflake()
    assert [(c.name, c.since.isoformat() if c.since else None) for c in report.components] == [
        ("Snowpipe", "2025-01-10T02:35:00+00:00"), ("Query Processing", "2025-01-10T02:00:00+00:00")], \
        "the incident's start first, else when the component last changed"
    narrowed = await backend.snowflake(component="snowsight")
    assert [(c.name, c.status, c.since) for c in narrowed.components] == [("Snowsight", "operational", None)]
    assert (narrowed.overall, narrowed.incidents) == ("operational", [])
    missing = await backend.snowflake(component="Replication")
    assert missing.components == [] and missing.warnings == [
        "no Snowflake status component matches component 'Replication'; showing the overall status"]


async def test_azure_resource_unavailable_since_its_state_began(server: FakeServer, make_backend: Factory) -> None:
    server.script("GET", f"/subscriptions/{SUB}/providers/Microsoft.ResourceHealth/events", json_reply({"value": []}))
    status_path = f"{FACTORY}/providers/Microsoft.ResourceHealth/availabilityStatuses/current"
    server.script("GET", status_path, json_reply({"id": status_path, "name": "current", "location": "westeurope",
                                                  "properties": {"availabilityState": "Unavailable",
                                                                 "occuredTime": "2025-01-10T01:45:00Z"}}))
    report = await make_backend(azure_subscription_id=SUB, azure_resource_ids=[FACTORY]).azure()
    (resource,) = report.components
    assert (resource.status, resource.since) == ("major_outage", datetime(2025, 1, 10, 1, 45, tzinfo=timezone.utc))
