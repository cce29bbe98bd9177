"""Catalog entries of the ServiceNow tools: incidents and change requests (see ``catalog.py``)."""

from __future__ import annotations

from opsagent.tools.catalog_types import FilterSpec, ToolSpec, limit_filter

_TEXT = FilterSpec(parameter="text", kind="text", about="words in the number, description or CI", help=(
    "Words that must all appear (any order, any case) in number, short description, description or CI, "
    "e.g. a pipeline name or an error word"))
_CI = FilterSpec(parameter="configuration_item", kind="name", inventory="configuration_item",
                 row_field="configuration_item", about="configuration item",
                 help="Configuration item (CI) name or part of it, as the records write it ('<CI name>')")
_ASSIGNEE = FilterSpec(parameter="assigned_to", kind="person", vocabulary="assignee", inventory="person",
                       row_field="assigned_to", about="assignee", help=(
                           "The person it is assigned to: their name or part of it as the records write it "
                           "('<first name> <last name>'), any case; 'unassigned' (also 'nobody') for tickets "
                           "assigned to no one; 'any assignee' for tickets someone is assigned to. Omit when who "
                           "it is assigned to does not matter"))
_POINT_FORMS = "a UTC moment such as '2025-01-09T18:00Z', or a phrase such as 'yesterday 18:00' or 'Monday'"
_WINDOW_FORMS = ("a phrase such as 'last 24 hours', 'today', 'since yesterday', 'since 2025-01-09T18:00Z', or a "
                 "range '2025-01-09T18:00Z to 2025-01-10T09:00Z'")

