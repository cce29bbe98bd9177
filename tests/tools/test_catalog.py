"""The catalog and the tools it describes stay together: names, specialists and parameters."""

from __future__ import annotations

import inspect

import pytest

from opsagent.agents.specialists import SPECIALISTS
from opsagent.backends.base import Backends
from opsagent.tools.catalog import BY_NAME, RECORDS, TOOLS, record_of_noun, tools_with_vocabulary
from opsagent.tools.vocabularies import INCIDENT_STATE, PRIORITY, RUN_STATUS, VOCABULARIES
from tests.tools.conftest import DEMO_NOW


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
