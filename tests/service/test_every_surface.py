"""The same question under the same (default) settings gets the same checked answer on every surface:
/api/chat, the chat page's stream, /v1 (model "opsagent"), Teams, MCP ``ask_opsagent`` and the CLI.

One app on the offline model and the demo data, its clock fixed, served over HTTP on a loopback port; the
MCP tool and the CLI are driven in process against the same runtime. The question is the README's first
example; the direct answer must also be the right one (computed from the demo data, not copied).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from flask import Flask

from flask_app import close_app, create_app
from opsagent.backends.demo.seed import ensure_database
from opsagent.cli import _ask
from opsagent.runtime import build_runtime
from opsagent.service.chats import default_workflow
from opsagent.service.mcp_tools import McpCatalogue
from opsagent.service.state import get_state
from opsagent.settings import load_settings
from tests.service.conftest import first_paragraph, serving

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
QUESTION = "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?"
TEAMS = {"type": "message", "channelId": "msteams", "serviceUrl": "https://smba.trafficmanager.net/emea/",
         "from": {"id": "29:user", "name": "Dana Ops"}, "recipient": {"id": "28:bot", "name": "OpsBot"},
         "conversation": {"id": "a:surfaces", "conversationType": "personal"}, "textFormat": "plain",
         "deliveryMode": "expectReplies"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("surfaces"),
                             teams_anonymous_dev=True)
    assert settings.provider == "local" and settings.dynamic_plan  # the defaults, nothing configured
    made = create_app(settings, runtime=build_runtime(settings, clock=lambda: NOW))
    yield made
    close_app(made)


def failed_pipelines(data_dir: Path) -> set[str]:
    """The oracle: pipelines with a failed run in the 24 hours before now (demo times are minute offsets)."""
    connection = sqlite3.connect(f"file:{ensure_database(data_dir)}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT DISTINCT pipeline_name FROM pipeline_runs "
                                  "WHERE status = 'Failed' AND start_min >= -1440 AND start_min < 0").fetchall()
    finally:
        connection.close()
    return {name for (name,) in rows}


def direct(text: str) -> str:
    return first_paragraph(text).strip()


def test_the_readme_question_gets_one_answer_on_every_surface(app: Flask) -> None:
    state = get_state(app)
    answers: dict[str, str] = {}
    with serving(app) as url:
        messages = [{"role": "user", "content": QUESTION}]
        answers["/api/chat"] = httpx.post(url + "/api/chat", json={"messages": messages}, timeout=60).json()["answer"]
        frames = httpx.post(url + "/api/chat/stream", json={"messages": messages}, timeout=60).text.split("\n\n")
        answer_frame = next(frame for frame in frames if frame.startswith("event: answer"))
        answers["chat page"] = json.loads(answer_frame.split("\n", 1)[1].removeprefix("data: "))["answer"]
        completion = httpx.post(url + "/v1/chat/completions", json={"model": "opsagent", "messages": messages},
                                timeout=60).json()
        answers["/v1 opsagent"] = completion["choices"][0]["message"]["content"]
        teams = httpx.post(url + "/api/messages", json={**TEAMS, "id": "act-1", "text": QUESTION}, timeout=60)
        answers["Teams"] = next(item["text"] for item in teams.json()["activities"] if item["type"] == "message")
    catalogue = McpCatalogue.for_state(state, default_workflow=default_workflow(state))  # as the MCP server builds it
    answers["MCP ask_opsagent"] = asyncio.run(catalogue.call("ask_opsagent", {"question": QUESTION})).content[0].text
    out = io.StringIO()
    assert asyncio.run(_ask(state.runtime, QUESTION, workflow=default_workflow(state), as_json=False, out=out)) == 0
    answers["CLI"] = out.getvalue()

    said = {surface: direct(text) for surface, text in answers.items()}
    assert len(set(said.values())) == 1, said
    lead = next(iter(said.values()))
    truth = failed_pipelines(state.settings.data_dir)
    assert truth and set(re.findall(r"\bpl_\w+", lead.split(". Yes", 1)[0])) == truth, lead
