"""The tool catalog: what each tool is for, the records it returns, and the filters it can apply.

One home for facts that intake, prompts, the offline model and the answer checks all need: a
tool's name and specialist, the record kind of its rows (with the nouns people use for it and its
key field), and each parameter as a typed filter (a vocabulary, a time window, a name checked
against an inventory list, free text…). Value vocabularies live in ``vocabularies.py``.

The catalog describes; the tool modules implement. ``tests/tools/test_catalog.py`` holds the two
together: every catalogued parameter exists on its tool, and every tool is catalogued.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from opsagent.tools.vocabularies import VOCABULARIES, Vocabulary

FilterKind = Literal["choice", "priority", "match", "window", "point", "name", "text", "limit", "lookup"]
"""choice: a vocabulary value / list / "not …"; priority: 1-5 with ``match``; window: a time phrase or
ISO range; point: one moment; name: an inventory name (``inventory`` says which list); text: words that
must appear; limit: a row cap; lookup: the id of one record."""
InventoryList = Literal["pipeline", "factory", "configuration_item", "assignment_group", "person", "region",
                        "service", "component"]


class RecordKind(BaseModel):
    """What a tool's rows are: incidents, changes, runs…"""

    model_config = ConfigDict(frozen=True)

    name: str
    nouns: tuple[str, ...]
    """Words people use for these records (singular and plural, abbreviations)."""
    key_field: str
    """The row field that names one record ("number", "run_id", "pipeline_name")."""
    id_prefix: str = ""
    """Ticket numbers: "INC", "CHG"."""
    time_fields: tuple[str, ...] = ()
    """Row fields holding times (for placement checks: "failed during CHG…'s window")."""
    window_fields: tuple[str, str] | None = None
    """The start and end fields of a record's own window (a change's planned window)."""


class FilterSpec(BaseModel):
    """One tool parameter, as a filter."""

    model_config = ConfigDict(frozen=True)

    parameter: str
    kind: FilterKind
    vocabulary: str = ""
    """For ``choice`` and ``priority``: the vocabulary's name."""
    inventory: InventoryList | None = None
    """For ``name``: which inventory list validates the value."""
    row_field: str = ""
    """The row field the filter narrows (for ``name`` filters: where the value shows)."""
    about: str = ""
    """What the filter means, in a few words ("opening time", "planned window overlaps")."""

    def vocab(self) -> Vocabulary | None:
        return VOCABULARIES.get(self.vocabulary)


class ToolSpec(BaseModel):
    """One tool: name, specialist, records, filters, and filters it always applies."""

    model_config = ConfigDict(frozen=True)

    name: str
    specialist: str
    record: str
    purpose: str
    filters: tuple[FilterSpec, ...] = ()
    fixed: dict[str, str] = {}
    """Filters the tool always applies, by vocabulary: list_failed_pipelines is {"run_status": "Failed"}."""
    platform: str = ""
    """Health tools: the platform they report on."""

    def filter(self, parameter: str) -> FilterSpec | None:
        return next((item for item in self.filters if item.parameter == parameter), None)

    def filters_of(self, kind: FilterKind) -> tuple[FilterSpec, ...]:
        return tuple(item for item in self.filters if item.kind == kind)

    @property
    def is_lookup(self) -> bool:
        """Fetches one record by its id (``get_…``)."""
        return any(item.kind == "lookup" for item in self.filters)


RECORDS: dict[str, RecordKind] = {kind.name: kind for kind in (
    RecordKind(name="incident", nouns=("incident", "incidents", "ticket", "tickets", "inc", "incs", "issue", "issues",
                                       "case", "cases", "outage", "outages"),
               key_field="number", id_prefix="INC", time_fields=("opened_at", "resolved_at", "updated_at")),
    RecordKind(name="change", nouns=("change", "changes", "change request", "change requests", "cr", "crs", "chg",
                                     "chgs", "rfc", "rfcs", "maintenance", "deployment", "deployments"),
               key_field="number", id_prefix="CHG", time_fields=("start_date", "end_date"),
               window_fields=("start_date", "end_date")),
    RecordKind(name="run", nouns=("run", "runs", "pipeline run", "pipeline runs", "job", "jobs", "load", "loads",
                                  "execution", "executions"),
               key_field="run_id", time_fields=("start", "end")),
    RecordKind(name="pipeline", nouns=("pipeline", "pipelines", "pipe", "pipes", "adf pipeline", "adf pipelines",
                                       "data factory pipeline", "etl", "ingestion"),
               key_field="pipeline_name", time_fields=("last_start", "last_success")),
    RecordKind(name="health", nouns=("health", "status page", "status", "platform", "service health", "component",
                                     "components", "region", "service issue", "service issues", "platform issue",
                                     "platform issues"),
               key_field="name", time_fields=("started_at", "updated_at")),
)}

