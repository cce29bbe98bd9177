"""The Teams endpoint (Microsoft 365 Agents SDK) over a real server, with a loopback fake connector.

``expectReplies`` activities get their replies in the HTTP response; normal ones get 202 and the
replies are POSTed to ``{serviceUrl}v3/conversations/{id}/activities/...``, here a local fake.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import json

import httpx
import pytest
from pydantic import SecretStr

from flask_app import close_app, create_app
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeServer, Recorded, json_reply
from tests.conftest import scripted_runtime
from opsagent.service import teams_bot
from opsagent.contracts.role_inputs import read_role_input
from tests.fakes import task_question
from tests.service.cards import assert_valid_card
from tests.service.conftest import (AppFactory, break_history, echo_answer, echo_scripts, first_paragraph, model_calls,
                                    poll, recording_planner, serving)

CONVERSATION = "a:1Abc-personal-conv-id"
_ids = itertools.count(1)


def activity(text: str, *, service_url: str = "https://smba.trafficmanager.net/emea/", expect_replies: bool = True,
             conversation: str = CONVERSATION, conversation_type: str = "personal") -> dict[str, Any]:
    """A Teams message; a personal (1:1) one without expectReplies is answered as a stream (``test_teams_streaming``)."""
    body = {
        "type": "message", "id": f"act-{next(_ids)}", "channelId": "msteams", "serviceUrl": service_url,
        "from": {"id": "29:1Xyz-user-id", "name": "Dana Ops"}, "recipient": {"id": "28:bot", "name": "OpsBot"},
        "conversation": {"id": conversation, "conversationType": conversation_type}, "text": text,
        "textFormat": "plain",
    }
    if expect_replies:
        body["deliveryMode"] = "expectReplies"
    return body


def replies(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [a["text"] for a in response.json()["activities"] if a["type"] == "message"]


def replies_text(texts: list[str]) -> str:
    """One reply's direct answer, which may itself hold paragraphs (the echoed clarification)."""
    assert len(texts) == 1
    return texts[0].split("\n\n**Evidence**", 1)[0]


def answers(response: httpx.Response) -> list[str]:
    """The direct answer of each message reply (what comes before the facts and the evidence)."""
    return [first_paragraph(text) for text in replies(response)]


PIPELINE_ROWS = {"list_incidents": [{"pipeline_name": "pl_ingest_sales"}, {"pipeline_name": "pl_ingest_hr"}]}
"""Evidence that names the pipelines the echoed answers mention (so they pass the grounding check)."""


