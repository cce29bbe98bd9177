"""store_query: the entry of both workflows. Analyses the question, then sends it where its intent says.

A question (or a request to act, whose records are looked up like a question) goes to the planner; a
greeting, a request for help or thanks gets a direct reply; a request for something else entirely (a
joke, the weather) is declined; one that points at something never named ("is it fixed?") or names only a
kind of record ("status?") is asked back. These are product code decisions, the same for every model, and
cost no model call. A message in which intake knows no word goes to the planner with that reading as a hint:
a word list cannot know every in-scope word, a model can decline it.
"""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler

from opsagent.contracts.messages import ClarifyRequest, DirectReply, PlanningRequest, Rejection, RunTrail
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import ProgressEvent, WorkflowKind
from opsagent.intake import QuestionAnalyzer
from opsagent.workflows.decisions import DEFAULT_REJECT_REASON
from opsagent.workflows.ids import STORE_QUERY
from opsagent.workflows.progress import question_analysed

VAGUE = "the question does not say which record it is about (\"is it fixed?\", \"status?\")"
IntakeOutcome = PlanningRequest | DirectReply | ClarifyRequest | Rejection


def route_by_intent(trail: RunTrail, *, can_clarify: bool = True) -> IntakeOutcome:
    """Where the analysed question goes next (pure)."""
    intent = trail.analysis.intent
    if intent in ("greeting", "help", "thanks"):
        return DirectReply(trail=trail, kind=intent)
    if intent == "off_topic":
        return Rejection(trail=trail, reason=DEFAULT_REJECT_REASON)
    if intent == "vague" and can_clarify:
        return ClarifyRequest(trail=trail, reason=VAGUE)
    return PlanningRequest(trail=trail)


class StoreQueryExecutor(Executor):
    def __init__(self, workflow: WorkflowKind, analyzer: QuestionAnalyzer, *, can_clarify: bool = True) -> None:
        super().__init__(id=STORE_QUERY)
        self.workflow = workflow
        self.analyzer = analyzer
        self.can_clarify = can_clarify

    @handler
    async def store(self, request: WorkflowInput, ctx: WorkflowContext[IntakeOutcome, ProgressEvent]) -> None:
        analysis = await self.analyzer.analyse(request.query, request.history)
        trail = RunTrail(workflow=self.workflow, question=request.query, history=request.history, analysis=analysis)
        event = question_analysed(analysis)
        if event is not None:
            await ctx.yield_output(event)
        await ctx.send_message(route_by_intent(trail, can_clarify=self.can_clarify))
