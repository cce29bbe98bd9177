"""The catalog and the tools it describes stay together: names, specialists and parameters."""

from __future__ import annotations

import inspect
import re

import pytest

from opsagent.agents.specialists import SPECIALISTS
from opsagent.backends.base import Backends
from opsagent.tools.catalog import BY_NAME, RECORDS, TOOLS, record_of_noun, tools_with_vocabulary
from opsagent.tools.vocabularies import (
    ASSIGNEE,
    CHANGE_ORDER,
    INCIDENT_ORDER,
    INCIDENT_STATE,
    PRIORITY,
    RUN_GROUPING,
    RUN_STATUS,
    VOCABULARIES,
    Vocabulary,
)
from tests.tools.conftest import DEMO_NOW, DemoSql


def _tools(backends: Backends) -> dict[str, tuple[str, object]]:
    found = {}
    for spec in SPECIALISTS:
        for tool in spec.load_tool_factory()(backends, clock=lambda: DEMO_NOW, max_rows=20):
            found[tool.name] = (spec.name, tool)
    return found


def test_every_tool_is_catalogued_with_its_specialist(demo_backends: Backends) -> None:
    tools = _tools(demo_backends)
    assert set(tools) == set(BY_NAME)
    for name, (specialist, _) in tools.items():
        assert BY_NAME[name].specialist == specialist


def test_every_catalogued_parameter_exists_on_its_tool(demo_backends: Backends) -> None:
    for name, (_, tool) in _tools(demo_backends).items():
        parameters = set(inspect.signature(tool.func).parameters)
        catalogued = {item.parameter for item in BY_NAME[name].filters}
        assert catalogued <= parameters, f"{name}: {catalogued - parameters} not parameters of the tool"


def test_vocabularies_and_records_are_consistent() -> None:
    for spec in TOOLS:
        assert spec.record in RECORDS
        for item in spec.filters:
            if item.kind in ("choice", "priority"):
                assert item.vocabulary in VOCABULARIES, (spec.name, item.parameter)
        for vocabulary in spec.fixed:
            assert vocabulary in VOCABULARIES
    assert record_of_noun("Tickets") == "incident" and record_of_noun("CRs") == "change"
    assert {spec.name for spec in tools_with_vocabulary("run_status")} >= {"list_failed_pipelines"}


@pytest.mark.parametrize(("text", "vocabulary", "expected"), [
    ("which tickets are on-hold", INCIDENT_STATE, ["on_hold"]),
    ("anything still open or being worked on?", INCIDENT_STATE, ["open", "in_progress"]),
    ("any sev1 or P2s", PRIORITY, ["1", "2"]),
    ("runs that are still running, not the failed ones", RUN_STATUS, ["InProgress", "Failed"]),
    ("priority 2 tickets from 2 days ago", PRIORITY, ["2"]),
])
def test_vocabulary_phrases_are_found_as_whole_words(text: str, vocabulary, expected: list[str]) -> None:
    assert [value for _, value in vocabulary.find(text)] == expected


def demo_names(demo_sql: DemoSql) -> set[str]:
    """Every real name and id of the demo data a model could copy from an example."""
    queries = [
        "SELECT pipeline_name FROM pipeline_runs", "SELECT factory FROM pipeline_runs",
        "SELECT number FROM incidents", "SELECT number FROM change_requests",
        "SELECT configuration_item FROM incidents", "SELECT configuration_item FROM change_requests",
        "SELECT assignment_group FROM incidents", "SELECT assigned_to FROM incidents",
        "SELECT assigned_to FROM change_requests", "SELECT substr(run_id, 1, 8) FROM pipeline_runs",
        "SELECT region FROM health_components WHERE platform != 'Azure'",
        "SELECT name FROM health_components WHERE platform != 'Azure' AND name LIKE '% %'",
    ]
    return {row[0] for sql in queries for row in demo_sql(f"SELECT DISTINCT * FROM ({sql})") if row[0]}


def test_tool_texts_for_models_name_no_demo_record(demo_backends: Backends, demo_sql: DemoSql) -> None:
    names = demo_names(demo_sql)
    assert {"INC0010049", "pl_ingest_sales", "adf-prod-neu", "vm-shir-01", "Data Platform Ops"} <= names
    for name, (_, tool) in _tools(demo_backends).items():
        texts = [tool.description, *(item.get("description", "") for item in tool.parameters()["properties"].values())]
        copied = {found for found in names for text in texts if found.lower() in text.lower()}
        assert not copied, f"{name} shows demo names a model would copy: {sorted(copied)}"


def test_parameter_descriptions_are_the_catalogs_and_docstrings_name_catalogued_tools(demo_backends: Backends) -> None:
    for name, (_, tool) in _tools(demo_backends).items():
        spec = BY_NAME[name]
        properties = tool.parameters()["properties"]
        assert list(properties) == [item.parameter for item in spec.filters], name
        for item in spec.filters:
            assert item.help and properties[item.parameter]["description"] == item.describe(max_rows=20)
        named = set(re.findall(r"\b(?:list|get|query|check|find|count)_[a-z_]+\b", tool.description))
        assert named <= set(BY_NAME), f"{name}'s description names unknown tools {named - set(BY_NAME)}"


VALUE_KINDS = ("choice", "priority", "person", "order", "group_by")


def test_value_filters_name_their_vocabulary_and_fixed_lists_are_its_values(demo_backends: Backends) -> None:
    kinds = set()
    for name, (_, tool) in _tools(demo_backends).items():
        properties = tool.parameters()["properties"]
        for item in BY_NAME[name].filters:
            kinds.add(item.kind)
            if item.kind in VALUE_KINDS:
                vocabulary = item.vocab()
                assert vocabulary is not None, (name, item.parameter)
                if "enum" in properties[item.parameter]:
                    assert properties[item.parameter]["enum"] == list(vocabulary.values()), (name, item.parameter)
    assert {"person", "order", "group_by", "duration", "point", "window", "lookup"} <= kinds


@pytest.mark.parametrize(("vocabulary", "phrase", "value"), [
    (ASSIGNEE, "No one", "unassigned"), (ASSIGNEE, "nobody", "unassigned"), (ASSIGNEE, "Dana Ops", None),
    (INCIDENT_ORDER, "longest open", "oldest"), (INCIDENT_ORDER, "Most urgent", "priority"),
    (CHANGE_ORDER, "next up", "next"), (RUN_STATUS, "unfinished", "active"), (RUN_STATUS, "canceled", "Cancelled"),
    (RUN_GROUPING, "per factory", "factory"),
])
def test_the_new_vocabularies_read_the_words_people_write(vocabulary: Vocabulary, phrase: str, value: str | None) -> None:
    assert vocabulary.lookup(phrase) == value


def test_run_status_choices_cover_every_spelling_and_group() -> None:
    choices = RUN_STATUS.choices_by_key()
    assert choices["running"] == choices["in_progress"] == ("InProgress",)
    assert choices["active"] == ("Queued", "InProgress") and choices["all"] == RUN_STATUS.values()
    assert all(set(values) <= set(RUN_STATUS.values()) for values in choices.values())
