"""The default triage workflow: reject, or the chosen specialists in parallel, fanned in to the review."""

from __future__ import annotations

import asyncio

from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

SUMMARY = {"is_complete": True, "summary": "The incidents and the platform health were checked."}


async def test_triage_asks_only_the_chosen_specialists_in_parallel(make_scripted_runtime):
    both_started = asyncio.Barrier(2)

    def meet(text: str):
        fetch = fetch_then(text)

        async def script(messages, options):
            if not any(c.type == "function_result" for m in messages for c in m.contents):
                await asyncio.wait_for(both_started.wait(), timeout=5)
            return fetch(messages, options)
        return script

    tasks = {"parts": [{"id": "p1", "text": "Databricks"}, {"id": "p2", "text": "P1 incidents"}],
             "tasks": [{"agent": "service_health", "question": "Databricks?", "part": "p1"},
                       {"agent": "servicenow", "question": "P1 incidents?", "part": "p2"}], "reason": "two domains"}
    runtime, models = make_scripted_runtime({
        "triage": [reply(tasks)], "servicenow": meet("INC0010001 open"), "service_health": meet("all green"),
        "review": [reply(SUMMARY)],
    })
    answer, events = await answer_chat(runtime, WorkflowInput.from_question("P1s and Databricks?"), workflow="triage")
    meta = answer.metadata
    assert meta.workflow == "triage" and meta.route == "execute"
    assert [t.agent for t in meta.tasks] == ["service_health", "servicenow"]  # plan order, skipped ones gone
    assert not models.clients["log_analytics"].calls
    assert meta.review.retry_used is False and meta.llm_calls == 6  # triage, 2 x (tool round + answer), review
    assert answer.summary == SUMMARY["summary"] and meta.grounding[0].verdict == "pass"
    assert [e.kind for e in events].count("task_finished") == 2


async def test_triage_never_replans_but_names_the_missing_part(make_scripted_runtime):
    tasks = {"parts": [{"id": "p1", "text": "P1 incidents"}], "tasks": [{"agent": "servicenow", "question": "P1s?", "part": "p1"}]}
    runtime, models = make_scripted_runtime({
        "triage": [reply(tasks)], "servicenow": [reply("no idea")],
        "review": [reply({"is_complete": False, "summary": "The incidents could not be checked.",
                          "missing_aspects": ["P1 incidents"]})],
    })
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("P1s?"), workflow="triage")
    assert len(models.clients["triage"].calls) == 1
    assert answer.metadata.tasks[0].status == "unsupported"
    assert any(item.startswith("Not answered: p1") for item in answer.metadata.limitations)


async def test_triage_reject(make_scripted_runtime):
    # a message product code lets through (it names on-call) that the model declines
    runtime, _ = make_scripted_runtime({"triage": [reply({"should_reject": True, "reject_reason": "Ratings are out of scope."})]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("rate our on-call rota out of ten"), workflow="triage")
    assert answer.metadata.route == "reject" and answer.text.startswith("Ratings are out of scope.")


async def test_triage_with_no_usable_specialist_is_a_clear_failure(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"triage": [reply({"tasks": [{"agent": "pagerduty", "question": "x"}]})]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("who is on call?"), workflow="triage")
    assert answer.metadata.route == "error"
    assert "no specialist was chosen" in answer.text
    assert any("unknown agent 'pagerduty'" in note for note in answer.metadata.notes)


async def test_two_questions_for_one_specialist_are_merged_with_a_note(make_scripted_runtime):
    tasks = {"parts": [{"id": "p1", "text": "INC0010049"}, {"id": "p2", "text": "vm-shir-01 changes"}],
             "tasks": [{"agent": "servicenow", "question": "Show INC0010049.", "part": "p1"},
                       {"agent": "servicenow", "question": "List changes on vm-shir-01.", "part": "p2"}]}
    runtime, models = make_scripted_runtime({"triage": [reply(tasks)], "servicenow": fetch_then("both answered"),
                                              "review": [reply({"summary": "The incidents and changes were listed."})]})
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("INC0010049 and vm-shir-01 changes"), workflow="triage")
    assert models.user_texts("servicenow")[0].startswith("Show INC0010049. List changes on vm-shir-01.\n\n")
    assert "merged 2 questions for servicenow into one task" in answer.metadata.notes
    assert answer.metadata.tasks[0].part == "p1,p2"  # the merged task covers both parts
    assert not [gap for gap in answer.metadata.review.gaps[0] if gap.reason == "no task covered it"]
