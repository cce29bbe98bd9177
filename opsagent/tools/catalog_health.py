"""Catalog entries of the platform-health tools (see ``catalog.py``)."""

from __future__ import annotations

from opsagent.tools.catalog_types import FilterSpec, ToolSpec

_REGION = FilterSpec(parameter="region", kind="name", inventory="region", row_field="region", about="region", help=(
    "Region name or part of it, as the user wrote it (short forms such as 'weu' work); omit for all regions"))

_COMPONENT = FilterSpec(parameter="component", kind="name", inventory="component", row_field="name",
                        about="status-page component", help=(
                            "Component name or part of it, as the status page names it or the user wrote it; "
                            "omit for every component"))

HEALTH_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(name="check_databricks_health", specialist="service_health", record="health", platform="Databricks",
             purpose="Databricks status: components (since when they are not operational) and active incidents",
             filters=(_REGION, _COMPONENT)),
    ToolSpec(name="check_snowflake_health", specialist="service_health", record="health", platform="Snowflake",
             purpose="Snowflake status: components (since when they are not operational) and active incidents",
             filters=(_REGION, _COMPONENT)),
    ToolSpec(name="check_azure_service_health", specialist="service_health", record="health", platform="Azure",
             purpose="Azure service health per service and region", filters=(
                 FilterSpec(parameter="service", kind="name", inventory="azure_service", row_field="name",
                            about="Azure service", help="Azure service (product) name as the user wrote it; omit for all services"),
                 _REGION)),
)
