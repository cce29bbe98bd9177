"""parse_triage_output: turn the planner's reply into a validated ``TriageDecision``.

Repairs what is safe (see ``contracts/repair.py``); a reply that stays unusable becomes a clear
fallback decision (an explanatory refusal in user mode, "keep what we have" in review mode).
"""

from __future__ import annotations

from collections.abc import Collection

from agent_framework import Executor, WorkflowContext, handler

from opsagent.contracts.messages import TriageDecision, TriageReply
from opsagent.contracts.plans import PlanStep, ReviewModeOutput, TriageOutput, UserModeOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import PlanRecord, ProgressEvent
from opsagent.workflows.ids import PARSE_TRIAGE_OUTPUT
from opsagent.workflows.ledger import RunLedger, read_ledger, write_ledger
from opsagent.workflows.progress import plan_chosen, route_chosen

DEFAULT_REJECT_REASON = "That request is outside what OpsAgent can help with."


def _planner_failed(reason: str, mode: str, *, model_error: bool = False) -> TriageDecision:
    return TriageDecision(
        route="reject", mode=mode, failure="model_unavailable" if model_error else "planner_failed",
        reason=f"I could not work out a plan for this question: {reason}.",
    )


def decide_user_mode(
    reply: TriageReply, *, agents: Collection[str], max_tasks: int
) -> tuple[TriageDecision, list[str]]:
    if reply.error:
        return _planner_failed(reply.error, "user", model_error=True), []
    parsed = parse_model_output(reply.text, UserModeOutput, agents=agents, max_tasks=max_tasks)
    if parsed.value is None:
        return _planner_failed(parsed.error or "unreadable reply", "user"), parsed.notes
    output = parsed.value
    if output.should_reject:
        return TriageDecision(route="reject", mode="user", reason=output.reject_reason or DEFAULT_REJECT_REASON), parsed.notes
    if output.clarify:
        return TriageDecision(route="clarify", mode="user", reason=output.plan_reason), parsed.notes
    if not output.plan:
        return _planner_failed("the plan had no usable tasks", "user"), parsed.notes
    return TriageDecision(route="execute", mode="user", plan=output.plan, reason=output.plan_reason), parsed.notes


def decide_review_mode(
    reply: TriageReply, *, agents: Collection[str], max_tasks: int
) -> tuple[TriageDecision, list[str]]:
    if reply.error:
        return TriageDecision(route="finalize", mode="review", reason=f"re-planning failed: {reply.error}"), []
    parsed = parse_model_output(reply.text, ReviewModeOutput, agents=agents, max_tasks=max_tasks)
    output = parsed.value
    if output is None:
        return TriageDecision(route="finalize", mode="review", reason=f"re-planning failed: {parsed.error}"), parsed.notes
    if not output.accept_review:
        reason = output.rejection_reason or "the planner declined the review"
        return TriageDecision(route="finalize", mode="review", reason=reason), parsed.notes
    if not output.new_plan:
        return TriageDecision(route="finalize", mode="review", reason="the review was accepted without a usable plan"), parsed.notes
    return TriageDecision(route="execute", mode="review", plan=output.new_plan), parsed.notes


def decide_triage(reply: TriageReply, *, agents: Collection[str], max_tasks: int) -> tuple[TriageDecision, list[str]]:
    """The default workflow's triage: one step, every chosen specialist in parallel."""
    if reply.error:
        return _planner_failed(reply.error, "triage", model_error=True), []
    parsed = parse_model_output(reply.text, TriageOutput, agents=agents, max_tasks=max_tasks)
    output = parsed.value
    if output is None:
        return _planner_failed(parsed.error or "unreadable reply", "triage"), parsed.notes
    if output.should_reject:
        return TriageDecision(route="reject", mode="triage", reason=output.reject_reason or DEFAULT_REJECT_REASON), parsed.notes
    plan = _one_task_per_specialist(output, parsed.notes)
    if not plan:
        return _planner_failed("no specialist was chosen", "triage"), parsed.notes
    return TriageDecision(route="execute", mode="triage", plan=plan, reason=output.reason), parsed.notes


def _one_task_per_specialist(output: TriageOutput, notes: list[str]) -> list[PlanStep]:
    """The triage workflow has one executor per specialist: several asks for one become one task."""
    questions: dict[str, list[str]] = {}
    for task in output.tasks:
        questions.setdefault(task.agent, []).append(task.question)
    for agent, asked in questions.items():
        if len(asked) > 1:
            notes.append(f"merged {len(asked)} questions for {agent} into one task")
    return [PlanStep(step=1, agent=agent, question=" ".join(asked)) for agent, asked in questions.items()]


def record_decision(ledger: RunLedger, decision: TriageDecision, notes: list[str]) -> None:
    """Keep the plan, the notes and the review-mode outcome for the answer's metadata."""
    ledger.notes.extend(notes)
    if decision.route == "execute":
        ledger.plans.append(PlanRecord(mode=decision.mode, steps=decision.plan, reason=decision.reason))
    if decision.mode == "review":
        ledger.retry_accepted = decision.route == "execute"
        if decision.route == "finalize":
            ledger.retry_rejection_reason = decision.reason


def progress_for(decision: TriageDecision) -> ProgressEvent | None:
    """What the watching user sees of a decision; nothing for a failed planner (its error follows)."""
    if decision.failure is not None:
        return None
    if decision.route == "execute":
        return plan_chosen(decision)
    if decision.route in ("reject", "clarify"):
        return route_chosen(decision)
    return None


async def publish_decision(
    ctx: WorkflowContext[TriageDecision, ProgressEvent], decision: TriageDecision, notes: list[str]
) -> None:
    """Record the decision in the ledger, show it as progress, and send it on to the router."""
    ledger = read_ledger(ctx)
    record_decision(ledger, decision, notes)
    write_ledger(ctx, ledger)
    event = progress_for(decision)
    if event is not None:
        await ctx.yield_output(event)
    await ctx.send_message(decision)


class ParseTriageOutputExecutor(Executor):
    def __init__(self, *, agents: Collection[str], max_tasks: int) -> None:
        super().__init__(id=PARSE_TRIAGE_OUTPUT)
        self.agents = frozenset(agents)
        self.max_tasks = max_tasks

    @handler
    async def parse(self, reply: TriageReply, ctx: WorkflowContext[TriageDecision, ProgressEvent]) -> None:
        decide = decide_review_mode if reply.mode == "review" else decide_user_mode
        decision, notes = decide(reply, agents=self.agents, max_tasks=self.max_tasks)
        await publish_decision(ctx, decision, notes)
