"""ServiceNow specialist tools: list/get incidents and change requests (LLM-facing).

Sits between the servicenow specialist agent and ``ServiceNowBackend``: each tool turns the
model's lenient arguments (state labels, time phrases, loosely typed ticket numbers) into a
backend query, and the backend's records into the bounded ``ToolResult`` envelope via
``rendering.py``. Docstrings and parameter descriptions are the prompt the model sees.
"""

# No `from __future__ import annotations`: MAF builds each tool's schema from its evaluated
# annotations, and the parameter descriptions use values of the factory's closure.

import re
from functools import partial
from typing import Annotated, Any

from agent_framework import FunctionTool, tool
from pydantic import Field

from opsagent.backends.base import Backends, ChangeQuery, ChangeRequest, Clock, Incident, IncidentQuery
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import (
    ArgumentError,
    ToolCall,
    clamp_limit,
    count_message,
    iso_minute,
    parse_choice,
    shorten,
)

SYSTEM = "ServiceNow"
_OPEN = ("New", "In Progress", "On Hold")
INCIDENT_STATES: dict[str, tuple[str, ...]] = {
    "open": _OPEN, "active": _OPEN, "new": ("New",), "in_progress": ("In Progress",), "on_hold": ("On Hold",),
    "resolved": ("Resolved",), "closed": ("Closed",), "canceled": ("Canceled",), "cancelled": ("Canceled",),
    "all": (*_OPEN, "Resolved", "Closed", "Canceled"),
}
_CHANGE_ACTIVE = ("New", "Assess", "Authorize", "Scheduled", "Implement", "Review")
CHANGE_STATES: dict[str, tuple[str, ...]] = {
    **{state.lower(): (state,) for state in (*_CHANGE_ACTIVE, "Closed", "Canceled")},
    "authorise": ("Authorize",), "cancelled": ("Canceled",), "open": _CHANGE_ACTIVE,
    "all": (*_CHANGE_ACTIVE, "Closed", "Canceled"),
}
CHANGE_TYPES: dict[str, tuple[str, ...]] = {name: (name,) for name in ("normal", "standard", "emergency")}
APPROVALS: dict[str, tuple[str, ...]] = {
    "not_requested": ("not requested",), "not_yet_requested": ("not requested",), "requested": ("requested",),
    "approved": ("approved",), "rejected": ("rejected",),
}
_FILTER_LABELS = {
    "state": "state {!r}", "priority": "priority {} or more urgent", "assignment_group": "group {!r}",
    "configuration_item": "CI {!r}", "text": "text {!r}", "opened_since": "opened in {}", "type": "type {!r}",
    "approval": "approval {!r}", "window": "planned window overlapping {}",
}
_TICKET = re.compile(r"^\s*([A-Za-z]{3})?[\s-]*(\d{1,7})\s*$")
_TICKET_KINDS = {"INC": ("an incident", "get_incident"), "CHG": ("a change request", "get_change_request")}


def normalise_number(raw: str, prefix: str, warnings: list[str]) -> str:
    """``"inc10042"`` -> ``"INC0010042"`` (noted in ``warnings``); anything ambiguous is an ``ArgumentError``."""
    noun, _ = _TICKET_KINDS[prefix]
    match = _TICKET.match(raw)
    if match is None:
        raise ArgumentError(
            f"number: {raw!r} is not {noun} number; expected {prefix} + 7 digits (e.g. {prefix}0010042). "
            "Never guess a number; list first."
        )
    given = (match.group(1) or prefix).upper()
    if given != prefix:
        other = _TICKET_KINDS.get(given)
        hint = f"it is {other[0]} number; use {other[1]}" if other else f"only {prefix} numbers are accepted here"
        raise ArgumentError(f"number: {raw!r} is not {noun} number ({hint}).")
    number = prefix + match.group(2).zfill(7)
    if number != raw.strip():
        warnings.append(f"Read {raw.strip()!r} as {number}.")
    return number


