"""ServiceNow records (incidents, change requests), the queries that list them, and ``ServiceNowBackend``.

Re-exported by ``backends.base``. Implemented by ``backends.servicenow`` (Table API) and
``backends.demo.servicenow`` (SQLite); read by the tools in ``tools/servicenow.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, Field, model_validator

from opsagent.backends.page import Page

IncidentState = Literal["New", "In Progress", "On Hold", "Resolved", "Closed", "Canceled"]
ChangeType = Literal["normal", "standard", "emergency"]
ChangeRisk = Literal["Very High", "High", "Moderate", "Low"]
ChangeState = Literal["New", "Assess", "Authorize", "Scheduled", "Implement", "Review", "Closed", "Canceled"]
Approval = Literal["not requested", "requested", "approved", "rejected"]
Priority = Annotated[int, Field(ge=1, le=5)]
"""1 Critical, 2 High, 3 Moderate, 4 Low, 5 Planning."""
IncidentOrder = Literal["newest", "oldest", "priority"]
"""Newest opened first, oldest opened first, or most urgent first (then newest)."""
ChangeSort = Literal["latest", "earliest"]
"""How a backend sorts changes: latest planned start first, or earliest planned start first."""
ChangeOrder = Literal["latest", "earliest", "next"]
"""The order a caller asks for: a sort, or ``next`` — what is coming up: planned windows from now on, the
soonest first (a sort plus a window, resolved by the tools)."""


class Incident(BaseModel):
    number: str
    short_description: str
    description: str = ""
    state: IncidentState
    priority: int = Field(ge=1, le=5)
    impact: int = Field(default=2, ge=1, le=3)
    urgency: int = Field(default=2, ge=1, le=3)
    category: str = ""
    assignment_group: str = ""
    assigned_to: str = ""
    configuration_item: str = ""
    opened_at: datetime
    resolved_at: datetime | None = None
    updated_at: datetime | None = None
    close_notes: str = ""
    """How it was resolved (or why it was canceled); empty while open."""
    work_notes: str = ""
    """The journal of work notes, as one text."""
    rfc: str = ""
    """The change request raised for it (ServiceNow's ``rfc`` reference), by number."""
    caused_by: str = ""
    """The change that caused it (``caused_by``), by number."""
    parent_incident: str = ""
    problem_id: str = ""
    """The problem record it belongs to (``problem_id``), by number."""

    @property
    def is_active(self) -> bool:
        return self.state in ("New", "In Progress", "On Hold")

    def references(self) -> dict[str, str]:
        """The records its reference fields name: field -> number (only those that are set)."""
        fields = {"rfc": self.rfc, "caused_by": self.caused_by, "parent_incident": self.parent_incident,
                  "problem_id": self.problem_id}
        return {field: number for field, number in fields.items() if number}


class ChangeRequest(BaseModel):
    number: str
    short_description: str
    description: str = ""
    type: ChangeType
    state: ChangeState
    risk: ChangeRisk = "Moderate"
    approval: Approval = "not requested"
    start_date: datetime | None = None
    end_date: datetime | None = None
    configuration_item: str = ""
    assignment_group: str = ""
    assigned_to: str = ""
    close_notes: str = ""
    """How the implementation went (set when it is closed)."""
    work_notes: str = ""


class AssigneeFilter(BaseModel):
    """Who a ticket is assigned to: part of the person's display name (any case), no one, or anyone."""

    assigned_to: str | None = None
    unassigned: bool = False
    assigned: bool = False
    """Assigned to someone, whoever it is."""

    @model_validator(mode="after")
    def _one_assignee_filter(self) -> AssigneeFilter:
        if sum((bool(self.assigned_to), self.unassigned, self.assigned)) > 1:
            raise ValueError("assigned_to, unassigned and assigned exclude each other")
        return self


class IncidentQuery(AssigneeFilter):
    """Filters for listing incidents, ANDed; a set (never empty) means "one of these", ``None`` means "any".

    ``opened_from``/``opened_before`` bound the opening time as ``[from, before)``, ``resolved_from``/
    ``resolved_before`` the resolution time (an incident never resolved has none, so it never matches).
    The assignee filters (``AssigneeFilter``) name a person or no one. ``any_words`` matches incidents
    whose short description, description or close notes hold at least one of the words (any case): the
    bounded candidate search of "similar incidents".
    """

    states: list[IncidentState] | None = Field(default=None, min_length=1)
    priorities: list[Priority] | None = Field(default=None, min_length=1)
    assignment_group: str | None = None
    configuration_item: str | None = None
    text: str | None = None
    opened_from: datetime | None = None
    opened_before: datetime | None = None
    resolved_from: datetime | None = None
    resolved_before: datetime | None = None
    any_words: list[str] | None = Field(default=None, min_length=1)
    order: IncidentOrder = "newest"
    limit: int = Field(default=20, ge=1)


class ChangeQuery(AssigneeFilter):
    """Filters for listing change requests, ANDed; a set (never empty) means "one of these", ``None`` means "any".

    The window matches changes whose planned window overlaps it; the assignee filters work as for incidents.
    """

    states: list[ChangeState] | None = Field(default=None, min_length=1)
    types: list[ChangeType] | None = Field(default=None, min_length=1)
    risks: list[ChangeRisk] | None = Field(default=None, min_length=1)
    approvals: list[Approval] | None = Field(default=None, min_length=1)
    window_start: datetime | None = None
    window_end: datetime | None = None
    starts_after: datetime | None = None
    """Only changes whose planned window starts at or after this moment ("what's next up")."""
    configuration_item: str | None = None
    text: str | None = None
    order: ChangeSort = "latest"
    limit: int = Field(default=20, ge=1)


class ServiceNowBackend(Protocol):
    """Read access to incidents and change requests."""

    kind: str

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]: ...

    async def get_incident(self, number: str) -> Incident:
        """Raises ``BackendNotFoundError`` when no incident has that number."""
        ...

    async def list_change_requests(self, query: ChangeQuery) -> Page[ChangeRequest]: ...

    async def get_change_request(self, number: str) -> ChangeRequest:
        """Raises ``BackendNotFoundError`` when no change has that number."""
        ...

    async def list_configuration_items(self, *, limit: int = 500) -> list[str]:
        """Names of the configuration items that recent incidents and changes refer to (for name checks)."""
        ...

    async def list_assignment_groups(self, *, limit: int = 200) -> list[str]:
        """Names of the assignment groups of recent incidents and changes (for name checks)."""
        ...

    async def list_people(self, *, limit: int = 500) -> list[str]:
        """Names of the people recent incidents and changes are assigned to (for name checks)."""
        ...
