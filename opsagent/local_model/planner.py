"""Dynamic triage (user mode) and default triage: reject, clarify, or a step-based plan.

Order of decisions: refuse (out of scope, help desk, write request) → resolve references from
the conversation → clarify when something stays unresolved or nothing concrete is named →
plan the chosen specialists (parallel, or producer → consumer when the asks are chained).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from opsagent.contracts.analysis import FilterMention, RecordWindow, RunbookMatch, TimeMention
from opsagent.contracts.role_inputs import PlannerInput
from opsagent.local_model.detect import (
    Analysis, TypoFixer, analyse, with_filters, with_record_windows, with_then_asks,
)
from opsagent.local_model.knowledge import Knowledge
from opsagent.local_model.policy import is_vague_ops, refusal
from opsagent.local_model.references import Resolution, Turn, resolve
from opsagent.local_model.shape import (
    consumer_question, deeper_split, dependency, has_dependency_cue, polish, question_for, target_questions,
)

KIND_NAMES = {
    "any": "something", "pipeline": "a pipeline", "run_id": "a pipeline run", "change": "a change request",
    "incident": "an incident",
}
OUT_OF_SCOPE = (
    "That request is outside what OpsAgent can help with: I answer questions about ServiceNow incidents "
    "and changes, Data Factory pipeline runs and platform health (Databricks, Snowflake, Azure)."
)


@dataclass(frozen=True)
class Task:
    step: int
    agent: str
    question: str
    standalone: str = ""
    """For a step-2 task: the same ask without the previous step (the single-step triage uses it)."""


@dataclass(frozen=True)
class Decision:
    route: str
    reason: str = ""
    tasks: tuple[Task, ...] = ()
    question: str = ""
    unresolved: tuple[str, ...] = field(default=())
    confidence: float = 1.0


def decide(role_input: PlannerInput, knowledge: Knowledge, fixer: TypoFixer) -> Decision:
    """The user-mode decision for the latest question, given the conversation before it."""
    analysis = role_input.analysis
    question = analysis.resolved_question
    if analysis.intent == "off_topic":  # nothing in it names a record, a value or an operations word
        return Decision("reject", OUT_OF_SCOPE, question=question)
    if analysis.follow_up is not None or analysis.references:  # intake already wrote the whole question
        history: list[Turn] = []
    else:
        history = [Turn(item.role, item.content) for item in role_input.history if item.role in ("user", "assistant")]
    registered = {item.name for item in role_input.specialists}
    return decide_question(question, history, knowledge, fixer, role_input.max_tasks, times=analysis.times,
                           runbook=next(iter(analysis.runbooks), None), registered=registered,
                           record_windows=analysis.record_windows, filters=analysis.filters,
                           acting=analysis.intent == "action")


def decide_question(question: str, history: Sequence[Turn], knowledge: Knowledge, fixer: TypoFixer,
                    max_tasks: int = 8, *, times: Sequence[TimeMention] = (), runbook: RunbookMatch | None = None,
                    registered: Collection[str] = (), record_windows: Sequence[RecordWindow] = (),
                    filters: Sequence[FilterMention] = (), acting: bool = False) -> Decision:
    def understood(text: str) -> Analysis:
        """The rules' reading of ``text``, with what intake found that the words alone do not show."""
        read = with_then_asks(with_record_windows(analyse(text, knowledge, fixer, times), record_windows))
        return with_filters(read, filters, knowledge)

    first = understood(question)
    # a request to act (read by intake) is answered with the records it names, never executed
    refused = None if acting else refusal(first, knowledge.policy)
    if refused:
        return Decision("reject", refused.reason, question=first.text)
    dependent = len(first.selected) >= 2 and has_dependency_cue(first.text, knowledge)
    resolution: Resolution = resolve(question, history, knowledge, fixer, dependent=dependent, analysis=first)
    if resolution.unresolved:
        names = " or ".join(KIND_NAMES.get(kind, kind) for kind in resolution.unresolved)
        return Decision("clarify", f"The question refers to {names} that the conversation does not name.",
                        question=resolution.text, unresolved=resolution.unresolved)
    analysis = understood(resolution.text) if resolution.text != first.text else first
    if not analysis.selected:
        if is_vague_ops(analysis, knowledge.policy) or any(analysis.scores.values()):  # in scope, but unclear
            return Decision("clarify", "The question is about operations but names no system, ticket, "
                            "pipeline or platform.", question=analysis.text, confidence=0.3)
        return Decision("reject", OUT_OF_SCOPE, question=analysis.text)
    tasks = plan_tasks(analysis, knowledge)[:max_tasks]
    followed = runbook_tasks(runbook, tasks, registered)[:max_tasks] if runbook else []
    if followed:
        return Decision("execute", f"Following the runbook \"{runbook.title}\" ({runbook.intent})", tuple(followed),
                        question=analysis.text)
    return Decision("execute", plan_reason(tasks, resolution), tasks, question=analysis.text)


