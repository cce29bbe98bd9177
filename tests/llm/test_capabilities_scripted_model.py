"""Every tool capability of this round through a scripted real model, in both workflows.

A loopback server speaks Chat Completions and plays each role from what the request carries: the planner
(dynamic) or triage agent asks the capability's specialist, the specialist makes the native tool call with the
capability's arguments, the reviewer writes a neutral line. Nothing on our side is mocked: MAF sends the
requests, executes the tool against the demo backends and the answer goes through review and grounding.
Each capability's rows are checked against what its arguments mean (the oracle is the arguments, not the tool).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from evals.loopback import chat_completions_server, completion
from tests.llm.conftest import ask_loopback_model

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
Row = dict[str, Any]


def moment(value: Any) -> datetime:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def unassigned(rows: list[Row]) -> bool:
    return all(not row.get("assigned_to") for row in rows)


def assigned_to(person: str) -> Callable[[list[Row]], bool]:
    return lambda rows: all(row.get("assigned_to") == person for row in rows)


def opened_before(days: int) -> Callable[[list[Row]], bool]:
    return lambda rows: all(moment(row["opened_at"]) < NOW - timedelta(days=days) for row in rows)


def oldest_first(rows: list[Row]) -> bool:
    return [row["opened_at"] for row in rows] == sorted(row["opened_at"] for row in rows)


def resolved_within(days: int) -> Callable[[list[Row]], bool]:
    return lambda rows: all(row["state"] in ("Resolved", "Closed") and moment(row["resolved_at"]) >= NOW - timedelta(days=days)
                            for row in rows)


def status(value: str) -> Callable[[list[Row]], bool]:
    return lambda rows: all(row.get("status") == value for row in rows)


def past_incidents(rows: list[Row]) -> bool:
    return all(row.get("state") in ("Resolved", "Closed", "Canceled") for row in rows)


def history_of(pipeline: str) -> Callable[[list[Row]], bool]:
    return lambda rows: all(row.get("pipeline_name") == pipeline for row in rows)


def counted_by_factory(rows: list[Row]) -> bool:
    return all(row.get("factory") and isinstance(row.get("count"), int) for row in rows)


def region(name: str) -> Callable[[list[Row]], bool]:
    return lambda rows: all(name in str(row.get("region", name)) for row in rows if row.get("kind") == "component")


def notes_shown(rows: list[Row]) -> bool:
    return any(key in row for row in rows for key in ("description", "close_notes", "work_notes", "fix"))


CAPABILITIES: list[tuple[str, str, str, dict[str, Any], Callable[[list[Row]], bool]]] = [
    ("unassigned", "servicenow", "list_incidents", {"assigned_to": "nobody"}, unassigned),
    ("a-person", "servicenow", "list_incidents", {"assigned_to": "Elif Demir"}, assigned_to("Elif Demir")),
    ("age", "servicenow", "list_incidents", {"open_longer_than": "2 days"}, opened_before(2)),
    ("oldest-first", "servicenow", "list_incidents", {"order": "oldest"}, oldest_first),
    ("resolved-window", "servicenow", "list_incidents", {"state": "resolved", "resolved_within": "last 7 days"},
     resolved_within(7)),
    ("record-text", "servicenow", "get_incident", {"number": "INC0010024"}, notes_shown),
    ("memory", "servicenow", "find_similar_incidents", {"configuration_item": "vm-shir-02"}, past_incidents),
    ("any-status", "log_analytics", "list_pipeline_runs", {"status": "Cancelled", "time_window": "last 14 days"},
     status("Cancelled")),
    ("history", "log_analytics", "get_pipeline_history", {"pipeline_name": "pl_ingest_sales"},
     history_of("pl_ingest_sales")),
    ("exact-counts", "log_analytics", "count_pipeline_runs", {"group_by": "factory", "time_window": "last 7 days"},
     counted_by_factory),
    ("health-region", "service_health", "check_azure_service_health", {"region": "West Europe"}, region("West Europe")),
]


def scripted(agent: str, tool: str, arguments: dict[str, Any]) -> Callable[[dict[str, Any]], tuple[int, dict]]:
    def respond(body: dict[str, Any]) -> tuple[int, dict]:
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        question = "Show me what the tool finds."
        if schema == "UserModeOutput":
            reply = {"should_reject": False, "clarify": False, "plan_reason": "one specialist",
                     "plan": [{"step": 1, "agent": agent, "question": question}]}
        elif schema == "TriageOutput":
            reply = {"should_reject": False, "tasks": [{"agent": agent, "question": question}], "reason": "one"}
        elif schema == "ReviewOutput":
            reply = {"is_complete": True, "summary": "The evidence below is what the search returned.",
                     "key_facts": [], "missing_aspects": [], "suggested_approach": "", "confidence": 0.8}
        elif schema is not None:
            return 400, {"error": {"message": f"unexpected schema {schema}"}}
        elif any(message["role"] == "tool" for message in body["messages"]):
            return 200, completion({"role": "assistant", "content": "Done: the rows are in the tool result."}, "stop")
        else:
            call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}
            return 200, completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
        return 200, completion({"role": "assistant", "content": json.dumps(reply)}, "stop")

    return respond


@pytest.fixture
def model_server() -> Iterator[ThreadingHTTPServer]:
    with chat_completions_server() as server:
        yield server


@pytest.mark.parametrize("workflow", ["dynamic", "triage"])
@pytest.mark.parametrize(("name", "agent", "tool", "arguments", "holds"), CAPABILITIES,
                         ids=[item[0] for item in CAPABILITIES])
async def test_a_capability_works_through_a_scripted_real_model(model_server, tmp_path, workflow: str, name: str,
                                                                agent: str, tool: str, arguments: dict[str, Any],
                                                                holds: Callable[[list[Row]], bool]) -> None:
    model_server.respond = scripted(agent, tool, arguments)
    answer = await ask_loopback_model(model_server, tmp_path, "What does the data say?", workflow)

    evidence = [item for task in answer.metadata.tasks for item in task.evidence]
    assert answer.metadata.route == "execute", answer.text
    assert [(item.tool, item.arguments) for item in evidence] == [(tool, arguments)], answer.text
    [item] = evidence
    assert item.answered and item.rows, item.message
    assert holds([dict(row) for row in item.rows]), item.rows
    assert "The evidence below" in answer.text and item.tool in answer.text
    schemas = {(request["body"].get("response_format") or {}).get("json_schema", {}).get("name")
               for request in model_server.requests}
    assert ("UserModeOutput" if workflow == "dynamic" else "TriageOutput") in schemas
