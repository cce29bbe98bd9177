"""The deterministic half of the review: which parts of the question have no tool-backed answer.

Runs before the reviewer model. A part is missing when no task for it ended ``ok`` (at least one tool
call that the backend answered), or when none of its tasks' searches applied a filter, window or name
the part states (and no row shows it either): "on-hold tickets older than two days" answered with every
on-hold ticket is not answered; nor is "which failed pipelines have an open incident?" by a search of
runs alone (``intake/relations``). The reviewer model may add gaps, never remove these.
"""

from __future__ import annotations

from collections.abc import Sequence

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import PartGap, QuestionPart
from opsagent.intake.relations import searched_both
from opsagent.workflows.lead_claims import readable
from opsagent.workflows.fitting import unapplied
from opsagent.workflows.parts import asks_of

PERMANENT_ERRORS = frozenset({"not_authorised", "bad_arguments", "not_found"})
"""Tool failures that asking again will not fix."""


def _why_missing(tasks: Sequence[TaskResult]) -> tuple[str, bool]:
    if not tasks:
        return "no task covered it", True
    last = tasks[-1]
    if last.status == "unsupported":
        return f"{last.agent} answered without fetching any data", True
    kinds = {item.error_kind for item in last.evidence if item.status == "error"}
    retryable = last.status in ("timeout", "unsupported") or not kinds or not kinds <= PERMANENT_ERRORS
    return f"{last.agent} {last.status}: {last.error or 'no details'}", retryable


def called_tools(results: Sequence[TaskResult]) -> list[str]:
    """The tools the plan's successful tasks called and the backend answered."""
    return [item.tool for result in results if result.succeeded for item in result.answered_evidence]


def part_ids(result: TaskResult) -> list[str]:
    return [item.strip() for item in result.part.split(",") if item.strip()]


def _unapplied_words(part: QuestionPart, tasks: Sequence[TaskResult], analysis: QuestionAnalysis | None,
                     tools_called: Sequence[str] = ()) -> list[str]:
    """What the part states that none of its searches applied (nor any of their rows shows), and a relation
    between two kinds of record when either kind went unsearched in the whole plan (a later step pairs them)."""
    if analysis is None:
        return []
    searches = [item for result in tasks if result.succeeded for item in result.answered_evidence]
    missing = []
    for ask in asks_of(part, analysis):
        if ask.relation is not None and not searched_both(ask.relation, tools_called):
            missing.append(ask.relation.words)
        scope = _names_of_part(analysis.in_span(ask.span.start, ask.span.end), part)
        missing += [item.text for item in unapplied(scope, searches) if not readable(item, searches)]
        missing += [item.text for item in scope.entities if item.usable and item.kind in RECORD_IDS
                    and not any(item.value.lower() in _said(search) for search in searches)]
    return list(dict.fromkeys(missing))


RECORD_IDS = frozenset({"incident", "change", "run_id"})
"""A record asked for by its id ("show me CHG…") is answered only by a search that asked for it or shows it."""


def _said(search: ToolEvidence) -> str:
    return f"{search.arguments} {search.rows}".lower()


def _names_of_part(scope: QuestionAnalysis, part: QuestionPart) -> QuestionAnalysis:
    """A planner's part for one of several names an ask gives ("status of databricks, snowflake and azure"
    → "Is Databricks healthy?") is held to the names it gives, not to the others."""
    low = part.text.lower()
    named = [item for item in scope.entities if item.value.lower() in low or item.text.lower() in low]
    return scope.model_copy(update={"entities": named}) if named else scope


def missing_parts(parts: Sequence[QuestionPart], results: Sequence[TaskResult],
                  analysis: QuestionAnalysis | None = None) -> list[PartGap]:
    """The parts without a successful, tool-backed result with their own filters applied, in order."""
    gaps = []
    tools_called = called_tools(results)
    for part in parts:
        tasks = [result for result in results if part.id in part_ids(result)]
        if not any(result.succeeded for result in tasks):
            reason, retryable = _why_missing(tasks)
            gaps.append(PartGap(part=part.id, text=part.text, reason=reason, retryable=retryable))
        elif words := _unapplied_words(part, tasks, analysis, tools_called):
            quoted = ", ".join(f'"{word}"' for word in words)
            gaps.append(PartGap(part=part.id, text=part.text, reason=f"no search applied {quoted}", retryable=True))
    return gaps
