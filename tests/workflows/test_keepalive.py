"""Keep-alive progress: a stream never stays silent longer than PROGRESS_KEEPALIVE_SECONDS while work runs.

The scripted planner and specialist wait until the test has seen the keep-alive it expects, so the
tests do not depend on how fast the machine is.
"""

from __future__ import annotations

import asyncio

from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer, ProgressEvent
from opsagent.workflows.runner import stream_chat
from tests.fakes import fetch_then, reply

PLAN = {"plan": [{"step": 1, "agent": "servicenow", "question": "What incidents are there?"}]}
REVIEW = {"is_complete": True, "summary": "No incidents."}


def gated(gate: asyncio.Event, script):
    async def run(messages, options):
        await asyncio.wait_for(gate.wait(), timeout=20)
        result = script(messages, options) if callable(script) else script
        return result

    return run


async def test_a_slow_planner_and_a_slow_specialist_are_announced(make_scripted_runtime):
    planner_gate, specialist_gate = asyncio.Event(), asyncio.Event()
    runtime, _ = make_scripted_runtime({
        "dynamic_triage": gated(planner_gate, reply(PLAN)),
        "servicenow": gated(specialist_gate, fetch_then("No open P1.")),
        "review": [reply(REVIEW)],
    }, progress_keepalive_seconds=0.05)
    seen: list[ProgressEvent] = []
    answer = None
    async for item in stream_chat(runtime, WorkflowInput.from_question("What incidents are there?"), deadline_seconds=30):
        if isinstance(item, Answer):
            answer = item
            break
        seen.append(item)
        working = [event.message for event in seen if event.kind == "working"]
        if working.count("Still working: planning the answer…") >= 2:
            planner_gate.set()
        if "Still working: asking servicenow…" in working:
            specialist_gate.set()
    assert answer is not None and answer.summary == "No incidents."
    kinds = [event.kind for event in seen]
    plan_at = kinds.index("plan")
    assert kinds[:plan_at].count("working") >= 2  # the planner's silence was filled
    started, finished = kinds.index("task_started"), kinds.index("task_finished")
    assert "working" in kinds[started:finished]
    keepalive = next(event for event in seen[started:finished] if event.kind == "working")
    assert keepalive.data["running"] == ["servicenow"] and keepalive.data["elapsed_seconds"] > 0


async def test_no_keepalive_when_switched_off_or_when_events_keep_coming(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({"dynamic_triage": [reply(PLAN)], "servicenow": fetch_then("No open P1."),
                                        "review": [reply(REVIEW)]}, progress_keepalive_seconds=0)
    kinds = [item.kind async for item in stream_chat(runtime, WorkflowInput.from_question("Any P1?"))
             if isinstance(item, ProgressEvent)]
    assert "working" not in kinds and "plan" in kinds


async def test_keepalives_do_not_postpone_the_deadline(make_scripted_runtime):
    async def hang(messages, options):
        await asyncio.sleep(30)

    runtime, _ = make_scripted_runtime({"dynamic_triage": hang}, progress_keepalive_seconds=0.05)
    items = [item async for item in stream_chat(runtime, WorkflowInput.from_question("Any P1?"), deadline_seconds=0.5)]
    answer = items[-1]
    assert isinstance(answer, Answer) and answer.metadata.error_code == "timeout"
    assert {item.kind for item in items[:-1]} == {"working"}
