"""Intake goes to a real model as hints beside the user's own words: each hint quotes the words it rests on
and says how sure it is, and no hint rests on words the user did not write."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from evals.case import load_cases
from evals.devset import load_devset
from opsagent.intake.analyzer import analyse_question
from opsagent.workflows.prompts import analysis_lines

QUOTED = re.compile(r'^"([^"]+)" = |\(from the words "([^"]+)"\)|\("([^"]+)" matches this name|^part p\d+: "([^"]+)"')
SURE = ("exact", "likely, not certain", "from the words", "a suggestion", "a separate thing", "could not resolve",
        "of the follow-up above", "from the words and the conversation",
        "follow-up", "Current time")


def test_every_hint_quotes_the_users_words_and_says_how_sure_it_is() -> None:
    questions = [(case.question, case.history, case.now) for case in load_cases()]
    questions += [(case.question, case.history, None) for case in load_devset()]
    checked = 0
    for question, history, now in questions:
        analysis = analyse_question(question, history, now=now or load_cases()[0].now)
        said = " ".join([question, *(turn.content for turn in history)]).lower()
        for line in analysis_lines(analysis):
            assert any(word in line for word in SURE), line
            for found in QUOTED.finditer(line):
                quoted = next(group for group in found.groups() if group)
                assert quoted.lower() in said, (question, line)
                checked += 1
    assert checked > 500


def test_a_follow_up_is_rewritten_only_by_an_exact_substitution() -> None:
    previous = "which pipelines failed in the last 24 hours?"
    history = [{"role": "user", "content": previous}, {"role": "assistant", "content": "pl_ingest_sales failed."}]
    from opsagent.contracts.requests import MessageData

    turns = [MessageData.model_validate(item) for item in history]
    now = load_cases()[0].now
    window = analyse_question("and in the last 7 days?", turns, now=now)
    assert window.follow_up is not None
    [line] = [line for line in analysis_lines(window) if line.startswith("follow-up")]
    assert "(exact)" in line and "last 7 days" in line
    narrowed = analyse_question("only the failed ones", turns, now=now)
    lines = [line for line in analysis_lines(narrowed) if line.startswith("follow-up")]
    assert all("(exact)" not in line for line in lines)  # a new filter is not a substitution: no rewrite


def test_a_relation_between_two_kinds_is_a_hint_to_fetch_both_and_pair_them() -> None:
    now = datetime(2025, 1, 10, 9, tzinfo=UTC)
    lines = analysis_lines(analyse_question("which failed pipelines have no ticket yet?", now=now))
    [hint] = [line for line in lines if "relates" in line]
    assert hint.startswith('"have no ticket" relates pipeline records to incident records') and "which have none" in hint
    assert not [line for line in analysis_lines(analyse_question("failed pipelines or open tickets?", now=now))
                if "relates" in line]
