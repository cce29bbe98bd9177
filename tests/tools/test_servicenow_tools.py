"""ServiceNow tools against the demo data on a fixed clock: filters, caps, lookups and errors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_framework import Agent

from opsagent.backends.base import Backends, ChangeQuery, ChangeRequest, Incident, IncidentQuery, Page
from opsagent.errors import (
    BackendAuthError,
    BackendError,
    BackendNotFoundError,
    BackendResponseError,
    BackendUnavailableError,
)
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.servicenow import make_servicenow_tools
from tests.fakes import ScriptedChatClient, call, function_results, reply
from opsagent.tools.rendering import iso_minute
from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool, RunToolText, minutes_from_now


OPEN = "state IN ('New', 'In Progress', 'On Hold')"


def numbers(result: ToolResult) -> set[str]:
    return {item["number"] for item in result.items}


def incident_numbers(demo_sql: DemoSql, where: str, *params: object) -> list[str]:
    """The oracle: incident numbers matching ``where`` in the demo file, newest first."""
    return [row[0] for row in demo_sql(f"SELECT number FROM incidents WHERE {where} "
                                       "ORDER BY opened_min DESC, number DESC", *params)]


def change_numbers(demo_sql: DemoSql, where: str, *params: object) -> list[str]:
    """The oracle for change requests, latest planned start first."""
    return [row[0] for row in demo_sql(f"SELECT number FROM change_requests WHERE {where} "
                                       "ORDER BY start_min DESC, number DESC", *params)]


def assert_lists(result: ToolResult, expected: list[str]) -> None:
    """The envelope lists the oracle's rows in its order: all of them, or the first ones with honest counts."""
    listed = [item["number"] for item in result.items]
    assert expected, "a case that matches nothing proves nothing"
    assert (result.status, result.total, result.shown) == ("ok", len(expected), len(listed))
    assert listed == expected[: len(listed)] and listed
    assert result.truncated == (len(listed) < len(expected))


async def test_list_incidents_default_is_open_newest_first_and_capped(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = incident_numbers(demo_sql, OPEN)
    assert len(expected) > 20, "the demo has more open incidents than the cap"
    result = await run_tool("list_incidents")
    assert (result.status, result.total, result.shown, result.truncated) == ("ok", len(expected), 20, True)
    assert result.message == f"{len(expected)} open incidents; showing the 20 most recent."
    assert [item["number"] for item in result.items] == expected[:20]
    assert result.query["state"] == {"asked": "open", "values": ["New", "In Progress", "On Hold"]}


@pytest.mark.parametrize(
    ("state", "where", "noun"),
    [("open", OPEN, "open incident"), ("new", "state = 'New'", "new incident"),
     ("In Progress", "state = 'In Progress'", "in progress incident"), ("on-hold", "state = 'On Hold'", "on hold incident"),
     ("resolved", "state = 'Resolved'", "resolved incident"), ("closed", "state = 'Closed'", "closed incident"),
     ("Cancelled", "state = 'Canceled'", "cancelled incident"), ("all", "1 = 1", "incident"),
     ("new, on_hold", "state IN ('New', 'On Hold')", "incident (state 'new' or 'on hold')"),
     ("not resolved", "state != 'Resolved'", "incident (state not 'resolved')"),
     ("not open", "state IN ('Resolved', 'Closed', 'Canceled')", "incident (state not 'open')"),
     ("not resolved, closed", "state NOT IN ('Resolved', 'Closed')", "incident (state not 'resolved' or 'closed')")],
    ids=["open", "new", "in-progress", "on-hold", "resolved", "closed", "cancelled", "all", "list", "not-resolved",
         "not-open", "not-list"],
)
async def test_list_incidents_state_filter(run_tool: RunTool, demo_sql: DemoSql, state: str, where: str, noun: str) -> None:
    expected = incident_numbers(demo_sql, where)
    result = await run_tool("list_incidents", state=state, max_rows=50)
    assert_lists(result, expected)
    plural_noun = noun.replace("incident", "incidents", 1) if len(expected) != 1 else noun
    assert result.message.startswith(f"{len(expected)} {plural_noun}")


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ({"priority": 2}, f"{OPEN} AND priority <= 2"),
        ({"priority": 2, "priority_match": "or_higher"}, f"{OPEN} AND priority <= 2"),
        ({"priority": 2, "priority_match": "exactly"}, f"{OPEN} AND priority = 2"),
        ({"priority": 3, "priority_match": "exactly", "state": "all"}, "priority = 3"),
        ({"priority": 1}, f"{OPEN} AND priority = 1"),
        ({"assignment_group": "data platform ops"}, f"{OPEN} AND assignment_group = 'Data Platform Ops'"),
        ({"configuration_item": "vm-shir-01", "state": "all"}, "configuration_item = 'vm-shir-01'"),
        ({"text": "PL_COPY_CRM_ACCOUNTS", "state": "all"}, "instr(lower(short_description || description), 'pl_copy_crm_accounts')"),
        ({"assignment_group": "Analytics", "priority": 2}, f"{OPEN} AND assignment_group LIKE 'Analytics%' AND priority <= 2"),
        ({"state": "not open", "priority": 2, "priority_match": "exactly"}, "state IN ('Resolved', 'Closed', 'Canceled') AND priority = 2"),
    ],
    ids=["p2-or-higher", "p2-or-higher-explicit", "p2-exactly", "p3-exactly-any-state", "p1", "group-substring-any-case",
         "ci", "text-pipeline", "group-and-priority", "not-open-p2-exactly"],
)
async def test_list_incidents_filters(run_tool: RunTool, demo_sql: DemoSql, arguments: dict, where: str) -> None:
    result = await run_tool("list_incidents", max_rows=50, **arguments)
    assert_lists(result, incident_numbers(demo_sql, where))


