"""Reply recording: off by default; inside ``recording()`` every call of every role is kept verbatim."""

from __future__ import annotations

import asyncio

from opsagent.contracts.requests import WorkflowInput
from opsagent.llm.recording import recording
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

PLAN = {"plan": [{"step": 1, "agent": "servicenow", "question": "Open P1 incidents?"}]}
REVIEW_TEXT = 'Here you go:\n```json\n{"is_complete": true, "summary": "No incidents."}\n```'


async def test_every_call_is_recorded_with_its_role_contract_and_raw_reply(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"dynamic_triage": [reply(PLAN)],
                                        "servicenow": fetch_then("None open.", tool="list_incidents", priority="1"),
                                        "review": [reply(REVIEW_TEXT)]})
    with recording() as recorder:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question("What incidents are there?"))
    replies = recorder.replies
    assert [item.role for item in replies] == ["dynamic_triage", "servicenow", "servicenow", "review"]
    planner, call, summary, review = replies
    assert planner.response_format == "UserModeOutput" and planner.tools == [] and planner.tool_choice == ""
    assert planner.prompt_excerpt.startswith("What incidents are there?")
    assert call.tool_choice == "required" and "list_incidents" in call.tools and call.text == ""
    assert [(c.name, c.arguments) for c in call.function_calls] == [("list_incidents", {"priority": "1"})]
    assert summary.text == "None open." and review.text == REVIEW_TEXT  # verbatim, fence and prose included
    assert answer.summary == "No incidents."


async def test_nothing_is_recorded_outside_a_recording_and_cut_off_calls_are_kept(make_scripted_runtime):
    async def hang(messages, options):
        await asyncio.sleep(30)

    runtime, _ = make_scripted_runtime({"dynamic_triage": hang})
    await answer_chat(runtime, WorkflowInput.from_question("Any P1?"), deadline_seconds=0.2)  # not recording: no error
    with recording() as recorder:
        await answer_chat(runtime, WorkflowInput.from_question("Any P1?"), deadline_seconds=0.2)
    assert [(item.role, item.error) for item in recorder.replies] == [("dynamic_triage", "cut off: CancelledError")]
