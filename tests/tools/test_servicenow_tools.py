"""ServiceNow tools against the demo data on a fixed clock: filters, caps, lookups and errors."""

from __future__ import annotations

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
from opsagent.tools.envelope import ToolResult
from opsagent.tools.servicenow import make_servicenow_tools
from tests.fakes import ScriptedChatClient, call, function_results, reply
from tests.tools.conftest import DEMO_NOW, RunTool, RunToolText


def numbers(result: ToolResult) -> set[str]:
    return {item["number"] for item in result.items}


async def test_list_incidents_default_is_open_newest_first_and_capped(run_tool: RunTool) -> None:
    result = await run_tool("list_incidents")
    assert (result.status, result.total, result.shown, result.truncated) == ("ok", 22, 20, True)
    assert result.message == "22 open incidents; showing the 20 most recent."
    assert {item["state"] for item in result.items} <= {"New", "In Progress", "On Hold"}
    opened = [item["opened_at"] for item in result.items]
    assert opened == sorted(opened, reverse=True)
    assert result.items[0]["number"] == "INC0010055"


@pytest.mark.parametrize(
    ("state", "total"),
    [("open", 22), ("new", 7), ("In Progress", 10), ("on-hold", 5), ("resolved", 6), ("closed", 10),
     ("Cancelled", 4), ("all", 42), ("new, on_hold", 12)],
)
async def test_list_incidents_state_filter(run_tool: RunTool, state: str, total: int) -> None:
    result = await run_tool("list_incidents", state=state)
    assert (result.status, result.total, result.shown) == ("ok", total, min(total, 20))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"priority": 2}, {"INC0010042", "INC0010049", "INC0010050", "INC0010052"}),
        ({"priority": 1}, {"INC0010052"}),
        ({"assignment_group": "data platform ops"}, {"INC0010026", "INC0010039", "INC0010048", "INC0010049"}),
        ({"configuration_item": "vm-shir-01", "state": "all"}, {"INC0010045", "INC0010048"}),
        ({"text": "PL_COPY_CRM_ACCOUNTS", "state": "all"}, {"INC0010048"}),
        ({"text": "pl_load_finance_dwh", "state": "all"}, {"INC0010014"}),
        ({"text": "pl_load_finance_dwh"}, set()),
        ({"assignment_group": "Analytics", "priority": 2}, {"INC0010050"}),
    ],
    ids=["p2-or-higher", "p1", "group-substring-any-case", "ci", "text-pipeline", "text-closed-only",
         "text-no-open", "group-and-priority"],
)
async def test_list_incidents_filters(run_tool: RunTool, arguments: dict, expected: set[str]) -> None:
    result = await run_tool("list_incidents", **arguments)
    assert numbers(result) == expected
    assert result.total == len(expected)
    assert result.status == ("ok" if expected else "no_data")


async def test_list_incidents_opened_since_resolves_the_window(run_tool: RunTool) -> None:
    result = await run_tool("list_incidents", state="all", opened_since="last 24 hours")
    assert result.total == 13
    assert result.query["opened_since"] == {"phrase": "last 24 hours", "start": "2025-01-09T09:30Z", "end": "2025-01-10T09:30Z"}
    assert min(item["opened_at"] for item in result.items) >= "2025-01-09T09:30Z"
    assert "opened in last 24 hours" in result.message


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"state": "pending"}, "state: unknown value 'pending'; accepted: active, all"),
        ({"priority": 9}, "priority: 9 is not 1-5"),
        ({"limit": 0}, "limit: must be 1 or more"),
        ({"opened_since": "a while ago"}, "opened_since: Unrecognised time window 'a while ago'; use one of"),
    ],
    ids=["state", "priority", "limit", "time-phrase"],
)
async def test_list_incidents_bad_arguments(run_tool: RunTool, arguments: dict, fragment: str) -> None:
    result = await run_tool("list_incidents", **arguments)
    assert (result.status, result.error_kind, result.items) == ("error", "bad_arguments", [])
    assert fragment in result.message


async def test_list_incidents_caps_and_limit(run_tool: RunTool) -> None:
    capped = await run_tool("list_incidents", max_rows=3)
    assert (capped.total, capped.shown, capped.truncated) == (22, 3, True)
    assert capped.message == "22 open incidents; showing the 3 most recent."
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


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"type": "Emergency"}, {"CHG0030008", "CHG0030022"}),
        ({"approval": "requested"}, {"CHG0030016", "CHG0030019", "CHG0030022", "CHG0030025"}),
        ({"approval": "Not Yet Requested"}, {"CHG0030020", "CHG0030023"}),
        ({"state": "scheduled"}, {"CHG0030012", "CHG0030018", "CHG0030021"}),
        ({"state": "implement, review"}, {"CHG0030013", "CHG0030015", "CHG0030017"}),
        ({"window": "last 24 hours"}, {"CHG0030015", "CHG0030017"}),
        ({"window": "tomorrow", "state": "open"}, {"CHG0030012", "CHG0030021"}),
        ({"configuration_item": "vm-shir-01"}, {"CHG0030017", "CHG0030021"}),
        ({"text": "databricks runtime"}, {"CHG0030012"}),
    ],
    ids=["type", "approval", "approval-label", "state", "state-list", "window-past", "window-tomorrow", "ci", "text"],
)
async def test_list_change_requests_filters(run_tool: RunTool, arguments: dict, expected: set[str]) -> None:
    result = await run_tool("list_change_requests", **arguments)
    assert numbers(result) == expected and result.total == len(expected)


async def test_list_change_requests_open_excludes_closed_and_canceled(run_tool: RunTool) -> None:
    result = await run_tool("list_change_requests", state="open")
    assert result.total == 11
    assert not {item["state"] for item in result.items} & {"Closed", "Canceled"}
    starts = [item["start_date"] for item in result.items]
    assert starts == sorted(starts, reverse=True)


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
    first = await run_tool_text("list_incidents", state="all", opened_since="since yesterday")
    assert first == await run_tool_text("list_incidents", state="all", opened_since="since yesterday")


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


async def test_list_incidents_through_an_agent(demo_backends: Backends) -> None:
    """MAF executes the model's function call against the tool and feeds the envelope back."""
    client = ScriptedChatClient([call("list_incidents", state="open", priority=2), reply("done")])
    tools = make_servicenow_tools(demo_backends, clock=lambda: DEMO_NOW, max_rows=20)
    agent = Agent(client=client, name="servicenow", tools=tools)
    response = await agent.run("Open P1/P2 incidents?")
    [text] = function_results(response.messages)
    result = ToolResult.from_text(text)
    assert result is not None and result.total == 4
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
