"""What the ServiceNow tools' arguments mean: the accepted vocabulary, and change arguments -> backend query.

Sits between the tools in ``tools/servicenow.py`` and ``ServiceNowBackend``: state, type and
approval labels (one, a list, or "not …") become sets, a time phrase becomes an exact UTC window,
an assignee a person or no one. Each resolved filter is recorded in the envelope's ``query`` and
said in words for the message, so an answer states what was searched. Incident arguments (priority,
opening and resolution times, order) are read by ``incident_filters.py`` with the helpers here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

from opsagent.backends.base import Approval, ChangeOrder, ChangeQuery, ChangeRisk, ChangeState, ChangeType, IncidentState
from opsagent.tools.filters import SetFilter, parse_set_filter
from opsagent.tools.rendering import ArgumentError, ToolCall, window_words
from opsagent.tools.vocabularies import ASSIGNEE

PriorityMatch = Literal["or_higher", "exactly"]
INCIDENT_STATE_ORDER: tuple[str, ...] = get_args(IncidentState)
CHANGE_STATE_ORDER: tuple[str, ...] = get_args(ChangeState)
CHANGE_TYPE_ORDER: tuple[str, ...] = get_args(ChangeType)
APPROVAL_ORDER: tuple[str, ...] = get_args(Approval)
CHANGE_RISK_ORDER: tuple[str, ...] = get_args(ChangeRisk)

_OPEN = ("New", "In Progress", "On Hold")
INCIDENT_STATES: dict[str, tuple[str, ...]] = {
    "open": _OPEN, "active": _OPEN, "new": ("New",), "in_progress": ("In Progress",), "on_hold": ("On Hold",),
    "resolved": ("Resolved",), "closed": ("Closed",), "done": ("Resolved", "Closed"), "canceled": ("Canceled",),
    "cancelled": ("Canceled",),
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
    "unapproved": ("not requested", "requested", "rejected"),  # the approval vocabulary's group ("no approval")
}


@dataclass(frozen=True)
class ResolvedChangeFilters:
    query: ChangeQuery
    detail: str
    order_words: str
    """How the rows are ordered, for "showing the 20 …": "with the latest planned start"."""


@dataclass(frozen=True)
class ChangeArguments:
    """``list_change_requests``' filters as the model wrote them."""

    state: str = "all"
    type: str | None = None
    risk: str | None = None
    approval: str | None = None
    window: str | None = None
    configuration_item: str | None = None
    text: str | None = None
    assigned_to: str | None = None
    order: ChangeOrder = "latest"

    def asked(self) -> dict[str, object]:
        """The envelope's ``query`` before resolution: the original filters always, the newer ones when given."""
        shown = {name: getattr(self, name) for name in
                 ("state", "type", "risk", "approval", "window", "configuration_item", "text")}
        return shown | given(assigned_to=self.assigned_to, order=None if self.order == "latest" else self.order)


def priority_values(priority: int, match: PriorityMatch) -> list[int]:
    """``2, "exactly"`` -> ``[2]``; ``2, "or_higher"`` -> ``[1, 2]`` (1 is the most urgent)."""
    if not 1 <= priority <= 5:
        raise ArgumentError(f"priority: {priority} is not 1-5 (1 = Critical, 5 = Planning).")
    return [priority] if match == "exactly" else list(range(1, priority + 1))


def resolve_change_filters(call: ToolCall, asked: ChangeArguments, *, now: datetime, limit: int) -> ResolvedChangeFilters:
    """The backend query for ``list_change_requests``; records each resolved filter in ``call.query``."""
    states = set_filter(call, asked.state, CHANGE_STATES, CHANGE_STATE_ORDER, argument="state")
    types = set_filter(call, asked.type, CHANGE_TYPES, CHANGE_TYPE_ORDER, argument="type") if asked.type else None
    approvals = (set_filter(call, asked.approval, APPROVALS, APPROVAL_ORDER, argument="approval")
                 if asked.approval else None)
    risks = set_filter(call, asked.risk, CHANGE_RISKS, CHANGE_RISK_ORDER, argument="risk") if asked.risk else None
    span = call.window("window", asked.window, now) if asked.window else None
    words = [item.words() for item in (states, types, risks, approvals) if item and not item.is_everything]
    if span:
        words.append(f"planned window overlapping {window_words(span)}")
    upcoming = asked.order == "next"  # "what's next up": windows that start from now on
    if upcoming:
        words.append("planned to start from now on")
    words += name_words(configuration_item=asked.configuration_item, text=asked.text)
    assignee = assignee_filter(call, asked.assigned_to, words)
    query = ChangeQuery(
        states=states.restriction, types=types.restriction if types else None,
        risks=risks.restriction if risks else None, approvals=approvals.restriction if approvals else None,
        configuration_item=asked.configuration_item, text=asked.text,
        window_start=span.start if span else None, window_end=span.end if span else None,
        starts_after=now if upcoming else None,
        **assignee, order="earliest" if asked.order == "next" else asked.order,
        limit=limit,
    )
    sort = "earliest" if asked.order == "next" else asked.order
    return ResolvedChangeFilters(query, detail(words), f"with the {sort} planned start")


def assignee_filter(call: ToolCall, value: str | None, words: list[str]) -> dict[str, Any]:
    """The ``AssigneeFilter`` fields: ``assigned_to`` for a person, ``unassigned`` for "unassigned" / "nobody",
    ``assigned`` for "any assignee" / "someone"; nothing when no assignee was asked."""
    name = value.strip() if value else ""
    if not name:
        return {}
    fixed = "unassigned" if name.lower() == "none" else ASSIGNEE.lookup(name)  # "none": a model's "no one"
    if fixed in ("unassigned", "any_assignee"):
        flag = "unassigned" if fixed == "unassigned" else "assigned"
        call.query["assigned_to"] = {"asked": value, flag: True}
        words.append("unassigned" if flag == "unassigned" else "assigned to someone")
        return {flag: True}
    words.append(f"assigned to {name!r}")
    return {"assigned_to": name}


def given(**values: object) -> dict[str, object]:
    """The arguments that were given (not ``None``), for the envelope's ``query``."""
    return {name: value for name, value in values.items() if value is not None}


def set_filter(
    call: ToolCall, value: str, choices: dict[str, tuple[str, ...]], universe: tuple[str, ...], *, argument: str
) -> SetFilter:
    resolved = parse_set_filter(value, choices, universe=universe, argument=argument)
    call.query[argument] = resolved.to_json()
    return resolved


def name_words(**names: str | None) -> list[str]:
    labels = {"assignment_group": "group", "configuration_item": "CI", "text": "text"}
    return [f"{labels[name]} {value!r}" for name, value in names.items() if value]


def detail(words: list[str]) -> str:
    return f" ({', '.join(words)})" if words else ""
