"""The JSON chat API and the probes, over a real loopback server."""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tests.service.conftest import (AppFactory, echo_answer, echo_scripts, first_paragraph, model_down,
                                    recording_planner, serving)


def ask(url: str, text: str, path: str = "/api/chat", **body: Any) -> httpx.Response:
    return httpx.post(url + path, json={"messages": [{"role": "user", "content": text}], **body}, timeout=20)


def test_chat_answers_with_metadata_and_a_conversation_id(make_app: AppFactory) -> None:
    with serving(make_app(dynamic_plan=False)) as url:  # the triage workflow's scripted plan
        body = ask(url, "Which changes are scheduled?").json()
    assert first_paragraph(body["answer"]) == "Answer: Which changes are scheduled?"
    assert "**Evidence**\n- `list_incidents()`" in body["answer"]
    assert body["summary"] == "Answer: Which changes are scheduled?" and body["limitations"] == []
    assert [(section["agent"], section["title"]) for section in body["evidence"]] == [("servicenow", "ServiceNow")]
    assert body["evidence"][0]["markdown"].startswith("`list_incidents()`")
    assert len(body["conversation_id"]) == 32
    meta = body["metadata"]
    assert (meta["workflow"], meta["route"], meta["model"], meta["provider"]) == ("triage", "execute", "scripted-model",
                                                                                   "scripted")
    assert meta["llm_calls"] == 4 and meta["tasks"][0]["agent"] == "servicenow" and meta["plans"][0]["mode"] == "triage"
    assert meta["tasks"][0]["evidence"][0]["tool"] == "list_incidents" and meta["grounding"][0]["verdict"] == "pass"


@pytest.mark.parametrize(("dynamic_plan", "path", "workflow"), [
    (False, "/api/chat", "triage"),
    (True, "/api/chat", "dynamic"),
    (False, "/api/chat_dynamic", "dynamic"),
], ids=["chat-triage-when-DYNAMIC_PLAN-false", "chat-dynamic-by-default", "chat_dynamic-always"])
def test_chat_workflow_follows_dynamic_plan(make_app: AppFactory, dynamic_plan: bool, path: str, workflow: str) -> None:
    with serving(make_app(dynamic_plan=dynamic_plan)) as url:
        meta = ask(url, "q", path).json()["metadata"]
    assert meta["workflow"] == workflow
    assert [plan["mode"] for plan in meta["plans"]] == ["user" if workflow == "dynamic" else "triage"]


def test_chat_conversation_id_carries_history_to_the_planner(make_app: AppFactory) -> None:
    seen: list[list[str]] = []
    with serving(make_app(echo_scripts(dynamic_triage=recording_planner(seen)))) as url:
        first = ask(url, "first question", "/api/chat_dynamic").json()
        ask(url, "second question", "/api/chat_dynamic", conversation_id=first["conversation_id"])
    assert seen[1] == ["first question", "Answer: first question", "second question"]


def test_chat_conversations_are_scoped_to_the_callers_api_key(make_app: AppFactory) -> None:
    """Two keys using the same conversation id get two conversations; each key keeps its own history."""
    seen: list[list[str]] = []
    app = make_app(echo_scripts(dynamic_triage=recording_planner(seen)), dynamic_plan=True,
                   opsagent_api_keys=[SecretStr("key-a"), SecretStr("key-b")])

    def ask_as(key: str, text: str) -> dict:
        body = {"messages": [{"role": "user", "content": text}], "conversation_id": "shared"}
        return httpx.post(url + "/api/chat", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=20).json()

    with serving(app) as url:
        ask_as("key-a", "a first")
        assert ask_as("key-b", "b first")["conversation_id"] == "shared"
        ask_as("key-a", "a second")
    assert seen == [["a first"], ["b first"], ["a first", "Answer: a first", "a second"]]


def test_chat_concurrent_requests_do_not_cross_talk(make_app: AppFactory) -> None:
    """Eight questions at once, each slowed so they overlap; each answer holds only its own id."""
    async def slow_echo(messages, options):
        await asyncio.sleep(0.2)
        return echo_answer(messages, options)

    ids = [f"REQ-{n:03d}" for n in range(8)]
    with serving(make_app(echo_scripts(servicenow=slow_echo), dynamic_plan=True)) as url:
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda rid: ask(url, f"status of {rid}").json()["answer"], ids))
    for rid, answer in zip(ids, answers):
        assert rid in answer
        assert [other for other in ids if other in answer] == [rid]


def test_chat_deadline_is_a_clean_504(make_app: AppFactory) -> None:
    async def too_slow(messages, options) -> str:
        await asyncio.sleep(5)
        return "never"

    with serving(make_app(echo_scripts(servicenow=too_slow), request_timeout_seconds=0.3)) as url:
        response = ask(url, "slow one")
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "timeout"
    assert "0.3 s" in response.json()["error"]["message"]


