"""The offline model searches the records' text for the words a question quotes — through the real workflow, the
answer checked against the demo data's own incident file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import opsagent.backends.demo as demo
from tests.llm.test_local_honesty import ask

INCIDENTS = json.loads((Path(demo.__file__).with_name("data") / "incidents.json").read_text())["incidents"]
PAST = {"Resolved", "Closed", "Canceled"}


def having(word: str, *, past: bool, fields: tuple[str, ...]) -> set[str]:
    return {row["number"] for row in INCIDENTS if (row["state"] in PAST) == past
            and any(word.lower() in str(row.get(field) or "").lower() for field in fields)}


def calls(answer) -> list[tuple[str, dict]]:
    return [(item.tool, item.arguments) for task in answer.metadata.tasks for item in task.evidence]


@pytest.mark.parametrize("question", ["any past incidents like 'timeout'?", 'seen the error "timeout" before?'])
async def test_quoted_words_find_the_past_incidents_that_have_them(demo_runtime, question: str) -> None:
    expected = having("timeout", past=True, fields=("short", "description", "close_notes"))
    assert expected
    answer = await ask(demo_runtime(), question)
    assert ("find_similar_incidents", {"text": "timeout"}) in [(tool, {k: v for k, v in args.items() if v})
                                                              for tool, args in calls(answer)]
    assert not answer.metadata.offline_unread
    assert {number for number in expected if number in answer.text} == expected
    assert answer.metadata.grounding[-1].verdict == "pass"


async def test_quoted_words_narrow_a_search_of_open_incidents(demo_runtime) -> None:
    expected = having("shir", past=False, fields=("number", "short", "description", "ci"))
    assert expected
    answer = await ask(demo_runtime(), "open incidents mentioning 'SHIR'")
    assert [tool for tool, _ in calls(answer)] == ["list_incidents"]
    assert calls(answer)[0][1]["text"] == "SHIR"
    listed = {row["number"] for row in INCIDENTS if row["number"] in answer.text}
    assert listed == expected


async def test_a_none_from_a_search_of_the_quoted_words_is_kept(demo_runtime) -> None:
    words = "quantum flux capacitor"
    assert not having(words, past=False, fields=("number", "short", "description", "ci"))
    answer = await ask(demo_runtime(), f'any incidents mentioning "{words}"?')
    assert answer.metadata.grounding[-1].verdict == "pass", answer.text
    assert answer.text.startswith("No")


def _squash(text: str) -> str:
    return "".join(char for char in text.lower() if char.isalnum())


def failures_holding(data_dir: Path, pipeline: str, words: str) -> int:
    """Failures of ``pipeline`` in the demo history (14 days) whose kind of failure holds ``words``: the oracle, read
    from the demo SQLite file (a kind is its code, failed activity and type; its words, those and its latest message)."""
    import sqlite3
    from datetime import timedelta

    from opsagent.backends.demo.seed import ensure_database

    connection = sqlite3.connect(ensure_database(data_dir))
    try:
        rows = connection.execute(
            "SELECT r.error_code, a.activity_name, r.failure_type, r.error_message FROM pipeline_runs r "
            "JOIN activity_runs a ON a.run_id = r.run_id AND a.status = 'Failed' WHERE r.pipeline_name = ? "
            "AND r.status = 'Failed' AND r.start_min >= ? ORDER BY r.start_min",
            (pipeline, -timedelta(days=14) / timedelta(minutes=1))).fetchall()
    finally:
        connection.close()
    kinds: dict[tuple, list[str]] = {}
    for code, activity, kind, message in rows:
        kinds.setdefault((code, activity, kind), []).append(message)
    return sum(len(messages) for key, messages in kinds.items() if _squash(words) in _squash(" ".join([*key, messages[-1]])))


@pytest.mark.parametrize("words", ["file not found", "quantum flux"])
async def test_failed_with_quoted_words_before_reads_the_pipelines_failures(demo_runtime, local_settings,
                                                                            words: str) -> None:
    runtime = demo_runtime()
    expected = failures_holding(local_settings.data_dir, "pl_ingest_sales", words)
    answer = await ask(runtime, f"has pl_ingest_sales failed with '{words}' before?")
    assert ("get_pipeline_history", {"pipeline_name": "pl_ingest_sales", "error_text": words}) in [
        (tool, {k: v for k, v in args.items() if v}) for tool, args in calls(answer)]
    assert not answer.metadata.offline_unread
    assert answer.metadata.grounding[-1].verdict == "pass", answer.text
    if expected:
        assert answer.text.startswith("Yes") and f"{expected} failures" in answer.text
    else:
        assert answer.text.startswith("No")


async def test_failures_with_quoted_words_are_the_runs_whose_error_holds_them(demo_runtime, local_settings) -> None:
    import sqlite3

    from opsagent.backends.demo.seed import ensure_database

    connection = sqlite3.connect(ensure_database(local_settings.data_dir))
    try:
        rows = connection.execute("SELECT pipeline_name, error_code, error_message FROM pipeline_runs "
                                  "WHERE status = 'Failed' AND start_min >= ?", (-7 * 24 * 60,)).fetchall()
    finally:
        connection.close()
    holding = {name for name, code, message in rows if "timeout" in _squash(f"{code} {message}")}
    others = {name for name, _, _ in rows} - holding
    assert holding and others, "the demo week has failures with and without a timeout"
    answer = await ask(demo_runtime(), "which pipelines failed with 'timeout' in the last 7 days?")
    assert not answer.metadata.offline_unread and answer.metadata.grounding[-1].verdict == "pass", answer.text
    published = answer.text.split("**Evidence**")[0]
    assert {name for name in holding | others if name in published} == holding
