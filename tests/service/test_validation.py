"""Every refusal is a clear 4xx with the right error shape: OpenAI's under /v1, ours under /api.

One real server (small limits: 3 messages, 50 characters, 2,000-byte bodies) serves the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.service.conftest import AppFactory, break_history, serving

USER = {"role": "user", "content": "any open incidents?"}


@dataclass(frozen=True)
class Case:
    id: str
    path: str
    body: Any
    status: int
    code: str
    param: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def chat(**body: Any) -> dict[str, Any]:
    return {"messages": [USER], **body}


def completion(**body: Any) -> dict[str, Any]:
    return {"model": "opsagent", "messages": [USER], **body}


CASES = [
    Case("api-invalid-json", "/api/chat", b"{not json", 400, "invalid_json"),
    Case("api-not-an-object", "/api/chat", [USER], 400, "invalid_json"),
    Case("api-missing-messages", "/api/chat", {}, 400, "missing_parameter", "messages"),
    Case("api-messages-not-a-list", "/api/chat", {"messages": "hello"}, 400, "invalid_type", "messages"),
    Case("api-content-not-a-string", "/api/chat", {"messages": [{"role": "user", "content": 5}]}, 400,
         "invalid_type", "messages[0].content"),
    Case("api-unknown-role", "/api/chat", {"messages": [{"role": "robot", "content": "x"}]}, 400,
         "invalid_value", "messages[0].role"),
    Case("api-unknown-field", "/api/chat", chat(temperature=1), 400, "unsupported_parameter", "temperature"),
    Case("api-empty-messages", "/api/chat", {"messages": []}, 400, "empty_messages", "messages"),
    Case("api-blank-message", "/api/chat", {"messages": [{"role": "user", "content": "  "}]}, 400,
         "empty_message", "messages[0].content"),
    Case("api-message-too-long", "/api/chat", {"messages": [{"role": "user", "content": "x" * 51}]}, 400,
         "message_too_long", "messages[0].content"),
    Case("api-too-many-messages", "/api/chat_dynamic", {"messages": [USER] * 4}, 400, "too_many_messages", "messages"),
    Case("api-last-not-user", "/api/chat", {"messages": [USER, {"role": "assistant", "content": "hi"}]}, 400,
         "last_message_not_user", "messages[1].role"),
    Case("api-bad-conversation-id", "/api/chat", chat(conversation_id="../etc"), 400, "invalid_value",
         "conversation_id"),
    Case("api-body-too-large", "/api/chat", chat(padding="x" * 3000), 413, "request_too_large"),
    Case("api-deeply-nested-json", "/api/chat", b"[" * 1500, 400, "invalid_json"),
    Case("api-lone-surrogate", "/api/chat", b'{"messages": [{"role": "user", "content": "hi \\udfff"}]}', 400,
         "invalid_value", "messages[0].content"),
    Case("api-nul-and-surrogate", "/api/chat", b'{"messages": [{"role": "user", "content": "\\u0000\\ud800 hi"}]}',
         400, "invalid_value", "messages[0].content"),
    Case("api-raw-utf8-surrogate", "/api/chat", b'{"messages": [{"role": "user", "content": "hi \xed\xa0\x80"}]}',
         400, "invalid_value", "messages[0].content"),
    Case("v1-invalid-json", "/v1/chat/completions", b"nope", 400, "invalid_json"),
    Case("v1-deeply-nested-json", "/v1/chat/completions", b'{"model": ' + b"[" * 1500, 400, "invalid_json"),
    Case("v1-lone-surrogate", "/v1/chat/completions",
         b'{"model": "opsagent", "messages": [{"role": "user", "content": "\\udfff"}]}', 400, "invalid_value",
         "messages[0].content"),
    Case("v1-nul-in-text-part", "/v1/chat/completions",
         b'{"model": "opsagent", "messages": [{"role": "user", "content": [{"type": "text", "text": "a\\u0000"}]}]}',
         400, "invalid_value", "messages[0].content"),
    Case("v1-missing-model", "/v1/chat/completions", {"messages": [USER]}, 400, "missing_parameter", "model"),
    Case("v1-unknown-model", "/v1/chat/completions", completion(model="gpt-4o"), 404, "model_not_found", "model"),
    Case("v1-stream-not-bool", "/v1/chat/completions", completion(stream="yes"), 400, "invalid_type", "stream"),
    Case("v1-tools", "/v1/chat/completions", completion(tools=[{"type": "function"}]), 400,
         "unsupported_parameter", "tools"),
    Case("v1-functions", "/v1/chat/completions", completion(functions=[{"name": "f"}]), 400,
         "unsupported_parameter", "functions"),
    Case("v1-n-2", "/v1/chat/completions", completion(n=2), 400, "unsupported_parameter", "n"),
    Case("v1-json-mode", "/v1/chat/completions", completion(response_format={"type": "json_object"}), 400,
         "unsupported_parameter", "response_format"),
    Case("v1-logprobs", "/v1/chat/completions", completion(logprobs=True), 400, "unsupported_parameter", "logprobs"),
    Case("v1-unknown-parameter", "/v1/chat/completions", completion(frobnicate=1), 400, "unsupported_parameter",
         "frobnicate"),
    Case("v1-image-part", "/v1/chat/completions",
         completion(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]),
         400, "invalid_value", "messages[0].content"),
    Case("v1-tool-role", "/v1/chat/completions", completion(messages=[{"role": "tool", "content": "x"}]), 400,
         "invalid_value", "messages[0].role"),
    Case("v1-too-many-messages", "/v1/chat/completions", completion(messages=[USER] * 4), 400, "too_many_messages",
         "messages"),
    Case("v1-last-not-user", "/v1/chat/completions",
         completion(messages=[USER, {"role": "assistant", "content": "a"}]), 400, "last_message_not_user",
         "messages[1].role"),
    Case("v1-body-too-large", "/v1/chat/completions", completion(user="x" * 3000), 413, "request_too_large"),
    Case("v1-wrong-method", "/v1/models", {}, 405, "method_not_allowed"),
    Case("unknown-path", "/api/nothing", {}, 404, "not_found"),
]


@pytest.fixture(scope="module")
def small_limits_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings
    from tests.conftest import scripted_runtime
    from tests.service.conftest import echo_scripts

    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), max_messages=3,
                             max_message_chars=50, max_request_bytes=2000)
    runtime, _ = scripted_runtime(settings, echo_scripts())
    app = create_app(settings, runtime=runtime)
    with serving(app) as url:
        yield url
    close_app(app)


def _post(url: str, case: Case) -> httpx.Response:
    if isinstance(case.body, bytes):
        return httpx.post(url + case.path, content=case.body, headers={"Content-Type": "application/json"})
    return httpx.post(url + case.path, json=case.body)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_validation_refuses_with_clear_error(small_limits_url: str, case: Case) -> None:
    response = _post(small_limits_url, case)
    assert response.status_code == case.status, response.text
    error = response.json()["error"]
    assert error["code"] == case.code
    assert error["param"] == case.param
    assert error["message"] and "Traceback" not in error["message"]
    if case.path.startswith("/v1/"):
        assert error["type"] == "invalid_request_error"
    else:
        assert response.json()["request_id"] == response.headers["X-Request-ID"]


def test_validation_unsupported_content_part_names_its_type(small_limits_url: str) -> None:
    body = completion(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}])
    message = httpx.post(small_limits_url + "/v1/chat/completions", json=body).json()["error"]["message"]
    assert message == "Invalid 'messages[0].content': only text content parts are supported (got 'image_url')."


@pytest.mark.parametrize("body", [
    completion(temperature=0.1, top_p=0.9, max_tokens=50, user="u", n=1, seed=3, stop=["x"]),
    completion(response_format={"type": "text"}, tools=[], tool_choice="none"),
    completion(messages=[{"role": "developer", "content": "be brief"},
                         {"role": "user", "content": [{"type": "text", "text": "any open incidents?"}], "name": "dana"}]),
], ids=["sampling-knobs", "empty-tools-and-text-format", "developer-role-and-text-parts"])
def test_validation_accepts_harmless_openai_parameters(small_limits_url: str, body: dict[str, Any]) -> None:
    response = httpx.post(small_limits_url + "/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"].startswith("Answer: any open incidents?\n\n")


def test_validation_keeps_a_sane_request_id_and_replaces_a_bad_one(live_url: str) -> None:
    kept = httpx.get(live_url + "/healthz", headers={"X-Request-ID": "trace-42"})
    replaced = httpx.get(live_url + "/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert kept.headers["X-Request-ID"] == "trace-42"
    assert replaced.headers["X-Request-ID"] != "bad id\twith spaces" and len(replaced.headers["X-Request-ID"]) == 32


def test_validation_unexpected_error_is_a_500_without_exception_text(make_app: AppFactory, monkeypatch) -> None:
    """A bug must not leak its text; the client gets the request id to quote."""
    app = make_app()
    break_history(app, monkeypatch)
    with serving(app) as url:
        response = httpx.post(url + "/api/chat", json=chat(conversation_id="c1"))
    assert response.status_code == 500
    assert "secret internals" not in response.text
    assert response.headers["X-Request-ID"] in response.json()["error"]["message"]