TICKET_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(name="list_incidents", specialist="servicenow", record="incident",
             purpose="find incidents by state, priority, group, assignee, CI, text, opening and resolution time, "
                     "in an order", filters=(
                 FilterSpec(parameter="state", kind="choice", vocabulary="incident_state", row_field="state", help=(
                     "open (= New, In Progress and On Hold), new, in_progress, on_hold, resolved, closed, canceled or "
                     "all; a list ('new, on_hold'); or 'not <state>' for every other state, e.g. 'not resolved' = all "
                     "but Resolved, 'not open' = Resolved, Closed or Canceled")),
                 FilterSpec(parameter="priority", kind="priority", vocabulary="priority", row_field="priority", help=(
                     "Priority 1 Critical, 2 High, 3 Moderate, 4 Low, 5 Planning; priority_match says whether more "
                     "urgent ones count too. Omit for any priority")),
                 FilterSpec(parameter="priority_match", kind="match", about="exactly or that priority or higher", help=(
                     "'or_higher' (default): that priority or more urgent, e.g. priority=2 gives P1 and P2 "
                     "('P2 or higher', 'P1/P2'); 'exactly': only that priority, e.g. 'P2 incidents', 'only the P3s'")),
                 FilterSpec(parameter="assignment_group", kind="name", inventory="assignment_group",
                            row_field="assignment_group", about="assignment group",
                            help="Assignment group name or part of it, as the records write it ('<group name>')"),
                 _CI, _TEXT,
                 FilterSpec(parameter="opened_within", kind="window", row_field="opened_at", about="opening time", help=(
                     f"Only incidents opened inside this UTC window (start included, end excluded): {_WINDOW_FORMS}. "
                     "Omit unless the user limits the opening time: an open incident opened long ago still counts")),
                 limit_filter(), _ASSIGNEE,
                 FilterSpec(parameter="opened_after", kind="point", row_field="opened_at", about="opened after",
                            help=f"Only incidents opened at or after this moment: {_POINT_FORMS}"),
                 FilterSpec(parameter="opened_before", kind="point", row_field="opened_at", about="opened before",
                            help=f"Only incidents opened before this moment: {_POINT_FORMS}"),
                 FilterSpec(parameter="open_longer_than", kind="duration", row_field="opened_at",
                            about="opened longer ago than", help=(
                                "Only incidents opened longer ago than this duration: '2 days', '1 week', '36 hours' "
                                "('open for more than 2 days'; the state filter still says open or not)")),
                 FilterSpec(parameter="resolved_within", kind="window", row_field="resolved_at",
                            about="resolution time", help=(
                                f"Only incidents resolved inside this UTC window: {_WINDOW_FORMS}. With only open "
                                "states asked (the default), Resolved and Closed incidents are searched")),
                 FilterSpec(parameter="order", kind="order", vocabulary="incident_order", about="row order", help=(
                     "'newest' (default): newest opened first; 'oldest': oldest opened first ('the oldest open "
                     "ticket' = order 'oldest' with limit 1); 'priority': most urgent first, then newest")))),
    ToolSpec(name="get_incident", specialist="servicenow", record="incident", purpose="one incident by number",
             filters=(FilterSpec(parameter="number", kind="lookup", row_field="number",
                                 help="Incident number as listed: INC and 7 digits ('INC0000000')"),)),
    ToolSpec(name="list_change_requests", specialist="servicenow", record="change",
             purpose="find change requests by state, type, risk, approval, planned window, CI, assignee and text",
             filters=(
                 FilterSpec(parameter="state", kind="choice", vocabulary="change_state", row_field="state", help=(
                     "all (default), open (= not Closed or Canceled), new, assess, authorize, scheduled, implement, "
                     "review, closed or canceled; a list ('scheduled, implement'); or 'not <state>' for every other "
                     "state, e.g. 'not closed'")),
                 FilterSpec(parameter="type", kind="choice", vocabulary="change_type", row_field="type", help=(
                     "normal, standard or emergency; a list ('normal, emergency'); or 'not <type>' for the others. "
                     "Omit for any type")),
                 FilterSpec(parameter="risk", kind="choice", vocabulary="change_risk", row_field="risk", help=(
                     "very_high, high, moderate or low; a list ('very_high, high'); or 'not <value>'. Omit for any risk")),
                 FilterSpec(parameter="approval", kind="choice", vocabulary="approval", row_field="approval", help=(
                     "not_requested (approval never asked for), requested (awaiting approval), approved or rejected; "
                     "a list ('requested, rejected'); or 'not <value>' for every other value, e.g. 'not approved' = "
                     "not_requested, requested or rejected (use it for 'not approved yet', 'still needs approval'). "
                     "Omit for any approval")),
                 FilterSpec(parameter="window", kind="window", row_field="start_date", about="planned window overlaps",
                            help=("UTC time window; matches changes whose planned window overlaps it: a phrase such "
                                  "as 'next 7 days', 'last 24 hours', 'since yesterday', or a range "
                                  "'2025-01-09T17:00Z to 2025-01-09T19:30Z'")),
                 _CI, _TEXT, limit_filter(), _ASSIGNEE,
                 FilterSpec(parameter="order", kind="order", vocabulary="change_order", about="row order", help=(
                     "'latest' (default): the latest planned start first; 'earliest': the earliest planned start "
                     "first; 'next': what is coming up — windows that start from now on, the soonest first")))),
    ToolSpec(name="get_change_request", specialist="servicenow", record="change", purpose="one change by number",
             filters=(FilterSpec(parameter="number", kind="lookup", row_field="number",
                                 help="Change request number as listed: CHG and 7 digits ('CHG0000000')"),)),
    ToolSpec(name="find_similar_incidents", specialist="servicenow", record="incident", past=True, fixed={
        "incident_state": "not open"}, purpose="past (resolved, closed, canceled) incidents like an incident, "
                                              "pipeline, CI or error text, with what fixed them", filters=(
                 FilterSpec(parameter="incident_number", kind="lookup", row_field="number", help=(
                     "The incident to find look-alikes of: INC and 7 digits ('INC0000000'); its CI, the pipelines "
                     "and words of its text are used")),
                 FilterSpec(parameter="pipeline_name", kind="name", inventory="pipeline", about="pipeline named",
                            help="A pipeline's name as the user or a tool wrote it ('<pipeline name>')"),
                 _CI.model_copy(update={"help": "Configuration item (CI) name as the records write it ('<CI name>'): "
                                                "incidents on it come first"}),
                 FilterSpec(parameter="text", kind="text", about="words like the incident's", help=(
                     "Words to compare with, e.g. an error message or what is broken (any order, any case)")),
                 limit_filter().model_copy(update={"help": "Maximum rows (default 5, capped at {max_rows})"}))),
)
