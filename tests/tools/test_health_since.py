"""Health per region and component, with since when a component has not been operational (demo data)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool

TOOLS = {"Databricks": "check_databricks_health", "Snowflake": "check_snowflake_health",
         "Azure": "check_azure_service_health"}


def when(offset: float | None) -> str | None:
    return None if offset is None else (DEMO_NOW + timedelta(minutes=offset)).strftime("%Y-%m-%dT%H:%MZ")


@pytest.mark.parametrize("platform", list(TOOLS))
async def test_problems_say_since_when(run_tool: RunTool, demo_sql: DemoSql, platform: str) -> None:
    expected = demo_sql("SELECT region, name, status, since_min FROM health_components WHERE platform = ? "
                        "AND status != 'operational' ORDER BY position", platform)
    assert expected and all(since is not None for *_, since in expected)
    result = await run_tool(TOOLS[platform])
    components = [row for row in result.items if row["kind"] == "component"]
    assert [(c["region"], c["name"], c["status"], c["since"]) for c in components] == [
        (region, name, status, when(since)) for region, name, status, since in expected]
    assert result.message.endswith(".") and "Since: " + "; ".join(
        f"{region} - {name} {status} since {when(since)}" for region, name, status, since in expected) in result.message


@pytest.mark.parametrize(("platform", "arguments", "where"), [
    ("Databricks", {"component": "jobs"}, "name = 'Jobs'"),
    ("Databricks", {"component": "Jobs", "region": "weu"}, "name = 'Jobs' AND region = 'Azure West Europe'"),
    ("Snowflake", {"component": "snowpipe"}, "name = 'Snowpipe'"),
], ids=["databricks-jobs-everywhere", "databricks-jobs-in-a-region", "snowflake-snowpipe"])
async def test_one_component_in_every_region_or_one(run_tool: RunTool, demo_sql: DemoSql, platform: str,
                                                    arguments: dict, where: str) -> None:
    expected = demo_sql(f"SELECT region, name, status, since_min FROM health_components WHERE platform = ? AND {where} "
                        "ORDER BY position", platform)
    result = await run_tool(TOOLS[platform], **arguments)
    components = [row for row in result.items if row["kind"] == "component"]
    problems = [(r, n, s, when(m)) for r, n, s, m in expected if s != "operational"]
    healthy = [(r, n, s, when(m)) for r, n, s, m in expected if s == "operational"]
    assert [(c["region"], c["name"], c["status"], c["since"]) for c in components] == problems + healthy
    assert result.query["component"] == arguments["component"]


async def test_an_unknown_component_is_a_warning_not_a_status(run_tool: RunTool) -> None:
    result = await run_tool("check_databricks_health", component="Quantum Engine")
    assert result.status == "no_data" and result.warnings[0].startswith("No Databricks component matches component")