def incident_row(incident: Incident, *, full: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "number": incident.number,
        "short_description": shorten(incident.short_description),
        "state": incident.state,
        "priority": incident.priority,
        "assignment_group": incident.assignment_group,
        "configuration_item": incident.configuration_item,
        "opened_at": iso_minute(incident.opened_at),
    }
    if full:
        row |= {
            "description": shorten(incident.description, 500),
            "impact": incident.impact,
            "urgency": incident.urgency,
            "category": incident.category,
            "assigned_to": incident.assigned_to,
            "resolved_at": iso_minute(incident.resolved_at),
            "updated_at": iso_minute(incident.updated_at),
        }
    return row


def change_row(change: ChangeRequest, *, full: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "number": change.number,
        "short_description": shorten(change.short_description),
        "type": change.type,
        "state": change.state,
        "approval": change.approval,
        "risk": change.risk,
        "start_date": iso_minute(change.start_date),
        "end_date": iso_minute(change.end_date),
        "configuration_item": change.configuration_item,
    }
    if full:
        row |= {
            "description": shorten(change.description, 500),
            "assignment_group": change.assignment_group,
            "assigned_to": change.assigned_to,
        }
    return row


def describe_filters(call: ToolCall, *names: str) -> str:
    """`` (priority 2 or more urgent, group 'Data Platform Ops')`` from the filters set in ``call.query``."""
    parts = []
    for name in names:
        value = call.query.get(name)
        if isinstance(value, dict):
            value = value["phrase"]
        if value not in (None, "", "all"):
            parts.append(_FILTER_LABELS[name].format(value))
    return f" ({', '.join(parts)})" if parts else ""