async def test_list_incidents_exact_priority_leaves_out_the_more_urgent(run_tool: RunTool, demo_sql: DemoSql) -> None:
    """"P2 incidents" is not "P2 or higher": the open P1 is in one and not in the other."""
    [p1] = incident_numbers(demo_sql, f"{OPEN} AND priority = 1")
    or_higher = await run_tool("list_incidents", priority=2)
    exactly = await run_tool("list_incidents", priority=2, priority_match="exactly")
    assert p1 in numbers(or_higher) and p1 not in numbers(exactly)
    assert numbers(or_higher) - numbers(exactly) == {p1}
    assert exactly.query["priority"] == {"asked": 2, "match": "exactly", "values": [2]}
    assert or_higher.query["priority"] == {"asked": 2, "match": "or_higher", "values": [1, 2]}
    assert exactly.message == f"{exactly.total} open incidents (priority exactly 2)."
    assert or_higher.message == f"{or_higher.total} open incidents (priority 2 or more urgent)."


async def test_list_incidents_priority_match_without_priority_is_ignored_with_a_warning(run_tool: RunTool) -> None:
    result = await run_tool("list_incidents", priority_match="exactly")
    plain = await run_tool("list_incidents")
    assert result.total == plain.total
    assert result.warnings == ["priority_match 'exactly' ignored: no priority was given."]


