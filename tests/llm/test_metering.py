"""Metering: every model call counts, per role too, including calls cut off by a timeout or a deadline."""

from __future__ import annotations

import asyncio

from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

PLAN = {"plan": [{"step": 1, "agent": "servicenow", "question": "Open P1 incidents?"}]}
REVIEW = {"is_complete": True, "summary": "The incident search came back empty: no open P1 incident."}


async def hang(messages, options):
    await asyncio.sleep(30)


def ask(question: str) -> WorkflowInput:
    return WorkflowInput.from_question(question)


async def test_usage_is_reported_per_role_and_adds_up(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"dynamic_triage": [reply(PLAN)], "servicenow": fetch_then("1 open P1."),
                                        "review": [reply(REVIEW)]})
    answer, _ = await answer_chat(runtime, ask("What incidents are there?"))
    usage = answer.metadata.usage_by_role
    assert {role: item.calls for role, item in usage.items()} == {"dynamic_triage": 1, "servicenow": 2, "review": 1}
    assert sum(item.calls for item in usage.values()) == answer.metadata.llm_calls == 4
    assert sum(item.input_tokens for item in usage.values()) == answer.metadata.input_tokens
    assert usage["review"].largest_prompt_tokens == usage["review"].input_tokens > 0
    for item in usage.values():  # one prompt size per call, in order: the p50/p95 of make eval-real
        assert len(item.prompt_sizes) == item.calls and sum(item.prompt_sizes) == item.input_tokens
        assert max(item.prompt_sizes) == item.largest_prompt_tokens
    # the specialist's second call carries the first call's tool results: a longer prompt
    assert usage["servicenow"].prompt_sizes[1] > usage["servicenow"].prompt_sizes[0]
    assert all(item.cut_off_calls == 0 for item in usage.values())


async def test_a_call_cut_off_by_the_task_timeout_is_still_counted(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"dynamic_triage": [reply(PLAN)], "servicenow": hang,
                                        "review": [reply(REVIEW)]}, task_timeout_seconds=0.3)
    answer, _ = await asyncio.wait_for(answer_chat(runtime, ask("What incidents are there?")), timeout=10)
    task = answer.metadata.tasks[0]
    assert task.status == "timeout" and task.llm_calls == 1
    cut = answer.metadata.usage_by_role["servicenow"]
    assert (cut.calls, cut.cut_off_calls, cut.output_tokens) == (1, 1, 0) and cut.input_tokens > 0
    assert answer.metadata.llm_calls == sum(item.calls for item in answer.metadata.usage_by_role.values())


async def test_a_call_cut_off_by_the_request_deadline_is_still_counted(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"dynamic_triage": hang})
    answer, _ = await asyncio.wait_for(answer_chat(runtime, ask("What incidents are there?"), deadline_seconds=0.3),
                                       timeout=10)
    assert answer.metadata.error_code == "timeout"
    assert answer.metadata.llm_calls == 1 and answer.metadata.input_tokens > 0 and answer.metadata.output_tokens == 0
    assert answer.metadata.usage_by_role["dynamic_triage"].cut_off_calls == 1
