"""Two- and three-turn conversations over HTTP with ``conversation_id``, on the local model and demo
data: a follow-up re-asks the previous question with one value changed, and "the second one"
points at the second row the previous answer listed (the server keeps each answer's ids)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from flask import Flask

from opsagent.settings import Settings
from tests.service.conftest import serving


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings

    settings: Settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), llm_provider="local")
    app: Flask = create_app(settings)
    with serving(app) as base:
        yield base
    close_app(app)


def say(url: str, text: str, conversation_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": text}]}
    if conversation_id:
        body["conversation_id"] = conversation_id
    response = httpx.post(url + "/api/chat_dynamic", json=body, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def calls(turn: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(item["tool"], item["arguments"]) for task in turn["metadata"]["tasks"] for item in task["evidence"]]


def test_a_follow_up_changes_the_window_then_an_ordinal_picks_a_row(url: str) -> None:
    first = say(url, "which pipelines failed in the last 24 hours?")
    conversation = first["conversation_id"]
    assert calls(first) == [("list_failed_pipelines", {"time_window": "last 24 hours"})]

    second = say(url, "and for the last 7 days?", conversation)
    analysis = second["metadata"]["analysis"]
    assert analysis["follow_up"]["previous_question"] == "which pipelines failed in the last 24 hours?"
    assert calls(second) == [("list_failed_pipelines", {"time_window": "last 7 days"})]
    rows = second["metadata"]["tasks"][0]["evidence"][0]["rows"]
    assert rows[0]["run_id"] in second["answer"]

    third = say(url, "why did the second one fail?", conversation)
    assert third["metadata"]["analysis"]["references"][0]["value"] == rows[1]["run_id"]
    assert calls(third) == [("get_pipeline_run_details", {"run_id": rows[1]["run_id"]})]
    assert rows[1]["pipeline_name"] in third["answer"]


def test_a_follow_up_changes_a_filter_and_keeps_the_rest(url: str) -> None:
    first = say(url, "open P1 incidents")
    second = say(url, "and P2?", first["conversation_id"])
    [(tool, arguments)] = calls(second)
    assert tool == "list_incidents"
    assert (arguments["state"], arguments["priority"], arguments["priority_match"]) == ("open", 2, "exactly")
    listed = [row["priority"] for row in second["metadata"]["tasks"][0]["evidence"][0]["rows"]]
    assert listed and set(listed) == {2}

    third = say(url, "who is the first one assigned to?", first["conversation_id"])
    first_p2 = second["metadata"]["tasks"][0]["evidence"][0]["rows"][0]["number"]
    assert calls(third) == [("get_incident", {"number": first_p2})]
    assert "assigned to" in third["answer"].split("\n", 1)[0]


def test_another_conversation_does_not_see_this_history(url: str) -> None:
    say(url, "open P1 incidents")
    alone = say(url, "and P2?")  # no conversation_id: nothing to follow up on
    assert alone["metadata"]["analysis"]["follow_up"] is None