async def test_list_incidents_text_that_only_closed_incidents_mention(run_tool: RunTool, demo_sql: DemoSql) -> None:
    closed = incident_numbers(demo_sql, "instr(lower(short_description || description), 'pl_load_finance_dwh')")
    assert closed and incident_numbers(demo_sql, f"{OPEN} AND number IN ({','.join('?' * len(closed))})", *closed) == []
    assert numbers(await run_tool("list_incidents", text="pl_load_finance_dwh", state="all")) == set(closed)
    missing = await run_tool("list_incidents", text="pl_load_finance_dwh")
    assert (missing.status, missing.total, missing.message) == (
        "no_data", 0, "No open incidents (text 'pl_load_finance_dwh') found.")


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("last 24 hours", DEMO_NOW - timedelta(hours=24), DEMO_NOW),
        ("since yesterday", datetime(2025, 1, 9, tzinfo=UTC), DEMO_NOW),
        ("since 2025-01-09T18:00Z", datetime(2025, 1, 9, 18, tzinfo=UTC), DEMO_NOW),
        ("2025-01-09T18:00Z to 2025-01-10T03:00Z", datetime(2025, 1, 9, 18, tzinfo=UTC), datetime(2025, 1, 10, 3, tzinfo=UTC)),
        ("2025-01-05 to 2025-01-07", datetime(2025, 1, 5, tzinfo=UTC), datetime(2025, 1, 8, tzinfo=UTC)),
    ],
    ids=["rolling", "since-day", "since-time", "time-range", "day-range"],
)
async def test_list_incidents_opened_within_is_the_whole_window(
    run_tool: RunTool, demo_sql: DemoSql, phrase: str, start: datetime, end: datetime
) -> None:
    """Incidents opened inside [start, end): the end of a range counts, not only its start."""
    expected = incident_numbers(demo_sql, "opened_min >= ? AND opened_min < ?", minutes_from_now(start), minutes_from_now(end))
    opened_after_end = incident_numbers(demo_sql, "opened_min >= ?", minutes_from_now(end))
    result = await run_tool("list_incidents", state="all", opened_within=phrase, max_rows=50)
    assert_lists(result, expected)
    assert not numbers(result) & set(opened_after_end)
    window = result.query["opened_within"]
    assert (window["start"], window["end"]) == (iso_minute(start), iso_minute(end))
    assert f"{iso_minute(start)} to {iso_minute(end)}" in result.message
    # the message reads as English: "opened within last 24 hours (…)", but "opened since yesterday (…)"
    said = "opened since" if phrase.startswith("since") and "T" not in phrase else "opened within"
    assert said in result.message


async def test_list_incidents_open_search_has_no_time_limit_by_default(run_tool: RunTool, demo_sql: DemoSql) -> None:
    """An old open incident is found unless the user limits the opening time."""
    [(oldest,)] = demo_sql(f"SELECT number FROM incidents WHERE {OPEN} ORDER BY opened_min LIMIT 1")
    assert oldest in numbers(await run_tool("list_incidents", max_rows=50))
    assert oldest not in numbers(await run_tool("list_incidents", opened_within="last 24 hours", max_rows=50))


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"state": "pending"}, "state: unknown value 'pending'; accepted: active, all"),
        ({"priority": 9}, "priority: 9 is not 1-5"),
        ({"limit": 0}, "limit: must be 1 or more"),
        ({"opened_within": "a while ago"}, "opened_within: Unrecognised time window 'a while ago'; use one of"),
        ({"opened_within": "2025-01-10 to 2025-01-08"}, "opened_within: Time window '2025-01-10 to 2025-01-08' ends before"),
        ({"state": "not all"}, "state: 'not all' excludes every value"),
        ({"state": "new, not closed"}, "state: 'not closed' inside a list of values"),
    ],
    ids=["state", "priority", "limit", "time-phrase", "reversed-range", "negation-of-everything", "not-inside-list"],
)
async def test_list_incidents_bad_arguments(run_tool: RunTool, arguments: dict, fragment: str) -> None:
    result = await run_tool("list_incidents", **arguments)
    assert (result.status, result.error_kind, result.items) == ("error", "bad_arguments", [])
    assert fragment in result.message


async def test_list_incidents_rejects_an_unknown_priority_match(run_tool_text: RunToolText) -> None:
    """The schema lists the two values; MAF refuses any other before the tool runs."""
    with pytest.raises(Exception, match="priority_match\n  Input should be 'or_higher' or 'exactly'"):
        await run_tool_text("list_incidents", priority=2, priority_match="exact")


