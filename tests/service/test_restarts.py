"""Restarts with promised Teams follow-ups, on real server processes (``python -m opsagent serve``).

The model is a loopback Chat Completions fake whose planner answers after 1 s ("slow ..."), never
in time ("hang ..."), or with a 401 that echoes the API key ("fail ..."); the Bot Framework
connector is a loopback fake. Server A promises a follow-up and is SIGKILLed; server B (two
workers, same DATA_DIR) apologises for it at start, promises two more, and is sent SIGTERM: it
delivers the slow answer within the drain time, apologises for the hanging one, and exits.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evals.loopback import chat_completions_server
from opsagent.service.follow_ups import RESTARTED
from opsagent.settings import PROJECT_ROOT
from tests.backends.fake_servers import FakeServer, Recorded, Reply, json_reply
from tests.llm.test_openai_wire import reply_to
from tests.service.conftest import poll
from tests.service.test_server import first_line, free_port
from tests.service.test_teams_bot import activity

API_KEY = "sk-test-ECHOED-0123456789abcdef"
DRAIN_SECONDS = 2.0
STILL_WORKING = "Still working on it"


def _model_reply(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    asked = json.dumps(body["messages"][-1])  # the question, not the system prompt's wording
    if schema == "UserModeOutput" and "fail " in asked:
        return 401, {"error": {"message": f"Incorrect API key provided: {API_KEY}.", "type": "invalid_request_error"}}
    if schema == "UserModeOutput" and "hang " in asked:
        time.sleep(60)  # longer than the test: the drain has to give up on it
    elif schema == "UserModeOutput" and "slow " in asked:
        time.sleep(1.0)  # past the 0.3 s reply window, well within the drain
    return 200, reply_to(body)


@pytest.fixture
def fake_model() -> Iterator[str]:
    with chat_completions_server(_model_reply) as server:  # its reply threads never hold up the teardown
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"


class Connector(FakeServer):
    """A Bot Framework connector that accepts every activity (proactive replies go to fresh ids)."""

    def _next_reply(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
        return json_reply({"id": "sent"})


@pytest.fixture
def connector() -> Iterator[FakeServer]:
    fake = Connector().start()
    yield fake
    fake.stop()


class ServerProcess:
    """``python -m opsagent serve`` on a free port, its stderr (JSON logs) in a file."""

    def __init__(self, tmp_path: Path, name: str, *, fake_model: str, workers: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp_path / f"{name}.log"
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_", "LLM_", "BOT_"))}
        env = {**clean, "DATA_DIR": str(tmp_path / "var"), "LLM_PROVIDER": "openai", "OPENAI_BASE_URL": fake_model,
               "OPENAI_API_KEY": API_KEY, "OPENAI_MODEL": "fake-model", "DYNAMIC_PLAN": "true",
               "TEAMS_ANONYMOUS_DEV": "true", "TEAMS_REPLY_WINDOW_SECONDS": "0.3", "REQUEST_TIMEOUT_SECONDS": "120",
               "DRAIN_TIMEOUT_SECONDS": str(DRAIN_SECONDS), "SERVER_WORKERS": str(workers), "PYTHONUNBUFFERED": "1"}
        with self.log.open("w") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "opsagent", "serve", "--port", str(self.port)],
                                            cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
        assert first_line(self.process.stdout, timeout=60).startswith("OpsAgent listening on"), self.log.read_text()
        poll(self._answers, timeout=60, what="the server to answer")

    def _answers(self) -> bool:
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        self.process.stdout.close()


def ask_teams(server: ServerProcess, connector: FakeServer, text: str, conversation: str) -> None:
    # a group chat: no stream, whose 1 s Teams pacing (not settable in a server process) would only slow this down;
    # the promise is the same after a stream (test_teams_streaming covers that path)
    body = activity(text, service_url=connector.url + "/", expect_replies=False, conversation=conversation,
                    conversation_type="groupChat")
    assert httpx.post(server.url + "/api/messages", json=body, timeout=20).status_code == 202
    said(connector, conversation, STILL_WORKING)


def said(connector: FakeServer, conversation: str, start: str, timeout: float = 20) -> list[Recorded]:
    """Wait for a message in ``conversation`` whose text starts with ``start``."""
    def matching() -> list[Recorded]:
        return [r for r in list(connector.requests) if f"/conversations/{conversation}/" in r.path
                and r.json().get("type") == "message" and str(r.json().get("text", "")).startswith(start)]

    return poll(matching, timeout=timeout, what=f"{start!r} in {conversation}")


def pending_rows(data_dir: Path) -> int:
    path = data_dir / "conversations.sqlite3"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM pending_follow_ups").fetchone()[0]


def test_restarts_keep_the_teams_follow_up_promise(tmp_path: Path, fake_model: str, connector: FakeServer) -> None:
    first = ServerProcess(tmp_path, "a", fake_model=fake_model, workers=1)
    try:
        ask_teams(first, connector, "hang before the kill", "a:killed")
        poll(lambda: pending_rows(tmp_path / "var") == 1, timeout=10, what="the promise to be stored")
    finally:
        first.stop()  # SIGKILL: no drain, no apology from this process

    second = ServerProcess(tmp_path, "b", fake_model=fake_model, workers=2)
    try:
        said(connector, "a:killed", RESTARTED)  # sent at start-up by the next process
        ask_teams(second, connector, "slow but within the drain", "a:slow")
        ask_teams(second, connector, "hang through the drain", "a:hang")
        failed = httpx.post(second.url + "/api/chat", json={"messages": [{"role": "user", "content": "fail now"}]},
                            timeout=20)
        second.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        second.process.wait(DRAIN_SECONDS + 25)
        drain_seconds = time.monotonic() - signalled
        print(f"SIGTERM to exit: {drain_seconds:.1f} s")
    finally:
        second.stop()

    assert "INC0010049" in said(connector, "a:slow", "INC0010049", timeout=1)[0].json()["text"]  # delivered in time
    said(connector, "a:hang", RESTARTED, timeout=1)
    assert drain_seconds < DRAIN_SECONDS + 12, f"SIGTERM to exit took {drain_seconds:.1f} s"
    assert pending_rows(tmp_path / "var") == 0
    assert failed.status_code == 502 and failed.json()["error"]["code"] == "model_unavailable"
    logs = first.log.read_text() + second.log.read_text()
    assert API_KEY not in logs and "[REDACTED]" in logs, "the echoed key is redacted, the failure still logged"
    assert "HTTP Request:" not in logs, "httpx's per-request INFO lines (URLs with query text) are off"
