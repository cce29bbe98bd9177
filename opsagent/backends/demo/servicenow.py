"""DemoServiceNowBackend: incidents and change requests from the demo SQLite file.

Implements ``ServiceNowBackend`` (``backends/base.py``) the way the Table API behaves: filters
are ANDed, text, group, CI and assignee filters are case-insensitive substrings, incidents come
newest first (or oldest first, or most urgent first), changes by planned start (latest first, or
earliest first), and a lookup by an unknown number raises ``BackendNotFoundError``.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from opsagent.backends.demo.store import DemoStore, Where, offset, to_record
from opsagent.backends.page import Page
from opsagent.backends.tickets import (
    AssigneeFilter,
    ChangeSort,
    ChangeQuery,
    ChangeRequest,
    Incident,
    IncidentOrder,
    IncidentQuery,
)
from opsagent.errors import BackendNotFoundError

_SYSTEM = "ServiceNow"
_TEXT_COLUMNS = ("number", "short_description", "description", "configuration_item")
"""What the free-text filter searches, for incidents and changes alike."""
_INCIDENT_TIMES = {"opened_min": "opened_at", "resolved_min": "resolved_at", "updated_min": "updated_at"}
_CHANGE_TIMES = {"start_min": "start_date", "end_min": "end_date"}
_INCIDENT_ORDER: dict[IncidentOrder, str] = {
    "newest": "opened_min DESC, number DESC", "oldest": "opened_min ASC, number ASC",
    "priority": "priority ASC, opened_min DESC, number DESC",
}
_CHANGE_ORDER: dict[ChangeSort, str] = {
    "latest": "start_min DESC, number DESC", "earliest": "start_min IS NULL, start_min ASC, number ASC",
}


class DemoServiceNowBackend:
    """ServiceNow over the demo data set; times are anchored to the store's clock at each call."""

    kind = "demo"

    def __init__(self, store: DemoStore) -> None:
        self._store = store

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]:
        now = self._store.now()
        where = Where().one_of("state", query.states).one_of("priority", query.priorities)
        where.contains(("assignment_group",), query.assignment_group)
        where.contains(("configuration_item",), query.configuration_item)
        where.contains(_TEXT_COLUMNS, query.text)
        _assignee(where, query)
        where.between("opened_min", now, query.opened_from, query.opened_before)
        where.between("resolved_min", now, query.resolved_from, query.resolved_before)
        where.contains_any(("short_description", "description", "close_notes"), query.any_words)
        rows, total = self._store.page("incidents", where, order=_INCIDENT_ORDER[query.order], limit=query.limit)
        return Page(items=[_incident(row, now) for row in rows], total=total)

    async def get_incident(self, number: str) -> Incident:
        return _incident(*self._one("incidents", number, noun="incident"))

    async def list_change_requests(self, query: ChangeQuery) -> Page[ChangeRequest]:
        now = self._store.now()
        where = Where().one_of("state", query.states).one_of("type", query.types).one_of("approval", query.approvals)
        where.one_of("risk", query.risks)
        where.contains(("configuration_item",), query.configuration_item)
        where.contains(_TEXT_COLUMNS, query.text)
        _assignee(where, query)
        if query.window_end is not None:
            where.add("start_min < ?", offset(now, query.window_end))
        if query.window_start is not None:
            where.add("end_min > ?", offset(now, query.window_start))
        if query.starts_after is not None:
            where.add("start_min >= ?", offset(now, query.starts_after))
        rows, total = self._store.page("change_requests", where, order=_CHANGE_ORDER[query.order], limit=query.limit)
        return Page(items=[_change(row, now) for row in rows], total=total)

    async def get_change_request(self, number: str) -> ChangeRequest:
        return _change(*self._one("change_requests", number, noun="change request"))

    async def list_configuration_items(self, *, limit: int = 500) -> list[str]:
        return self._names("configuration_item", limit)

    async def list_assignment_groups(self, *, limit: int = 200) -> list[str]:
        return self._names("assignment_group", limit)

    async def list_people(self, *, limit: int = 500) -> list[str]:
        return self._names("assigned_to", limit)

    def _names(self, column: str, limit: int) -> list[str]:
        """Distinct non-empty values of ``column`` over incidents and changes, by name."""
        rows = self._store.rows(
            f"SELECT {column} FROM incidents WHERE {column} != '' UNION "
            f"SELECT {column} FROM change_requests WHERE {column} != '' ORDER BY 1 LIMIT ?", [limit])
        return [row[0] for row in rows]

    def _one(self, table: str, number: str, *, noun: str) -> tuple[sqlite3.Row, datetime]:
        rows = self._store.rows(f"SELECT * FROM {table} WHERE number = ?", (number.upper(),))
        if not rows:
            raise BackendNotFoundError(f"No {noun} {number} found.", backend=_SYSTEM, query=f"number={number}")
        return rows[0], self._store.now()


def _assignee(where: Where, query: AssigneeFilter) -> None:
    """No one (an empty assignee), anyone, or every word of a name in the assignee's name (any case)."""
    if query.unassigned or query.assigned:
        where.add("assigned_to = ''" if query.unassigned else "assigned_to != ''")
    where.contains(("assigned_to",), query.assigned_to)


def _incident(row: sqlite3.Row, now: datetime) -> Incident:
    return to_record(Incident, row, now, times=_INCIDENT_TIMES)


def _change(row: sqlite3.Row, now: datetime) -> ChangeRequest:
    return to_record(ChangeRequest, row, now, times=_CHANGE_TIMES)
