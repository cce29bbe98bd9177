"""Prompt text for real models, rendered from the typed role inputs (``contracts/role_inputs.py``).

The offline model never reads this text: it reads the typed input attached to the message. So
formats here may change freely, with two exceptions DESIGN fixes: a specialist in step N sees
``Previous step results:\\n---\\nAgent: …\\nQuestion: …\\nResponse: …\\n---`` then ``Your task: …``.
Every role is told the current time (models are weak at date arithmetic) and the intake analysis.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, get_args

from agent_framework import Message

from opsagent.contracts.analysis import EntityKind, QuestionAnalysis
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.contracts.requests import MessageData
from opsagent.contracts.role_inputs import (
    ClarifyInput,
    PlannerInput,
    ReplanInput,
    ReviewInput,
    SpecialistInput,
    attach_role_input,
)

RESULT_SEPARATOR = "---"
PROMPT_ROWS_PER_CALL = 15
"""Rows of one tool call shown to a model; the rest are counted ("…and 12 more rows")."""
PROMPT_CELL_CHARS = 160


def _iso(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


EXACT_CHANGES = ("time window:", "picked:", *(f"{kind.replace('_', ' ')}:" for kind in get_args(EntityKind)))
"""Follow-up changes that substitute one exact value in the previous question (a window, an id, a name)."""


def _follow_up_line(analysis: QuestionAnalysis) -> str:
    follow_up = analysis.follow_up
    assert follow_up is not None
    changed = "; ".join(follow_up.changed) or "a new detail"
    exact = bool(follow_up.changed) and all(item.startswith(EXACT_CHANGES) for item in follow_up.changed)
    if exact:  # an exact substitution, shown as one, never a rewrite the model must trust
        return (f"follow-up of the previous question \"{follow_up.previous_question}\", with {changed} substituted "
                f"(exact): \"{analysis.resolved_question}\"")
    return (f"follow-up of the previous question \"{follow_up.previous_question}\"; the user changed: {changed} "
            "(read the message together with that question)")


def analysis_lines(analysis: QuestionAnalysis) -> list[str]:
    """Intake's findings as labelled hints, each with what it rests on and how sure it is. What intake cannot
    read exactly is not guessed here: the model has the user's own words and decides."""
    lines = [f"Current time (UTC): {_iso(analysis.now)}"]
    if analysis.follow_up is not None:
        lines.append(_follow_up_line(analysis))
    for reference in analysis.references:
        source = "a row of the previous answer" if reference.how == "ordinal" else "the previous turn"
        lines.append(f"\"{reference.text}\" = {reference.kind} {reference.value} (from {source}; exact)")
    own = analysis.question.lower()  # what the user wrote now; the rest came from the question it follows up
    for window in analysis.times:
        around = f", around {_iso(window.point)}" if window.point else ""
        if window.open_start:
            lines.append(f"\"{window.text}\" = before {_iso(window.end)}, no start said (exact; pass the phrase "
                         f"\"{window.phrase}\" as it is: a search of runs or changes reaches back to {_iso(window.start)}, "
                         "opened_before needs no start)")
            continue
        lines.append(f"\"{window.text}\" = {window.as_range()}{around} (computed from the phrase; exact)"
                     if window.text.lower() in own else
                     f"window {window.as_range()}{around} (of the follow-up above; exact)")
    for relative in analysis.record_windows:
        said = f"\"{relative.text}\" = " if relative.text.lower() in own else "the window the user points at = "
        lines.append(f"{said}{relative.describe()} (from the words and the conversation; fetch that record first, "
                     "then search the window from its start/end times in a later step)")
    for entity in analysis.entities:
        if entity.status == "corrected":
            lines.append(f"\"{entity.text}\" = {entity.kind} {entity.value} (closest name in the inventory to what "
                         "was typed; likely, not certain)")
        elif entity.status == "exact" and entity.kind not in ("incident", "change", "run_id"):
            lines.append(f"{entity.kind} {entity.value} (\"{entity.text}\" matches this name in the inventory; exact)"
                         if entity.text.lower() in own else
                         f"{entity.kind} {entity.value} (of the follow-up above; a name in the inventory; exact)")
    for item in analysis.filters:
        match = f" ({item.match.replace('_', ' ')})" if item.match else ""
        lines.append(f"filter {item.field} = {item.as_argument()}{match} " + (
            f"(from the words \"{item.text}\")" if item.text.lower() in own else "(of the follow-up above)"))
    lines += [f"quoted words \"{item.text}\" (exact): text to find in the records as written — a search's text "
              "argument, not a name or a filter" for item in analysis.quoted]
    if len(analysis.asks) > 1:
        lines += [f"part {ask.id}: \"{ask.text}\" (a separate thing the user asked: give it a task)"
                  for ask in analysis.asks]
    for ask in analysis.asks:
        if (relation := ask.relation) is not None:
            pairs = "say which have none" if relation.negated else "say which have one and which do not"
            lines.append(f"\"{relation.words}\" relates {relation.head} records to {relation.other} records (from the "
                         f"words; likely, not certain): fetch the {relation.head} records, then in a later step the "
                         f"{relation.other} records for each of them, and {pairs}")
    for runbook in analysis.runbooks:
        steps = "; ".join(f"step {item.step} {item.specialist}: {item.ask}" for item in runbook.steps)
        lines.append(f"runbook \"{runbook.title}\" ({runbook.intent}) matches the words; a suggestion: {steps}")
    lines += _intent_lines(analysis)
    for item in analysis.unresolved:
        hint = f" (did you mean {', '.join(item.suggestions)}?)" if item.suggestions else ""
        lines.append(f"could not resolve \"{item.text}\": {item.reason}{hint}")
    return lines