def clarify_then_plan(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    """Ask back on a vague first question; once the conversation has turns, plan with all of it."""
    role_input = read_role_input(messages)
    turns = [*(item.content for item in role_input.history), role_input.question]
    if len(turns) == 1:
        return {"clarify": True, "plan_reason": "which pipeline?"}
    return {"plan": [{"step": 1, "agent": "servicenow", "question": " / ".join(turns)}]}


@pytest.fixture
def connector() -> Iterator[FakeServer]:
    fake = FakeServer().start()
    yield fake
    fake.stop()


def wait_for(connector: FakeServer, predicate, timeout: float = 10.0) -> list[Recorded]:
    return poll(lambda: [r for r in list(connector.requests) if predicate(r)], timeout=timeout,
                what="a matching connector call")


def test_teams_expect_replies_returns_the_answer_in_the_response(make_app: AppFactory) -> None:
    with serving(make_app(teams_anonymous_dev=True)) as url:
        response = httpx.post(url + "/api/messages", json=activity("Any P1 incidents?"), timeout=20)
    assert answers(response) == ["Answer: Any P1 incidents?"]
    assert response.json()["activities"][0]["replyToId"].startswith("act-")


def test_teams_group_chat_replies_go_to_the_connector_with_typing_first(make_app: AppFactory,
                                                                        connector: FakeServer) -> None:
    """Group chats and channels do not stream (Teams streams 1:1 chats only): typing, then the card message."""
    body = activity("Is Snowflake up?", service_url=connector.url + "/", expect_replies=False,
                    conversation_type="groupChat")
    connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities/{body['id']}", json_reply({"id": "r1"}))
    with serving(make_app(teams_anonymous_dev=True)) as url:
        response = httpx.post(url + "/api/messages", json=body, timeout=20)
    assert response.status_code == 202
    sent = [r.json() for r in connector.requests]
    assert sent[0]["type"] == "typing" and not any(a.get("entities") for a in sent if a["type"] == "typing")
    messages = [a for a in sent if a["type"] == "message"]
    assert [a["text"] for a in messages] == ["Answer: Is Snowflake up?"]
    assert_valid_card(messages[0]["attachments"][0]["content"])
    assert "authorization" not in {k.lower() for k in connector.requests[-1].headers}  # anonymous dev: no token out


def test_teams_slow_answer_is_announced_then_sent_as_a_follow_up(make_app: AppFactory, connector: FakeServer) -> None:
    async def slow(messages, options):
        await asyncio.sleep(0.6)
        return echo_answer(messages, options)

    body = activity("Long one", service_url=connector.url + "/", expect_replies=False, conversation_type="channel")
    connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities/{body['id']}", json_reply({"id": "r1"}))
    connector.script("POST", f"/v3/conversations/{CONVERSATION}/activities", json_reply({"id": "r2"}))
    app = make_app(echo_scripts(servicenow=slow), teams_anonymous_dev=True, teams_reply_window_seconds=0.1)
    with serving(app) as url:
        assert httpx.post(url + "/api/messages", json=body, timeout=20).status_code == 202
        late = wait_for(connector, lambda r: first_paragraph(r.json().get("text", "")) == "Answer: Long one")
    in_turn = [r.json()["text"] for r in connector.requests if r.json()["type"] == "message"]
    assert in_turn[0].startswith("Still working on it")
    assert late[0].path.startswith(f"/v3/conversations/{CONVERSATION}/activities")
    assert_valid_card(late[0].json()["attachments"][0]["content"])  # the follow-up is the answer card


def test_teams_clarify_then_follow_up_in_the_same_conversation(make_app: AppFactory) -> None:
    app = make_app(echo_scripts(dynamic_triage=clarify_then_plan), teams_anonymous_dev=True, dynamic_plan=True,
                   tool_rows=PIPELINE_ROWS)
    with serving(app) as url:
        first = replies(httpx.post(url + "/api/messages", json=activity("Why did it fail?"), timeout=20))
        second = replies(httpx.post(url + "/api/messages", json=activity("pl_ingest_sales"), timeout=20))
        other = replies(httpx.post(url + "/api/messages", json=activity("Why?", conversation="a:other"), timeout=20))
    assert first[0].startswith("Which pipeline do you mean?")
    assert replies_text(second) == f"Answer: Why did it fail? / {first[0]} / pl_ingest_sales"
    assert other[0].startswith("Which pipeline do you mean?")  # another conversation has its own history


def test_teams_history_survives_an_app_restart(settings: Settings) -> None:
    configured = settings.model_copy(update={"teams_anonymous_dev": True, "dynamic_plan": True})

    def turn(text: str) -> list[str]:
        runtime, _ = scripted_runtime(configured, echo_scripts(dynamic_triage=clarify_then_plan), tool_rows=PIPELINE_ROWS)
        app = create_app(configured, runtime=runtime)  # a fresh app on the same data_dir each time
        try:
            with serving(app) as url:
                return replies(httpx.post(url + "/api/messages", json=activity(text), timeout=20))
        finally:
            close_app(app)

    question = turn("Why did it fail?")[0]
    assert replies_text(turn("pl_ingest_hr")) == f"Answer: Why did it fail? / {question} / pl_ingest_hr"


def test_teams_turn_error_does_not_leak_exception_text(make_app: AppFactory, monkeypatch) -> None:
    app = make_app(teams_anonymous_dev=True)
    break_history(app, monkeypatch)
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("any open incidents?"), timeout=20)
    assert replies(response) == ["Sorry, something went wrong while answering. It has been logged."]
    assert "secret internals" not in response.text


def stored_turns(app, conversation: str = CONVERSATION) -> list[str]:
    return [turn.content for turn in app.extensions["opsagent"].store.recent(f"teams:{conversation}", limit=50)]


@contextmanager
def closed_port_url() -> Iterator[str]:
    """A loopback URL that refuses connections for as long as the block runs: the port stays bound
    (never listening), so no server another test worker starts meanwhile can take it."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}/"


def test_teams_unreachable_service_url_is_no_500_and_stores_nothing(make_app: AppFactory,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """The reply and the error handler's apology both fail to send: logged, 202, and no half-stored turn."""
    app = make_app(teams_anonymous_dev=True)
    with closed_port_url() as refusing, caplog.at_level(logging.ERROR), serving(app) as url:
        body = activity("Anyone there?", service_url=refusing, expect_replies=False)
        response = httpx.post(url + "/api/messages", json=body, timeout=20)
        deadline = time.monotonic() + 60  # the turn runs on after the 202; a loaded machine is slow to log it (a hang guard)
        while "could not tell the Teams user" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
    assert response.status_code == 202, response.text
    assert "could not tell the Teams user that the turn failed" in caplog.text
    assert stored_turns(app) == []  # a Bot Framework retry of this activity would not duplicate a turn


