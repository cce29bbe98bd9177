"""Review: is every specialist the question needs covered by a result that did not fail?

A gap is only reported when a retry could fill it: a missing specialist, a failed or timed-out
task, a named platform nobody checked, or a task whose tool calls all failed for a transient
reason. "Not found" and "bad arguments" are answers, not gaps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opsagent.llm.local.detect import TypoFixer, analyse
from opsagent.llm.local.inputs import ReviewInput, TaskBlock
from opsagent.llm.local.knowledge import Knowledge
from opsagent.llm.local.shape import question_for, target_questions

ALL_CALLS_FAILED = re.compile(r"_0 of \d+ tool calls succeeded")
PERMANENT_FAILURES = ("(not_found)", "(bad_arguments)", "(not_authorised)")


@dataclass(frozen=True)
class Gap:
    agent: str
    aspect: str
    question: str


def _usable(block: TaskBlock) -> bool:
    if block.status != "ok":
        return False
    if ALL_CALLS_FAILED.search(block.response):
        return any(marker in block.response for marker in PERMANENT_FAILURES)
    return True


def find_gaps(review: ReviewInput, knowledge: Knowledge, fixer: TypoFixer) -> list[Gap]:
    analysis = analyse(review.question, knowledge, fixer)
    asked = analysis.selected or tuple(dict.fromkeys(block.agent for block in review.results))
    gaps: list[Gap] = []
    for name in asked:
        hints = knowledge.by_name(name)
        topic = hints.topic if hints else name
        blocks = [block for block in review.results if block.agent == name]
        usable = [block for block in blocks if _usable(block)]
        if not usable:
            why = "no result" if not blocks else "the task failed"
            gaps.append(Gap(name, f"{topic} ({why})", question_for(analysis, name, knowledge)))
            continue
        covered = " ".join(block.response for block in usable).lower()
        for question in target_questions(analysis, name, knowledge):
            target = question.split(" healthy", 1)[0].removeprefix("Is ")
            if target.lower() not in covered:
                gaps.append(Gap(name, f"{target} ({topic})", question))
    return gaps


def review_output(review: ReviewInput, knowledge: Knowledge, fixer: TypoFixer) -> dict:
    """``ReviewOutput`` as a JSON-ready dict."""
    gaps = find_gaps(review, knowledge, fixer)
    ok = sum(1 for block in review.results if _usable(block))
    if not gaps:
        return {"is_complete": True, "summary": f"All parts of the question are covered by {ok} usable result(s).",
                "missing_aspects": [], "suggested_approach": "", "confidence": 0.8}
    return {
        "is_complete": False,
        "summary": f"{len(gaps)} part(s) of the question are not covered yet.",
        "missing_aspects": [gap.aspect for gap in gaps],
        "suggested_approach": " ".join(f"Ask {gap.agent}: {gap.question}" for gap in gaps),
        "confidence": 0.7,
    }
