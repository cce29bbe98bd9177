"""Real-model replies, recorded (``make record-real``) and replayed on every change (``evals/cassettes.py``).

Each cassette is one eval case answered by Qwen2.5-Coder-1.5B through the OpenAI-compatible path: the
planner's JSON, the specialists' tool calls (native or written as text), the reviewer's answer. Replayed,
they go through this commit's parsing, repair, tool execution on the demo data, coverage and grounding. A
request whose body differs from the recorded one (a prompt changed) has no reply and fails the test:
re-record then. Every reply must be used, and no answer may be wrong (``evals/verdict.py``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evals.cassettes import CASSETTES_DIR, load_recorded_subset, run_recorded

SUBSET = load_recorded_subset()
RECORDED = [item for item in SUBSET if (CASSETTES_DIR / f"{item.id}.yaml").exists()]


def test_every_answer_shape_has_a_recorded_conversation() -> None:
    assert {item.shape for item in RECORDED} == {item.shape for item in SUBSET}, \
        f"not recorded: {sorted({item.id for item in SUBSET} - {item.id for item in RECORDED})} (make record-real)"


@pytest.mark.parametrize("case_id", [item.id for item in RECORDED])
def test_a_recorded_conversation_replays_to_an_answer_that_is_not_wrong(case_id: str, tmp_path: Path) -> None:
    result, played, all_played = asyncio.run(run_recorded(case_id, "none", tmp_path))
    assert played >= 1 and all_played, f"{played} recorded replies used; a prompt changed? (make record-real)"
    assert result.verdict != "wrong", (result.wrong_because, result.answer[:400])
    assert result.ungrounded == [], result.ungrounded
