"""What a message is (a request for something else, a question about what OpsAgent can do, a request to act)
is decided by product code for every model, not only by the offline one.

A loopback server speaks Chat Completions and would plan a look-up for anything it is asked: a message that
product code declines or answers itself must never reach it, and the hints it does get must say what intake read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from evals.loopback import chat_completions_server, completion
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from tests.llm.conftest import ask_loopback_model

def eager_planner(body: dict[str, Any]) -> tuple[int, dict]:
    """Plans a pipeline look-up for any message, as a small model that ignores its hints does."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    if schema == "UserModeOutput":
        reply: dict[str, Any] = {"should_reject": False, "clarify": False, "plan_reason": "look",
                                 "plan": [{"step": 1, "agent": "log_analytics", "question": "look it up"}]}
    elif schema == "TriageOutput":
        reply = {"should_reject": False, "tasks": [{"agent": "log_analytics", "question": "look it up"}], "reason": "look"}
    elif schema == "ReviewOutput":
        reply = {"is_complete": True, "summary": "Nothing relevant was found.", "key_facts": [], "missing_aspects": [],
                 "suggested_approach": "", "confidence": 0.5}
    else:
        return 200, completion({"role": "assistant", "content": "Nothing found."}, "stop")
    return 200, completion({"role": "assistant", "content": json.dumps(reply)}, "stop")


@pytest.fixture
def model_server() -> Iterator[ThreadingHTTPServer]:
    with chat_completions_server(eager_planner) as server:
        yield server


async def ask(server: ThreadingHTTPServer, tmp_path, question: str, workflow: str):
    return await ask_loopback_model(server, tmp_path, question, workflow)


def prompts(server: ThreadingHTTPServer) -> str:
    return "\n".join(str(message.get("content")) for request in server.requests
                     for message in request["body"]["messages"])


@pytest.mark.parametrize("workflow", ["dynamic", "triage"])
@pytest.mark.parametrize("question", ["write me a poem about being on call",
                                      "what's the weather going to be like in Dublin tomorrow?",
                                      "what is the share price of Snowflake today"])
async def test_a_request_for_something_else_is_declined_without_a_model_call(model_server, tmp_path, workflow,
                                                                             question) -> None:
    answer = await ask(model_server, tmp_path, question, workflow)
    assert answer.metadata.route == "reject", answer.text
    assert model_server.requests == []
    assert not [task for task in answer.metadata.tasks if task.evidence]


@pytest.mark.parametrize("question", ["what sort of things are you able to answer?", "hlep", "help me please",
                                      "hey, new here - how do I use you?"])
async def test_a_question_about_what_opsagent_does_gets_the_help_reply(model_server, tmp_path, question) -> None:
    answer = await ask(model_server, tmp_path, question, "dynamic")
    assert answer.metadata.route == "help", answer.text
    assert model_server.requests == []
    assert "read-only" in answer.text


async def test_a_message_intake_cannot_read_reaches_the_model_with_that_hint(model_server, tmp_path) -> None:
    answer = await ask(model_server, tmp_path, "blorp the frobnicator widgets", "dynamic")
    assert model_server.requests, "a word list cannot know every in-scope word: the model decides"
    assert "no word of the message names a record" in prompts(model_server)
    assert answer.metadata.route == "execute"  # this model planned anyway; the product did not decline for it


async def test_a_request_to_act_reaches_the_model_marked_as_one(model_server, tmp_path) -> None:
    answer = await ask(model_server, tmp_path, "please rerun pl_ingest_sales", "dynamic")
    assert "asks OpsAgent to rerun, a change (from the words \"please rerun pl_ingest_sales\"" in prompts(model_server)
    assert "not" in answer.text.lower() and "pl_ingest_sales" in answer.text


@pytest.mark.parametrize(("question", "verb", "named"), [
    ("whoever is on call for the portal - page them", "page", ""),      # a command after a dash
    ("can you page whoever's on call for the customer portal", "page", ""),  # "whoever's" is its object
    ("pl_ingest_sales failed; rerun it", "rerun", "pl_ingest_sales"),  # "it": what the clause before named
])
async def test_a_command_in_a_later_clause_is_a_request_to_act(model_server, tmp_path, question: str, verb: str,
                                                               named: str) -> None:
    answer = await ask(model_server, tmp_path, question, "dynamic")
    assert f"asks OpsAgent to {verb}" in prompts(model_server), prompts(model_server)[:600]
    assert answer.metadata.route != "execute" or "not" in answer.text.lower()
    analysis = analyse_question(question, now=datetime.now(UTC), inventory=InventorySnapshot())
    assert analysis.action is not None and analysis.action.targets == ([named] if named else [])  # its record is shown


def schemas(server: ThreadingHTTPServer) -> list[str]:
    return [str((request["body"].get("response_format") or {}).get("json_schema", {}).get("name"))
            for request in server.requests]


@pytest.mark.parametrize("question", ["status?", "any issues?", "tickets", "what's the status"])
async def test_a_message_that_names_only_a_kind_of_record_is_asked_back_without_planning(model_server, tmp_path,
                                                                                         question) -> None:
    answer = await ask(model_server, tmp_path, question, "dynamic")
    assert answer.metadata.route == "clarify", answer.text
    assert "UserModeOutput" not in schemas(model_server)  # the eager planner never saw it
    assert not [task for task in answer.metadata.tasks if task.evidence]


@pytest.mark.parametrize("question", ["how many incidents?", "which incidents are open?", "any P1s?",
                                      "for the status update: which pipelines failed in the last 24 hours?"])
async def test_a_search_over_a_kind_of_record_is_planned(model_server, tmp_path, question) -> None:
    await ask(model_server, tmp_path, question, "dynamic")
    assert "UserModeOutput" in schemas(model_server)
