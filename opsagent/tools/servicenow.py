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

from opsagent.backends.base import Backends, ChangeRequest, Clock, Incident
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import ArgumentError, ToolCall, clamp_limit, count_message, iso_minute, shorten
from opsagent.tools.servicenow_filters import PriorityMatch, resolve_change_filters, resolve_incident_filters

SYSTEM = "ServiceNow"
_INCIDENT_STATE_HELP = (
    "open (= New, In Progress and On Hold), new, in_progress, on_hold, resolved, closed, canceled or all; "
    "a list ('new, on_hold'); or 'not <state>' for every other state, e.g. 'not resolved' = all but Resolved, "
    "'not open' = Resolved, Closed or Canceled"
)
_CHANGE_STATE_HELP = (
    "all (default), open (= not Closed or Canceled), new, assess, authorize, scheduled, implement, review, "
    "closed or canceled; a list ('scheduled, implement'); or 'not <state>' for every other state, "
    "e.g. 'not closed'"
)
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
        "assigned_to": incident.assigned_to,
        "configuration_item": incident.configuration_item,
        "opened_at": iso_minute(incident.opened_at),
    }
    if full:
        row |= {
            "description": shorten(incident.description, 500),
            "impact": incident.impact,
            "urgency": incident.urgency,
            "category": incident.category,
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


def make_servicenow_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The four ServiceNow tools, bound to ``backends.servicenow``, the clock and the row cap."""
    backend = backends.servicenow

    @tool
    async def list_incidents(
        state: Annotated[str, Field(description=_INCIDENT_STATE_HELP)] = "open",
        priority: Annotated[int | None, Field(description=(
            "Priority 1 Critical, 2 High, 3 Moderate, 4 Low, 5 Planning; priority_match says whether more "
            "urgent ones count too. Omit for any priority"))] = None,
        priority_match: Annotated[PriorityMatch, Field(description=(
            "'or_higher' (default): that priority or more urgent, e.g. priority=2 gives P1 and P2 "
            "('P2 or higher', 'P1/P2'); 'exactly': only that priority, e.g. 'P2 incidents', 'only the P3s'"))] = "or_higher",
        assignment_group: Annotated[str | None, Field(description="Assignment group name or part of it, e.g. 'Data Platform Ops'")] = None,
        configuration_item: Annotated[str | None, Field(description="Configuration item (CI) name or part of it, e.g. 'adf-prod-weu'")] = None,
        text: Annotated[str | None, Field(description="Words that must all appear (any order, any case) in number, short description, description or CI, e.g. a pipeline name or 'SHIR upgrade'")] = None,
        opened_within: Annotated[str | None, Field(description=(
            "Only incidents opened inside this UTC window (start included, end excluded): a phrase such as "
            "'last 24 hours', 'today', 'since yesterday', 'since 2025-01-09T18:00Z', or a range "
            "'2025-01-09T18:00Z to 2025-01-10T09:00Z'. Omit unless the user limits the opening time: "
            "an open incident opened long ago still counts"))] = None,
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List ServiceNow incidents, newest first, filtered by state, priority, group, CI, text and opening time.

        Use it to find incidents (e.g. open P1/P2s, incidents that mention a pipeline or a CI) before
        answering. Returns a JSON envelope: total matches, the rows shown (at most the cap), a
        truncation flag, the resolved filters in "query" and a one-line message that states them.
        Never guess an incident number; list first.
        """
        call = ToolCall("list_incidents", backend.kind, SYSTEM, query={
            "state": state, "priority": priority, "assignment_group": assignment_group,
            "configuration_item": configuration_item, "text": text, "opened_within": opened_within,
        })

        async def work() -> ToolResult:
            resolved = resolve_incident_filters(
                call, now=clock(), limit=clamp_limit(limit, max_rows, call.warnings), state=state, priority=priority,
                priority_match=priority_match, assignment_group=assignment_group,
                configuration_item=configuration_item, text=text, opened_within=opened_within,
            )
            page = await backend.list_incidents(resolved.query)
            message = partial(count_message, page.total, noun=resolved.noun, detail=resolved.detail)
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
        state: Annotated[str, Field(description=_CHANGE_STATE_HELP)] = "all",
        type: Annotated[str | None, Field(description=(
            "normal, standard or emergency; a list ('normal, emergency'); or 'not <type>' for the others. "
            "Omit for any type"))] = None,
        risk: Annotated[str | None, Field(description=(
            "very_high, high, moderate or low; a list ('very_high, high'); or 'not <value>'. Omit for any risk"))] = None,
        approval: Annotated[str | None, Field(description=(
            "not_requested (approval never asked for), requested (awaiting approval), approved or rejected; "
            "a list ('requested, rejected'); or 'not <value>' for every other value, e.g. 'not approved' = "
            "not_requested, requested or rejected (use it for 'not approved yet', 'still needs approval'). "
            "Omit for any approval"))] = None,
        window: Annotated[str | None, Field(description=(
            "UTC time window; matches changes whose planned window overlaps it: a phrase such as 'next 7 days', "
            "'last 24 hours', 'since yesterday', or a range '2025-01-09T17:00Z to 2025-01-09T19:30Z'"))] = None,
        configuration_item: Annotated[str | None, Field(description="Configuration item (CI) name or part of it, e.g. 'vm-shir-01'")] = None,
        text: Annotated[str | None, Field(description="Words that must all appear (any order, any case) in number, short description, description or CI, e.g. 'index maintenance'")] = None,
        limit: Annotated[int | None, Field(description=f"Maximum rows (capped at {max_rows})")] = None,
    ) -> str:
        """List ServiceNow change requests, latest planned start first, by state, type, risk, approval, planned window, CI and text.

        Use it to find changes that could explain an incident or failure (a planned window that
        overlaps the failure time, the same CI) or what is scheduled next. Returns a JSON envelope
        with total, rows shown (at most the cap), truncation, the resolved filters in "query" and a
        message that states them. Never guess a change number; list first.
        """
        call = ToolCall("list_change_requests", backend.kind, SYSTEM, query={
            "state": state, "type": type, "risk": risk, "approval": approval, "window": window,
            "configuration_item": configuration_item, "text": text,
        })

        async def work() -> ToolResult:
            resolved = resolve_change_filters(
                call, now=clock(), limit=clamp_limit(limit, max_rows, call.warnings), state=state, type=type,
                approval=approval, window=window, configuration_item=configuration_item, text=text, risk=risk,
            )
            page = await backend.list_change_requests(resolved.query)
            message = partial(count_message, page.total, noun="change request", detail=resolved.detail,
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
