"""Every filter the question states reaches a tool, or the answer names it as not applied.

The specialists here are scripted models that call the real tools on the demo data with the
arguments a careless model might choose; intake, the tools' recorded queries and the answer are
all real.
"""

from __future__ import annotations

from typing import Any

import pytest

from opsagent.backends.demo import make_demo_backends
from opsagent.contracts.requests import WorkflowInput
from opsagent.runtime import build_runtime
from opsagent.settings import Settings
from opsagent.workflows.runner import answer_chat
from tests.conftest import FIXED_NOW
from tests.fakes import ScriptedModels, fetch_then, reply

REVIEW = {"is_complete": True, "summary": "Here is what the search found.", "key_facts": []}


async def ask(settings: Settings, question: str, agent: str, tool: str, arguments: dict[str, Any]) -> list[str]:
    plan = {"parts": [{"id": "p1", "text": question}],
            "plan": [{"step": 1, "agent": agent, "question": question, "part": "p1"}]}
    models = ScriptedModels({"dynamic_triage": [reply(plan)], agent: fetch_then("Done.", tool=tool, **arguments),
                             "review": [reply(REVIEW)]})
    clock = lambda: FIXED_NOW  # noqa: E731
    runtime = build_runtime(settings, models=models, backends=make_demo_backends(settings, clock), clock=clock)
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question))
    finally:
        await runtime.aclose()
    return [line for line in answer.limitations if line.startswith("Filter ")]


@pytest.mark.parametrize(("question", "agent", "tool", "arguments", "complaint"), [
    ("changes for the next 7 days that are not approved yet", "servicenow", "list_change_requests",
     {"approval": "approved", "window": "next 7 days"}, '"not approved" was searched as approval approved'),
    ("changes for the next 7 days that are not approved yet", "servicenow", "list_change_requests",
     {"window": "next 7 days"}, '"not approved" was not applied by any search'),
    ("any open P2 incidents?", "servicenow", "list_incidents",
     {"state": "open", "priority": 2}, '"P2" was searched as priority 1, 2'),
    ("incidents that are not closed", "servicenow", "list_incidents",
     {"state": "closed"}, '"not closed" was searched as state Closed'),
    ("which pipelines failed since yesterday 6pm?", "log_analytics", "list_failed_pipelines",
     {"time_window": "since yesterday"}, '"since yesterday 6pm" (2025-01-09 18:00 to 2025-01-10 09:00 UTC) was not '
     'the window searched'),
    ("failed runs in the North Europe factory today", "log_analytics", "list_failed_pipelines",
     {"time_window": "today"}, "factory adf-prod-neu was not applied"),
    ("why did the 2am run of pl_export_marketing fail?", "log_analytics", "get_pipeline_run_details",
     {"pipeline_name": "pl_export_marketing"}, '"the 2am run" was not used'),
])
async def test_a_filter_the_search_did_not_apply_as_asked_is_named(
        settings: Settings, question: str, agent: str, tool: str, arguments: dict[str, Any], complaint: str) -> None:
    [line] = await ask(settings, question, agent, tool, arguments)
    assert complaint in line


@pytest.mark.parametrize(("question", "agent", "tool", "arguments"), [
    ("changes for the next 7 days that are not approved yet", "servicenow", "list_change_requests",
     {"approval": "not approved", "window": "next 7 days"}),
    ("changes for the next 7 days that are not approved yet", "servicenow", "list_change_requests",
     {"approval": "requested, rejected, not requested", "window": "2025-01-10T09:00Z to 2025-01-17T09:00Z"}),
    ("any open P2 incidents?", "servicenow", "list_incidents", {"state": "open", "priority": 2, "priority_match": "exactly"}),
    ("which pipelines failed since yesterday 6pm?", "log_analytics", "list_failed_pipelines",
     {"time_window": "2025-01-09T18:00Z to 2025-01-10T09:00Z"}),
    ("failed runs in the North Europe factory today", "log_analytics", "list_failed_pipelines",
     {"time_window": "today", "factory": "adf-prod-neu"}),
    ("show INC0010049, is it approved?", "servicenow", "get_incident", {"number": "INC0010049"}),
])
async def test_a_filter_applied_in_any_spelling_is_not_flagged(
        settings: Settings, question: str, agent: str, tool: str, arguments: dict[str, Any]) -> None:
    assert await ask(settings, question, agent, tool, arguments) == []