def test_teams_turn_is_stored_after_it_was_delivered(make_app: AppFactory) -> None:
    app = make_app(teams_anonymous_dev=True)
    with serving(app) as url:
        replies(httpx.post(url + "/api/messages", json=activity("Any P1?"), timeout=20))
    assert stored_turns(app) == ["Any P1?", "Answer: Any P1?"]


def test_teams_timed_out_turn_cancels_its_work(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    finished: list[str] = []

    async def slow(messages, options) -> str:
        await asyncio.sleep(0.8)
        finished.append(task_question(messages))
        return "late"

    monkeypatch.setattr(teams_bot, "TURN_MARGIN_SECONDS", -1.7)  # the turn is cut at 0.3 s, the runner's deadline is 2 s
    app = make_app(echo_scripts(servicenow=slow), teams_anonymous_dev=True, request_timeout_seconds=2.0)
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("slow one"), timeout=20)
        time.sleep(1.2)  # longer than the specialist would take
    assert response.status_code == 504
    assert finished == [] and stored_turns(app) == []


def test_teams_anonymous_dev_warns_that_replies_go_to_any_service_url(make_app: AppFactory,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        make_app(teams_anonymous_dev=True)
    warning = next(r.getMessage() for r in caplog.records if "TEAMS_ANONYMOUS_DEV" in r.getMessage())
    assert "serviceUrl" in warning and "host check is off" in warning and "dev only" in warning


def test_teams_conversation_is_out_of_reach_of_the_http_api(make_app: AppFactory) -> None:
    """An /api/chat conversation_id naming a Teams conversation gets a fresh API conversation instead."""
    seen: list[list[str]] = []
    app = make_app(echo_scripts(dynamic_triage=recording_planner(seen)), teams_anonymous_dev=True, dynamic_plan=True)
    teams_id = "19:secret@thread.v2"
    with serving(app) as url:
        replies(httpx.post(url + "/api/messages", json=activity("secret plan", conversation=teams_id), timeout=20))
        api = httpx.post(url + "/api/chat", json={"messages": [{"role": "user", "content": "what was said?"}],
                                                  "conversation_id": f"teams:{teams_id}"}, timeout=20)
        replies(httpx.post(url + "/api/messages", json=activity("next", conversation=teams_id), timeout=20))
    assert api.status_code == 200 and api.json()["conversation_id"] == f"teams:{teams_id}"
    assert seen == [["secret plan"], ["what was said?"], ["secret plan", "Answer: secret plan", "next"]]


def test_teams_not_configured_is_a_404_with_a_json_error(live_url: str) -> None:
    """Not a 5xx: a monitor must not read "Teams is not enabled here" as an outage."""
    response = httpx.post(live_url + "/api/messages", json=activity("any open incidents?"))
    assert response.status_code == 404 and response.json()["error"]["code"] == "teams_not_enabled"
    assert "BOT_APP_ID" in response.json()["error"]["message"]


@pytest.mark.parametrize("service_url", ["not a url", "file:///etc/passwd", "http://", "javascript:alert(1)",
                                         "https://smba.example:99999/", "https://host:port/", "https://u:p@evil.example/"],
                         ids=["not-a-url", "file", "no-host", "javascript", "port-99999", "port-not-a-number",
                              "credentials"])
def test_teams_malformed_service_url_is_400_before_any_work(make_app: AppFactory, service_url: str) -> None:
    """Normal delivery (no expectReplies) used to reach the SDK's connector client and answer 500."""
    app = make_app(teams_anonymous_dev=True)
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("any open incidents?", service_url=service_url, expect_replies=False))
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid_activity" and response.json()["error"]["param"] == "serviceUrl"
    assert model_calls(app) == 0


@pytest.mark.parametrize("header", [None, "Bearer not-a-jwt", "Basic abc", "Bearer"],
                         ids=["missing", "garbage-token", "wrong-scheme", "empty-token"])
def test_teams_jwt_required_when_bot_credentials_configured(make_app: AppFactory, header: str | None) -> None:
    app = make_app(bot_app_id="00000000-0000-0000-0000-0000000000b0", teams_anonymous_dev=True)
    headers = {"Authorization": header} if header else {}
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("any open incidents?"), headers=headers)
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize("body", [
    {"type": "message", "text": "no conversation"},
    {"type": "message", "conversation": {"id": "c"}, "text": 5},
    ["not", "an", "object"],
], ids=["no-conversation", "text-not-a-string", "not-an-object"])
def test_teams_bad_activity_is_400(make_app: AppFactory, body: Any) -> None:
    with serving(make_app(teams_anonymous_dev=True)) as url:
        response = httpx.post(url + "/api/messages", json=body)
    assert response.status_code == 400