async def test_list_incidents_caps_and_limit(run_tool: RunTool, demo_sql: DemoSql) -> None:
    [(open_total,)] = demo_sql(f"SELECT COUNT(*) FROM incidents WHERE {OPEN}")
    capped = await run_tool("list_incidents", max_rows=3)
    assert (capped.total, capped.shown, capped.truncated) == (open_total, 3, True)
    assert capped.message == f"{open_total} open incidents; showing the 3 most recent."
    limited = await run_tool("list_incidents", max_rows=3, limit=2)
    assert (limited.shown, limited.truncated) == (2, True)
    clamped = await run_tool("list_incidents", max_rows=3, limit=50)
    assert clamped.shown == 3 and clamped.warnings == ["limit 50 reduced to the cap of 3 rows."]


async def test_get_incident_returns_full_record(run_tool: RunTool) -> None:
    result = await run_tool("get_incident", number="INC0010049")
    assert (result.status, result.total, result.shown) == ("ok", 1, 1)
    item = result.items[0]
    assert item["short_description"].startswith("ADF pl_ingest_sales failing")
    assert (item["state"], item["priority"], item["assigned_to"]) == ("In Progress", 2, "Amira Haddad")
    assert item["opened_at"] == "2025-01-10T03:10Z" and item["resolved_at"] is None
    assert "UserErrorFileNotFound" in item["description"]


@pytest.mark.parametrize("raw", ["inc10049", " INC0010049 ", "10049", "INC-0010049"])
async def test_get_incident_normalises_lenient_numbers_and_says_so(run_tool: RunTool, raw: str) -> None:
    result = await run_tool("get_incident", number=raw)
    assert result.items[0]["number"] == "INC0010049"
    assert result.query["number"] == "INC0010049"
    assert result.warnings == ([] if raw.strip() == "INC0010049" else [f"Read {raw.strip()!r} as INC0010049."])


@pytest.mark.parametrize(
    ("tool", "number", "fragment"),
    [
        ("get_incident", "CHG0030017", "it is a change request number; use get_change_request"),
        ("get_incident", "INC00100490", "expected INC + 7 digits"),
        ("get_incident", "the sales one", "Never guess a number; list first"),
        ("get_change_request", "INC0010049", "it is an incident number; use get_incident"),
        ("get_change_request", "PRB0001234", "only CHG numbers are accepted here"),
    ],
    ids=["change-number-to-incident", "eight-digits", "prose", "incident-number-to-change", "problem-number"],
)
async def test_get_tools_reject_malformed_numbers(run_tool: RunTool, tool: str, number: str, fragment: str) -> None:
    result = await run_tool(tool, number=number)
    assert (result.status, result.error_kind) == ("error", "bad_arguments")
    assert fragment in result.message


@pytest.mark.parametrize(
    ("tool", "number", "message"),
    [
        ("get_incident", "INC0099999", "No incident INC0099999 found in ServiceNow."),
        ("get_change_request", "chg99999", "No change request CHG0099999 found in ServiceNow."),
    ],
)
async def test_get_tools_report_unknown_numbers_as_not_found(run_tool: RunTool, tool: str, number: str, message: str) -> None:
    result = await run_tool(tool, number=number)
    assert (result.status, result.error_kind, result.message) == ("error", "not_found", message)


CHANGE_CASES = [
    ({"type": "Emergency"}, "type = 'emergency'"),
    ({"type": "not standard"}, "type != 'standard'"),
    ({"type": "normal, emergency"}, "type IN ('normal', 'emergency')"),
    ({"approval": "requested"}, "approval = 'requested'"),
    ({"approval": "Not Yet Requested"}, "approval = 'not requested'"),
    ({"approval": "not requested"}, "approval = 'not requested'"),
    ({"approval": "not approved"}, "approval != 'approved'"),
    ({"approval": "requested, rejected"}, "approval IN ('requested', 'rejected')"),
    ({"state": "scheduled"}, "state = 'Scheduled'"),
    ({"state": "implement, review"}, "state IN ('Implement', 'Review')"),
    ({"state": "open"}, "state NOT IN ('Closed', 'Canceled')"),
    ({"state": "not closed"}, "state != 'Closed'"),
    ({"state": "open", "approval": "not approved"}, "state NOT IN ('Closed', 'Canceled') AND approval != 'approved'"),
    ({"configuration_item": "vm-shir-01"}, "configuration_item = 'vm-shir-01'"),
    ({"text": "databricks runtime"}, "instr(lower(short_description || description), 'databricks runtime')"),
    ({"risk": "high"}, "risk = 'High'"),
    ({"state": "open", "risk": "not low, moderate"}, "state NOT IN ('Closed', 'Canceled') AND risk NOT IN ('Low', 'Moderate')"),
]


