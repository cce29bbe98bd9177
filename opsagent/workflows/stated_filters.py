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

from opsagent.contracts.analysis import FilterMention, QuestionAnalysis, RecordWindow, TimeMention
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.tools.catalog import tool_spec
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.fitting import filter_applied, searched_values

WINDOW_KEYS = ("time_window", "window", "opened_within")
FACTORY_TOOLS = ("list_failed_pipelines", "query_pipeline_status")


def _searches(results: Sequence[TaskResult]) -> list[ToolEvidence]:
    return [item for result in results for item in result.evidence if item.answered and not item.tool.startswith("get_")]


def _searched_as(item: FilterMention, call: ToolEvidence) -> str | None:
    """How a search applied the filter's vocabulary instead ("state New, On Hold"), if it did."""
    spec = tool_spec(call.tool)
    tool_filter = next((entry for entry in spec.filters if entry.vocabulary == item.field), None) if spec else None
    values = searched_values(call, tool_filter) if tool_filter is not None else None
    if tool_filter is None or not values:
        return None
    labels = [label for label in tool_filter.vocab().labels() if label.lower() in values]
    return f"{tool_filter.parameter} {', '.join(labels)}"


def _filter_problem(item: FilterMention, searches: Sequence[ToolEvidence]) -> str | None:
    judged = [(call, verdict) for call in searches if (verdict := filter_applied(item, call)) is not None]
    if not judged or any(verdict for _, verdict in judged):
        return None  # no search could apply it (coverage says so), or one did
    shown = next((found for call, _ in judged if (found := _searched_as(item, call))), None)
    if shown:
        return f"\"{item.text}\" was searched as {shown}, not as asked: the list may differ"
    return f"\"{item.text}\" was not applied by any search: the list is not narrowed by it"


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
    start, end = (iso_moment(rows[0][key]) for key in ("start_date", "end_date"))
    if start is None or end is None:
        return None
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