def without(field: str) -> dict[str, Any]:
    body = activity("any open incidents?")
    if "." in field:
        outer, inner = field.split(".")
        body[outer].pop(inner)
    else:
        body.pop(field)
    return body


@pytest.mark.parametrize(("body", "code", "param"), [
    (without("serviceUrl"), "invalid_activity", "serviceUrl"),
    (without("recipient"), "invalid_activity", "recipient.id"),
    (without("from"), "invalid_activity", "from.id"),
    ({**activity("any open incidents?"), "conversation": {"id": " "}}, "invalid_activity", "conversation.id"),
    (b'{"type": "message", "channelData": ' + b"[" * 50000 + b"}", "invalid_json", None),
    (b"[" * 50000, "invalid_json", None),
    ({**activity(""), "text": "hi \udfff"}, "invalid_value", "text"),
    ({**activity(""), "text": "\u0000\ud800 hi"}, "invalid_value", "text"),
], ids=["no-serviceUrl", "no-recipient", "no-from", "blank-conversation-id", "deeply-nested-field",
        "deeply-nested-json", "lone-surrogate", "nul-and-surrogate"])
def test_teams_unanswerable_message_is_400_before_any_work(make_app: AppFactory, body: Any, code: str,
                                                           param: str | None) -> None:
    app = make_app(teams_anonymous_dev=True)
    content = body if isinstance(body, bytes) else json.dumps(body).encode()  # lone surrogates go out as \u escapes
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", content=content, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == code and response.json()["error"]["param"] == param
    assert model_calls(app) == 0


BOT_ID = "00000000-0000-0000-0000-0000000000b0"


