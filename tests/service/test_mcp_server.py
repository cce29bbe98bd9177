"""The MCP endpoint through the real server stack (uvicorn + the ASGI root), driven by the official MCP client.

One server per module: the local model and the demo data (so ``ask_opsagent`` really plans, calls
tools, reviews and checks its answer), with API keys configured as in production.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from flask import Flask
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pydantic import SecretStr

from flask_app import close_app, create_app
from opsagent.agents.specialists import SPECIALISTS
from opsagent.service.mcp_tools import AskResult
from opsagent.service.state import get_state
from opsagent.tools.catalog import BY_NAME
from opsagent.settings import load_settings
from tests.service.conftest import serving_for_real

KEY = "mcp-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
QUESTION = "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?"


@pytest.fixture(scope="module")
def mcp_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("mcp") / "var",
                             opsagent_api_keys=[SecretStr(KEY)])
    app = create_app(settings)
    yield app
    close_app(app)


@pytest.fixture(scope="module")
def mcp_url(mcp_app: Flask) -> Iterator[str]:
    with serving_for_real(mcp_app) as url:
        yield url


def with_client(url: str, use: Any, *, headers: dict[str, str] | None = None, mode: str = "auto") -> Any:
    """Run ``await use(client)`` with the official client over streamable HTTP (mcp 2.x speaks httpx2)."""
    async def main() -> Any:
        async with httpx2.AsyncClient(headers=AUTH if headers is None else headers, timeout=60) as http:
            async with Client(streamable_http_client(url + "/mcp", http_client=http), mode=mode) as client:
                return await use(client)

    return asyncio.run(main())


def maf_tools(app: Flask) -> dict[str, Any]:
    runtime = get_state(app).runtime
    return {tool.name: tool for spec in SPECIALISTS for tool in spec.load_tool_factory()(
        runtime.backends, clock=runtime.clock, max_rows=runtime.settings.tool_max_rows)}


def test_mcp_lists_every_catalogued_read_only_tool_with_its_own_schema_and_ask(mcp_url: str, mcp_app: Flask) -> None:
    async def listing(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in with_client(mcp_url, listing)}
    own = maf_tools(mcp_app)
    assert set(own) == set(BY_NAME) and len(own) == 14 and set(tools) == {*own, "ask_opsagent"}
    for name, maf_tool in own.items():
        assert tools[name].input_schema == maf_tool.parameters(), name
        assert tools[name].description == maf_tool.description
        assert tools[name].annotations.read_only_hint is True and tools[name].annotations.destructive_hint is False
    ask = tools["ask_opsagent"]
    assert ask.annotations.read_only_hint is True and ask.input_schema["required"] == ["question"]
    assert ask.output_schema == AskResult.model_json_schema()


def test_mcp_calls_the_new_tools(mcp_url: str) -> None:
    async def calls(client: Client) -> list[Any]:
        return [await client.call_tool("get_pipeline_history", {"pipeline_name": "pl_ingest_sales"}),
                await client.call_tool("count_pipeline_runs", {"group_by": "factory"}),
                await client.call_tool("find_similar_incidents", {"incident_number": "INC0010054"}),
                await client.call_tool("list_pipeline_runs", {"status": "bogus"})]

    history, counts, similar, bad = with_client(mcp_url, calls)
    assert not history.is_error and history.structured_content["items"][0]["pipeline_name"] == "pl_ingest_sales"
    assert not counts.is_error and {row["factory"] for row in counts.structured_content["items"]} == {
        "adf-prod-weu", "adf-prod-neu"}
    assert not similar.is_error and similar.structured_content["items"][0]["fix_from"] == "close_notes"
    assert not bad.is_error and bad.structured_content["error_kind"] == "bad_arguments", "a tool's own error is a result"


def test_mcp_calls_a_tool_with_typed_arguments_and_refuses_bad_ones(mcp_url: str) -> None:
    async def calls(client: Client) -> list[Any]:
        return [await client.call_tool("list_failed_pipelines", {"time_window": "last 24 hours"}),
                await client.call_tool("get_incident", {}),
                await client.call_tool("get_incident", {"number": 10049}),
                await client.call_tool("delete_everything", {})]

    found, missing, wrong_type, unknown = with_client(mcp_url, calls)
    assert not found.is_error and found.structured_content["status"] == "ok"
    assert found.structured_content["total"] > 0 and found.structured_content["items"][0]["pipeline_name"]
    assert missing.is_error and "number" in missing.content[0].text and "Field required" in missing.content[0].text
    assert wrong_type.is_error and "string" in wrong_type.content[0].text
    assert unknown.is_error and "Unknown tool 'delete_everything'" in unknown.content[0].text


def test_mcp_ask_opsagent_returns_the_direct_answer_evidence_and_grounding(mcp_url: str) -> None:
    async def ask(client: Client) -> Any:
        return await client.call_tool("ask_opsagent", {"question": QUESTION, "workflow": "dynamic"})

    result = with_client(mcp_url, ask)
    assert not result.is_error
    structured = AskResult.model_validate(result.structured_content)
    text = result.content[0].text
    assert structured.answer and text.startswith(structured.answer)
    assert structured.route == "execute" and structured.workflow == "dynamic" and "local-rules" in structured.model
    assert {item.agent for item in structured.evidence} == {"log_analytics", "servicenow"}
    assert "list_failed_pipelines" in text and "| " in text, "compact evidence tables come along"
    assert structured.grounding is not None and structured.grounding.verdict == "pass"
    assert text.endswith(f"Grounding: pass (score {structured.grounding.score:.2f})")


@pytest.mark.parametrize(("arguments", "says"), [
    ({}, "question: Field required"),
    ({"question": ""}, "question: String should have at least 1 character"),
    ({"question": "Any P1?", "workflow": "fastest"}, "workflow: Input should be 'dynamic' or 'triage'"),
    ({"question": "Any P1?", "history": []}, "history: Extra inputs are not permitted"),
    ({"question": "x" * 9000}, "question has 9000 characters; the limit is 8000"),
    ({"question": "why\u0000"}, "question contains a NUL character"),
], ids=["no-question", "empty", "unknown-workflow", "unknown-argument", "too-long", "nul"])
def test_mcp_ask_opsagent_refuses_bad_arguments_as_tool_errors(mcp_url: str, arguments: dict, says: str) -> None:
    async def ask(client: Client) -> Any:
        return await client.call_tool("ask_opsagent", arguments)

    result = with_client(mcp_url, ask)
    assert result.is_error and says in result.content[0].text


def test_mcp_ask_opsagent_is_refused_past_the_admission_bound(mcp_url: str, mcp_app: Flask) -> None:
    admission = get_state(mcp_app).admission
    taken = [slot for slot in iter(admission.try_enter, None)]
    try:
        async def ask(client: Client) -> Any:
            return [await client.call_tool("ask_opsagent", {"question": "Any P1?"}),
                    await client.call_tool("check_snowflake_health", {})]

        busy, tool = with_client(mcp_url, ask)
    finally:
        for slot in taken:
            slot.release()
    assert busy.is_error and "answering as many questions as it can" in busy.content[0].text
    assert not tool.is_error, "a single tool call is cheap and not admitted like a chat"
    assert admission.in_flight == 0


def test_mcp_older_clients_that_only_initialize_are_served(mcp_url: str) -> None:
    async def call(client: Client) -> Any:
        return await client.call_tool("check_databricks_health", {"region": "West Europe"})

    result = with_client(mcp_url, call, mode="legacy")
    assert not result.is_error and result.structured_content["tool"] == "check_databricks_health"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}],
                         ids=["no-key", "wrong-key", "no-bearer-scheme"])
def test_mcp_needs_the_api_key(mcp_url: str, headers: dict[str, str]) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx.post(mcp_url + "/mcp", json=listing, headers={"Accept": "application/json", **headers})
    assert response.status_code == 401 and response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "invalid_api_key" and KEY not in response.text

    async def use(client: Client) -> Any:
        return await client.list_tools()

    with pytest.raises(Exception) as refused:  # the official client gives up on the 401
        with_client(mcp_url, use, headers=headers)
    assert "tools" not in str(refused.value)


@pytest.mark.parametrize(("method", "path", "headers", "status", "code"), [
    ("POST", "/mcp", {"Host": "evil.example"}, 403, "host_not_allowed"),
    ("POST", "/mcp", {"Origin": "https://evil.example"}, 403, "cross_site_request"),
    ("POST", "/mcp/", {}, 404, "not_found"),
    ("POST", "/mcp", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
    ("GET", "/mcp", {"Accept": "text/event-stream"}, 405, "method_not_allowed"),
    ("DELETE", "/mcp", {}, 405, "method_not_allowed"),
], ids=["foreign-host", "cross-site-origin", "trailing-slash", "not-json", "get-stream", "delete-session"])
def test_mcp_keeps_the_service_edges(mcp_url: str, method: str, path: str, headers: dict[str, str], status: int,
                                     code: str) -> None:
    """Refused before the SDK: a stateless server offers no GET stream (which would otherwise hang open)."""
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx.request(method, mcp_url + path, json=listing, timeout=5,
                             headers={**AUTH, "Accept": "application/json", **headers})
    assert response.status_code == status and response.json()["error"]["code"] == code


@pytest.mark.parametrize(("body", "rpc_code"), [
    (b"{not json", -32700), (b"[]", -32602), (b'{"jsonrpc": "2.0", "id": 1, "method": "no/such"}', -32601),
], ids=["not-json", "not-a-request", "unknown-method"])
def test_mcp_malformed_json_rpc_gets_a_json_rpc_error(mcp_url: str, body: bytes, rpc_code: int) -> None:
    response = httpx.post(mcp_url + "/mcp", content=body, timeout=5,
                          headers={**AUTH, "Content-Type": "application/json", "Accept": "application/json"})
    assert response.status_code in (200, 400) and response.json()["error"]["code"] == rpc_code


def test_mcp_raw_json_rpc_works_and_flask_is_served_beside_it(mcp_url: str) -> None:
    """A stateless endpoint answers a bare ``tools/list`` (no session) with JSON and the service's security headers."""
    listing = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    response = httpx.post(mcp_url + "/mcp", json=listing, headers={**AUTH, "Accept": "application/json, text/event-stream",
                                                                   "X-Request-ID": "mcp-req-1"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.headers["X-Request-ID"] == "mcp-req-1"
    assert len(response.json()["result"]["tools"]) == len(BY_NAME) + 1 and "mcp-session-id" not in response.headers
    assert response.headers["X-Frame-Options"] == "DENY"
    assert httpx.get(mcp_url + "/healthz").json() == {"status": "ok"}
    too_big = httpx.post(mcp_url + "/mcp", content=b"{" + b" " * 1_100_000 + b"}",
                         headers={**AUTH, "Content-Type": "application/json"})
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "request_too_large"


def test_mcp_endpoint_needs_no_key_in_local_dev_mode(tmp_path: Path) -> None:
    app = create_app(load_settings({}, env_file=None, data_dir=tmp_path / "var"))
    try:
        with serving_for_real(app) as url:
            async def call(client: Client) -> Any:
                return await client.call_tool("get_incident", {"number": "INC0010049"})

            result = with_client(url, call, headers={})
    finally:
        close_app(app)
    assert not result.is_error and result.structured_content["items"][0]["number"] == "INC0010049"
