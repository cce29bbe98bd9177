"""get_incident / get_change_request: notes cut at sentences with the full text kept, and the records they link."""

from __future__ import annotations

import re
from typing import Any

import pytest

from opsagent.backends.base import Backends, Incident, IncidentQuery, Page
from opsagent.contracts.tool_result import ToolResult
from opsagent.errors import BackendNotFoundError
from opsagent.tools.rendering import MAX_OUTPUT_CHARS
from opsagent.tools.ticket_rows import DESCRIPTION_CHARS, FULL_TEXT_CHARS
from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool, RunToolText

NUMBER = re.compile(r"\b(?:INC|CHG|PRB)\d{7}\b")
INCIDENT_COLUMNS = "number, short_description, description, close_notes, work_notes, rfc, caused_by, state"


def expected_links(row: tuple[Any, ...]) -> dict[str, list[str]]:
    """The oracle: reference fields first, then the numbers each text names, the record itself left out."""
    number, short, description, close_notes, work_notes, rfc, caused_by, _ = row
    links: dict[str, list[str]] = {}
    for field, value in (("rfc", rfc), ("caused_by", caused_by)):
        if value:
            links.setdefault(value, []).append(field)
    for field, text in (("short_description", short), ("description", description), ("close_notes", close_notes),
                        ("work_notes", work_notes)):
        for found in NUMBER.findall(text):
            if f"named in {field}" not in links.setdefault(found, []):
                links[found].append(f"named in {field}")
    links.pop(number, None)
    return links


def states(demo_sql: DemoSql) -> dict[str, str]:
    return dict(demo_sql("SELECT number, state FROM incidents UNION ALL SELECT number, state FROM change_requests"))


async def test_every_incident_lookup_carries_its_notes_and_links(run_tool: RunTool, demo_sql: DemoSql) -> None:
    known = states(demo_sql)
    with_links = 0
    for row in demo_sql(f"SELECT {INCIDENT_COLUMNS} FROM incidents ORDER BY number"):
        number, _, description, close_notes, work_notes, *_ = row
        result = await run_tool("get_incident", number=number)
        (item,) = result.items
        assert item["description"] == " ".join(description.split())
        assert item.get("close_notes", "") == close_notes and item.get("work_notes", "") == work_notes
        links = expected_links(row)
        assert {link["number"]: link["via"] for link in item["links"]} == links, number
        assert all(link["state"] == known[link["number"]] for link in item["links"])
        with_links += bool(links)
    assert with_links >= 9


async def test_closed_incidents_say_how_they_were_fixed(run_tool: RunTool, demo_sql: DemoSql) -> None:
    for number, notes in demo_sql("SELECT number, close_notes FROM incidents WHERE state IN ('Resolved', 'Closed', "
                                  "'Canceled')"):
        assert notes, f"{number} is closed without close notes"
        assert (await run_tool("get_incident", number=number)).items[0]["close_notes"] == notes


async def test_a_change_lookup_links_the_tickets_its_text_names(run_tool: RunTool, demo_sql: DemoSql) -> None:
    known = states(demo_sql)
    for number, description in demo_sql("SELECT number, description FROM change_requests"):
        named = list(dict.fromkeys(found for found in NUMBER.findall(description) if found != number))
        item = (await run_tool("get_change_request", number=number)).items[0]
        assert [(link["number"], link["state"]) for link in item["links"]] == [(n, known[n]) for n in named]


class LongTexts:
    """A ServiceNow backend whose one incident has a long description and names records that do not exist."""

    kind = "fake"

    def __init__(self, description: str, *, notes: str = "") -> None:
        self.incident = Incident(number="INC0000001", short_description="Long one", description=description,
                                 state="In Progress", priority=3, opened_at=DEMO_NOW, problem_id="PRB0000007",
                                 work_notes="See INC0000002 and CHG0000003." + notes, close_notes=notes)

    async def get_incident(self, number: str) -> Incident:
        if number == self.incident.number:
            return self.incident
        raise BackendNotFoundError(f"no incident {number}", backend="fake")

    async def get_change_request(self, number: str) -> Any:
        raise BackendNotFoundError(f"no change {number}", backend="fake")

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]:
        return Page()


def sentences(count: int) -> str:
    return " ".join(f"Sentence {index} says what happened at step {index} of the investigation." for index in range(count))


@pytest.mark.parametrize(("count", "is_cut"), [(30, False), (400, True)], ids=["fits", "too-long-to-keep-whole"])
async def test_a_long_description_is_cut_at_a_sentence_with_the_full_text_beside_it(
    run_tool_text: RunToolText, demo_backends: Backends, count: int, is_cut: bool
) -> None:
    backends = Backends(servicenow=LongTexts(sentences(count)), pipelines=demo_backends.pipelines,
                        health=demo_backends.health)
    text = await run_tool_text("get_incident", number="INC0000001", backends=backends)
    assert len(text) <= MAX_OUTPUT_CHARS
    result = ToolResult.from_text(text)
    assert result is not None and result.status == "ok"
    (item,) = result.items
    assert len(item["description"]) <= DESCRIPTION_CHARS and item["description"].endswith(". …")
    full = item["full_text"]["description"]
    assert full.startswith(item["description"].removesuffix(" …"))
    assert (full == sentences(count)) is not is_cut and len(full) <= FULL_TEXT_CHARS
    assert any("was cut to keep the answer short" in warning for warning in result.warnings) is is_cut
    assert item["links"] == [
        {"number": "PRB0000007", "kind": "problem", "via": ["problem_id"]},
        {"number": "INC0000002", "kind": "incident", "via": ["named in work_notes"], "found": False},
        {"number": "CHG0000003", "kind": "change", "via": ["named in work_notes"], "found": False},
    ]


def test_demo_references_agree_with_what_the_texts_say(demo_sql: DemoSql) -> None:
    changes = dict(demo_sql("SELECT number, short_description || ' ' || description FROM change_requests"))
    references = demo_sql("SELECT number, rfc, caused_by, description || ' ' || close_notes || ' ' || work_notes "
                          "FROM incidents WHERE rfc != '' OR caused_by != ''")
    assert len(references) >= 8
    for number, rfc, caused_by, text in references:
        for change in filter(None, (rfc, caused_by)):
            assert change in changes, f"{number} refers to a change that does not exist: {change}"
            assert change in text or number in changes[change], f"{number} -> {change}: no text says so"


async def test_the_longest_lookup_still_fits_the_envelope(run_tool_text: RunToolText, demo_backends: Backends) -> None:
    """Every long text at once, and more linked numbers than are read: one row, under the budget."""
    named = " ".join(f"Related to INC00001{n:02d} and CHG00002{n:02d}." for n in range(10))
    backend = LongTexts(sentences(400) + " " + named, notes=" " + sentences(200))
    backends = Backends(servicenow=backend, pipelines=demo_backends.pipelines, health=demo_backends.health)
    text = await run_tool_text("get_incident", number="INC0000001", backends=backends)
    result = ToolResult.from_text(text)
    assert result is not None and result.status == "ok" and len(text) <= MAX_OUTPUT_CHARS
    (item,) = result.items
    assert len(item["links"]) == 5 and any("the first 5 were read" in warning for warning in result.warnings)
    assert set(item["full_text"]) == {"description", "close_notes", "work_notes"}
    assert sum(len(full) for full in item["full_text"].values()) <= FULL_TEXT_CHARS + 2 * 200  # later ones keep ~200