def _intent_lines(analysis: QuestionAnalysis) -> list[str]:
    """What product code read the message to be, when that changes the plan (read from word lists: a hint)."""
    if analysis.action is not None:
        return [f"asks OpsAgent to {analysis.action.action}, a change (from the words \"{analysis.action.text}\"; "
                "likely, not certain): OpsAgent is read-only and says so itself; plan only look-ups of the records "
                "it names"]
    if analysis.intent == "unrecognised":
        return ["no word of the message names a record, platform, value or time OpsAgent knows (from word lists; "
                "likely, not certain): if it is not about operations, reject it"]
    if analysis.intent == "vague":
        return ["the message does not say which record it is about (a pronoun with no earlier turn, or only a kind "
                "of record; from word lists, likely, not certain): ask back (clarify)"]
    return []


def _context_block(analysis: QuestionAnalysis) -> str:
    return ("Context from OpsAgent (hints from product code, not written by the user; the user's words win):\n"
            + "\n".join(f"- {line}" for line in analysis_lines(analysis)))


def _history_messages(history: Sequence[MessageData]) -> list[Message]:
    return [Message(item.role, [item.content]) for item in history if item.role in ("user", "assistant")]


def _with_input(messages: list[Message], role_input: Any) -> list[Message]:
    attach_role_input(messages[-1], role_input)
    return messages


def planner_messages(role_input: PlannerInput) -> list[Message]:
    """The conversation, then the question with the intake analysis."""
    text = f"{role_input.question}\n\n{_context_block(role_input.analysis)}"
    return _with_input([*_history_messages(role_input.history), Message("user", [text])], role_input)


def clarify_messages(role_input: ClarifyInput) -> list[Message]:
    extra = ""
    if role_input.candidates:
        label = f" - {role_input.candidates_label}" if role_input.candidates_label else ""
        extra = f"\nCandidates from the data{label} (offer these): " + "; ".join(role_input.candidates)
    if role_input.reason:
        extra += f"\nWhy we ask: {role_input.reason}"
    text = f"{role_input.question}\n\n{_context_block(role_input.analysis)}{extra}"
    return _with_input([*_history_messages(role_input.history), Message("user", [text])], role_input)


def _cell(value: Any) -> Any:
    if isinstance(value, str) and len(value) > PROMPT_CELL_CHARS:
        return value[: PROMPT_CELL_CHARS - 1] + "…"
    return value