@pytest.mark.parametrize(("arguments", "where"), CHANGE_CASES, ids=[
    "type", "type-negated", "type-list", "approval", "approval-label", "approval-value-starting-with-not",
    "approval-negated", "approval-list", "state", "state-list", "state-open", "state-negated", "open-not-approved",
    "ci", "text", "risk", "open-risk-negated-list"])
async def test_list_change_requests_filters(run_tool: RunTool, demo_sql: DemoSql, arguments: dict, where: str) -> None:
    result = await run_tool("list_change_requests", max_rows=50, **arguments)
    assert_lists(result, change_numbers(demo_sql, where))


async def test_list_change_requests_not_approved_keeps_what_approved_hides(run_tool: RunTool) -> None:
    """"Not approved yet" is the complement of approved: together they are every change, apart they share none."""
    approved = await run_tool("list_change_requests", approval="approved", max_rows=50)
    not_approved = await run_tool("list_change_requests", approval="not approved", max_rows=50)
    everything = await run_tool("list_change_requests", max_rows=50)
    assert approved.total and not_approved.total and everything.shown == everything.total
    assert numbers(approved) | numbers(not_approved) == numbers(everything)
    assert not numbers(approved) & numbers(not_approved)
    assert {item["approval"] for item in not_approved.items} <= {"not requested", "requested", "rejected"}
    assert not_approved.query["approval"] == {"asked": "not approved", "values": ["not requested", "requested", "rejected"]}
    assert not_approved.message == f"{not_approved.total} change requests (approval not 'approved')."
    unapproved = await run_tool("list_change_requests", approval="unapproved", max_rows=50)  # the vocabulary's group
    assert numbers(unapproved) == numbers(not_approved)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("last 24 hours", DEMO_NOW - timedelta(hours=24), DEMO_NOW),
        ("tomorrow", datetime(2025, 1, 11, tzinfo=UTC), datetime(2025, 1, 12, tzinfo=UTC)),
        ("since 2025-01-09T18:00Z", datetime(2025, 1, 9, 18, tzinfo=UTC), DEMO_NOW),
        ("2025-01-09T17:00Z to 2025-01-09T19:30Z", datetime(2025, 1, 9, 17, tzinfo=UTC), datetime(2025, 1, 9, 19, 30, tzinfo=UTC)),
        ("next 7 days", DEMO_NOW, DEMO_NOW + timedelta(days=7)),
    ],
    ids=["past", "tomorrow", "since-time", "time-range", "ahead"],
)
async def test_list_change_requests_window_overlap(
    run_tool: RunTool, demo_sql: DemoSql, phrase: str, start: datetime, end: datetime
) -> None:
    expected = change_numbers(demo_sql, "start_min < ? AND end_min > ?", minutes_from_now(end), minutes_from_now(start))
    result = await run_tool("list_change_requests", window=phrase, max_rows=50)
    assert_lists(result, expected)
    assert (result.query["window"]["start"], result.query["window"]["end"]) == (iso_minute(start), iso_minute(end))
    assert "planned window overlapping " in result.message
    assert f"{iso_minute(start)} to {iso_minute(end)}" in result.message


