"""Teams 1:1 streaming through the Agents SDK's activity contract, against a loopback fake connector.

Every activity of a stream is POSTed as a reply to the user's message: ``typing`` activities with
a ``streaminfo`` entity (``informative``, sequence 1, 2, …; the connector's first answer id is the
``streamId`` of all later ones), then one ``message`` with ``streamType: final``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from flask import Flask

from opsagent.service.teams_agent import STILL_WORKING, TURN_FAILED
from opsagent.service.teams_bot import teams_bot_of
from opsagent.service.teams_stream import FIRST_UPDATE, JOINER
from tests.backends.fake_servers import FakeServer, Reply, json_reply
from tests.service.cards import assert_valid_card
from tests.service.conftest import AppFactory, break_history, echo_answer, echo_scripts, poll, serving
from tests.service.test_teams_bot import CONVERSATION, activity

STREAM_ID = "stream-abc"
PROGRESS = ["Plan: 1 task(s) in 1 step(s) — servicenow", "Step 1: asking servicenow", "Step 1: servicenow ok in ",
            "Review: complete", "Grounding: pass (score 1.00)"]


@pytest.fixture
def connector() -> Iterator[FakeServer]:
    fake = FakeServer().start()
    yield fake
    fake.stop()


def streaming_app(make_app: AppFactory, *, interval: float | None = 0.0, **overrides: Any) -> Flask:
    """A Teams app whose streams pause ``interval`` s after each send (``None``: the SDK's 1 s for Teams)."""
    app = make_app(overrides.pop("scripts", None), teams_anonymous_dev=True, dynamic_plan=True, **overrides)
    teams_bot_of(app).agent.stream_interval = interval
    return app


def ask(url: str, connector: FakeServer, text: str, **fields: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Post a message (no expectReplies) and return it with what the connector received as replies to it."""
    body = activity(text, service_url=connector.url + "/", expect_replies=False, **fields)
    connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities/{body['id']}", json_reply({"id": STREAM_ID}))
    assert httpx.post(url + "/api/messages", json=body, timeout=30).status_code == 202
    return body, [r.json() for r in connector.requests if r.path.endswith(f"/activities/{body['id']}")]


def stream_info(sent: dict[str, Any]) -> dict[str, Any] | None:
    return next((entity for entity in sent.get("entities") or [] if entity.get("type") == "streaminfo"), None)


def assert_progress(updates: list[str]) -> None:
    """The informative updates carry every progress event once, in order (several may share an update)."""
    shown = [part for update in updates for part in update.split(JOINER)]
    assert shown[0] == FIRST_UPDATE and len(shown) == 1 + len(PROGRESS), shown
    for seen, expected in zip(shown[1:], PROGRESS, strict=True):
        assert seen.startswith(expected) if expected.endswith(" ") else seen == expected, shown


def test_teams_personal_chat_streams_progress_then_the_answer_card(make_app: AppFactory, connector: FakeServer) -> None:
    app = streaming_app(make_app)
    with serving(app) as url:
        _, sent = ask(url, connector, "What incidents are there?")
    *updates, final = sent
    assert all(a["type"] == "typing" and stream_info(a)["streamType"] == "informative" for a in updates), \
        "only informative updates before the answer: no plain typing indicator interleaved"
    assert [stream_info(a)["streamSequence"] for a in updates] == list(range(1, len(updates) + 1))
    assert "streamId" not in stream_info(updates[0]) and {stream_info(a)["streamId"] for a in updates[1:]} <= {STREAM_ID}
    assert_progress([a["text"] for a in updates])
    assert final["type"] == "message" and stream_info(final) == {"type": "streaminfo", "streamType": "final",
                                                                   "streamId": STREAM_ID}
    assert final["text"] == "Answer: What incidents are there?"
    assert_valid_card(final["attachments"][0]["content"])
    assert any("AIGeneratedContent" in (entity.get("additionalType") or []) for entity in final["entities"])
    store = app.extensions["opsagent"].store
    assert [turn.content for turn in store.recent(f"teams:{CONVERSATION}", limit=5)] == [
        "What incidents are there?", "Answer: What incidents are there?"]


def test_teams_stream_keeps_teams_pace_by_default(make_app: AppFactory, connector: FakeServer,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """With the SDK's own pause (1 s in Teams) the first update still leaves at once, the answer follows one
    pause later with the progress it gathered meanwhile folded into one update."""
    app = streaming_app(make_app, interval=None)
    with serving(app) as url:
        body = activity("Is Snowflake up?", service_url=connector.url + "/", expect_replies=False)
        connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities/{body['id']}",
                         json_reply({"id": STREAM_ID}))
        started = time.monotonic()
        poster = threading.Thread(target=lambda: httpx.post(url + "/api/messages", json=body, timeout=30))
        poster.start()
        poll(lambda: connector.requests, timeout=10, what="the first informative update")
        first_update = time.monotonic() - started
        poll(lambda: any(r.json()["type"] == "message" for r in connector.requests), timeout=10, what="the answer")
        answered = time.monotonic() - started
        poster.join(10)
    sent = [r.json() for r in connector.requests]
    assert sent[0]["text"] == FIRST_UPDATE and sent[-1]["type"] == "message"
    assert first_update < 0.9 <= answered, (first_update, answered)
    with capsys.disabled():  # the figures quoted in the README
        print(f"\n[teams stream] first informative update after {first_update * 1000:.0f} ms, "
              f"answer after {answered:.2f} s (SDK pace 1 s)")


def test_teams_streamed_answer_slower_than_the_reply_window_ends_the_stream_and_follows_up(
        make_app: AppFactory, connector: FakeServer) -> None:
    async def slow(messages, options):
        await asyncio.sleep(0.6)
        return echo_answer(messages, options)

    app = streaming_app(make_app, scripts=echo_scripts(servicenow=slow), teams_reply_window_seconds=0.2)
    with serving(app) as url:
        _, sent = ask(url, connector, "Long one")
        late = poll(lambda: [r.json() for r in connector.requests if r.json().get("text") == "Answer: Long one"],
                    timeout=10, what="the follow-up")
    assert sent[-1]["type"] == "message" and sent[-1]["text"] == STILL_WORKING
    assert stream_info(sent[-1])["streamType"] == "final", "the stream ends with the promise"
    assert stream_info(late[0]) is None and late[0]["attachments"], "the follow-up is a plain card message"
    assert_valid_card(late[0]["attachments"][0]["content"])


@pytest.mark.parametrize("conversation", [CONVERSATION, "a:1Abc-403-personal"])
def test_teams_stream_refused_by_the_channel_falls_back_to_a_plain_message(make_app: AppFactory, connector: FakeServer,
                                                                           conversation: str) -> None:
    """Teams' "streaming API is not enabled" (400 BadArgument): the SDK stops streaming and the answer still arrives.

    Also when the URL of the refused send holds "403" (here the conversation id; it was a random port
    once), which the SDK alone reads as the user stopping the stream, sending nothing more.
    """
    app = streaming_app(make_app)
    body = activity("Any P2?", service_url=connector.url + "/", expect_replies=False, conversation=conversation)
    refused = Reply(status=400, body={"error": {"code": "BadArgument", "message": "Streaming API is not enabled"}})
    connector.script("POST", f"/v3/conversations/{conversation}/activities/{body['id']}", refused,
                     json_reply({"id": "plain-1"}))
    with serving(app) as url:
        assert httpx.post(url + "/api/messages", json=body, timeout=30).status_code == 202
    sent = [r.json() for r in connector.requests]
    assert sent[0]["type"] == "typing" and sent[-1]["type"] == "message" and stream_info(sent[-1]) is None
    assert sent[-1]["text"] == "Answer: Any P2?"
    assert_valid_card(sent[-1]["attachments"][0]["content"])


def test_teams_stream_that_fails_to_send_ends_the_turn_cleanly(make_app: AppFactory, connector: FakeServer,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """A connector that answers 500 to everything: logged, 202, no hang, nothing stored as delivered."""
    app = streaming_app(make_app)
    body = activity("Anyone?", service_url=connector.url + "/", expect_replies=False)
    connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities/{body['id']}", Reply(status=500, body="down"))
    with caplog.at_level(logging.ERROR), serving(app) as url:
        response = httpx.post(url + "/api/messages", json=body, timeout=30)
    assert response.status_code == 202
    assert "Teams turn failed" in caplog.text and "could not tell the Teams user" in caplog.text
    assert app.extensions["opsagent"].store.recent(f"teams:{CONVERSATION}", limit=5) == []
    assert app.extensions["opsagent"].admission.in_flight == 0


def test_teams_stream_ends_with_the_apology_when_the_turn_fails(make_app: AppFactory, connector: FakeServer,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure inside the turn (here the history store) closes the open stream with one apology, no internals."""
    app = streaming_app(make_app)
    break_history(app, monkeypatch)
    with serving(app) as url:
        _, sent = ask(url, connector, "any open incidents?")
    messages = [a for a in sent if a["type"] == "message"]
    assert [a["text"] for a in messages] == [TURN_FAILED] and stream_info(messages[0])["streamType"] == "final"
    assert "secret internals" not in str(sent)


@pytest.mark.parametrize("conversation_type", ["groupChat", "channel"])
def test_teams_group_chats_and_channels_never_stream(make_app: AppFactory, connector: FakeServer,
                                                    conversation_type: str) -> None:
    app = streaming_app(make_app)
    with serving(app) as url:
        _, sent = ask(url, connector, "What incidents are there?", conversation_type=conversation_type)
    assert not any(stream_info(a) for a in sent) and sent[-1]["text"] == "Answer: What incidents are there?"
    assert_valid_card(sent[-1]["attachments"][0]["content"])
