"""The tool catalog: what each tool is for, the records it returns, and the filters it can apply.

One home for facts that intake, prompts, the offline model and the answer checks all need: a
tool's name and specialist, the record kind of its rows (with the nouns people use for it and its
key field), and each parameter as a typed filter (a vocabulary, a time window, a name checked
against an inventory list, free text…) with the description models read for it. Value vocabularies
live in ``vocabularies.py``; the shapes in ``catalog_types.py``; the entries per domain in
``catalog_tickets.py``, ``catalog_runs.py`` and ``catalog_health.py``, gathered here.

The catalog describes; the toolsets implement (``toolkit.py`` builds each tool's parameters from
its method's signature and the catalog's descriptions, and refuses a parameter the catalog lacks).
``tests/tools/test_catalog.py`` holds the two together: every tool is catalogued, with its
parameters in order, and no text a model reads names a real record of the demo data.
"""

from __future__ import annotations

import re

from collections.abc import Iterable

from opsagent.tools.catalog_health import HEALTH_TOOLS
from opsagent.tools.catalog_runs import RUN_TOOLS
from opsagent.tools.catalog_tickets import TICKET_TOOLS
from opsagent.tools.catalog_types import FilterKind, FilterSpec, InventoryList, RecordKind, ToolSpec

__all__ = ["BY_NAME", "FilterKind", "FilterSpec", "InventoryList", "RECORDS", "RecordKind", "TOOLS", "ToolSpec",
           "health_tools", "record_of_noun", "tool_names", "tool_spec", "tools_for", "tools_of",
           "tools_with_vocabulary"]

_ADF = ("Data Factory", "Azure Data Factory", "Log Analytics", "Azure Monitor")
RECORDS: dict[str, RecordKind] = {kind.name: kind for kind in (
    RecordKind(name="incident", nouns=("incident", "incidents", "ticket", "tickets", "inc", "incs", "issue", "issues",
                                       "case", "cases", "outage", "outages"),
               key_field="number", id_prefix="INC", time_fields=("opened_at", "resolved_at", "updated_at"),
               systems=("ServiceNow",)),
    RecordKind(name="change", nouns=("change", "changes", "change request", "change requests", "cr", "crs", "chg",
                                     "chgs", "rfc", "rfcs", "maintenance", "deployment", "deployments"),
               key_field="number", id_prefix="CHG", time_fields=("start_date", "end_date"),
               window_fields=("start_date", "end_date"), systems=("ServiceNow",)),
    RecordKind(name="run", nouns=("run", "runs", "pipeline run", "pipeline runs", "job", "jobs", "load", "loads",
                                  "execution", "executions"),
               key_field="run_id", time_fields=("start", "end"), systems=_ADF),
    RecordKind(name="pipeline", nouns=("pipeline", "pipelines", "pipe", "pipes", "adf pipeline", "adf pipelines",
                                       "data factory pipeline", "etl", "ingestion"),
               key_field="pipeline_name", time_fields=("last_start", "last_success"), systems=_ADF),
    RecordKind(name="run_count", nouns=("how many runs", "number of runs", "run count", "run counts",  # "count" alone
                                        "runs per pipeline", "runs per factory"),                  # counts anything
               key_field="pipeline_name", systems=_ADF),
    RecordKind(name="health", nouns=("health", "status page", "status", "platform", "service health", "component",
                                     "components", "region", "service issue", "service issues", "platform issue",
                                     "platform issues"),
               key_field="name", time_fields=("started_at", "updated_at")),
)}

TOOLS: tuple[ToolSpec, ...] = (*TICKET_TOOLS, *RUN_TOOLS, *HEALTH_TOOLS)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def tool_spec(name: str) -> ToolSpec | None:
    return BY_NAME.get(name)


def same_kind(first: str, second: str) -> bool:
    """Runs, pipelines and run counts share the run vocabulary."""
    return first == second or {first, second} <= {"run", "pipeline", "run_count"}


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


def records_named(text: str) -> list[str]:
    """The record kinds whose nouns ``text`` says, whole words ("which open crs …": change)."""
    low = text.lower()
    return [kind.name for kind in RECORDS.values()
            if any(re.search(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", low) for noun in kind.nouns)]


def tool_names(specs: Iterable[ToolSpec] = TOOLS) -> tuple[str, ...]:
    return tuple(spec.name for spec in specs)
