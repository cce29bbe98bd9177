"""Streaming against a real model: the real app on loopback, ``/v1/chat/completions`` and ``/api/chat/stream``.

Checks what a person watching a slow model sees: the first event arrives at once, the longest
silence between events stays near ``PROGRESS_KEEPALIVE_SECONDS``, and the stream ends with an
answer (OpenAI: content, ``finish_reason`` stop, usage, ``[DONE]``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from pydantic import BaseModel
from flask import Flask
from werkzeug.serving import make_server

from opsagent.service.app import close_app, create_app
from opsagent.settings import Settings

STREAM_QUESTION = "Is Databricks or Snowflake degraded right now?"


class StreamCheck(BaseModel):
    endpoint: str
    question: str
    passed: bool
    status: int = 0
    seconds: float = 0.0
    first_event_seconds: float = 0.0
    progress_events: int = 0
    keepalive_events: int = 0
    longest_silence_seconds: float = 0.0
    answer_chars: int = 0
    detail: str = ""


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """A real threaded WSGI server for ``app`` on 127.0.0.1 and a free port; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _sse_frames(response: httpx.Response) -> Iterator[tuple[str, str]]:
    """(event, data) per frame; the event is "" for unnamed frames."""
    event, data = "", []
    for line in response.iter_lines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            yield event, "\n".join(data)
            event, data = "", []


def _timed(frames: Iterator[tuple[str, str]], check: StreamCheck, started: float) -> Iterator[tuple[str, str]]:
    last = started
    for frame in frames:
        now = time.perf_counter()
        if not check.first_event_seconds:
            check.first_event_seconds = round(now - started, 2)
        check.longest_silence_seconds = round(max(check.longest_silence_seconds, now - last), 1)
        last = now
        yield frame


def check_openai_stream(base_url: str, timeout: float, question: str = STREAM_QUESTION) -> StreamCheck:
    check = StreamCheck(endpoint="/v1/chat/completions", question=question, passed=False)
    body = {"model": "opsagent-dynamic", "stream": True, "messages": [{"role": "user", "content": question}],
            "stream_options": {"include_usage": True}}
    started = time.perf_counter()
    content, finish, usage, done = "", None, None, False
    with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=body, timeout=timeout) as response:
        check.status = response.status_code
        for _, data in _timed(_sse_frames(response), check, started):
            if data == "[DONE]":
                done = True
                continue
            chunk = json.loads(data)
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices", []):
                piece = (choice.get("delta") or {}).get("content") or ""
                check.progress_events += piece.startswith("> - ")
                check.keepalive_events += piece.startswith("> - Still working")
                content += piece
                finish = choice.get("finish_reason") or finish
    answer = content.split("\n\n", 1)[-1] if "> - " in content else content
    check.answer_chars = len(answer.strip())
    check.seconds = round(time.perf_counter() - started, 1)
    check.passed = check.status == 200 and done and finish == "stop" and bool(usage) and check.answer_chars > 0
    check.detail = f"finish_reason={finish}, usage={usage}, [DONE]={done}"
    return check


def check_chat_stream(base_url: str, timeout: float, question: str = STREAM_QUESTION) -> StreamCheck:
    check = StreamCheck(endpoint="/api/chat/stream", question=question, passed=False)
    body = {"messages": [{"role": "user", "content": question}], "workflow": "dynamic"}
    started = time.perf_counter()
    answer: dict | None = None
    kinds: list[str] = []
    with httpx.stream("POST", f"{base_url}/api/chat/stream", json=body, timeout=timeout) as response:
        check.status = response.status_code
        for event, data in _timed(_sse_frames(response), check, started):
            payload = json.loads(data)
            if event == "progress":
                kinds.append(payload.get("kind", ""))
            elif event == "answer":
                answer = payload
            elif event == "error":
                check.detail = f"error event: {payload}"
    check.progress_events = len(kinds)
    check.keepalive_events = kinds.count("working")
    check.answer_chars = len((answer or {}).get("answer", ""))
    check.seconds = round(time.perf_counter() - started, 1)
    check.passed = check.status == 200 and answer is not None and check.answer_chars > 0
    route = ((answer or {}).get("metadata") or {}).get("route")
    check.detail = check.detail or f"route={route}, progress kinds={sorted(set(kinds))}"
    return check


def run_stream_checks(settings: Settings, data_dir: Path) -> list[StreamCheck]:
    """Both streaming endpoints of the real app, one question each, against the configured model."""
    served = settings.model_copy(update={"data_dir": data_dir, "dynamic_plan": True})
    timeout = served.request_timeout_seconds + 30
    app = create_app(served)
    try:
        with serving(app) as base_url:
            return [check_openai_stream(base_url, timeout), check_chat_stream(base_url, timeout)]
    finally:
        close_app(app)
