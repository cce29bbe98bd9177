"""The grounding step inside the real workflows: pass, regenerate once with feedback, or block."""

from __future__ import annotations

import pytest

from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.role_inputs import read_role_input
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

PLAN = {"parts": [{"id": "p1", "text": "open P1 incidents"}],
        "plan": [{"step": 1, "agent": "servicenow", "question": "Open P1 incidents?", "part": "p1"}]}
ROWS = {"list_incidents": [{"number": "INC0010052", "state": "In Progress", "priority": 1}]}
GOOD = {"is_complete": True, "summary": "Yes: INC0010052 is the one open P1 incident.", "key_facts": ["INC0010052: In Progress"]}
INVENTED = {"is_complete": True, "summary": "Yes: INC0010052 and INC0010066 are open P1 incidents."}


def runtime_with(make_scripted_runtime, *reviews: dict, workflow_rows: dict | None = None, **overrides):
    return make_scripted_runtime({"dynamic_triage": [reply(PLAN)], "triage": [reply(
        {"parts": PLAN["parts"], "tasks": [{"agent": "servicenow", "question": "Open P1 incidents?", "part": "p1"}]})],
        "servicenow": fetch_then("INC0010052 P1 open"), "review": [reply(item) for item in reviews]},
        tool_rows=workflow_rows or ROWS, **overrides)


@pytest.mark.parametrize("workflow", ["dynamic", "triage"])
async def test_an_invented_id_is_sent_back_with_feedback_and_the_rewrite_is_published(make_scripted_runtime, workflow):
    runtime, models = runtime_with(make_scripted_runtime, INVENTED, GOOD)
    answer, events = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"), workflow=workflow)
    assert [report.verdict for report in answer.metadata.grounding] == ["regenerate", "pass"]
    assert answer.summary == GOOD["summary"] and "INC0010066" not in answer.text
    rewrite = read_role_input(models.clients["review"].calls[1][0])
    assert rewrite.previous_summary == INVENTED["summary"]
    assert rewrite.feedback == ["inc0010066 appears in no tool output"]
    assert "It failed these checks against the evidence" in models.clients["review"].calls[1][0][-1].text
    assert [event.message.split(" (")[0] for event in events if event.kind == "grounding"] == [
        "Grounding: regenerate", "Grounding: pass"]
    assert answer.metadata.llm_calls == (5 if workflow == "dynamic" else 5)


async def test_failing_twice_blocks_the_draft_and_shows_the_evidence_instead(make_scripted_runtime):
    runtime, _ = runtime_with(make_scripted_runtime, INVENTED, INVENTED)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"))
    assert [report.verdict for report in answer.metadata.grounding] == ["regenerate", "block"]
    assert answer.text.startswith("⚠️ **Parts of this answer could not be verified against the data")
    assert "INC0010066" not in answer.text  # the unverified sentence is left out…
    assert "| INC0010052 | In Progress | 1 |" in answer.text  # …and the evidence is shown in its place
    assert answer.metadata.route == "execute"


async def test_a_wildly_wrong_draft_is_blocked_without_a_rewrite(make_scripted_runtime):
    wrong = {"is_complete": True, "summary": "INC0010077, INC0010078 and INC0010079 were opened 14 times."}
    runtime, models = runtime_with(make_scripted_runtime, wrong, GOOD, grounding_block_below=0.3)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"))
    assert [report.verdict for report in answer.metadata.grounding] == ["block"]
    assert answer.metadata.grounding[0].score < 0.3
    assert len(models.clients["review"].calls) == 1


async def test_thresholds_are_settings(make_scripted_runtime):
    runtime, _ = runtime_with(make_scripted_runtime, INVENTED, grounding_pass_at=0.5)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"))
    assert [report.verdict for report in answer.metadata.grounding] == ["pass"]  # a failure caps at 0.6: above 0.5
    runtime, _ = runtime_with(make_scripted_runtime, INVENTED, grounding_block_below=0.65, grounding_pass_at=0.9)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"))
    assert [report.verdict for report in answer.metadata.grounding] == ["block"]  # below a raised block mark


async def test_a_review_that_wrote_nothing_shows_the_evidence(make_scripted_runtime):
    runtime, _ = runtime_with(make_scripted_runtime)  # the review script is empty: no usable reply
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("what incidents are there?"))
    assert answer.metadata.grounding[0].verdict == "block"
    assert "no answer was written from the evidence" in answer.metadata.grounding[0].failures[0].detail
    assert "I could not write an answer that the data backs" in answer.text and "INC0010052" in answer.text