def evidence_lines(item: ToolEvidence, *, rows: int = PROMPT_ROWS_PER_CALL) -> list[str]:
    """One tool call as compact lines: the call, its outcome, and its rows as JSON."""
    arguments = ", ".join(f"{key}={value}" for key, value in item.arguments.items())
    head = f"{item.tool}({arguments}) → {item.status}"
    if item.status in ("ok", "no_data"):
        head += f", {item.total} found, {item.shown} shown"
    lines = [f"{head}: {item.message}".rstrip(": ")]
    for row in item.rows[:rows]:
        lines.append("  " + json.dumps({key: _cell(value) for key, value in row.items() if value not in (None, "", [])},
                                       default=str, separators=(",", ":")))
    if len(item.rows) > rows:
        lines.append(f"  …and {len(item.rows) - rows} more rows")
    lines += [f"  warning: {warning}" for warning in item.warnings]
    return lines


def result_block(result: TaskResult, *, with_status: bool = False) -> str:
    """A task result for a later step or the reviewer: what was asked, said and fetched."""
    if result.succeeded:
        response = result.response.strip() or "(no text)"
    else:
        response = f"(task {result.status}: {result.error or 'no details'})"
    evidence = [line for item in result.evidence for line in evidence_lines(item)]
    if evidence:
        response += "\nEvidence:\n" + "\n".join(evidence)
    status = f"Status: {result.status}\n" if with_status else ""
    part = f"Part: {result.part}\n" if with_status and result.part else ""
    return f"Agent: {result.agent}\n{part}Question: {result.question}\n{status}Response: {response}"


def specialist_messages(role_input: SpecialistInput) -> list[Message]:
    """The task, after every result of the previous step (the format DESIGN fixes)."""
    task = role_input.task.question
    if role_input.previous:
        blocks = f"\n{RESULT_SEPARATOR}\n".join(result_block(result) for result in role_input.previous)
        text = f"Previous step results:\n{RESULT_SEPARATOR}\n{blocks}\n{RESULT_SEPARATOR}\nYour task: {task}"
    else:
        text = task
    text += f"\n\n{_context_block(role_input.analysis)}"
    return _with_input([Message("user", [text])], role_input)


def _parts_block(parts: Sequence[QuestionPart]) -> str:
    if not parts:
        return ""
    return "Parts of the question:\n" + "\n".join(f"- {part.id}: {part.text}" for part in parts) + "\n\n"


def _results_block(results: Sequence[TaskResult]) -> str:
    if not results:
        return "(no results)"
    return f"\n{RESULT_SEPARATOR}\n".join(f"Step: {result.step}\n{result_block(result, with_status=True)}"
                                          for result in results)


def review_messages(role_input: ReviewInput) -> list[Message]:
    gaps = "".join(f"- {gap.describe()}\n" for gap in role_input.gaps)
    text = (
        f"User question: {role_input.question}\n\n{_context_block(role_input.analysis)}\n\n"
        f"{_parts_block(role_input.parts)}Task results:\n{RESULT_SEPARATOR}\n{_results_block(role_input.results)}\n"
        f"{RESULT_SEPARATOR}"
    )
    if gaps:
        text += f"\n\nParts without tool-backed evidence (these are missing whatever you decide):\n{gaps}"
    if not role_input.can_retry:
        text += "\n\nNo retry is possible now: write the best answer from what is there, and name what is missing."
    if role_input.feedback:
        feedback = "".join(f"- {item}\n" for item in role_input.feedback)
        text += (f"\n\nYour previous answer was:\n{role_input.previous_summary}\n\nIt failed these checks against "
                 f"the evidence; write it again so that every claim is backed:\n{feedback}")
    return _with_input([Message("user", [text])], role_input)


def replan_messages(role_input: ReplanInput) -> list[Message]:
    review = role_input.review
    described = [gap.describe() for gap in role_input.gaps]
    missing = "\n".join(f"- {aspect}" for aspect in dict.fromkeys([*described, *review.missing_aspects])) or "- (none listed)"
    text = (
        f"User question: {role_input.question}\n\n{_context_block(role_input.analysis)}\n\n"
        f"{_parts_block(role_input.parts)}Task results:\n{RESULT_SEPARATOR}\n{_results_block(role_input.results)}\n"
        f"{RESULT_SEPARATOR}\n\nReviewer verdict:\nMissing aspects:\n{missing}\n"
        f"Suggested approach: {review.suggested_approach}"
    )
    return _with_input([Message("user", [text])], role_input)