async def test_list_change_requests_open_excludes_closed_and_canceled(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = change_numbers(demo_sql, "state NOT IN ('Closed', 'Canceled')")
    result = await run_tool("list_change_requests", state="open", max_rows=50)
    assert_lists(result, expected)
    assert not {item["state"] for item in result.items} & {"Closed", "Canceled"}
    starts = [item["start_date"] for item in result.items]
    assert starts == sorted(starts, reverse=True)
    assert result.message == f"{len(expected)} change requests (state 'open')."


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [({"type": "urgent"}, "type: unknown value 'urgent'"), ({"approval": "maybe"}, "approval: unknown value"),
     ({"window": "soonish"}, "window: Unrecognised time window"), ({"state": "done"}, "accepted: all, assess")],
    ids=["type", "approval", "window", "state"],
)
async def test_list_change_requests_bad_arguments(run_tool: RunTool, arguments: dict, fragment: str) -> None:
    result = await run_tool("list_change_requests", **arguments)
    assert result.error_kind == "bad_arguments" and fragment in result.message


async def test_get_change_request_shows_the_window(run_tool: RunTool) -> None:
    result = await run_tool("get_change_request", number="CHG0030017")
    item = result.items[0]
    assert (item["state"], item["approval"], item["configuration_item"]) == ("Review", "approved", "vm-shir-01")
    assert (item["start_date"], item["end_date"]) == ("2025-01-09T17:30Z", "2025-01-09T19:30Z")


async def test_cross_link_shir_change_window_overlaps_crm_failure(run_tool: RunTool) -> None:
    """The SHIR upgrade CHG0030017 explains a pl_copy_crm_accounts failure inside its planned window."""
    change = (await run_tool("get_change_request", number="CHG0030017")).items[0]
    window = f"{change['start_date']} to {change['end_date']}"
    failures = await run_tool("list_failed_pipelines", time_window=window)
    assert [row["pipeline_name"] for row in failures.items] == ["pl_copy_crm_accounts"]
    assert "offline" in failures.items[0]["error_message"]


async def test_cross_link_failing_pipelines_and_open_incidents(run_tool: RunTool) -> None:
    """At least three pipelines failed in the last 24 h; two or more are named in open incidents, one or more not."""
    failures = await run_tool("list_failed_pipelines")
    failing = {row["pipeline_name"] for row in failures.items}
    mentioned = {name for name in failing if (await run_tool("list_incidents", text=name)).total}
    assert len(failing) >= 3
    assert mentioned == {"pl_ingest_sales", "pl_copy_crm_accounts", "pl_transform_customer360"}
    assert failing - mentioned == {"pl_load_finance_dwh", "pl_export_marketing"}


async def test_cross_link_sales_incident_opened_after_its_first_failure(run_tool: RunTool) -> None:
    incident = (await run_tool("get_incident", number="INC0010049")).items[0]
    failures = await run_tool("list_failed_pipelines")
    sales = [row["start"] for row in failures.items if row["pipeline_name"] == "pl_ingest_sales"]
    assert len(sales) == 3 and min(sales) < incident["opened_at"] < max(sales)


async def test_servicenow_tools_are_deterministic(run_tool_text: RunToolText) -> None:
    first = await run_tool_text("list_incidents", state="all", opened_within="since yesterday")
    assert first == await run_tool_text("list_incidents", state="all", opened_within="since yesterday")


