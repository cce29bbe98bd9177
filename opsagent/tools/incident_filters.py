"""What ``list_incidents``' arguments mean: model arguments -> ``IncidentQuery``, each filter said in words.

Sits between the tool in ``tools/servicenow.py`` and ``ServiceNowBackend``, with the shared helpers
of ``servicenow_filters.py``: a state becomes a set, a priority "exactly N" or "N or more urgent",
the opening-time filters (a window, before / after a moment, "open longer than 2 days") one range
``[from, before)``, a resolution window a range on the resolution time, an assignee a person or no
one. Each resolved filter is recorded in the envelope's ``query`` and said in the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from opsagent.backends.base import IncidentOrder, IncidentQuery
from opsagent.tools.filters import parse_set_filter
from opsagent.tools.rendering import ArgumentError, ToolCall, iso_minute, window_after
from opsagent.tools.servicenow_filters import (
    INCIDENT_STATE_ORDER,
    INCIDENT_STATES,
    PriorityMatch,
    assignee_filter,
    detail,
    given,
    name_words,
    priority_values,
    set_filter,
)
from opsagent.tools.timewindow import resolve_duration

ORDER_WORDS: dict[IncidentOrder, str] = {"newest": "most recent", "oldest": "oldest", "priority": "most urgent"}
"""How rows in each order are called in "showing the 20 …"."""
_CLOSED = ("Resolved", "Closed", "Canceled")


@dataclass(frozen=True)
class IncidentArguments:
    """``list_incidents``' filters as the model wrote them."""

    state: str = "open"
    priority: int | None = None
    priority_match: PriorityMatch = "or_higher"
    assignment_group: str | None = None
    configuration_item: str | None = None
    text: str | None = None
    opened_within: str | None = None
    assigned_to: str | None = None
    opened_after: str | None = None
    opened_before: str | None = None
    open_longer_than: str | None = None
    resolved_within: str | None = None
    order: IncidentOrder = "newest"

    def asked(self) -> dict[str, object]:
        """The envelope's ``query`` before resolution: the original filters always, the newer ones when given."""
        shown = {name: getattr(self, name) for name in
                 ("state", "priority", "assignment_group", "configuration_item", "text", "opened_within")}
        return shown | given(assigned_to=self.assigned_to, opened_after=self.opened_after,
                             opened_before=self.opened_before, open_longer_than=self.open_longer_than,
                             resolved_within=self.resolved_within,
                             order=None if self.order == "newest" else self.order)


@dataclass(frozen=True)
class ResolvedIncidentFilters:
    query: IncidentQuery
    noun: str
    """"open incident", "incident": what the message counts."""
    detail: str
    """`` (priority exactly 2, opened within …)``: the other filters in words, or ``""``."""
    order_words: str
    """"most recent", "oldest", "most urgent": what "showing the 20 …" shows."""


def resolve_incident_filters(call: ToolCall, asked: IncidentArguments, *, now: datetime, limit: int) -> ResolvedIncidentFilters:
    """The backend query for ``list_incidents``; records each resolved filter in ``call.query``."""
    states = set_filter(call, _state_for(call, asked), INCIDENT_STATES, INCIDENT_STATE_ORDER, argument="state")
    words: list[str] = []
    priorities = _priorities(call, asked, words)
    words += name_words(assignment_group=asked.assignment_group, configuration_item=asked.configuration_item,
                        text=asked.text)
    assignee = assignee_filter(call, asked.assigned_to, words)
    opened_from, opened_before = _opened_range(call, asked, now, words)
    resolved = call.window("resolved_within", asked.resolved_within, now) if asked.resolved_within else None
    if resolved:
        words.append(f"resolved {window_after('within', resolved)}")
    query = IncidentQuery(
        states=states.restriction, priorities=priorities, assignment_group=asked.assignment_group,
        configuration_item=asked.configuration_item, text=asked.text, **assignee,
        opened_from=opened_from, opened_before=opened_before, resolved_from=resolved.start if resolved else None,
        resolved_before=resolved.end if resolved and resolved.end < now else None, order=asked.order, limit=limit,
    )
    order = ORDER_WORDS[asked.order]
    if len(states.named) == 1 and not states.is_negated and not states.is_everything:
        return ResolvedIncidentFilters(query, f"{states.named[0]} incident", detail(words), order)
    state_words = [] if states.is_everything else [states.words()]
    return ResolvedIncidentFilters(query, "incident", detail([*state_words, *words]), order)


def _state_for(call: ToolCall, asked: IncidentArguments) -> str:
    """The state asked; a resolution window with only open states searches the resolved ones (and says so)."""
    if not asked.resolved_within:
        return asked.state
    named = parse_set_filter(asked.state, INCIDENT_STATES, universe=INCIDENT_STATE_ORDER, argument="state")
    if set(named.values) & set(_CLOSED):
        return asked.state
    call.warnings.append(f"state {asked.state!r} has no resolved incidents; resolved_within searched state "
                         "'resolved' or 'closed'.")
    return "resolved, closed"


def _priorities(call: ToolCall, asked: IncidentArguments, words: list[str]) -> list[int] | None:
    if asked.priority is None:
        if asked.priority_match != "or_higher":
            call.warnings.append(f"priority_match {asked.priority_match!r} ignored: no priority was given.")
        return None
    values = priority_values(asked.priority, asked.priority_match)
    call.query["priority"] = {"asked": asked.priority, "match": asked.priority_match, "values": values}
    words.append(f"priority {asked.priority} or more urgent" if asked.priority_match == "or_higher"
                 else f"priority exactly {asked.priority}")
    return values


def _opened_range(
    call: ToolCall, asked: IncidentArguments, now: datetime, words: list[str]
) -> tuple[datetime | None, datetime | None]:
    """``[from, before)`` of the opening time: every opening filter given, intersected."""
    starts: list[datetime] = []
    befores: list[datetime] = []
    if asked.opened_within:
        window = call.window("opened_within", asked.opened_within, now)
        if window.open_start:  # "before Monday": no start was said, so none is applied
            words.append(f"opened before {iso_minute(window.end)}")
        else:
            words.append(f"opened {window_after('within', window)}")
            starts.append(window.start)
        if window.end < now:  # a window that ends now or later needs no upper bound (nothing opens in the future)
            befores.append(window.end)
    if asked.opened_after:
        starts.append(call.point("opened_after", asked.opened_after, now))
        words.append(f"opened after {iso_minute(starts[-1])}")
    if asked.opened_before:
        befores.append(call.point("opened_before", asked.opened_before, now))
        words.append(f"opened before {iso_minute(befores[-1])}")
    if asked.open_longer_than:
        befores.append(_longer_than(call, asked.open_longer_than, now))
        words.append(f"open longer than {asked.open_longer_than.strip()} (opened before {iso_minute(befores[-1])})")
    start, before = (max(starts) if starts else None), (min(befores) if befores else None)
    if start is not None and before is not None and start >= before:
        raise ArgumentError(f"the opening-time filters exclude each other: opened at or after {iso_minute(start)} "
                            f"and before {iso_minute(before)}.")
    return start, before


def _longer_than(call: ToolCall, phrase: str, now: datetime) -> datetime:
    """"2 days" -> the moment 2 days before now (recorded in ``query``)."""
    try:
        cutoff = now - resolve_duration(phrase)
    except ValueError as error:
        raise ArgumentError(f"open_longer_than: {error}") from error
    call.query["open_longer_than"] = {"asked": phrase, "opened_before": iso_minute(cutoff)}
    return cutoff
