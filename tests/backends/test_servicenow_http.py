"""HttpServiceNowBackend against a loopback fake that speaks the Table API envelope and headers."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import Any

import pytest

from opsagent.backends.base import ChangeQuery, IncidentQuery
from opsagent.backends.http import RetryPolicy
from opsagent.backends.servicenow import HttpServiceNowBackend
from opsagent.backends.servicenow_auth import make_servicenow_auth
from opsagent.errors import BackendAuthError, BackendNotFoundError, BackendResponseError, ConfigError
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeServer, ManualTime, Reply, json_reply

INCIDENTS = "/api/now/table/incident"
CHANGES = "/api/now/table/change_request"
UTC = timezone.utc


def pair(value: str, display: str | None = None) -> dict[str, str]:
    return {"display_value": value if display is None else display, "value": value}


def incident(number: str, **overrides: Any) -> dict[str, Any]:
    record = {
        "number": pair(number), "sys_id": pair("9d3c1f7a2b6e4c10a1f0c3d2e4b5a697"),
        "short_description": pair("ADF pl_ingest_sales failing since 02:00"), "description": pair(""),
        "state": pair("2", "In Progress"), "priority": pair("2", "2 - High"), "impact": pair("2", "2 - Medium"),
        "urgency": pair("1", "1 - High"), "category": pair("software", "Software"),
        "assignment_group": pair("5f1e", "Data Platform Ops"), "assigned_to": pair("71aa", "Dana Ops"),
        "cmdb_ci": pair("0b2c", "adf-prod-weu"), "opened_at": pair("2025-01-10 02:05:11", "2025-01-10 03:05:11"),
        "resolved_at": pair(""), "sys_updated_on": pair("2025-01-10 02:30:00"),
    }
    return record | overrides


def settings_for(server: FakeServer, **credentials: Any) -> Settings:
    return Settings(servicenow_instance_url=server.url, **(credentials or {"servicenow_token": "static-token"}))


@pytest.fixture
async def backend(server: FakeServer, policy: RetryPolicy) -> AsyncIterator[HttpServiceNowBackend]:
    sn = HttpServiceNowBackend.from_settings(settings_for(server), policy=policy)
    yield sn
    await sn.aclose()


async def test_list_incidents_parses_display_value_pairs(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": [incident("INC0010042")]}, X_Total_Count="1"))
    page = await backend.list_incidents(IncidentQuery(limit=5))
    (item,) = page.items
    assert (item.number, item.state, item.priority, item.urgency) == ("INC0010042", "In Progress", 2, 1)
    assert (item.assignment_group, item.configuration_item, item.category) == ("Data Platform Ops", "adf-prod-weu", "Software")
    assert item.opened_at == datetime(2025, 1, 10, 2, 5, 11, tzinfo=UTC), "raw value is UTC, not the display zone"
    assert item.resolved_at is None and page.total == 1 and page.warnings == []


async def test_incident_query_encoding_and_parameters(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": []}))
    query = IncidentQuery(
        states=["New", "In Progress"], priorities=[1, 2], assignment_group="Data Platform^Ops",
        configuration_item="adf-prod", text="pipeline", opened_from=datetime(2025, 1, 10, 1, tzinfo=UTC),
        opened_before=datetime(2025, 1, 10, 9, 30, tzinfo=UTC), limit=7,
    )
    await backend.list_incidents(query)
    (request,) = server.requests
    assert request.param("sysparm_query") == (
        "stateIN1,2^priority<=2^assignment_group.nameLIKEData Platform Ops^cmdb_ci.nameLIKEadf-prod"
        "^opened_at>=2025-01-10 01:00:00^opened_at<2025-01-10 09:30:00"
        "^short_descriptionLIKEpipeline^ORdescriptionLIKEpipeline^ORDERBYDESCopened_at"
    )
    assert (request.param("sysparm_limit"), request.param("sysparm_offset")) == ("7", "0")
    assert request.param("sysparm_display_value") == "all"
    assert request.param("sysparm_exclude_reference_link") == "true"
    assert "short_description" in (request.param("sysparm_fields") or "")
    assert request.headers["authorization"] == "Bearer static-token"
    assert request.headers["accept"] == "application/json"


async def test_change_window_overlap_query(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    change = {"number": "CHG0030017", "type": "normal", "state": "-2", "risk": "3", "approval": "approved",
              "start_date": "2025-01-10 22:00:00", "end_date": "2025-01-11 00:00:00", "cmdb_ci": "",
              "short_description": "Upgrade SHIR on vm-shir-01"}
    server.script("GET", CHANGES, json_reply({"result": [change]}))
    page = await backend.list_change_requests(ChangeQuery(
        states=["Scheduled", "Implement"], types=["normal"], window_start=datetime(2025, 1, 10, tzinfo=UTC),
        window_end=datetime(2025, 1, 12, tzinfo=UTC),
    ))
    assert server.requests[0].param("sysparm_query") == (
        "stateIN-2,-1^type=normal^start_date<=2025-01-12 00:00:00^end_date>=2025-01-10 00:00:00^ORDERBYDESCstart_date"
    )
    (item,) = page.items  # plain strings (server ignoring display_value) parse too
    assert (item.state, item.risk, item.approval, item.configuration_item) == ("Scheduled", "Moderate", "approved", "")
    assert item.end_date == datetime(2025, 1, 11, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "encoded"),
    [
        (IncidentQuery(priorities=[2]), "priority=2^ORDERBYDESCopened_at"),
        (IncidentQuery(priorities=[2, 1]), "priority<=2^ORDERBYDESCopened_at"),
        (IncidentQuery(priorities=[1]), "priority=1^ORDERBYDESCopened_at"),
        (IncidentQuery(priorities=[2, 3]), "priorityIN2,3^ORDERBYDESCopened_at"),
        (IncidentQuery(states=["Resolved"]), "state=6^ORDERBYDESCopened_at"),
        (IncidentQuery(states=["New", "In Progress", "On Hold", "Closed", "Canceled"]),
         "stateIN1,2,3,7,8^ORDERBYDESCopened_at"),
        (IncidentQuery(opened_from=datetime(2025, 1, 9, 18, tzinfo=UTC)), "opened_at>=2025-01-09 18:00:00^ORDERBYDESCopened_at"),
        (ChangeQuery(approvals=["not requested", "requested", "rejected"]),
         "approvalINnot requested,requested,rejected^ORDERBYDESCstart_date"),
        (ChangeQuery(approvals=["approved"]), "approval=approved^ORDERBYDESCstart_date"),
        (ChangeQuery(types=["normal", "emergency"]), "typeINnormal,emergency^ORDERBYDESCstart_date"),
        (ChangeQuery(states=["New", "Assess", "Authorize", "Scheduled", "Implement", "Review"], types=["emergency"],
                     approvals=["requested"]),
         "stateIN-5,-4,-3,-2,-1,0^type=emergency^approval=requested^ORDERBYDESCstart_date"),
        (ChangeQuery(risks=["Very High", "High"]), "riskIN1,2^ORDERBYDESCstart_date"),
        (IncidentQuery(states=["New"], unassigned=True), "state=1^assigned_toISEMPTY^ORDERBYDESCopened_at"),
        (IncidentQuery(assigned_to="amira^x"), "assigned_to.nameLIKEamira x^ORDERBYDESCopened_at"),
        (IncidentQuery(states=["New", "In Progress", "On Hold"], order="oldest", limit=1),
         "stateIN1,2,3^ORDERBYopened_at"),
        (IncidentQuery(order="priority"), "ORDERBYpriority^ORDERBYDESCopened_at"),
        (IncidentQuery(opened_from=datetime(2025, 1, 1, tzinfo=UTC), opened_before=datetime(2025, 1, 8, 9, 30, tzinfo=UTC)),
         "opened_at>=2025-01-01 00:00:00^opened_at<2025-01-08 09:30:00^ORDERBYDESCopened_at"),
        (IncidentQuery(states=["Resolved", "Closed"], resolved_from=datetime(2025, 1, 3, 9, 30, tzinfo=UTC),
                       resolved_before=datetime(2025, 1, 10, tzinfo=UTC)),
         "stateIN6,7^resolved_at>=2025-01-03 09:30:00^resolved_at<2025-01-10 00:00:00^ORDERBYDESCopened_at"),
        (ChangeQuery(assigned_to="Ortega", order="earliest"), "assigned_to.nameLIKEOrtega^ORDERBYstart_date"),
        (ChangeQuery(unassigned=True), "assigned_toISEMPTY^ORDERBYDESCstart_date"),
    ],
    ids=["priority-exactly", "priority-or-higher", "p1", "priority-set", "one-state", "not-resolved", "opened-since",
         "approval-not-approved", "approval-one", "type-set", "open-emergency-awaiting-approval", "risk-set",
         "unassigned", "assignee-partial-name", "oldest-open", "by-priority", "opened-range", "resolved-window",
         "change-assignee-earliest", "change-unassigned"],
)
async def test_filter_sets_encoding(
    server: FakeServer, backend: HttpServiceNowBackend, query: IncidentQuery | ChangeQuery, encoded: str
) -> None:
    if isinstance(query, IncidentQuery):
        server.script("GET", INCIDENTS, json_reply({"result": []}))
        await backend.list_incidents(query)
    else:
        server.script("GET", CHANGES, json_reply({"result": []}))
        await backend.list_change_requests(query)
    assert server.requests[0].param("sysparm_query") == encoded


async def test_encoded_query_is_url_encoded_on_the_wire(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    server.script("GET", CHANGES, json_reply({"result": []}))
    await backend.list_change_requests(ChangeQuery(approvals=["not requested", "rejected"]))
    assert "sysparm_query=approvalINnot+requested%2Crejected%5EORDERBYDESCstart_date" in server.requests[0].raw_query


def reference(name: str) -> dict[str, str]:
    return {"display_value": name, "value": f"sys-{name}"}


async def test_configuration_item_inventory_reads_recent_incidents_and_changes(
    server: FakeServer, backend: HttpServiceNowBackend
) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": [
        {"cmdb_ci": reference("vm-shir-01")}, {"cmdb_ci": reference("adf-prod-weu")}, {"cmdb_ci": reference("vm-shir-01")},
        {"cmdb_ci": ""}]}))
    server.script("GET", CHANGES, json_reply({"result": [{"cmdb_ci": reference("Fw-Hub-Weu")}, {"cmdb_ci": reference("adf-prod-weu")}]}))
    assert await backend.list_configuration_items() == ["adf-prod-weu", "Fw-Hub-Weu", "vm-shir-01"]
    for path in (INCIDENTS, CHANGES):
        (request,) = server.calls(path)
        assert request.param("sysparm_query") == "cmdb_ciISNOTEMPTY^ORDERBYDESCsys_updated_on"
        assert (request.param("sysparm_fields"), request.param("sysparm_limit")) == ("cmdb_ci", "1000")
        assert (request.param("sysparm_display_value"), request.param("sysparm_no_count")) == ("all", "true")


async def test_people_are_the_assignees_of_recent_incidents_and_changes(
    server: FakeServer, backend: HttpServiceNowBackend
) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": [{"assigned_to": reference("Elif Demir")},
                                                           {"assigned_to": ""}]}))
    server.script("GET", CHANGES, json_reply({"result": [{"assigned_to": reference("Marek Novak")}]}))
    assert await backend.list_people() == ["Elif Demir", "Marek Novak"]
    (request,) = server.calls(INCIDENTS)
    assert request.param("sysparm_query") == "assigned_toISNOTEMPTY^ORDERBYDESCsys_updated_on"
    assert request.param("sysparm_fields") == "assigned_to"


async def test_inventory_limit_keeps_the_most_recent_names_of_both_tables(
    server: FakeServer, backend: HttpServiceNowBackend
) -> None:
    def groups(*names: str) -> Reply:
        return json_reply({"result": [{"assignment_group": reference(name)} for name in names]})

    server.script("GET", INCIDENTS, groups("Service Desk", "Network Operations", "Data Platform Ops"))
    server.script("GET", CHANGES, groups("Cloud Infrastructure", "Service Desk", "Database Administration"))
    assert await backend.list_assignment_groups(limit=3) == ["Cloud Infrastructure", "Network Operations", "Service Desk"]
    assert server.calls(INCIDENTS)[0].param("sysparm_query") == "assignment_groupISNOTEMPTY^ORDERBYDESCsys_updated_on"


async def test_paging_follows_link_next_up_to_the_limit(server: FakeServer, policy: RetryPolicy) -> None:
    base = f"{server.url}{INCIDENTS}?sysparm_limit=2"
    server.script(
        "GET", INCIDENTS,
        json_reply({"result": [incident("INC0000001"), incident("INC0000002")]}, X_Total_Count="5",
                   Link=f'<{base}&sysparm_offset=0>;rel="first",<{base}&sysparm_offset=2>;rel="next"'),
        json_reply({"result": [incident("INC0000003"), incident("INC0000004")]}, X_Total_Count="5",
                   Link=f'<{base}&sysparm_offset=4>;rel="next",<{base}&sysparm_offset=4>;rel="last"'),
    )
    auth = make_servicenow_auth(settings_for(server), policy=policy)
    sn = HttpServiceNowBackend(server.url, auth, policy=policy, page_size=2)
    page = await sn.list_incidents(IncidentQuery(limit=3))
    await sn.aclose()
    assert [i.number for i in page.items] == ["INC0000001", "INC0000002", "INC0000003"]
    assert page.total == 5
    assert [(r.param("sysparm_offset"), r.param("sysparm_limit")) for r in server.requests] == [("0", "2"), ("2", "1")]


async def test_unreadable_record_is_skipped_with_a_warning(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    broken = incident("INC0000009", state=pair("42", "Pondering"))
    server.script("GET", INCIDENTS, json_reply({"result": [incident("INC0000001"), broken]}, X_Total_Count="2"))
    page = await backend.list_incidents(IncidentQuery())
    assert [i.number for i in page.items] == ["INC0000001"]
    assert page.warnings == ["skipped 1 unreadable incident record(s): INC0000009 (ValidationError)"]


async def test_get_by_number_and_not_found(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": [incident("INC0010042")]}), json_reply({"result": []}))
    assert (await backend.get_incident("inc0010042")).number == "INC0010042"
    assert server.requests[0].param("sysparm_query") == "number=INC0010042"
    assert server.requests[0].param("sysparm_limit") == "1"
    with pytest.raises(BackendNotFoundError, match="no incident numbered INC0099999"):
        await backend.get_incident("INC0099999")
    with pytest.raises(BackendNotFoundError, match="not a valid"):
        await backend.get_incident("INC1^active=true")
    assert len(server.requests) == 2


async def test_rate_limit_then_success(server: FakeServer, backend: HttpServiceNowBackend, manual_time: ManualTime) -> None:
    limited = {"error": {"message": "Rate limit exceeded", "detail": None}, "status": "failure"}
    server.script("GET", CHANGES, json_reply(limited, 429, Retry_After="2"), Reply(503), json_reply({"result": []}))
    page = await backend.list_change_requests(ChangeQuery())
    assert page.items == [] and manual_time.sleeps == [2.0, 0.25]


@pytest.mark.parametrize(
    ("reply", "error_type", "message"),
    [
        (json_reply({"error": {"message": "User Not Authenticated", "detail": "Required to provide Auth information"},
                     "status": "failure"}, 401), BackendAuthError, r"^not authorised for ServiceNow \(check credentials; HTTP 401\)$"),
        (json_reply({"error": {"message": "Insufficient rights"}, "status": "failure"}, 403), BackendAuthError,
         r"\(check credentials; HTTP 403\)$"),
        (json_reply({"error": {"message": "No Record found"}, "status": "failure"}, 404), BackendNotFoundError,
         r"^ServiceNow: not found \(HTTP 404\)$"),
        (Reply(200, body=b'{"result": [', headers={"Content-Type": "application/json"}), BackendResponseError, "not JSON"),
        (json_reply({"result": {"number": "x"}}), BackendResponseError, "without a result list"),
    ],
    ids=["401", "403", "404", "malformed-json", "wrong-shape"],
)
async def test_errors_map_to_the_tree(
    server: FakeServer, backend: HttpServiceNowBackend, reply: Reply, error_type: type[Exception], message: str
) -> None:
    server.script("GET", INCIDENTS, reply)
    with pytest.raises(error_type, match=message):
        await backend.list_incidents(IncidentQuery())


async def test_basic_auth_header(server: FakeServer, policy: RetryPolicy) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": []}))
    settings = settings_for(server, servicenow_username="svc.ops", servicenow_password="s3cret")
    sn = HttpServiceNowBackend.from_settings(settings, policy=policy)
    await sn.list_incidents(IncidentQuery())
    await sn.aclose()
    assert server.requests[0].headers["authorization"] == "Basic " + base64.b64encode(b"svc.ops:s3cret").decode()


async def test_oauth_client_credentials_token_is_fetched_cached_and_refreshed_after_401(
    server: FakeServer, policy: RetryPolicy
) -> None:
    server.script("POST", "/oauth_token.do",
                  json_reply({"access_token": "tok-1", "token_type": "Bearer", "expires_in": 1799}),
                  json_reply({"access_token": "tok-2", "token_type": "Bearer", "expires_in": "1799"}))
    server.script("GET", INCIDENTS, json_reply({"result": []}), json_reply({"result": []}),
                  json_reply({"error": {"message": "token expired"}}, 401), json_reply({"result": []}))
    settings = settings_for(server, servicenow_client_id="cid", servicenow_client_secret="csecret")
    sn = HttpServiceNowBackend.from_settings(settings, policy=policy)
    for _ in range(3):
        await sn.list_incidents(IncidentQuery())
    await sn.aclose()
    tokens = server.calls("/oauth_token.do")
    assert [t.form() for t in tokens] == [{"grant_type": "client_credentials", "client_id": "cid",
                                           "client_secret": "csecret"}] * 2
    assert tokens[0].headers["content-type"] == "application/x-www-form-urlencoded"
    assert [r.headers["authorization"] for r in server.calls(INCIDENTS)] == [
        "Bearer tok-1", "Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]


async def test_oauth_password_grant_and_rejected_client(server: FakeServer, policy: RetryPolicy) -> None:
    server.script("POST", "/oauth_token.do", json_reply({"error": "access_denied", "error_description": "bad"}, 401))
    settings = settings_for(server, servicenow_client_id="cid", servicenow_client_secret="cs",
                            servicenow_username="u", servicenow_password="p")
    sn = HttpServiceNowBackend.from_settings(settings, policy=policy)
    with pytest.raises(BackendAuthError, match=r"not authorised for ServiceNow \(check credentials; HTTP 401\)"):
        await sn.get_change_request("CHG0030017")
    await sn.aclose()
    assert server.calls("/oauth_token.do")[0].form()["grant_type"] == "password"
    assert server.calls(CHANGES) == []


def test_missing_credential_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="SERVICENOW_INSTANCE_URL is set but no credential is"):
        HttpServiceNowBackend.from_settings(Settings(servicenow_instance_url="https://dev1.service-now.com"))


async def test_secrets_never_reach_the_logs(
    server: FakeServer, policy: RetryPolicy, caplog: pytest.LogCaptureFixture
) -> None:
    server.script("POST", "/oauth_token.do", json_reply({"access_token": "tok-SECRET-1", "expires_in": 1799}))
    server.script("GET", INCIDENTS, Reply(503, body="busy"), json_reply({"result": []}))
    settings = settings_for(server, servicenow_client_id="cid", servicenow_client_secret="cs-SECRET",
                            servicenow_username="u", servicenow_password="pw-SECRET")
    caplog.set_level("DEBUG")
    sn = HttpServiceNowBackend.from_settings(settings, policy=policy)
    await sn.list_incidents(IncidentQuery())
    await sn.aclose()
    assert "ServiceNow answered HTTP 503: busy" in caplog.text and "ServiceNow attempt 1 failed (HTTP 503)" in caplog.text
    assert "SECRET" not in caplog.text and "SECRET" not in repr(settings)


async def test_unreadable_records_count_in_the_total(server: FakeServer, backend: HttpServiceNowBackend) -> None:
    """Unparseable records are not "no data": the page says how many matched but could not be read."""
    broken = [incident(f"INC000000{n}", state=pair("42", "Pondering")) for n in range(4)]
    server.script("GET", INCIDENTS, json_reply({"result": broken}))
    page = await backend.list_incidents(IncidentQuery())
    assert (page.items, page.total, page.unreadable) == ([], 4, 4)
