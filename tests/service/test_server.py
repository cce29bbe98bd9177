"""``opsagent serve`` (what ``make run`` starts): uvicorn on loopback, the local model and demo data."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from opsagent.settings import PROJECT_ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def first_line(stream, timeout: float) -> str:
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return line[0].strip() if line else ""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    port = free_port()
    env = {**os.environ, "DATA_DIR": str(tmp_path / "var"), "LLM_PROVIDER": "local", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "opsagent", "serve", "--port", str(port)], cwd=PROJECT_ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield first_line(process.stdout, timeout=30), f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        process.stdout.close()


def test_server_prints_url_and_answers_with_the_local_model(served: tuple[str, str]) -> None:
    banner, url = served
    assert banner == f"OpsAgent listening on {url} (model: local-rules, data: demo)"
    assert httpx.get(url + "/healthz").headers["Server"] == "uvicorn"
    ready = httpx.get(url + "/readyz").json()
    assert ready["backends"] == {"servicenow": "demo", "log_analytics": "demo", "service_health": "demo"}
    client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
    assert {m.model_extra["opsagent"]["model"] for m in client.models.list()} == {"local-rules"}
    question = [{"role": "user", "content": "Which pipelines failed in the last 24 hours?"}]
    answer = client.chat.completions.create(model="opsagent-dynamic", messages=question)
    assert "pl_ingest_sales" in answer.choices[0].message.content
    deltas = [c.choices[0].delta for c in client.chat.completions.create(
        model="opsagent", messages=question, stream=True) if c.choices]
    streamed = "".join(delta.content or "" for delta in deltas)
    thinking = "".join((delta.model_extra or {}).get("reasoning_content") or "" for delta in deltas)
    assert thinking.startswith("Understood: in the last 24 hours = ") and "\nPlan:" in thinking
    assert streamed.startswith(answer.choices[0].message.content[:20]) and "pl_ingest_sales" in streamed
