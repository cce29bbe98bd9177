"""``HttpServiceNowBackend``: incidents and change requests over the ServiceNow REST Table API.

Reads ``GET /api/now/table/{incident|change_request}`` with an encoded ``sysparm_query`` built
from ``IncidentQuery``/``ChangeQuery`` (``backends.servicenow_query``), ``sysparm_display_value=all``
(codes for logic, labels for people; a journal field such as ``work_notes`` and a reference such as
``rfc`` are read by their display value) and offset paging. The inventories (configuration items,
assignment groups) are the names that recent incidents and changes refer to. Every value the API returns is a string, so parsing is defensive: a
record that cannot be read is skipped with a warning rather than failing the whole list.
Auth (``backends.servicenow_auth``) is basic, a static bearer token, or an OAuth token (client
credentials or password grant) refreshed on expiry and once after a 401; the unreadable-record loop
is ``backends.records.parse_records``. Transport goes through ``backends.http`` retries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from itertools import zip_longest
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx
from pydantic import BaseModel, ValidationError

from opsagent.backends.base import ChangeQuery, ChangeRequest, Incident, IncidentQuery, Page
from opsagent.backends.http import JsonResponse, RetryPolicy, request_json
from opsagent.backends.records import parse_records, to_float
from opsagent.backends.servicenow_auth import BACKEND, OAuthToken, StaticAuth, make_servicenow_auth
from opsagent.backends.servicenow_query import (
    CHANGE_STATES,
    INCIDENT_STATES,
    RISKS,
    encode_change_query,
    encode_incident_query,
    encode_referenced_query,
)
from opsagent.errors import BackendAuthError, BackendNotFoundError, BackendResponseError
from opsagent.settings import Settings

RecordT = TypeVar("RecordT", bound=BaseModel)

INCIDENT_FIELDS = (
    "number,sys_id,short_description,description,state,priority,impact,urgency,category,"
    "assignment_group,assigned_to,cmdb_ci,opened_at,sys_created_on,resolved_at,sys_updated_on,"
    "close_notes,work_notes,rfc,caused_by,parent_incident,problem_id"
)
CHANGE_FIELDS = (
    "number,sys_id,short_description,description,type,state,risk,approval,start_date,end_date,"
    "cmdb_ci,assignment_group,assigned_to,close_notes,work_notes"
)
_NUMBER = re.compile(r"^[A-Z]{2,8}\d{4,10}$")
_MAX_PAGES = 50
INVENTORY_SCAN_ROWS = 1000
"""How many of the most recently updated incidents (and as many changes) an inventory reads."""


class HttpServiceNowBackend:
    """ServiceNow Table API client (read-only). Close with ``aclose`` (registered in ``Backends.closers``)."""

    kind = "servicenow"

    def __init__(
        self,
        instance_url: str,
        auth: OAuthToken | StaticAuth,
        *,
        policy: RetryPolicy,
        client: httpx.AsyncClient | None = None,
        page_size: int = 100,
    ) -> None:
        self._base = instance_url.rstrip("/")
        self._auth = auth
        self._policy = policy
        self._client = client or httpx.AsyncClient(headers={"Accept": "application/json"})
        self._page_size = page_size

    @classmethod
    def from_settings(cls, settings: Settings, *, policy: RetryPolicy | None = None) -> HttpServiceNowBackend:
        policy = policy or RetryPolicy.from_settings(settings)
        auth = make_servicenow_auth(settings, policy=policy)
        return cls(settings.servicenow_instance_url or "", auth, policy=policy)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]:
        encoded = encode_incident_query(query)
        return await self._list("incident", encoded, INCIDENT_FIELDS, query.limit, _parse_incident)

    async def get_incident(self, number: str) -> Incident:
        return await self._get_by_number("incident", number, INCIDENT_FIELDS, _parse_incident)

    async def list_change_requests(self, query: ChangeQuery) -> Page[ChangeRequest]:
        encoded = encode_change_query(query)
        return await self._list("change_request", encoded, CHANGE_FIELDS, query.limit, _parse_change)

    async def get_change_request(self, number: str) -> ChangeRequest:
        return await self._get_by_number("change_request", number, CHANGE_FIELDS, _parse_change)

    async def list_configuration_items(self, *, limit: int = 500) -> list[str]:
        return await self._referenced_names("cmdb_ci", limit)

    async def list_assignment_groups(self, *, limit: int = 200) -> list[str]:
        return await self._referenced_names("assignment_group", limit)

    async def list_people(self, *, limit: int = 500) -> list[str]:
        return await self._referenced_names("assigned_to", limit)

    async def _referenced_names(self, field: str, limit: int) -> list[str]:
        """Display names in ``field`` of recent incidents and changes: one bounded request per table,
        the most recent ``limit`` distinct names (taken from both tables in turn), sorted by name."""
        params = {"sysparm_query": encode_referenced_query(field), "sysparm_limit": str(INVENTORY_SCAN_ROWS),
                  "sysparm_no_count": "true"}
        per_table = []
        for table in ("incident", "change_request"):
            rows, _ = await self._fetch(table, params, field)
            per_table.append([_field(row, field, display=True) for row in rows])
        distinct: dict[str, None] = {}
        for name in (name for names in zip_longest(*per_table, fillvalue="") for name in names if name):
            if len(distinct) >= limit:
                break
            distinct.setdefault(name)
        return sorted(distinct, key=str.casefold)

    async def _get_by_number(
        self, table: str, number: str, fields: str, parse: Callable[[Mapping[str, Any]], RecordT]
    ) -> RecordT:
        wanted = number.strip().upper()
        if not _NUMBER.match(wanted):
            raise BackendNotFoundError(f"{number!r} is not a valid {table} number (a prefix and digits)",
                                       backend=BACKEND, query=f"{table} number={number}")
        rows, _ = await self._fetch(table, {"sysparm_query": f"number={wanted}", "sysparm_limit": "1"}, fields)
        if not rows:
            raise BackendNotFoundError(f"no {table} numbered {wanted} in ServiceNow",
                                       backend=BACKEND, query=f"{table} number={wanted}")
        try:
            return parse(rows[0])
        except (ValidationError, ValueError, TypeError) as error:
            raise BackendResponseError(f"ServiceNow {table} {wanted} could not be read: {error}",
                                       backend=BACKEND, query=f"{table} number={wanted}") from error

    async def _list(
        self, table: str, encoded: str, fields: str, limit: int, parse: Callable[[Mapping[str, Any]], RecordT]
    ) -> Page[RecordT]:
        rows, total = await self._collect(table, encoded, fields, limit)
        items, skipped = parse_records(rows, parse, describe=lambda row: _field(row, "number") or "?")
        warnings = [f"skipped {len(skipped)} unreadable {table} record(s): {', '.join(skipped[:5])}"] if skipped else []
        return Page(items=items, total=max(total, len(items) + len(skipped)), warnings=warnings, unreadable=len(skipped))

    async def _collect(self, table: str, encoded: str, fields: str, limit: int) -> tuple[list[Mapping[str, Any]], int]:
        """Follow offset paging (Link rel=next or X-Total-Count) until ``limit`` rows or the end."""
        rows: list[Mapping[str, Any]] = []
        offset, total = 0, 0
        for _ in range(_MAX_PAGES):
            size = min(self._page_size, limit - len(rows))
            params = {"sysparm_query": encoded, "sysparm_limit": str(size), "sysparm_offset": str(offset)}
            page, headers = await self._fetch(table, params, fields)
            rows.extend(page[:size])
            total = int(to_float(headers.get("x-total-count"), default=len(rows)))
            next_offset = _next_offset(headers.get("link", ""))
            has_more = next_offset is not None or offset + len(page) < total
            if not page or len(rows) >= limit or not has_more:
                break
            offset = next_offset if next_offset is not None else offset + len(page)
        return rows, total

    async def _fetch(
        self, table: str, params: dict[str, str], fields: str
    ) -> tuple[list[Mapping[str, Any]], httpx.Headers]:
        url = f"{self._base}/api/now/table/{table}"
        params = params | {"sysparm_fields": fields, "sysparm_display_value": "all",
                           "sysparm_exclude_reference_link": "true"}
        query = f"{table}: {params['sysparm_query']}"
        response = await self._send_authorised(url, params, query)
        result = response.body.get("result") if isinstance(response.body, dict) else None
        if not isinstance(result, list):
            raise BackendResponseError("ServiceNow answered without a result list", backend=BACKEND, query=query)
        return [r for r in result if isinstance(r, Mapping)], response.headers

    async def _send_authorised(self, url: str, params: dict[str, str], query: str) -> JsonResponse:
        """GET with the current credential; after a 401 an OAuth token is refetched once."""

        async def build() -> httpx.Request:
            authorization = await self._auth.header(self._client)
            return self._client.build_request("GET", url, params=params, headers={"Authorization": authorization})

        try:
            return await request_json(self._client, build, policy=self._policy, backend=BACKEND, query=query)
        except BackendAuthError as error:
            if error.status_code != 401 or not self._auth.invalidate():
                raise
        return await request_json(self._client, build, policy=self._policy, backend=BACKEND, query=query)


# region paging
def _next_offset(link_header: str) -> int | None:
    for part in link_header.split(","):
        if 'rel="next"' in part and "<" in part and ">" in part:
            url = part[part.index("<") + 1 : part.index(">")]
            values = parse_qs(urlsplit(url).query).get("sysparm_offset")
            return int(values[0]) if values and values[0].isdigit() else None
    return None
# endregion


# region parsing
def _parse_incident(row: Mapping[str, Any]) -> Incident:
    state = _field(row, "state")
    return Incident(
        number=_field(row, "number"),
        short_description=_field(row, "short_description"),
        description=_field(row, "description"),
        state=INCIDENT_STATES.get(state) or _field(row, "state", display=True),
        priority=int(_field(row, "priority")),
        impact=int(_field(row, "impact") or 2),
        urgency=int(_field(row, "urgency") or 2),
        category=_field(row, "category", display=True),
        assignment_group=_field(row, "assignment_group", display=True),
        assigned_to=_field(row, "assigned_to", display=True),
        configuration_item=_field(row, "cmdb_ci", display=True),
        opened_at=_parse_datetime(_field(row, "opened_at")) or _parse_datetime(_field(row, "sys_created_on")),
        resolved_at=_parse_datetime(_field(row, "resolved_at")),
        updated_at=_parse_datetime(_field(row, "sys_updated_on")),
        close_notes=_field(row, "close_notes"),
        work_notes=_field(row, "work_notes", display=True),
        # references show the record's number as their display value
        **{name: _field(row, name, display=True) for name in ("rfc", "caused_by", "parent_incident", "problem_id")},
    )


def _parse_change(row: Mapping[str, Any]) -> ChangeRequest:
    return ChangeRequest(
        number=_field(row, "number"),
        short_description=_field(row, "short_description"),
        description=_field(row, "description"),
        type=_field(row, "type") or "normal",
        state=CHANGE_STATES.get(_field(row, "state")) or _field(row, "state", display=True),
        risk=RISKS.get(_field(row, "risk"), "Moderate"),
        approval=_field(row, "approval") or "not requested",
        start_date=_parse_datetime(_field(row, "start_date")),
        end_date=_parse_datetime(_field(row, "end_date")),
        configuration_item=_field(row, "cmdb_ci", display=True),
        assignment_group=_field(row, "assignment_group", display=True),
        assigned_to=_field(row, "assigned_to", display=True),
        close_notes=_field(row, "close_notes"),
        work_notes=_field(row, "work_notes", display=True),
    )


def _field(row: Mapping[str, Any], name: str, *, display: bool = False) -> str:
    """A field as text: ``{display_value, value}`` pairs (display_value=all) or a plain string."""
    raw = row.get(name)
    if isinstance(raw, Mapping):
        raw = raw.get("display_value" if display else "value")
    return "" if raw is None else str(raw).strip()


def _parse_datetime(text: str) -> datetime | None:
    """Raw ServiceNow datetimes are UTC ``YYYY-MM-DD HH:MM:SS``; ``""`` means unset."""
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
# endregion