def make_servicenow_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The four ServiceNow tools, bound to ``backends.servicenow``, the clock and the row cap."""
    backend = backends.servicenow

    @tool
    async def list_incidents(
        state: Annotated[str, Field(description="open (New+In Progress+On Hold), new, in_progress, on_hold, resolved, closed, canceled or all")] = "open",
        priority: Annotated[int | None, Field(description="Only priority N or more urgent: 1 Critical, 2 High, 3 Moderate, 4 Low, 5 Planning")] = None,
        assignment_group: Annotated[str | None, Field(description="Assignment group name or part of it, e.g. 'Data Platform Ops'")] = None,
        configuration_item: Annotated[str | None, Field(description="Configuration item (CI) name or part of it, e.g. 'adf-prod-weu'")] = None,
        text: Annotated[str | None, Field(description="Case-insensitive text in number, short description, description or CI, e.g. a pipeline name")] = None,
        opened_since: Annotated[str | None, Field(description="Plain time phrase, e.g. 'last 24 hours', 'since yesterday', '2025-01-10'")] = None,
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List ServiceNow incidents, newest first, filtered by state, priority, group, CI, text and opening time.

        Use it to find incidents (e.g. open P1/P2s, incidents that mention a pipeline or a CI) before
        answering. Returns a JSON envelope: total matches, the rows shown (at most the cap), a
        truncation flag and one-line message. Never guess an incident number; list first.
        """
        call = ToolCall("list_incidents", backend.kind, SYSTEM, query={
            "state": state, "priority": priority, "assignment_group": assignment_group,
            "configuration_item": configuration_item, "text": text, "opened_since": opened_since,
        })

        async def work() -> ToolResult:
            states = parse_choice(state, INCIDENT_STATES, argument="state")
            if priority is not None and not 1 <= priority <= 5:
                raise ArgumentError(f"priority: {priority} is not 1-5 (1 = Critical, 5 = Planning).")
            since = call.window("opened_since", opened_since, clock()) if opened_since else None
            page = await backend.list_incidents(IncidentQuery(
                states=list(states), priority_at_most=priority, assignment_group=assignment_group,
                configuration_item=configuration_item, text=text, opened_since=since.start if since else None,
                limit=clamp_limit(limit, max_rows, call.warnings),
            ))
            detail = describe_filters(call, "priority", "assignment_group", "configuration_item", "text", "opened_since")
            noun = f"{state.strip().lower().replace('_', ' ')} incident" if state.strip().lower() != "all" else "incident"
            message = partial(count_message, page.total, noun=noun, detail=detail)
            return call.page_rows(page, incident_row, message)

        return await call.run(work)

    @tool
    async def get_incident(
        number: Annotated[str, Field(description="Incident number as listed, e.g. 'INC0010049'")],
    ) -> str:
        """Get one ServiceNow incident with its description, assignee and timestamps.

        Use it after list_incidents (or when the user gives a number). Returns a JSON envelope with
        one row, or status "error" / error_kind "not_found" when no such incident exists. Never
        guess an incident number; list first.
        """
        call = ToolCall("get_incident", backend.kind, SYSTEM, query={"number": number})

        async def work() -> ToolResult:
            normalised = normalise_number(number, "INC", call.warnings)
            call.query["number"], call.subject = normalised, f"incident {normalised}"
            incident = await backend.get_incident(normalised)
            message = f"{incident.number}: {incident.state}, priority {incident.priority}, {incident.assignment_group or 'unassigned'}."
            return call.rows([incident_row(incident, full=True)], total=1, message=message)

        return await call.run(work)

    @tool
    async def list_change_requests(
        state: Annotated[str, Field(description="all, open (not Closed/Canceled), new, assess, authorize, scheduled, implement, review, closed or canceled")] = "all",
        type: Annotated[str | None, Field(description="normal, standard or emergency")] = None,
        approval: Annotated[str | None, Field(description="not requested, requested, approved or rejected")] = None,
        window: Annotated[str | None, Field(description="Plain time phrase; matches changes whose planned window overlaps it, e.g. 'next 7 days', 'last 24 hours'")] = None,
        configuration_item: Annotated[str | None, Field(description="Configuration item (CI) name or part of it, e.g. 'vm-shir-01'")] = None,
        text: Annotated[str | None, Field(description="Case-insensitive text in number, short description, description or CI")] = None,
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List ServiceNow change requests, latest planned start first, by state, type, approval, planned window, CI and text.

        Use it to find changes that could explain an incident or failure (a planned window that
        overlaps the failure time, the same CI) or what is scheduled next. Returns a JSON envelope
        with total, rows shown (at most the cap) and truncation. Never guess a change number; list first.
        """
        call = ToolCall("list_change_requests", backend.kind, SYSTEM, query={
            "state": state, "type": type, "approval": approval, "window": window,
            "configuration_item": configuration_item, "text": text,
        })

        async def work() -> ToolResult:
            states = parse_choice(state, CHANGE_STATES, argument="state")
            kinds = parse_choice(type, CHANGE_TYPES, argument="type") if type else (None,)
            approvals = parse_choice(approval, APPROVALS, argument="approval") if approval else (None,)
            span = call.window("window", window, clock()) if window else None
            page = await backend.list_change_requests(ChangeQuery(
                states=list(states), type=kinds[0], approval=approvals[0], configuration_item=configuration_item,
                text=text, window_start=span.start if span else None, window_end=span.end if span else None,
                limit=clamp_limit(limit, max_rows, call.warnings),
            ))
            detail = describe_filters(call, "state", "type", "approval", "window", "configuration_item", "text")
            message = partial(count_message, page.total, noun="change request", detail=detail,
                              order="with the latest planned start")
            return call.page_rows(page, change_row, message)

        return await call.run(work)

    @tool
    async def get_change_request(
        number: Annotated[str, Field(description="Change request number as listed, e.g. 'CHG0030017'")],
    ) -> str:
        """Get one ServiceNow change request: type, state, approval, risk, planned window, CI and description.

        Use it after list_change_requests (or when the user gives a number). Returns a JSON envelope
        with one row, or error_kind "not_found" when no such change exists. Never guess a change
        number; list first.
        """
        call = ToolCall("get_change_request", backend.kind, SYSTEM, query={"number": number})

        async def work() -> ToolResult:
            normalised = normalise_number(number, "CHG", call.warnings)
            call.query["number"], call.subject = normalised, f"change request {normalised}"
            change = await backend.get_change_request(normalised)
            message = f"{change.number}: {change.type} change, {change.state}, approval {change.approval}."
            return call.rows([change_row(change, full=True)], total=1, message=message)

        return await call.run(work)

    return [list_incidents, get_incident, list_change_requests, get_change_request]
