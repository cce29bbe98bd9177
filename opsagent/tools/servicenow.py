"""ServiceNow specialist tools: list/get incidents and change requests, and similar past incidents (LLM-facing).

Sits between the servicenow specialist agent and ``ServiceNowBackend``: each tool turns the
model's lenient arguments (state labels, time phrases, loosely typed ticket numbers) into a
backend query, and the backend's records into the bounded ``ToolResult`` envelope via
``rendering.py`` (rows from ``ticket_rows.py``). Docstrings are the tool descriptions the model
sees; parameter descriptions come from the catalog (``catalog_tickets.py``).
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import partial
from typing import Any

from agent_framework import FunctionTool

from opsagent.backends.base import Backends, ChangeOrder, ChangeRequest, Clock, Incident, IncidentOrder, Page
from opsagent.contracts.tool_result import ToolResult
from opsagent.errors import BackendError
from opsagent.tools.incident_filters import IncidentArguments, resolve_incident_filters
from opsagent.tools.rendering import ArgumentError, ToolCall, clamp_limit, count_message
from opsagent.tools.servicenow_filters import ChangeArguments, PriorityMatch, resolve_change_filters
from opsagent.tools.similar_incidents import CLOSED_STATES, SimilarAsk, candidates, rank, similar_message, similar_row
from opsagent.tools.ticket_links import link_rows
from opsagent.tools.ticket_rows import change_row, incident_row, normalise_number, notes, with_full_texts
from opsagent.tools.toolkit import Toolset

SYSTEM = "ServiceNow"
PIPELINE_LOOKBACK = timedelta(days=14)
"""Pipelines with runs this recent are the ones an incident's text can name (for similar incidents)."""


