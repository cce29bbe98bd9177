"""The ServiceNow tools over the real Table API client, against the loopback fake: the exact queries sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from opsagent.backends.base import Backends, PipelineInfo
from opsagent.backends.http import RetryPolicy
from opsagent.backends.servicenow import HttpServiceNowBackend
from opsagent.contracts.tool_result import ToolResult
from opsagent.settings import Settings
from opsagent.tools.servicenow import make_servicenow_tools
from tests.backends.fake_servers import FakeServer, json_reply

INCIDENTS = "/api/now/table/incident"
CHANGES = "/api/now/table/change_request"
NOW = datetime(2025, 1, 10, 9, 30, tzinfo=UTC)


@pytest.fixture
async def servicenow(server: FakeServer, policy: RetryPolicy) -> AsyncIterator[HttpServiceNowBackend]:
    backend = HttpServiceNowBackend.from_settings(
        Settings(servicenow_instance_url=server.url, servicenow_token="static-token"), policy=policy)
    yield backend
    await backend.aclose()


async def run(servicenow: HttpServiceNowBackend, name: str, **arguments: Any) -> ToolResult:
    backends = Backends(servicenow=servicenow, pipelines=None, health=None)  # type: ignore[arg-type]
    tools = {tool.name: tool for tool in make_servicenow_tools(backends, clock=lambda: NOW, max_rows=20)}
    (content,) = await tools[name].invoke(arguments=arguments)
    result = ToolResult.from_text(content.text)
    assert result is not None, content.text
    return result


@pytest.mark.parametrize(("arguments", "encoded"), [
    ({"assigned_to": "nobody", "order": "oldest", "limit": 1},
     "stateIN1,2,3^assigned_toISEMPTY^ORDERBYopened_at"),
    ({"assigned_to": "any assignee", "priority": 1},
     "stateIN1,2,3^priority=1^assigned_toISNOTEMPTY^ORDERBYDESCopened_at"),
    ({"assigned_to": "Haddad", "open_longer_than": "2 days"},
     "stateIN1,2,3^assigned_to.nameLIKEHaddad^opened_at<2025-01-08 09:30:00^ORDERBYDESCopened_at"),
    ({"state": "all", "opened_after": "2025-01-09T18:00Z", "opened_before": "2025-01-10T06:00Z"},
     "opened_at>=2025-01-09 18:00:00^opened_at<2025-01-10 06:00:00^ORDERBYDESCopened_at"),
    ({"resolved_within": "last 7 days", "order": "priority"},
     "stateIN6,7^resolved_at>=2025-01-03 09:30:00^ORDERBYpriority^ORDERBYDESCopened_at"),
], ids=["oldest-unassigned", "anyone-assigned", "person-open-longer-than", "opened-between", "resolved-this-week-by-priority"])
async def test_list_incidents_sends_the_encoded_query(
    server: FakeServer, servicenow: HttpServiceNowBackend, arguments: dict[str, Any], encoded: str
) -> None:
    server.script("GET", INCIDENTS, json_reply({"result": []}, X_Total_Count="0"))
    result = await run(servicenow, "list_incidents", **arguments)
    assert result.status == "no_data", result.message
    assert server.calls(INCIDENTS)[0].param("sysparm_query") == encoded


async def test_list_change_requests_sends_assignee_and_order(server: FakeServer, servicenow: HttpServiceNowBackend) -> None:
    server.script("GET", CHANGES, json_reply({"result": []}, X_Total_Count="0"))
    await run(servicenow, "list_change_requests", state="open", assigned_to="unassigned", order="earliest")
    assert server.calls(CHANGES)[0].param("sysparm_query") == "stateIN-5,-4,-3,-2,-1,0^assigned_toISEMPTY^ORDERBYstart_date"


def pair(value: str, display: str | None = None) -> dict[str, str]:
    return {"display_value": value if display is None else display, "value": value}


async def test_get_incident_reads_notes_and_references_and_looks_the_links_up(
    server: FakeServer, servicenow: HttpServiceNowBackend
) -> None:
    incident = {
        "number": pair("INC0000100"), "short_description": pair("Copy fails after runtime upgrade"),
        "description": pair("Started after CHG0000200. Same error as INC0000099."), "state": pair("6", "Resolved"),
        "priority": pair("3", "3 - Moderate"), "opened_at": pair("2025-01-09 10:00:00"),
        "resolved_at": pair("2025-01-09 12:00:00"), "close_notes": pair("Proxy settings restored on the runtime."),
        "work_notes": pair("", "2025-01-09 11:00:00 - A. Person (Work notes)\nRestarted the runtime."),
        "rfc": pair("sys-rfc", "CHG0000201"), "caused_by": pair("sys-cb", "CHG0000200"), "problem_id": pair(""),
    }
    change = {"number": "CHG0000201", "short_description": "Fix the proxy", "type": "normal", "state": "3",
              "start_date": "2025-01-09 11:30:00", "end_date": "2025-01-09 12:00:00"}
    server.script("GET", INCIDENTS, json_reply({"result": [incident]}), json_reply({"result": []}))
    server.script("GET", CHANGES, json_reply({"result": [change]}),
                  json_reply({"result": [change | {"number": "CHG0000200", "state": "0"}]}))
    result = await run(servicenow, "get_incident", number="INC0000100")
    (item,) = result.items
    assert (item["close_notes"], item["state"]) == ("Proxy settings restored on the runtime.", "Resolved")
    assert item["work_notes"].endswith("Restarted the runtime.")
    assert [(link["number"], link["via"], link.get("state"), link.get("found", True)) for link in item["links"]] == [
        ("CHG0000201", ["rfc"], "Closed", True), ("CHG0000200", ["caused_by", "named in description"], "Review", True),
        ("INC0000099", ["named in description"], None, False)]
    assert [call.param("sysparm_query") for call in server.requests] == [
        "number=INC0000100", "number=CHG0000201", "number=CHG0000200", "number=INC0000099"]
    fields = server.requests[0].param("sysparm_fields") or ""
    assert {"close_notes", "work_notes", "rfc", "caused_by", "parent_incident", "problem_id"} <= set(fields.split(","))


class OnePipeline:
    """Log Analytics that knows one pipeline (the inventory the similar-incident search reads)."""

    kind = "fake"

    async def list_pipelines(self, *, since: datetime) -> list[PipelineInfo]:
        return [PipelineInfo(name="pl_copy_crm", factory="adf-x")]


async def test_similar_incidents_send_two_bounded_candidate_queries(
    server: FakeServer, servicenow: HttpServiceNowBackend
) -> None:
    asked = {"number": pair("INC0000100"), "short_description": pair("pl_copy_crm failing: runtime offline"),
             "description": pair("Copy fails with 2200."), "state": pair("2", "In Progress"),
             "priority": pair("3"), "opened_at": pair("2025-01-10 08:00:00"), "cmdb_ci": pair("sys-ci", "vm-ir-01")}
    earlier = asked | {"number": pair("INC0000042"), "state": pair("7", "Closed"),
                       "close_notes": pair("Restarted the runtime service.")}
    server.script("GET", INCIDENTS, json_reply({"result": [asked]}), json_reply({"result": [earlier]}, X_Total_Count="1"),
                  json_reply({"result": [earlier]}, X_Total_Count="1"))
    backends = Backends(servicenow=servicenow, pipelines=OnePipeline(), health=None)  # type: ignore[arg-type]
    tools = {tool.name: tool for tool in make_servicenow_tools(backends, clock=lambda: NOW, max_rows=20)}
    (content,) = await tools["find_similar_incidents"].invoke(arguments={"incident_number": "INC0000100"})
    result = ToolResult.from_text(content.text)
    assert result is not None and [row["number"] for row in result.items] == ["INC0000042"]
    assert result.items[0]["fix"] == "Restarted the runtime service."
    assert result.items[0]["matched"][:2] == ["same CI 'vm-ir-01'", "names pipeline 'pl_copy_crm'"]
    words = ("pl_copy_crm", "2200", "fail", "runtime", "offline", "copy")  # pipeline, codes, then longest words
    either = "^OR".join(f"{field}LIKE{word}" for word in words
                        for field in ("short_description", "description", "close_notes"))
    assert [(call.param("sysparm_query"), call.param("sysparm_limit")) for call in server.requests] == [
        ("number=INC0000100", "1"),
        ("stateIN6,7,8^cmdb_ci.nameLIKEvm-ir-01^ORDERBYDESCopened_at", "100"),
        (f"stateIN6,7,8^{either}^ORDERBYDESCopened_at", "100"),
    ]
