"""The deterministic half of the review: which parts of the question have no tool-backed answer.

Runs before the reviewer model. A part is missing when no task for it ended ``ok`` (at least one
tool call that the backend answered). The reviewer model may add gaps, never remove these.
"""

from __future__ import annotations

from collections.abc import Sequence

from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.plans import PartGap, QuestionPart

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


def part_ids(result: TaskResult) -> list[str]:
    return [item.strip() for item in result.part.split(",") if item.strip()]


def missing_parts(parts: Sequence[QuestionPart], results: Sequence[TaskResult]) -> list[PartGap]:
    """The parts without a successful, tool-backed result, in the parts' order."""
    gaps = []
    for part in parts:
        tasks = [result for result in results if part.id in part_ids(result)]
        if not any(result.succeeded for result in tasks):
            reason, retryable = _why_missing(tasks)
            gaps.append(PartGap(part=part.id, text=part.text, reason=reason, retryable=retryable))
    return gaps
