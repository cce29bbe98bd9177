"""Slow and broken clients against the production stack (uvicorn + ASGI root + a2wsgi), on loopback.

One server for the module, with only 4 worker threads: 80 clients trickling headers or bodies
must cost no thread (the I/O loop buffers them), so /healthz and a chat still answer at once.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from flask import Flask

from opsagent.contracts.role_inputs import read_role_input
from tests.fakes import task_question
from tests.service.conftest import (echo_answer, echo_review, echo_scripts, first_paragraph, model_calls, poll,
                                    serving_for_real)

SLOW_CLIENTS = 80
CHAT = {"messages": [{"role": "user", "content": "any open incidents?"}]}
FINISHED_REVIEWS: list[str] = []


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str]]:
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings
    from tests.conftest import scripted_runtime

    async def slow_specialist(messages: list[Any], options: dict[str, Any]) -> Any:
        if "slow" in task_question(messages):
            await asyncio.sleep(0.5)
        return echo_answer(messages, options)

    async def slow_review(messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.5)
        FINISHED_REVIEWS.append(read_role_input(messages).question)
        return echo_review(messages, options)

    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), server_threads=4,
                             max_chats_in_flight=2, max_request_bytes=2000, request_read_timeout_seconds=0.5,
                             drain_timeout_seconds=1.0)
    runtime, _ = scripted_runtime(settings, echo_scripts(servicenow=slow_specialist, review=slow_review))
    app = create_app(settings, runtime=runtime)
    with serving_for_real(app) as url:
        yield app, url
    close_app(app)


def _address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def _open_slow_clients(url: str, stack: ExitStack, head: bytes) -> list[socket.socket]:
    clients = []
    for _ in range(SLOW_CLIENTS):
        client = stack.enter_context(socket.create_connection(_address(url), timeout=5))
        client.sendall(head)
        clients.append(client)
    return clients


def _timed_get(url: str) -> tuple[int, float]:
    started = time.monotonic()
    response = httpx.get(url, timeout=5)
    return response.status_code, time.monotonic() - started


@pytest.mark.parametrize("head", [
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-1: a\r\n",
    b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"mess",
], ids=["slow-headers", "slow-bodies"])
def test_slow_clients_hold_no_worker_thread(real_server: tuple[Flask, str], head: bytes) -> None:
    """80 clients that send part of a request and then one header (or byte) every so often."""
    app, url = real_server
    with ExitStack() as stack:
        clients = _open_slow_clients(url, stack, head)
        for client in clients:  # still trickling
            client.sendall(b"X-Slow-2: b\r\n" if b"GET" in head else b"s")
        for _ in range(3):
            status, seconds = _timed_get(url + "/healthz")
            assert status == 200 and seconds < 1.0, f"/healthz took {seconds:.2f} s behind {SLOW_CLIENTS} slow clients"
        chat = httpx.post(url + "/api/chat", json=CHAT, timeout=10)
        assert chat.status_code == 200 and first_paragraph(chat.json()["answer"]) == "Answer: any open incidents?"


def test_slow_body_gets_a_json_408_after_the_read_timeout(real_server: tuple[Flask, str]) -> None:
    _, url = real_server
    with socket.create_connection(_address(url), timeout=5) as client:
        client.sendall(b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 100\r\n\r\n{")
        reply = _read_reply(client)
    assert reply.startswith(b"HTTP/1.1 408 ")
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "request_timeout"


def _read_reply(client: socket.socket) -> bytes:
    chunks = []
    while chunk := client.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(("request_bytes", "status", "code"), [
    (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
     b"Content-Length: 50000000\r\n\r\n", 413, "request_too_large"),
    (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 20_000, 431, "headers_too_large"),
    (b"GET /" + b"x" * 20_000, 414, "uri_too_long"),
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "bad_request"),
], ids=["declared-50-mb-body", "20-kb-of-headers-so-far", "20-kb-of-request-line-so-far", "garbage"])
def test_refusals_before_the_app_runs_are_json(real_server: tuple[Flask, str], request_bytes: bytes, status: int,
                                               code: str) -> None:
    """Answered by the server layer (no body is read, no thread is used), in the service's error shape."""
    _, url = real_server
    with socket.create_connection(_address(url), timeout=5) as client:
        client.sendall(request_bytes)
        reply = _read_reply(client)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), head
    assert b"content-type: application/json" in head.lower() and b"x-frame-options: deny" in head.lower()
    error = json.loads(body)["error"]
    assert error["code"] == code
    if status == 413:  # under /v1 the OpenAI error shape
        assert error["type"] == "invalid_request_error"


def test_a_stream_whose_client_left_stops_and_cancels_its_work(real_server: tuple[Flask, str]) -> None:
    """The dynamic workflow plans, runs a slow step, then a slow review. A client that leaves during the
    step is noticed at the step's next frame, and the work is cancelled: the review never finishes."""
    app, url = real_server
    finished_before = len(FINISHED_REVIEWS)
    body = {"messages": [{"role": "user", "content": "slow question"}], "workflow": "dynamic"}
    with httpx.stream("POST", url + "/api/chat/stream", json=body, timeout=10) as response:
        for line in response.iter_lines():
            if line.startswith("data:") and "asking servicenow" in line:
                break  # the slow step has started: hang up
    poll(lambda: app.extensions["opsagent"].admission.in_flight == 0, timeout=10, what="the stream's slot to be freed")
    time.sleep(1.0)  # had the work gone on, the review would have finished by now
    assert len(FINISHED_REVIEWS) == finished_before


def test_real_server_answers_chats_and_streams(real_server: tuple[Flask, str]) -> None:
    app, url = real_server
    before = model_calls(app)
    streamed = httpx.post(url + "/api/chat/stream", json=CHAT, timeout=10)
    assert streamed.status_code == 200 and "event: answer" in streamed.text
    assert model_calls(app) > before


def test_asgi_root_has_a_seam_for_another_app(real_server: tuple[Flask, str]) -> None:
    """A later ASGI app (an MCP endpoint, say) mounts at a path prefix next to Flask."""
    from opsagent.service.asgi import OpsAgentAsgi

    async def mounted(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": f"mounted {scope['path']}".encode()})

    app, _ = real_server
    root = OpsAgentAsgi(app, mounts={"/mcp": mounted}, owns_app=False)
    transport = httpx.ASGITransport(app=root)

    async def ask(path: str) -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.get(path)

    assert asyncio.run(ask("/mcp/tools")).text == "mounted /mcp/tools"
    assert asyncio.run(ask("/mcpx")).status_code == 404  # a prefix is a path segment, not a string start
    assert asyncio.run(ask("/healthz")).json() == {"status": "ok"}