@pytest.fixture
def signing_key(monkeypatch: pytest.MonkeyPatch):
    """A local RSA key stands in for Bot Framework's published keys (the SDK's JWKS fetch is the seam),
    and MSAL's outbound token call is stubbed: nothing leaves the machine."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from microsoft_agents.authentication.msal import MsalAuth
    from microsoft_agents.hosting.core import JwtTokenValidator

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_jwk = jwt.PyJWK.from_json(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()), algorithm="RS256")

    async def get_signing_key(jwks_uri: str, header: dict) -> jwt.PyJWK:
        return public_jwk

    async def get_access_token(self, resource_url: str, scopes: list[str], force_refresh: bool = False) -> str:
        return "outbound-token"

    monkeypatch.setattr(JwtTokenValidator._jwk_client_manager, "get_signing_key", get_signing_key)
    monkeypatch.setattr(MsalAuth, "get_access_token", get_access_token)
    return private


TENANT = "11111111-1111-1111-1111-111111111111"


def bot_token(private_key, audience: str, **overrides: Any) -> str:
    """A signed Bot Connector token; ``overrides`` change claims (``None`` removes one)."""
    import jwt

    now = int(time.time())
    claims = {"aud": audience, "iss": "https://api.botframework.com", "iat": now, "nbf": now, "exp": now + 600,
              "serviceurl": "https://smba.trafficmanager.net/emea/"} | overrides
    claims = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode(claims, private_key, algorithm="RS256", headers={"kid": "test-key"})


@pytest.mark.parametrize(("audience", "status"), [(BOT_ID, 200), ("someone-else", 401)],
                         ids=["valid-token", "wrong-audience"])
def test_teams_signed_token_is_checked_for_audience(make_app: AppFactory, signing_key, audience: str, status: int) -> None:
    app = make_app(bot_app_id=BOT_ID, bot_app_password=SecretStr("pw"), bot_tenant_id="tenant")
    headers = {"Authorization": f"Bearer {bot_token(signing_key, audience)}"}
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("signed: any open incidents?"), headers=headers, timeout=20)
    assert response.status_code == status
    if status == 200:
        assert answers(response) == ["Answer: signed: any open incidents?"]


@pytest.mark.parametrize(("claims", "status"), [
    ({"exp": None}, 401),
    ({"exp": -120}, 401),
    ({"nbf": +600}, 401),
    ({"iss": "https://evil.example/"}, 401),
    ({"iss": "https://sts.windows.net/22222222-2222-2222-2222-222222222222/",
      "tid": "22222222-2222-2222-2222-222222222222"}, 401),
    ({"iss": f"https://login.microsoftonline.com/{TENANT}/v2.0", "tid": TENANT}, 200),
    ({"exp": -30}, 200),
], ids=["no-exp", "expired-2-min-ago", "not-yet-valid", "foreign-issuer", "other-tenant", "our-tenant-entra",
        "expired-within-clock-skew"])
def test_teams_token_lifetime_and_issuer_are_checked(make_app: AppFactory, signing_key, claims: dict, status: int) -> None:
    """The SDK alone accepts tokens without exp, 5 minutes after expiry, and from any issuer.
    (``exp``/``nbf`` numbers here are seconds from now.)"""
    now = int(time.time())
    claims = {name: now + value if name in ("exp", "nbf") and value is not None else value
              for name, value in claims.items()}
    app = make_app(bot_app_id=BOT_ID, bot_app_password=SecretStr("pw"), bot_tenant_id=TENANT)
    headers = {"Authorization": f"Bearer {bot_token(signing_key, BOT_ID, **claims)}"}
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=activity("signed: any open incidents?"), headers=headers, timeout=20)
    assert response.status_code == status, response.text
    if status == 401:
        assert response.json()["error"]["code"] == "unauthorized"


def test_teams_sdk_refusal_has_the_json_error_shape(make_app: AppFactory, signing_key) -> None:
    """A signed call naming a serviceUrl outside Microsoft's channel hosts: the SDK's host validator 401."""
    app = make_app(bot_app_id=BOT_ID, bot_app_password=SecretStr("pw"), bot_tenant_id=TENANT)
    headers = {"Authorization": f"Bearer {bot_token(signing_key, BOT_ID)}"}
    body = activity("any open incidents?", service_url="https://attacker.example/")
    with serving(app) as url:
        response = httpx.post(url + "/api/messages", json=body, headers=headers, timeout=20)
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "unauthorized" and "host validator" in error["message"]
    assert response.json()["request_id"] == response.headers["X-Request-ID"]
    assert model_calls(app) == 0


def test_teams_long_plain_text_answers_are_sent_in_parts_under_the_message_limit(make_app: AppFactory,
                                                                              monkeypatch) -> None:
    """A question back has no card; a long one is cut between paragraphs, nothing lost."""
    from opsagent.service import teams_messages

    monkeypatch.setattr(teams_messages, "TEAMS_MESSAGE_LIMIT", 60)
    question_back = "Which pipeline do you mean?\n\n" + "\n".join(f"line {chr(97 + i)} of a long question" for i in range(12))
    scripts = echo_scripts(dynamic_triage=lambda messages, options: {"clarify": True, "plan_reason": "vague"},
                           clarify=lambda messages, options: {"clarification_request": question_back,
                                                              "possible_interpretations": []})
    with serving(make_app(scripts, teams_anonymous_dev=True, dynamic_plan=True)) as url:
        response = httpx.post(url + "/api/messages", json=activity("Why did it fail?"), timeout=20)
    parts = replies(response)
    assert len(parts) > 3 and all(len(part) <= 60 for part in parts)
    assert not any(a.get("attachments") for a in response.json()["activities"])
    assert "\n".join(parts).replace("\n\n", "\n").startswith(question_back.replace("\n\n", "\n"))


def test_teams_expect_replies_answer_is_a_valid_card_with_a_text_fallback(make_app: AppFactory) -> None:
    with serving(make_app(teams_anonymous_dev=True)) as url:
        response = httpx.post(url + "/api/messages", json=activity("Any P1 incidents?"), timeout=20)
    (message,) = [a for a in response.json()["activities"] if a["type"] == "message"]
    assert message["text"] == "Answer: Any P1 incidents?"
    assert not any(entity.get("type") == "streaminfo" for entity in message.get("entities") or [])
    (attachment,) = message["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert_valid_card(card)
    assert card["body"][0]["text"] == "Answer: Any P1 incidents?" and card["actions"][0]["title"] == "Show evidence"
    assert card["fallbackText"].startswith("Answer: Any P1 incidents?")
    assert any("AIGeneratedContent" in (entity.get("additionalType") or []) for entity in message["entities"])


@pytest.mark.parametrize("text", ["short", "a\n\nb\n\nc", "x" * 250, "p1 " * 30 + "\n\n" + "line\n" * 40])
def test_split_message_keeps_every_character_and_the_limit(text: str) -> None:
    from opsagent.service.teams_messages import split_message

    parts = split_message(text, 50)
    assert all(len(part) <= 50 for part in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
