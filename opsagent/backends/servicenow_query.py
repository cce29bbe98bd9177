"""Encoded queries (``sysparm_query``) for the ServiceNow Table API, built from ``IncidentQuery``/``ChangeQuery``.

Sits under ``HttpServiceNowBackend`` (``backends.servicenow``), which sends what these functions
return. Sets become ``field=value`` (one value) or ``fieldINa,b`` (several); a priority set
``{1..N}`` becomes ``priority<=N`` ("P N or more urgent"); times are raw UTC
``YYYY-MM-DD HH:MM:SS``; an assignee is ``assigned_to.nameLIKE…`` (no one: ``assigned_toISEMPTY``);
the order comes last (``ORDERBYDESCopened_at``, ``ORDERBYopened_at``, ``ORDERBYpriority``). Text
from people and models cannot escape ``^`` (it starts a new condition), so ``^`` and line breaks
are dropped from it. The codes <-> labels maps live here because the client's parsing reads them too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone

from opsagent.backends.tickets import AssigneeFilter, ChangeQuery, ChangeSort, IncidentOrder, IncidentQuery

INCIDENT_STATES = {"1": "New", "2": "In Progress", "3": "On Hold", "6": "Resolved", "7": "Closed", "8": "Canceled"}
CHANGE_STATES = {
    "-5": "New", "-4": "Assess", "-3": "Authorize", "-2": "Scheduled",
    "-1": "Implement", "0": "Review", "3": "Closed", "4": "Canceled",
}
RISKS = {"1": "Very High", "2": "High", "3": "Moderate", "4": "Low"}
_INCIDENT_CODES = {label: code for code, label in INCIDENT_STATES.items()}
_RISK_CODES = {label: code for code, label in RISKS.items()}
_CHANGE_CODES = {label: code for code, label in CHANGE_STATES.items()}


_INCIDENT_ORDER: dict[IncidentOrder, str] = {
    "newest": "ORDERBYDESCopened_at", "oldest": "ORDERBYopened_at", "priority": "ORDERBYpriority^ORDERBYDESCopened_at",
}
_CHANGE_ORDER: dict[ChangeSort, str] = {"latest": "ORDERBYDESCstart_date", "earliest": "ORDERBYstart_date"}


def encode_incident_query(query: IncidentQuery) -> str:
    """``stateIN1,2^priority<=2^…^opened_at>=…^opened_at<…^resolved_at>=…^ORDERBYDESCopened_at``."""
    parts = [one_of("state", [_INCIDENT_CODES[s] for s in query.states])] if query.states else []
    if query.priorities:
        parts.append(_priority_filter(query.priorities))
    parts += _name_filters(query.assignment_group, query.configuration_item)
    parts += _assignee_filter(query)
    parts += _time_range("opened_at", query.opened_from, query.opened_before)
    parts += _time_range("resolved_at", query.resolved_from, query.resolved_before)
    parts += _text_filter(query.text)
    parts += _any_word_filter(query.any_words)
    return "^".join([*parts, _INCIDENT_ORDER[query.order]])


def encode_change_query(query: ChangeQuery) -> str:
    """``stateIN-2,-1^type=normal^approvalINrequested,rejected^start_date<=…^end_date>=…^ORDERBYDESCstart_date``."""
    parts = [one_of("state", [_CHANGE_CODES[s] for s in query.states])] if query.states else []
    if query.types:
        parts.append(one_of("type", query.types))
    if query.risks:
        parts.append(one_of("risk", [_RISK_CODES[risk] for risk in query.risks]))
    if query.approvals:
        parts.append(one_of("approval", query.approvals))
    if query.window_end is not None:  # overlap: starts before the window ends, ends after it starts
        parts.append(f"start_date<={format_datetime(query.window_end)}")
    if query.window_start is not None:
        parts.append(f"end_date>={format_datetime(query.window_start)}")
    if query.starts_after is not None:
        parts.append(f"start_date>={format_datetime(query.starts_after)}")
    parts += _name_filters(None, query.configuration_item)
    parts += _assignee_filter(query)
    parts += _text_filter(query.text)
    return "^".join([*parts, _CHANGE_ORDER[query.order]])


def encode_referenced_query(field: str) -> str:
    """Records that refer to something in ``field``, most recently updated first (for inventories)."""
    return f"{field}ISNOTEMPTY^ORDERBYDESCsys_updated_on"


def one_of(field: str, values: Sequence[str]) -> str:
    """``field=value`` for one value, ``fieldINa,b`` for several."""
    return f"{field}={values[0]}" if len(values) == 1 else f"{field}IN{','.join(values)}"


def _priority_filter(priorities: Sequence[int]) -> str:
    """``priority=2`` (exactly), ``priority<=2`` (1 and 2: "P2 or more urgent"), else ``priorityIN…``."""
    ordered = sorted(set(priorities))
    if len(ordered) > 1 and ordered == list(range(1, ordered[-1] + 1)):
        return f"priority<={ordered[-1]}"
    return one_of("priority", [str(p) for p in ordered])


def _name_filters(group: str | None, item: str | None) -> list[str]:
    """Names come from people and models, often partial, so match with LIKE (contains, case-insensitive)."""
    parts = [f"assignment_group.nameLIKE{clean(group)}"] if group else []
    return parts + ([f"cmdb_ci.nameLIKE{clean(item)}"] if item else [])


def _assignee_filter(query: AssigneeFilter) -> list[str]:
    """``assigned_toISEMPTY`` for no one, ``assigned_toISNOTEMPTY`` for anyone; a person's display name, often
    partial, with LIKE."""
    if query.unassigned or query.assigned:
        return ["assigned_toISEMPTY" if query.unassigned else "assigned_toISNOTEMPTY"]
    return [f"assigned_to.nameLIKE{clean(query.assigned_to)}"] if query.assigned_to else []


def _time_range(field: str, start: datetime | None, before: datetime | None) -> list[str]:
    """``field>=start^field<before`` (raw UTC), for the bounds that are given."""
    parts = [f"{field}>={format_datetime(start)}"] if start is not None else []
    return parts + ([f"{field}<{format_datetime(before)}"] if before is not None else [])


def _text_filter(text: str | None) -> list[str]:
    """Every word in the short description or the description (``^OR`` binds before ``^``)."""
    return [f"short_descriptionLIKE{word}^ORdescriptionLIKE{word}" for word in clean(text).split()]


def _any_word_filter(words: Sequence[str] | None) -> list[str]:
    """One condition: any of the words in the short description, description or close notes (``^OR`` chain)."""
    cleaned = [clean(word) for word in words or [] if clean(word)]
    fields = ("short_description", "description", "close_notes")
    return ["^OR".join(f"{field}LIKE{word}" for word in cleaned for field in fields)] if cleaned else []


def clean(value: str | None) -> str:
    """Encoded queries cannot escape ``^`` (it starts a new condition), so drop it and line breaks."""
    return re.sub(r"[\^\r\n]+", " ", value or "").strip()


def format_datetime(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return aware.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