class ServiceNowTools(Toolset):
    """The ServiceNow tools over ``backends.servicenow``."""

    specialist = "servicenow"

    def call(self, tool: str, **query: object) -> ToolCall:
        return ToolCall(tool, self.backends.servicenow.kind, SYSTEM, query=dict(query))

    async def list_incidents(
        self, state: str = "open", priority: int | None = None, priority_match: PriorityMatch = "or_higher",
        assignment_group: str | None = None, configuration_item: str | None = None, text: str | None = None,
        opened_within: str | None = None, limit: int | None = None, assigned_to: str | None = None,
        opened_after: str | None = None, opened_before: str | None = None, open_longer_than: str | None = None,
        resolved_within: str | None = None, order: IncidentOrder = "newest",
    ) -> str:
        """List ServiceNow incidents by state, priority, group, assignee, CI, text, opening and resolution time.

        Use it to find incidents (e.g. open P1/P2s, incidents that mention a pipeline or a CI, what a
        person is working on, unassigned tickets, tickets open longer than a few days, what was
        resolved this week) before answering. Rows come newest first, or oldest first, or most urgent
        first (order); "the oldest open ticket" is order "oldest" with limit 1. Returns a JSON
        envelope: total matches, the rows shown (at most the cap), a truncation flag, the resolved
        filters in "query" and a one-line message that states them. Never guess an incident number;
        list first.
        """
        asked = IncidentArguments(
            state=state, priority=priority, priority_match=priority_match, assignment_group=assignment_group,
            configuration_item=configuration_item, text=text, opened_within=opened_within, assigned_to=assigned_to,
            opened_after=opened_after, opened_before=opened_before, open_longer_than=open_longer_than,
            resolved_within=resolved_within, order=order)
        call = self.call("list_incidents", **asked.asked())

        async def work() -> ToolResult:
            resolved = resolve_incident_filters(call, asked, now=self.clock(),
                                                limit=clamp_limit(limit, self.max_rows, call.warnings))
            page = await self.backends.servicenow.list_incidents(resolved.query)
            message = partial(count_message, page.total, noun=resolved.noun, detail=resolved.detail,
                              order=resolved.order_words)
            return call.page_rows(page, partial(incident_row, with_resolved=bool(resolved_within)), message)

        return await call.run(work)

    async def get_incident(self, number: str) -> str:
        """Get one ServiceNow incident: description, close notes (how it was resolved), work notes, assignee, timestamps and the records it links.

        Use it after list_incidents (or when the user gives a number). Long texts are cut at a
        sentence in the row, with the complete text under "full_text". "links" lists the change
        raised for it (rfc), the change that caused it (caused_by), its parent incident and problem,
        and the tickets its text names, each with its state. Returns a JSON envelope with one row,
        or status "error" / error_kind "not_found" when no such incident exists. Never guess an
        incident number; list first.
        """
        call = self.call("get_incident", number=number)

        async def work() -> ToolResult:
            normalised = normalise_number(number, "INC", call.warnings)
            call.query["number"], call.subject = normalised, f"incident {normalised}"
            incident = await self.backends.servicenow.get_incident(normalised)
            message = (f"{incident.number}: {incident.state}, priority {incident.priority}, "
                       f"{incident.assignment_group or 'unassigned'}.")
            row = await self.lookup_row(incident_row(incident, full=True), incident, incident.references(), call)
            return call.rows([row], total=1, message=message)

        return await call.run(work)

    async def lookup_row(self, row: dict[str, Any], record: Incident | ChangeRequest, references: dict[str, str],
                         call: ToolCall) -> dict[str, Any]:
        """A look-up's row: its notes (cut at a sentence, complete under "full_text") and the records it links."""
        texts = notes(record)
        links = await link_rows(self.backends.servicenow, record.number, references,
                                {"short_description": record.short_description, **texts}, call.warnings)
        return with_full_texts(row, texts, call.warnings) | {"links": links}

    async def list_change_requests(
        self, state: str = "all", type: str | None = None, risk: str | None = None, approval: str | None = None,
        window: str | None = None, configuration_item: str | None = None, text: str | None = None,
        limit: int | None = None, assigned_to: str | None = None, order: ChangeOrder = "latest",
    ) -> str:
        """List ServiceNow change requests by state, type, risk, approval, planned window, CI, assignee and text.

        Use it to find changes that could explain an incident or failure (a planned window that
        overlaps the failure time, the same CI) or what is scheduled next (order "earliest": the
        earliest planned start first; the default is the latest first). Returns a JSON envelope
        with total, rows shown (at most the cap), truncation, the resolved filters in "query" and a
        message that states them. Never guess a change number; list first.
        """
        asked = ChangeArguments(state=state, type=type, risk=risk, approval=approval, window=window,
                                configuration_item=configuration_item, text=text, assigned_to=assigned_to, order=order)
        call = self.call("list_change_requests", **asked.asked())

        async def work() -> ToolResult:
            resolved = resolve_change_filters(call, asked, now=self.clock(),
                                              limit=clamp_limit(limit, self.max_rows, call.warnings))
            page = await self.backends.servicenow.list_change_requests(resolved.query)
            message = partial(count_message, page.total, noun="change request", detail=resolved.detail,
                              order=resolved.order_words)
            return call.page_rows(page, change_row, message)

        return await call.run(work)

    async def get_change_request(self, number: str) -> str:
        """Get one ServiceNow change request: type, state, approval, risk, planned window, CI, description, close and work notes, and the tickets it names.

        Use it after list_change_requests (or when the user gives a number). Long texts are cut at
        a sentence in the row, with the complete text under "full_text"; "links" lists the tickets
        its text names, each with its state. Returns a JSON envelope with one row, or error_kind
        "not_found" when no such change exists. Never guess a change number; list first.
        """
        call = self.call("get_change_request", number=number)

        async def work() -> ToolResult:
            normalised = normalise_number(number, "CHG", call.warnings)
            call.query["number"], call.subject = normalised, f"change request {normalised}"
            change = await self.backends.servicenow.get_change_request(normalised)
            message = f"{change.number}: {change.type} change, {change.state}, approval {change.approval}."
            row = await self.lookup_row(change_row(change, full=True), change, {}, call)
            return call.rows([row], total=1, message=message)

        return await call.run(work)

    async def find_similar_incidents(
        self, incident_number: str | None = None, pipeline_name: str | None = None,
        configuration_item: str | None = None, text: str | None = None, limit: int | None = 5,
    ) -> str:
        """Find past (Resolved, Closed, Canceled) incidents like a given incident, pipeline, CI or error text, and what fixed each.

        Use it for "has this happened before?", "how did we fix it last time?", "any similar
        incidents?". Incidents on the same CI or naming the same pipeline come first, then the most
        alike by their words. Each row has the incident, "fix" (its close notes, else its
        description) and "matched" (why it matched). Give at least one of incident_number,
        pipeline_name, configuration_item or text. Returns a JSON envelope; never guess a number.
        """
        call = self.call("find_similar_incidents", incident_number=incident_number, pipeline_name=pipeline_name,
                         configuration_item=configuration_item, text=text)

        async def work() -> ToolResult:
            ask = await self.similar_ask(call, incident_number, pipeline_name, configuration_item, text)
            incidents, words, warnings = await candidates(self.backends.servicenow, ask)
            call.query |= {"states": CLOSED_STATES, "candidate_words": words, "candidates": len(incidents)}
            matches = rank(incidents, ask)
            page = Page(items=matches[: clamp_limit(limit, self.max_rows, call.warnings)], total=len(matches),
                        warnings=warnings)
            message = partial(similar_message, matches, ask=ask, searched=len(incidents))
            return call.page_rows(page, similar_row, message)

        return await call.run(work)

    async def similar_ask(self, call: ToolCall, incident_number: str | None, pipeline_name: str | None,
                          configuration_item: str | None, text: str | None) -> SimilarAsk:
        """What the matches should resemble: the incident's own CI, pipelines and words, and those given."""
        pipelines = tuple(filter(None, [(pipeline_name or "").strip()]))
        ci, words = (configuration_item or "").strip() or None, (text or "").strip()
        if not (incident_number or pipelines or ci or words):
            raise ArgumentError("Give incident_number, pipeline_name, configuration_item or text to compare with.")
        if not incident_number:
            subject = f"pipeline {pipelines[0]!r}" if pipelines else f"CI {ci!r}" if ci else f"the text {words!r}"
            return SimilarAsk(subject=subject, configuration_item=ci, pipelines=pipelines, text=words)
        number = normalise_number(incident_number, "INC", call.warnings)
        call.query["incident_number"], call.subject = number, f"incident {number}"
        incident = await self.backends.servicenow.get_incident(number)
        own = " ".join((incident.short_description, incident.description, words))
        pipelines = pipelines or await self.pipelines_named(own)
        return SimilarAsk(subject=number, configuration_item=ci or incident.configuration_item or None,
                          pipelines=pipelines, text=own, exclude=number)

    async def pipelines_named(self, text: str) -> tuple[str, ...]:
        """The pipelines (of the last two weeks' runs) that ``text`` names; none when runs cannot be read."""
        try:
            known = await self.backends.pipelines.list_pipelines(since=self.clock() - PIPELINE_LOOKBACK)
        except BackendError:
            return ()
        lowered = text.lower()
        named = (item.name for item in known if re.search(rf"\b{re.escape(item.name.lower())}\b", lowered))
        return tuple(dict.fromkeys(named))


def make_servicenow_tools(backends: Backends, *, clock: Clock, max_rows: int) -> list[FunctionTool]:
    """The ServiceNow tools, bound to ``backends.servicenow``, the clock and the row cap."""
    return ServiceNowTools(backends, clock=clock, max_rows=max_rows).functions()