def runbook_tasks(runbook: RunbookMatch, own: Sequence[Task], registered: Collection[str]) -> list[Task]:
    """The runbook's steps as the plan, for an open investigation ("X keeps failing, can you look
    into it?"): a question with several specific asks gets those answered instead."""
    steps = [item for item in runbook.steps if item.specialist in registered]
    if not steps or len(own) > 1:  # specific asks ("is there an incident, and what does X say?") come first
        return []
    first = min(item.step for item in steps)
    return [Task(item.step - first + 1, item.specialist, item.ask, standalone=item.ask) for item in steps]


def plan_tasks(analysis: Analysis, knowledge: Knowledge) -> list[Task]:
    """Tasks for every chosen specialist: producers and independent asks in step 1, consumers in 2."""
    chosen = analysis.selected
    link = dependency(analysis, chosen, knowledge)
    if len(chosen) == 1 and (split := deeper_split(analysis, chosen[0], knowledge)) is not None:
        first, then = split
        return [Task(1, chosen[0], polish(first)),
                Task(2, chosen[0], polish(f"{then} — based on the previous step: {polish(first).rstrip('.?')}"),
                     standalone=polish(then))]
    tasks: list[Task] = []
    for name in chosen:
        if link and name in link.consumers:
            tasks.append(Task(2, name, consumer_question(analysis, name, link.producer, knowledge),
                              standalone=question_for(analysis, name, knowledge)))
            continue
        split = target_questions(analysis, name, knowledge)
        questions = split or [question_for(analysis, name, knowledge)]
        tasks += [Task(1, name, text) for text in questions]
    return sorted(tasks, key=lambda task: task.step)


def plan_reason(tasks: Sequence[Task], resolution: Resolution) -> str:
    agents = list(dict.fromkeys(task.agent for task in tasks))
    steps = max(task.step for task in tasks)
    shape = "in sequence, step 2 using step 1's results" if steps > 1 else (
        "in parallel" if len(tasks) > 1 else "as a single task")
    prefix = "Resolved the reference from the conversation; " if resolution.from_history else ""
    return f"{prefix}asking {', '.join(agents)} {shape}."


def _parts(tasks: Sequence[Task]) -> list[dict]:
    """One part per task: the clause of the question that task answers."""
    return [{"id": f"p{index}", "text": task.standalone or task.question} for index, task in enumerate(tasks, start=1)]


def user_mode_output(decision: Decision) -> dict:
    """``UserModeOutput`` as a JSON-ready dict."""
    return {
        "should_reject": decision.route == "reject",
        "reject_reason": decision.reason if decision.route == "reject" else "",
        "clarify": decision.route == "clarify",
        "parts": _parts(decision.tasks),
        "plan": [{"step": task.step, "agent": task.agent, "question": task.question, "part": f"p{index}"}
                 for index, task in enumerate(decision.tasks, start=1)],
        "plan_reason": decision.reason if decision.route != "reject" else "",
        "confidence": decision.confidence,
    }


def triage_output(decision: Decision) -> dict:
    """``TriageOutput``: one self-contained question per specialist, all in parallel (or a refusal)."""
    if decision.route != "execute":
        reason = decision.reason if decision.route == "reject" else (
            f"{decision.reason} Please name the system, ticket, pipeline or platform you mean.")
        return {"should_reject": True, "reject_reason": reason, "tasks": [], "reason": ""}
    merged: dict[str, list[tuple[str, str]]] = {}
    for index, task in enumerate(decision.tasks, start=1):  # no step 2 here: a dependent ask must stand on its own
        merged.setdefault(task.agent, []).append((task.standalone or task.question, f"p{index}"))
    tasks = [{"agent": agent, "question": " ".join(dict.fromkeys(q for q, _ in asks)),
              "part": ",".join(p for _, p in asks)} for agent, asks in merged.items()]
    return {"should_reject": False, "reject_reason": "", "parts": _parts(decision.tasks), "tasks": tasks,
            "reason": decision.reason}
