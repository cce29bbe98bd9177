"""Review mode: re-ask for the parts the review found missing, when asking again can help.

A missing part whose task failed for a transient reason is asked again, same specialist, same
question; a part no task covered goes to the specialist its text is about. A producer asked again
takes its step-2 consumers with it (they had nothing to build on the first time).
"""

from __future__ import annotations

from opsagent.contracts.role_inputs import ReplanInput
from opsagent.local_model.detect import TypoFixer, analyse
from opsagent.local_model.knowledge import Knowledge
from opsagent.local_model.shape import polish, question_for


def _retry_tasks(role_input: ReplanInput, knowledge: Knowledge, fixer: TypoFixer) -> list[dict]:
    plan: list[dict] = []
    for gap in role_input.gaps:
        if not gap.retryable:
            continue
        earlier = [result for result in role_input.results if gap.part in result.part.split(",")]
        if earlier:
            plan += [{"step": 1, "agent": result.agent, "question": result.question, "part": gap.part}
                     for result in earlier if result.step == 1 or not result.succeeded][:1]
            continue
        analysis = analyse(gap.text, knowledge, fixer, role_input.analysis.times)
        plan += [{"step": 1, "agent": name, "question": polish(question_for(analysis, name, knowledge)), "part": gap.part}
                 for name in analysis.selected[:1]]
    return plan


def _consumers(role_input: ReplanInput, plan: list[dict]) -> list[dict]:
    if not plan or not any(result.step > 1 for result in role_input.results):
        return []
    planned = {task["part"] for task in plan}
    return [{"step": 2, "agent": result.agent, "question": result.question, "part": result.part}
            for result in role_input.results if result.step > 1 and result.part not in planned]


def review_mode_output(role_input: ReplanInput, knowledge: Knowledge, fixer: TypoFixer) -> dict:
    """``ReviewModeOutput`` as a JSON-ready dict."""
    registered = {item.name for item in role_input.specialists}
    plan = [task for task in _retry_tasks(role_input, knowledge, fixer) if task["agent"] in registered]
    if plan:
        return {"accept_review": True, "new_plan": plan + _consumers(role_input, plan), "rejection_reason": ""}
    reasons = "; ".join(f"{gap.part}: {gap.reason}" for gap in role_input.gaps) or "the review names no gap a specialist can fill"
    return {"accept_review": False, "new_plan": [], "rejection_reason": f"Declined the retry: {reasons}."}
