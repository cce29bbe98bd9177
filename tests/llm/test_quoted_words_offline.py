"""The offline model searches the records' text for the words a question quotes — through the real workflow, the
answer checked against the demo data's own incident file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import opsagent.backends.demo as demo
from tests.llm.test_local_honesty import ask

INCIDENTS = json.loads((Path(demo.__file__).with_name("data") / "incidents.json").read_text())["incidents"]
PAST = {"Resolved", "Closed", "Canceled"}


def having(word: str, *, past: bool, fields: tuple[str, ...]) -> set[str]:
    return {row["number"] for row in INCIDENTS if (row["state"] in PAST) == past
            and any(word.lower() in str(row.get(field) or "").lower() for field in fields)}


def calls(answer) -> list[tuple[str, dict]]:
    return [(item.tool, item.arguments) for task in answer.metadata.tasks for item in task.evidence]


@pytest.mark.parametrize("question", ["any past incidents like 'timeout'?", 'seen the error "timeout" before?'])
async def test_quoted_words_find_the_past_incidents_that_have_them(demo_runtime, question: str) -> None:
    expected = having("timeout", past=True, fields=("short", "description", "close_notes"))
    assert expected
    answer = await ask(demo_runtime(), question)
    assert ("find_similar_incidents", {"text": "timeout"}) in [(tool, {k: v for k, v in args.items() if v})
                                                              for tool, args in calls(answer)]
    assert not answer.metadata.offline_unread
    assert {number for number in expected if number in answer.text} == expected
    assert answer.metadata.grounding[-1].verdict == "pass"


async def test_quoted_words_narrow_a_search_of_open_incidents(demo_runtime) -> None:
    expected = having("shir", past=False, fields=("number", "short", "description", "ci"))
    assert expected
    answer = await ask(demo_runtime(), "open incidents mentioning 'SHIR'")
    assert [tool for tool, _ in calls(answer)] == ["list_incidents"]
    assert calls(answer)[0][1]["text"] == "SHIR"
    listed = {row["number"] for row in INCIDENTS if row["number"] in answer.text}
    assert listed == expected


async def test_a_none_from_a_search_of_the_quoted_words_is_kept(demo_runtime) -> None:
    words = "quantum flux capacitor"
    assert not having(words, past=False, fields=("number", "short", "description", "ci"))
    answer = await ask(demo_runtime(), f'any incidents mentioning "{words}"?')
    assert answer.metadata.grounding[-1].verdict == "pass", answer.text
    assert answer.text.startswith("No")