class FailingServiceNow:
    """A ServiceNow backend whose every call raises the given error (a fake of the Protocol)."""

    kind = "servicenow"

    def __init__(self, error: BackendError) -> None:
        self.error = error

    async def list_incidents(self, query: IncidentQuery) -> Page[Incident]:
        raise self.error

    async def get_incident(self, number: str) -> Incident:
        raise self.error

    async def list_change_requests(self, query: ChangeQuery) -> Page[ChangeRequest]:
        raise self.error

    async def get_change_request(self, number: str) -> ChangeRequest:
        raise self.error

    async def list_configuration_items(self, *, limit: int = 500) -> list[str]:
        raise self.error

    async def list_assignment_groups(self, *, limit: int = 200) -> list[str]:
        raise self.error


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (BackendAuthError("User Not Authenticated", backend="ServiceNow", status_code=401), "not_authorised",
         "Not authorised for ServiceNow (check credentials)."),
        (BackendNotFoundError("No Record found", backend="ServiceNow", status_code=404), "not_found",
         "No incident INC0010049 found in ServiceNow."),
        (BackendUnavailableError("HTTP 503 after 4 attempts", backend="ServiceNow", status_code=503), "unavailable",
         "ServiceNow is unavailable (retried with backoff, still failing): HTTP 503 after 4 attempts"),
        (BackendResponseError("body is not JSON", backend="ServiceNow"), "bad_response",
         "ServiceNow sent a response that could not be read: body is not JSON"),
    ],
    ids=["auth", "not-found", "unavailable", "bad-response"],
)
async def test_get_incident_maps_backend_errors(run_tool: RunTool, demo_backends: Backends, error: BackendError,
                                                kind: str, message: str) -> None:
    backends = Backends(servicenow=FailingServiceNow(error), pipelines=demo_backends.pipelines, health=demo_backends.health)
    result = await run_tool("get_incident", backends=backends, number="INC0010049")
    assert (result.status, result.error_kind, result.message, result.source) == ("error", kind, message, "servicenow")


async def test_list_incidents_through_an_agent(demo_backends: Backends, demo_sql: DemoSql) -> None:
    """MAF executes the model's function call against the tool and feeds the envelope back."""
    client = ScriptedChatClient([call("list_incidents", state="open", priority=2), reply("done")])
    tools = make_servicenow_tools(demo_backends, clock=lambda: DEMO_NOW, max_rows=20)
    agent = Agent(client=client, name="servicenow", tools=tools)
    response = await agent.run("Open P1/P2 incidents?")
    [text] = function_results(response.messages)
    result = ToolResult.from_text(text)
    assert result is not None and result.total == len(incident_numbers(demo_sql, f"{OPEN} AND priority <= 2"))
    assert response.text == "done"



@pytest.mark.parametrize(("readable", "status", "message"), [
    (0, "error", "ServiceNow returned 4 matching records, but none could be read."),
    (2, "ok", "6 open incidents; showing the 2 most recent. 4 more matching records could not be read and were skipped."),
], ids=["none-readable", "some-readable"])
async def test_list_incidents_counts_unreadable_records_honestly(run_tool: RunTool, demo_backends: Backends,
                                                                 readable: int, status: str, message: str) -> None:
    """Not "4 open incidents; showing the 0 most recent" with the skip lost: the envelope says it."""
    from opsagent.backends.http import RetryPolicy
    from opsagent.backends.servicenow import HttpServiceNowBackend
    from opsagent.backends.servicenow_auth import StaticAuth
    from pydantic import SecretStr
    from tests.backends.fake_servers import FakeServer, json_reply
    from tests.backends.test_servicenow_http import INCIDENTS, incident, pair

    rows = [incident(f"INC001000{n}") for n in range(readable)]
    rows += [incident(f"INC000000{n}", state=pair("42", "Pondering")) for n in range(4)]
    server = FakeServer().start()
    server.script("GET", INCIDENTS, json_reply({"result": rows}, X_Total_Count=str(len(rows))))
    servicenow = HttpServiceNowBackend(server.url, StaticAuth(SecretStr("t")), policy=RetryPolicy())
    try:
        result = await run_tool("list_incidents", backends=Backends(servicenow=servicenow, pipelines=demo_backends.pipelines,
                                                                   health=demo_backends.health))
    finally:
        await servicenow.aclose()
        server.stop()
    assert (result.status, result.message, result.total, result.shown) == (status, message, readable + 4, readable)
    assert any("skipped 4 unreadable incident record(s): INC0000000 (ValidationError)" in w for w in result.warnings)
    if status == "error":
        assert result.error_kind == "bad_response"
