"""Right / honest / wrong, judged from the case's truth (``evals/verdict.py``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evals.case import EvalCase
from evals.checks import run_checks
from evals.verdict import verdict_of
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.results import Answer, AnswerMetadata

NOW = datetime(2025, 1, 10, 9, tzinfo=UTC)


def _case(**expect: object) -> EvalCase:
    return EvalCase.model_validate({"id": "x", "question": "q", "tags": ["easy"], "expect": expect})


def _answer(summary: str, route: str = "execute") -> Answer:
    analysis = QuestionAnalysis(question="q", resolved_question="q", now=NOW)
    return Answer(text=summary, summary=summary,
                  metadata=AnswerMetadata(workflow="dynamic", route=route, analysis=analysis))


def _verdict(case: EvalCase, answer: Answer) -> str:
    return verdict_of(case, answer, run_checks(case, answer))[0]


@pytest.mark.parametrize(("expect", "summary", "route", "verdict"), [
    ({"route": "execute", "answer_first": ["Yes"]}, "Yes — one is open.", "execute", "right"),
    ({"route": "execute", "answer_first": ["Yes"]}, "No — nothing matched.", "execute", "wrong"),
    # "No" inside a word or later in the sentence is no lead
    ({"route": "execute", "answer_first": ["No"]}, "Yes — 1 run failed; normal otherwise.", "execute", "wrong"),
    ({"route": "execute", "answer_first": ["3"]}, "I couldn't read 'blorp'.", "clarify", "honest"),
    ({"route": "execute", "facts": ["INC0010052"], "forbidden": ["operational"]},
     "Databricks is operational.", "execute", "wrong"),
    ({"route": "action", "facts": ["read-only"]}, "INC0010052 is In Progress.", "execute", "wrong"),
    ({"route": "action", "facts": ["read-only"]}, "I can't do that: I'm read-only.", "action", "right"),
    ({"route": "clarify"}, "Here are all open incidents.", "execute", "wrong"),
    ({"route": "execute", "facts": ["INC0010052"]}, "Which incident do you mean?", "clarify", "honest"),
])
def test_verdicts(expect: dict, summary: str, route: str, verdict: str) -> None:
    assert _verdict(_case(**expect), _answer(summary, route)) == verdict


def test_a_direct_answer_naming_ids_outside_the_truth_is_wrong() -> None:
    case = _case(route="execute", conclusion={"names": ["INC0010049"]})
    assert _verdict(case, _answer("INC0010049 and INC0010050 are open.")) == "wrong"
