"""The default triage workflow: reject, or the chosen specialists in parallel, fanned back in."""

from __future__ import annotations

import asyncio

from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat
from tests.fakes import reply


async def test_triage_asks_only_the_chosen_specialists_in_parallel(make_scripted_runtime):
    both_started = asyncio.Barrier(2)

    def meet(text: str):
        async def script(messages, options):
            await asyncio.wait_for(both_started.wait(), timeout=5)
            return text
        return script

    tasks = {"tasks": [{"agent": "service_health", "question": "Databricks?"},
                       {"agent": "servicenow", "question": "P1 incidents?"}], "reason": "two domains"}
    runtime, models = make_scripted_runtime({
        "triage": [reply(tasks)], "servicenow": meet("INC0010001 open"), "service_health": meet("all green"),
    })
    answer, events = await answer_chat(runtime, WorkflowInput.from_question("P1s and Databricks?"), workflow="triage")
    meta = answer.metadata
    assert meta.workflow == "triage" and meta.route == "execute"
    assert [t.agent for t in meta.tasks] == ["service_health", "servicenow"]  # plan order, skipped ones gone
    assert "log_analytics" not in models.clients or not models.clients["log_analytics"].calls
    assert meta.review is None and meta.llm_calls == 3
    assert [e.kind for e in events].count("task_finished") == 2


async def test_triage_reject(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"triage": [reply({"should_reject": True, "reject_reason": "Jokes are out of scope."})]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("tell me a joke"), workflow="triage")
    assert answer.metadata.route == "reject" and answer.text.startswith("Jokes are out of scope.")


async def test_triage_with_no_usable_specialist_is_a_clear_failure(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"triage": [reply({"tasks": [{"agent": "pagerduty", "question": "x"}]})]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("who is on call?"), workflow="triage")
    assert answer.metadata.route == "error"
    assert "no specialist was chosen" in answer.text
    assert any("unknown agent 'pagerduty'" in note for note in answer.metadata.notes)


async def test_two_questions_for_one_specialist_are_merged_with_a_note(make_scripted_runtime):
    tasks = {"tasks": [{"agent": "servicenow", "question": "Show INC0010049."},
                       {"agent": "servicenow", "question": "List changes on vm-shir-01."}]}
    runtime, models = make_scripted_runtime({"triage": [reply(tasks)], "servicenow": [reply("both answered")]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("INC0010049 and vm-shir-01 changes"), workflow="triage")
    assert models.user_texts("servicenow") == ["Show INC0010049. List changes on vm-shir-01."]
    assert "merged 2 questions for servicenow into one task" in answer.metadata.notes