@pytest.mark.parametrize("dynamic_plan", [False, True], ids=["triage", "dynamic"])
def test_chat_model_unavailable_is_a_502_and_a_stream_error_event(make_app: AppFactory, dynamic_plan: bool) -> None:
    app = make_app(echo_scripts(triage=model_down, dynamic_triage=model_down), dynamic_plan=dynamic_plan)
    with serving(app) as url:
        response = ask(url, "anything", conversation_id="c-502")
        streamed = httpx.post(url + "/api/chat/stream", json={"messages": [{"role": "user", "content": "s"}]})
    assert response.status_code == 502, response.text
    assert response.json()["error"]["code"] == "model_unavailable" and "10.1.2.3" not in response.text
    last = [f for f in streamed.text.split("\n\n") if f][-1].split("\n")
    assert last[0] == "event: error"
    assert json.loads(last[1].removeprefix("data: "))["error"]["code"] == "model_unavailable"
    assert app.extensions["opsagent"].store.recent("api:c-502", limit=5) == []  # a failed turn is not stored


def test_chat_stream_sends_progress_events_then_the_answer(make_app: AppFactory) -> None:
    with serving(make_app(dynamic_plan=True)) as url:
        with httpx.stream("POST", url + "/api/chat/stream",
                          json={"messages": [{"role": "user", "content": "any open P1s?"}]}) as response:
            frames = [f for f in response.read().decode().split("\n\n") if f]
    events = [(f.split("\n")[0].removeprefix("event: "), json.loads(f.split("\n")[1].removeprefix("data: ")))
              for f in frames]
    assert [name for name, _ in events] == ["progress"] * 5 + ["answer"]
    assert [data["kind"] for _, data in events[:-1]] == ["plan", "task_started", "task_finished", "review", "grounding"]
    assert events[0][1]["data"]["plan"][0]["agent"] == "servicenow"
    assert first_paragraph(events[-1][1]["answer"]) == "Answer: any open P1s?"


@pytest.mark.parametrize(("header", "status"), [
    (None, 401), ("Bearer nope", 401), ("Basic s3cret", 401), ("Bearer s3cret", 200), ("bearer other-key", 200),
], ids=["missing", "wrong-key", "wrong-scheme", "right-key", "second-key-lowercase-scheme"])
def test_chat_bearer_auth_when_keys_configured(make_app: AppFactory, header: str | None, status: int) -> None:
    app = make_app(opsagent_api_keys=[SecretStr("s3cret"), SecretStr("other-key")])
    headers = {"Authorization": header} if header else {}
    with serving(app) as url:
        response = httpx.post(url + "/api/chat", json={"messages": [{"role": "user", "content": "x"}]},
                              headers=headers)
        probes = [httpx.get(url + path).status_code for path in ("/healthz", "/readyz", "/")]
    assert response.status_code == status
    if status == 401:
        assert response.json()["error"]["code"] == "invalid_api_key" and "s3cret" not in response.text
    assert probes == [200, 200, 200]


def test_chat_open_without_keys_and_warns_at_start(make_app: AppFactory, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        app = make_app()
    assert "OPSAGENT_API_KEYS is not set" in caplog.text
    with serving(app) as url:
        assert ask(url, "open?").status_code == 200


def test_chat_probes_report_liveness_and_readiness(live_url: str) -> None:
    assert httpx.get(live_url + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(live_url + "/readyz").json()
    assert ready["status"] == "ok" and ready["store"] == "writable" and ready["config"] == "loaded"
    assert set(ready["backends"]) == {"servicenow", "log_analytics", "service_health"}


def test_chat_request_log_has_request_id_and_no_prompt(live_url: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="opsagent.service"):
        response = ask(live_url, "private words")
    line = next(r for r in caplog.records if r.name == "opsagent.service" and getattr(r, "path", "") == "/api/chat")
    assert line.status == 200 and line.route == "execute" and line.llm_calls == 4
    from opsagent.service.requestlog import JsonFormatter

    formatted = json.loads(JsonFormatter().format(line))
    assert formatted["request_id"] == response.headers["X-Request-ID"]
    assert "private words" not in caplog.text


def test_chat_stream_log_line_keeps_the_request_id(live_url: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="opsagent.service"):
        response = httpx.post(live_url + "/api/chat/stream", json={"messages": [{"role": "user", "content": "s"}]})
    from opsagent.service.requestlog import JsonFormatter

    streamed = next(r for r in caplog.records if r.getMessage() == "answer streamed")
    assert json.loads(JsonFormatter().format(streamed))["request_id"] == response.headers["X-Request-ID"]
