"""Health tools against the demo status data: overall status, filters, incidents, errors; and all tools' bounds."""

from __future__ import annotations

import pytest

from opsagent.backends.base import Backends, HealthReport
from opsagent.errors import BackendError, BackendUnavailableError
from opsagent.agents.specialists import SPECIALISTS
from opsagent.tools.rendering import MAX_OUTPUT_CHARS
from tests.tools.conftest import RunTool, RunToolText


async def test_check_databricks_health_lists_problems_first(run_tool: RunTool) -> None:
    result = await run_tool("check_databricks_health")
    assert [item["kind"] for item in result.items] == ["incident", "component"]
    assert result.items[1] | {"detail": ""} == {
        "kind": "component", "name": "Jobs", "region": "Azure West Europe", "status": "degraded", "detail": "",
        "since": "2025-01-10T02:30Z",
    }
    assert result.message.startswith("Databricks: degraded. 1 of 20 components not operational: Azure West Europe - Jobs")
    assert result.query["checked_at"] == "2025-01-10T09:30Z"


@pytest.mark.parametrize("region", ["weu", "westeurope", "Azure West Europe", "west europe"])
async def test_check_databricks_health_region_aliases(run_tool: RunTool, region: str) -> None:
    result = await run_tool("check_databricks_health", region=region)
    components = [item for item in result.items if item["kind"] == "component"]
    assert len(components) == 5 and {c["region"] for c in components} == {"Azure West Europe"}
    assert components[0]["status"] == "degraded"


async def test_check_databricks_health_healthy_region_has_no_incident(run_tool: RunTool) -> None:
    result = await run_tool("check_databricks_health", region="North Europe")
    assert {item["status"] for item in result.items} == {"operational"}
    assert result.message == "Databricks: operational. All 5 components operational."


async def test_check_snowflake_health(run_tool: RunTool) -> None:
    result = await run_tool("check_snowflake_health")
    assert "Snowflake: degraded." in result.message and "Query Processing (degraded)" in result.message
    [incident] = [item for item in result.items if item["kind"] == "incident"]
    assert (incident["status"], incident["impact"]) == ("monitoring", "minor")


@pytest.mark.parametrize(
    ("arguments", "statuses"),
    [
        ({"service": "Data Factory"}, {"operational"}),
        ({"service": "adf", "region": "weu"}, {"operational"}),
        ({"service": "Azure Databricks"}, {"operational", "degraded"}),
        ({"region": "North Europe"}, {"operational", "maintenance"}),
    ],
    ids=["service", "aliases", "databricks", "region"],
)
async def test_check_azure_service_health_filters(run_tool: RunTool, arguments: dict, statuses: set[str]) -> None:
    result = await run_tool("check_azure_service_health", **arguments)
    assert {item["status"] for item in result.items if item["kind"] == "component"} == statuses


async def test_check_azure_service_health_unfiltered_shows_only_problems(run_tool: RunTool) -> None:
    result = await run_tool("check_azure_service_health")
    components = [(item["name"], item["status"]) for item in result.items if item["kind"] == "component"]
    assert components == [("Azure Databricks", "degraded"), ("SQL Managed Instance", "maintenance")]
    assert "2 of 14 components not operational" in result.message


async def test_health_unknown_region_is_no_data_with_known_regions(run_tool: RunTool) -> None:
    result = await run_tool("check_snowflake_health", region="mars")
    assert (result.status, result.total) == ("no_data", 0)
    assert "Azure - West Europe (Netherlands)" in result.warnings[0]


async def test_health_cap_keeps_the_most_important_rows(run_tool: RunTool) -> None:
    result = await run_tool("check_azure_service_health", region="West Europe", max_rows=2)
    assert (result.total, result.shown, result.truncated) == (8, 2, True)
    assert [item["kind"] for item in result.items] == ["incident", "component"]
    assert result.items[1]["status"] == "degraded"


class UnavailableHealth:
    kind = "statuspage"

    def __init__(self, error: BackendError) -> None:
        self.error = error

    async def databricks(self, *, region: str | None = None) -> HealthReport:
        raise self.error

    async def snowflake(self, *, region: str | None = None) -> HealthReport:
        raise self.error

    async def azure(self, *, service: str | None = None, region: str | None = None) -> HealthReport:
        raise self.error


async def test_health_backend_error_becomes_a_result(run_tool: RunTool, demo_backends: Backends) -> None:
    error = BackendUnavailableError("timed out after 4 attempts", backend="Snowflake status page")
    backends = Backends(servicenow=demo_backends.servicenow, pipelines=demo_backends.pipelines,
                        health=UnavailableHealth(error))
    result = await run_tool("check_snowflake_health", backends=backends)
    assert (result.status, result.error_kind, result.source) == ("error", "unavailable", "statuspage")
    assert result.message.startswith("Snowflake status page is unavailable (retried")


DEFAULT_CALLS = [
    ("list_incidents", {}), ("list_incidents", {"state": "all"}), ("get_incident", {"number": "INC0010048"}),
    ("list_change_requests", {}), ("get_change_request", {"number": "CHG0030017"}),
    ("list_failed_pipelines", {"time_window": "last 7 days"}), ("query_pipeline_status", {}),
    ("get_pipeline_run_details", {"pipeline_name": "pl_load_finance_dwh"}), ("check_databricks_health", {}),
    ("check_snowflake_health", {"region": "weu"}), ("check_azure_service_health", {"region": "West Europe"}),
    ("list_pipeline_runs", {"time_window": "last 7 days"}), ("get_pipeline_history", {"pipeline_name": "pl_ingest_sales"}),
    ("count_pipeline_runs", {"time_window": "last 7 days"}), ("count_pipeline_runs", {"group_by": "factory"}),
    ("find_similar_incidents", {"incident_number": "INC0010054", "limit": 20}),
]


@pytest.mark.parametrize(("name", "arguments"), DEFAULT_CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(DEFAULT_CALLS)])
async def test_every_tool_output_is_bounded_and_deterministic(
    run_tool_text: RunToolText, name: str, arguments: dict
) -> None:
    text = await run_tool_text(name, **arguments)
    assert len(text) <= MAX_OUTPUT_CHARS < 8000
    assert '"status":"ok"' in text
    assert text == await run_tool_text(name, **arguments)


def test_the_registry_exposes_the_design_tool_names(demo_backends: Backends) -> None:
    names = {
        spec.name: [tool.name for tool in spec.load_tool_factory()(demo_backends, clock=lambda: None, max_rows=5)]
        for spec in SPECIALISTS
    }
    assert names == {
        "servicenow": ["list_incidents", "get_incident", "list_change_requests", "get_change_request",
                       "find_similar_incidents"],
        "log_analytics": ["list_failed_pipelines", "query_pipeline_status", "get_pipeline_run_details",
                          "list_pipeline_runs", "get_pipeline_history", "count_pipeline_runs"],
        "service_health": ["check_databricks_health", "check_snowflake_health", "check_azure_service_health"],
    }
