"""Review mode: act on the reviewer's gap only when a registered specialist can fill it.

The reviewer's suggested approach reads "Ask <agent>: <question>"; any registered agent it names
(or whose vocabulary the missing aspects use) gets a task. The gap must belong to the user's
question, otherwise the review is declined with a reason.
"""

from __future__ import annotations

import re

from opsagent.llm.local.detect import TypoFixer, analyse
from opsagent.llm.local.inputs import ReviewInput
from opsagent.llm.local.knowledge import Knowledge
from opsagent.llm.local.shape import consumer_question, dependency, polish, question_for

_ASK = re.compile(r"Ask ([a-z][a-z0-9_]*): (.+?)(?=\s+Ask [a-z][a-z0-9_]*: |$)", re.DOTALL)


def _asks(review: ReviewInput, knowledge: Knowledge, fixer: TypoFixer) -> list[tuple[str, str]]:
    """(agent, question) pairs the reviewer proposes, explicit ones first."""
    asks = [(agent, text.strip()) for agent, text in _ASK.findall(review.suggested)]
    if asks:
        return asks
    named = [hints.name for hints in knowledge.specialists if hints.name in review.suggested]
    if not named:
        named = list(analyse(" ".join(review.missing), knowledge, fixer).selected)
    question = analyse(review.question, knowledge, fixer)
    return [(name, question_for(question, name, knowledge)) for name in named]


def review_mode_output(review: ReviewInput, knowledge: Knowledge, fixer: TypoFixer) -> dict:
    """``ReviewModeOutput`` as a JSON-ready dict."""
    registered = {hints.name for hints in knowledge.specialists}
    asked = set(analyse(review.question, knowledge, fixer).selected) or {block.agent for block in review.results}
    plan, declined = [], []
    for agent, question in _asks(review, knowledge, fixer):
        if agent not in registered:
            declined.append(f"no registered specialist called {agent!r}")
        elif agent not in asked:
            declined.append(f"{agent} was not part of the user's question")
        else:
            plan.append({"step": 1, "agent": agent, "question": polish(question)})
    if plan:
        return {"accept_review": True, "new_plan": plan + _rerun_consumers(review, plan, knowledge, fixer),
                "rejection_reason": ""}
    reason = "; ".join(declined) or "the review names no gap a specialist can fill"
    return {"accept_review": False, "new_plan": [], "rejection_reason": f"Declined the retry: {reason}."}


def _rerun_consumers(review: ReviewInput, plan: list[dict], knowledge: Knowledge, fixer: TypoFixer) -> list[dict]:
    """A producer that is asked again takes its consumers with it: they got nothing to build on the
    first time ("failed pipelines, and incidents for them" after the pipeline step failed)."""
    analysis = analyse(review.question, knowledge, fixer)
    link = dependency(analysis, analysis.selected, knowledge)
    planned = {step["agent"] for step in plan}
    if link is None or link.producer not in planned:
        return []
    return [{"step": 2, "agent": name, "question": consumer_question(analysis, name, link.producer, knowledge)}
            for name in link.consumers if name not in planned and knowledge.by_name(name)]