_LIMIT = FilterSpec(parameter="limit", kind="limit", about="maximum rows")
_REGION = FilterSpec(parameter="region", kind="name", inventory="region", row_field="region", about="region")

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(name="list_incidents", specialist="servicenow", record="incident",
             purpose="find incidents by state, priority, group, CI, text and opening time", filters=(
                 FilterSpec(parameter="state", kind="choice", vocabulary="incident_state", row_field="state"),
                 FilterSpec(parameter="priority", kind="priority", vocabulary="priority", row_field="priority"),
                 FilterSpec(parameter="priority_match", kind="match", about="exactly or that priority or higher"),
                 FilterSpec(parameter="assignment_group", kind="name", inventory="assignment_group",
                            row_field="assignment_group", about="assignment group"),
                 FilterSpec(parameter="configuration_item", kind="name", inventory="configuration_item",
                            row_field="configuration_item", about="configuration item"),
                 FilterSpec(parameter="text", kind="text", about="words in the number, description or CI"),
                 FilterSpec(parameter="opened_within", kind="window", row_field="opened_at", about="opening time"),
                 _LIMIT)),
    ToolSpec(name="get_incident", specialist="servicenow", record="incident", purpose="one incident by number",
             filters=(FilterSpec(parameter="number", kind="lookup", row_field="number"),)),
    ToolSpec(name="list_change_requests", specialist="servicenow", record="change",
             purpose="find change requests by state, type, risk, approval, planned window, CI and text", filters=(
                 FilterSpec(parameter="state", kind="choice", vocabulary="change_state", row_field="state"),
                 FilterSpec(parameter="type", kind="choice", vocabulary="change_type", row_field="type"),
                 FilterSpec(parameter="risk", kind="choice", vocabulary="change_risk", row_field="risk"),
                 FilterSpec(parameter="approval", kind="choice", vocabulary="approval", row_field="approval"),
                 FilterSpec(parameter="window", kind="window", row_field="start_date", about="planned window overlaps"),
                 FilterSpec(parameter="configuration_item", kind="name", inventory="configuration_item",
                            row_field="configuration_item", about="configuration item"),
                 FilterSpec(parameter="text", kind="text", about="words in the number, description or CI"),
                 _LIMIT)),
    ToolSpec(name="get_change_request", specialist="servicenow", record="change", purpose="one change by number",
             filters=(FilterSpec(parameter="number", kind="lookup", row_field="number"),)),
    ToolSpec(name="list_failed_pipelines", specialist="log_analytics", record="run", fixed={"run_status": "Failed"},
             purpose="failed Data Factory runs in a window", filters=(
                 FilterSpec(parameter="time_window", kind="window", row_field="start", about="run start"),
                 FilterSpec(parameter="pipeline_name", kind="name", inventory="pipeline", row_field="pipeline_name",
                            about="pipeline"),
                 FilterSpec(parameter="factory", kind="name", inventory="factory", row_field="factory",
                            about="Data Factory"),
                 _LIMIT)),
    ToolSpec(name="query_pipeline_status", specialist="log_analytics", record="pipeline",
             purpose="per-pipeline run counts, success rate and latest run in a window", filters=(
                 FilterSpec(parameter="pipeline_name", kind="name", inventory="pipeline", row_field="pipeline_name",
                            about="pipeline"),
                 FilterSpec(parameter="time_window", kind="window", row_field="last_start", about="run start"),
                 FilterSpec(parameter="factory", kind="name", inventory="factory", row_field="factory",
                            about="Data Factory"),
                 _LIMIT)),
    ToolSpec(name="get_pipeline_run_details", specialist="log_analytics", record="run",
             purpose="one run with its activities and errors (by id, latest, or closest to a time)", filters=(
                 FilterSpec(parameter="run_id", kind="lookup", row_field="run_id"),
                 FilterSpec(parameter="pipeline_name", kind="name", inventory="pipeline", row_field="pipeline_name",
                            about="pipeline"),
                 FilterSpec(parameter="around", kind="point", row_field="start", about="the run closest to a time"))),
    ToolSpec(name="check_databricks_health", specialist="service_health", record="health", platform="Databricks",
             purpose="Databricks status: components and active incidents", filters=(_REGION,)),
    ToolSpec(name="check_snowflake_health", specialist="service_health", record="health", platform="Snowflake",
             purpose="Snowflake status: components and active incidents", filters=(_REGION,)),
    ToolSpec(name="check_azure_service_health", specialist="service_health", record="health", platform="Azure",
             purpose="Azure service health per service and region", filters=(
                 FilterSpec(parameter="service", kind="name", inventory="service", row_field="name",
                            about="Azure service"), _REGION)),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def tool_spec(name: str) -> ToolSpec | None:
    return BY_NAME.get(name)


def tools_for(record: str) -> tuple[ToolSpec, ...]:
    return tuple(spec for spec in TOOLS if spec.record == record)


def tools_of(specialist: str) -> tuple[ToolSpec, ...]:
    return tuple(spec for spec in TOOLS if spec.specialist == specialist)


def tools_with_vocabulary(vocabulary: str) -> tuple[ToolSpec, ...]:
    """Tools that can filter by (or always apply) a value of ``vocabulary``."""
    return tuple(spec for spec in TOOLS if vocabulary in spec.fixed
                 or any(item.vocabulary == vocabulary for item in spec.filters))


def health_tools() -> dict[str, str]:
    """Platform name -> its health tool."""
    return {spec.platform: spec.name for spec in TOOLS if spec.platform}


def record_of_noun(word: str) -> str | None:
    """"tickets" -> "incident"; ``None`` when no record kind uses the word."""
    low = word.lower()
    return next((kind.name for kind in RECORDS.values() if low in kind.nouns), None)


def tool_names(specs: Iterable[ToolSpec] = TOOLS) -> tuple[str, ...]:
    return tuple(spec.name for spec in specs)
