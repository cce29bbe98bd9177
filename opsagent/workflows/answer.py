"""aggregate: the final answer from a grounded draft; adds no facts of its own.

A passed draft is published as written (direct answer, facts), with the limitations the run
collected and one evidence line per tool call. A partly supported draft is published without the
sentences the grounding check could not back, and the limitations say what was left out in the
product's words. A blocked draft (nothing supported left) gets a visible warning and the evidence.
The model's own words never appear unchecked: not above the warning, not under Limitations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.messages import GroundedAnswer, RunTrail
from opsagent.contracts.results import Answer, AnswerMetadata, ReviewRecord
from opsagent.intake.relations import searched_both
from opsagent.workflows.actions import action_notice
from opsagent.workflows.coverage import called_tools
from opsagent.workflows.grounding_check import checked_aspects
from opsagent.workflows.ids import AGGREGATE
from opsagent.workflows.presentation import (
    analysis_limitations,
    answer_refs,
    body,
    cap_text,
    compose_text,
    evidence_sections,
    review_limitations,
    shown_results,
    task_limitations,
)
from opsagent.workflows.stated_filters import unapplied_filters

BLOCKED_WARNING = ("⚠️ **Parts of this answer could not be verified against the data, so they are left out.** "
                   "What the data shows is below.")
NOTHING_VERIFIED = "I could not write an answer that the data backs; here is what the tools returned."


def build_metadata(trail: RunTrail, *, route: Any, **fields: Any) -> AnswerMetadata:
    review = None
    if trail.reviews:
        review = ReviewRecord(verdicts=trail.reviews, gaps=trail.gaps, retry_used=trail.retry_accepted is not None,
                              retry_accepted=trail.retry_accepted, retry_rejection_reason=trail.retry_rejection_reason)
    return AnswerMetadata(
        workflow=trail.workflow, route=route, analysis=trail.analysis, parts=trail.parts, plans=trail.plans,
        tasks=trail.results, review=review, grounding=trail.groundings, notes=trail.notes,
        runbooks=[runbook.name for runbook in trail.analysis.runbooks], **fields,
    )


def left_out(report: GroundingReport) -> list[str]:
    """What the grounding check left out, said in the product's words (never the model's sentence)."""
    described = list(dict.fromkeys(check.public for check in report.failures if check.public))
    return [f"Left out because the data did not back it: {'; '.join(described)}."] if described else []


def limitations_of(trail: RunTrail, titles: Mapping[str, str], report: GroundingReport | None = None) -> list[str]:
    final = trail.reviews[-1] if trail.reviews else None
    lines = [
        *task_limitations(trail.results, titles),
        *analysis_limitations(trail.analysis),
        *unapplied_filters(trail.analysis, trail.results),
        *review_limitations(final, retry_ran=bool(trail.retry_accepted), declined_reason=trail.retry_rejection_reason,
                            checked=checked_aspects(trail)),
        *(left_out(report) if report is not None and report.verdict in ("partial", "block") else []),
    ]
    return list(dict.fromkeys(lines))


def unanswered_notice(trail: RunTrail) -> str:
    """When a relation between two kinds went unsearched and no part of the question was answered (each still
    missing after the review), the answer says so first: a list of what the searches found must not read as the
    answer ("which failed pipelines have an open incident?" answered with every failed pipeline)."""
    gaps = trail.gaps[-1] if trail.gaps else []
    missing = {gap.part for gap in gaps}
    tools = called_tools(trail.results)
    unpaired = any(ask.relation and not searched_both(ask.relation, tools) for ask in trail.analysis.asks)
    if not unpaired or not trail.parts or not {part.id for part in trail.parts} <= missing:
        return ""  # (a filter left unapplied is named under Limitations, and the lead check holds its yes/no)
    said = "; ".join(f"\"{gap.text}\" ({gap.reason})" for gap in gaps)
    return f"**Not answered:** {said}. What the searches found is below; it does not answer that."


class AggregateExecutor(Executor):
    def __init__(self, titles: Mapping[str, str], *, max_answer_chars: int) -> None:
        super().__init__(id=AGGREGATE)
        self.titles = titles
        self.max_answer_chars = max_answer_chars

    @handler
    async def aggregate(self, grounded: GroundedAnswer, ctx: WorkflowContext[Never, Answer]) -> None:
        trail = grounded.trail
        results = shown_results(trail.results)
        sections = evidence_sections(results, self.titles)
        limitations = limitations_of(trail, self.titles, grounded.report)
        written = body(grounded.review)
        if grounded.kind == "block":
            summary = f"{BLOCKED_WARNING}\n\n{NOTHING_VERIFIED}"
            shown = "\n\n".join(f"**{section.title}**\n\n{section.markdown}" for section in sections)
            text = f"{summary}\n\n{shown}".strip()
            if limitations:
                text += "\n\n**Limitations**\n" + "\n".join(f"- {line}" for line in limitations)
            facts: list[str] = []
        elif grounded.kind == "partial":  # only what the data backs; what was left out is a limitation
            summary, facts = grounded.report.kept.strip(), []
            text = compose_text(summary, limitations, results)
        else:
            summary, facts = grounded.review.summary.strip(), list(grounded.review.key_facts)
            text = compose_text(written, limitations, results)
        unanswered = unanswered_notice(trail)
        if unanswered:  # every part missing: said first, before what was found (or the warning)
            summary, text = f"{unanswered}\n\n{summary}".strip(), f"{unanswered}\n\n{text}"
        action = trail.analysis.action
        if action is not None:  # a request to act: said first that nothing was done, then the records
            notice = action_notice(action)
            summary, text = f"{notice}\n\n{summary}", f"{notice}\n\n{text}"
        metadata = build_metadata(trail, route="action" if action else "execute", limitations=limitations)
        await ctx.yield_output(Answer(text=cap_text(text, self.max_answer_chars), summary=summary, facts=facts,
                                      limitations=limitations, evidence=sections, refs=answer_refs(results),
                                      metadata=metadata))
