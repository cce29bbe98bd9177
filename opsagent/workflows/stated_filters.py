"""Every filter the question states must reach a tool, or the answer says it was not applied.

Intake's filters, windows and factory are compared with what each answered search actually
searched: the resolved values the tools record in their ``query`` (states as sets, priorities as
the list of levels, windows as exact UTC bounds). A filter that no search applied, or applied
differently (polarity flipped, "P2" searched as "P2 or more urgent", a whole day for "since
18:00"), becomes a limitation in the answer, so a list is never silently wider than asked.
Lookups by id (``get_*``) need no filters and are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from opsagent.contracts.analysis import FilterField, FilterMention, QuestionAnalysis, RecordWindow, TimeMention
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.tools.filters import parse_set_filter
from opsagent.tools.servicenow_filters import (
    APPROVAL_ORDER,
    APPROVALS,
    CHANGE_RISK_ORDER,
    CHANGE_RISKS,
    CHANGE_STATE_ORDER,
    CHANGE_STATES,
    CHANGE_TYPE_ORDER,
    CHANGE_TYPES,
    INCIDENT_STATE_ORDER,
    INCIDENT_STATES,
    priority_values,
)


@dataclass(frozen=True)
class FilterTarget:
    """Where a stated filter lands: which tools take it, under which ``query`` key, in what vocabulary."""

    tools: tuple[str, ...]
    key: str
    choices: dict[str, tuple[str, ...]] | None = None
    universe: tuple[str, ...] = ()


TARGETS: dict[FilterField, FilterTarget] = {
    "incident_state": FilterTarget(("list_incidents",), "state", INCIDENT_STATES, INCIDENT_STATE_ORDER),
    "change_state": FilterTarget(("list_change_requests",), "state", CHANGE_STATES, CHANGE_STATE_ORDER),
    "approval": FilterTarget(("list_change_requests",), "approval", APPROVALS, APPROVAL_ORDER),
    "change_type": FilterTarget(("list_change_requests",), "type", CHANGE_TYPES, CHANGE_TYPE_ORDER),
    "change_risk": FilterTarget(("list_change_requests",), "risk", CHANGE_RISKS, CHANGE_RISK_ORDER),
    "priority": FilterTarget(("list_incidents",), "priority"),
}
WINDOW_KEYS = ("time_window", "window", "opened_within")
FACTORY_TOOLS = ("list_failed_pipelines", "query_pipeline_status")


def _searches(results: Sequence[TaskResult]) -> list[ToolEvidence]:
    return [item for result in results for item in result.evidence if item.answered and not item.tool.startswith("get_")]


def _expected(item: FilterMention, target: FilterTarget) -> set[Any] | None:
    try:
        if item.field == "priority":
            return set(priority_values(max(int(value) for value in item.values), item.match or "exactly"))
        assert target.choices is not None
        return set(parse_set_filter(item.as_argument(), target.choices, universe=target.universe,
                                    argument=target.key).to_json()["values"])
    except (ValueError, AssertionError):
        return None  # a filter the tools cannot express is not judged


def _searched(call: ToolEvidence, key: str) -> set[Any] | None:
    value = call.query.get(key)
    return set(value["values"]) if isinstance(value, dict) and isinstance(value.get("values"), list) else None


def _filter_problem(item: FilterMention, searches: Sequence[ToolEvidence]) -> str | None:
    target = TARGETS[item.field]
    calls = [call for call in searches if call.tool in target.tools]
    expected = _expected(item, target)
    if not calls or expected is None:
        return None
    searched = [values for call in calls if (values := _searched(call, target.key)) is not None]
    if expected in searched or (item.field.endswith("state") and expected == set(target.universe) and not searched):
        return None
    if searched:
        shown = ", ".join(str(value) for value in sorted(searched[0], key=str))
        return f"\"{item.text}\" was searched as {target.key} {shown}, not as asked: the list may differ"
    return f"\"{item.text}\" was not applied by any search: the list is not narrowed by {target.key}"


def _window_of(call: ToolEvidence) -> Iterable[tuple[str | None, str | None]]:
    for key in WINDOW_KEYS:
        value = call.query.get(key)
        if isinstance(value, dict):
            yield value.get("start"), value.get("end")


def _iso(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def _time_problem(item: TimeMention, searches: Sequence[ToolEvidence], lookups: Sequence[ToolEvidence]) -> str | None:
    if item.point is not None:
        points = [(call.query.get("around") or {}).get("point") for call in lookups]
        return None if _iso(item.point) in points or not lookups else (
            f"\"{item.text}\" was not used: the run shown is not the one nearest {_iso(item.point)}")
    windowed = [call for call in searches if list(_window_of(call))]
    if not windowed:
        return None
    if any((_iso(item.start), _iso(item.end)) in list(_window_of(call)) for call in windowed):
        return None
    return f"\"{item.text}\" ({item.label}) was not the window searched: the results cover another period"


def _record_window_problem(item: RecordWindow, searches: Sequence[ToolEvidence], lookups: Sequence[ToolEvidence],
                           now: datetime) -> str | None:
    """A window placed by a record ("the 2 hours after CHG… started") that no search used (a plan that
    searched in parallel with the lookup could not know the record's times)."""
    rows = [row for call in lookups for row in call.rows
            if row.get("start_date") and row.get("end_date") and (not item.record or row.get("number") == item.record)]
    windowed = [call for call in searches if list(_window_of(call))]
    if not rows or not windowed:
        return None
    start, end = (datetime.fromisoformat(str(rows[0][key]).replace("Z", "+00:00")) for key in ("start_date", "end_date"))
    first, last = item.window(start, end, now)
    if any((_iso(first), _iso(last)) in list(_window_of(call)) for call in windowed):
        return None
    return (f"\"{item.text}\" ({_iso(first)} to {_iso(last)}) was not the window searched: "
            "the results cover another period")


def unapplied_filters(analysis: QuestionAnalysis, results: Sequence[TaskResult]) -> list[str]:
    """One line per stated filter, window or factory that no search applied as asked."""
    searches = _searches(results)
    lookups = [item for result in results for item in result.evidence if item.answered and item.tool.startswith("get_")]
    problems = [_filter_problem(item, searches) for item in analysis.filters]
    problems += [_time_problem(item, searches, lookups) for item in analysis.times]
    problems += [_record_window_problem(item, searches, lookups, analysis.now) for item in analysis.record_windows]
    factory_calls = [call for call in searches if call.tool in FACTORY_TOOLS]
    for factory in analysis.values("factory"):
        if factory_calls and not any(call.query.get("factory") == factory for call in factory_calls):
            problems.append(f"factory {factory} was not applied: the runs listed come from every factory")
    return [f"Filter {problem}." for problem in dict.fromkeys(problem for problem in problems if problem)]
