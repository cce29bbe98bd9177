"""What the ServiceNow tools' arguments mean: the accepted vocabulary, and arguments -> backend query.

Sits between the tools in ``tools/servicenow.py`` and ``ServiceNowBackend``: state, type and
approval labels (one, a list, or "not …") become sets, a priority becomes "exactly N" or "N or
more urgent", a time phrase becomes an exact UTC window. Each resolved filter is recorded in the
envelope's ``query`` and said in words for the message, so an answer states what was searched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from opsagent.backends.base import Approval, ChangeQuery, ChangeRisk, ChangeState, ChangeType, IncidentQuery, IncidentState
from opsagent.tools.filters import SetFilter, parse_set_filter
from opsagent.tools.rendering import ArgumentError, ToolCall, window_after, window_words

PriorityMatch = Literal["or_higher", "exactly"]
INCIDENT_STATE_ORDER: tuple[str, ...] = get_args(IncidentState)
CHANGE_STATE_ORDER: tuple[str, ...] = get_args(ChangeState)
CHANGE_TYPE_ORDER: tuple[str, ...] = get_args(ChangeType)
APPROVAL_ORDER: tuple[str, ...] = get_args(Approval)
CHANGE_RISK_ORDER: tuple[str, ...] = get_args(ChangeRisk)

_OPEN = ("New", "In Progress", "On Hold")
INCIDENT_STATES: dict[str, tuple[str, ...]] = {
    "open": _OPEN, "active": _OPEN, "new": ("New",), "in_progress": ("In Progress",), "on_hold": ("On Hold",),
    "resolved": ("Resolved",), "closed": ("Closed",), "canceled": ("Canceled",), "cancelled": ("Canceled",),
    "all": INCIDENT_STATE_ORDER,
}
_CHANGE_ACTIVE = tuple(state for state in CHANGE_STATE_ORDER if state not in ("Closed", "Canceled"))
CHANGE_STATES: dict[str, tuple[str, ...]] = {
    **{state.lower(): (state,) for state in CHANGE_STATE_ORDER},
    "authorise": ("Authorize",), "cancelled": ("Canceled",), "open": _CHANGE_ACTIVE, "all": CHANGE_STATE_ORDER,
}
CHANGE_TYPES: dict[str, tuple[str, ...]] = {name: (name,) for name in CHANGE_TYPE_ORDER}
CHANGE_RISKS: dict[str, tuple[str, ...]] = {name.lower().replace(" ", "_"): (name,) for name in CHANGE_RISK_ORDER}
APPROVALS: dict[str, tuple[str, ...]] = {
    "not_requested": ("not requested",), "not_yet_requested": ("not requested",), "requested": ("requested",),
    "approved": ("approved",), "rejected": ("rejected",),
}


@dataclass(frozen=True)
class ResolvedIncidentFilters:
    query: IncidentQuery
    noun: str
    """"open incident", "incident": what the message counts."""
    detail: str
    """`` (priority exactly 2, opened within …)``: the other filters in words, or ``""``."""


@dataclass(frozen=True)
class ResolvedChangeFilters:
    query: ChangeQuery
    detail: str


def priority_values(priority: int, match: PriorityMatch) -> list[int]:
    """``2, "exactly"`` -> ``[2]``; ``2, "or_higher"`` -> ``[1, 2]`` (1 is the most urgent)."""
    if not 1 <= priority <= 5:
        raise ArgumentError(f"priority: {priority} is not 1-5 (1 = Critical, 5 = Planning).")
    return [priority] if match == "exactly" else list(range(1, priority + 1))


def resolve_incident_filters(
    call: ToolCall, *, now: datetime, limit: int, state: str, priority: int | None, priority_match: PriorityMatch,
    assignment_group: str | None, configuration_item: str | None, text: str | None, opened_within: str | None,
) -> ResolvedIncidentFilters:
    """The backend query for ``list_incidents``; records each resolved filter in ``call.query``."""
    states = _set_filter(call, state, INCIDENT_STATES, INCIDENT_STATE_ORDER, argument="state")
    words: list[str] = []
    priorities = None
    if priority is not None:
        priorities = priority_values(priority, priority_match)
        call.query["priority"] = {"asked": priority, "match": priority_match, "values": priorities}
        words.append(f"priority {priority} or more urgent" if priority_match == "or_higher" else f"priority exactly {priority}")
    elif priority_match != "or_higher":
        call.warnings.append(f"priority_match {priority_match!r} ignored: no priority was given.")
    words += _name_words(assignment_group=assignment_group, configuration_item=configuration_item, text=text)
    window = call.window("opened_within", opened_within, now) if opened_within else None
    if window:
        words.append(f"opened {window_after('within', window)}")
    query = IncidentQuery(
        states=states.restriction, priorities=priorities, assignment_group=assignment_group,
        configuration_item=configuration_item, text=text, opened_from=window.start if window else None,
        # a window that ends now or later needs no upper bound (nothing is opened in the future)
        opened_before=window.end if window and window.end < now else None, limit=limit,
    )
    if len(states.named) == 1 and not states.is_negated and not states.is_everything:
        return ResolvedIncidentFilters(query, f"{states.named[0]} incident", _detail(words))
    state_words = [] if states.is_everything else [states.words()]
    return ResolvedIncidentFilters(query, "incident", _detail([*state_words, *words]))


def resolve_change_filters(
    call: ToolCall, *, now: datetime, limit: int, state: str, type: str | None, approval: str | None,
    window: str | None, configuration_item: str | None, text: str | None, risk: str | None = None,
) -> ResolvedChangeFilters:
    """The backend query for ``list_change_requests``; records each resolved filter in ``call.query``."""
    states = _set_filter(call, state, CHANGE_STATES, CHANGE_STATE_ORDER, argument="state")
    types = _set_filter(call, type, CHANGE_TYPES, CHANGE_TYPE_ORDER, argument="type") if type else None
    approvals = _set_filter(call, approval, APPROVALS, APPROVAL_ORDER, argument="approval") if approval else None
    risks = _set_filter(call, risk, CHANGE_RISKS, CHANGE_RISK_ORDER, argument="risk") if risk else None
    span = call.window("window", window, now) if window else None
    words = [item.words() for item in (states, types, risks, approvals) if item and not item.is_everything]
    if span:
        words.append(f"planned window overlapping {window_words(span)}")
    words += _name_words(configuration_item=configuration_item, text=text)
    query = ChangeQuery(
        states=states.restriction, types=types.restriction if types else None,
        risks=risks.restriction if risks else None,
        approvals=approvals.restriction if approvals else None, configuration_item=configuration_item,
        text=text, window_start=span.start if span else None, window_end=span.end if span else None, limit=limit,
    )
    return ResolvedChangeFilters(query, _detail(words))


def _set_filter(
    call: ToolCall, value: str, choices: dict[str, tuple[str, ...]], universe: tuple[str, ...], *, argument: str
) -> SetFilter:
    resolved = parse_set_filter(value, choices, universe=universe, argument=argument)
    call.query[argument] = resolved.to_json()
    return resolved


def _name_words(**names: str | None) -> list[str]:
    labels = {"assignment_group": "group", "configuration_item": "CI", "text": "text"}
    return [f"{labels[name]} {value!r}" for name, value in names.items() if value]


def _detail(words: list[str]) -> str:
    return f" ({', '.join(words)})" if words else ""
