"""MAX_PLAN_STEPS: a plan longer than the request deadline was sized for is cut at the repair, with a note."""

from __future__ import annotations

from opsagent.contracts.plans import ReviewModeOutput, UserModeOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

AGENTS = {"servicenow", "log_analytics", "service_health"}
FOUR_STEPS = {"plan": [{"step": step, "agent": "servicenow", "question": f"q{step}"} for step in (1, 2, 2, 3, 4)]}


def test_steps_beyond_the_cap_are_cut_after_renumbering():
    text = '{"plan": [{"step": 3, "agent": "servicenow", "question": "a"}, {"step": 7, "agent": "log_analytics", ' \
           '"question": "b"}, {"step": 9, "agent": "service_health", "question": "c"}]}'
    result = parse_model_output(text, UserModeOutput, agents=AGENTS, max_steps=2)
    assert [(task.step, task.question) for task in result.value.plan] == [(1, "a"), (2, "b")]
    assert result.notes == ["renumbered plan steps [3, 7, 9] to 1..3", "the plan had 3 steps; kept the first 2"]


def test_the_re_plan_is_capped_too_and_no_cap_keeps_everything():
    text = '{"accept_review": true, "new_plan": [{"step": 1, "agent": "servicenow", "question": "a"}, ' \
           '{"step": 2, "agent": "servicenow", "question": "b"}]}'
    assert len(parse_model_output(text, ReviewModeOutput, agents=AGENTS, max_steps=1).value.new_plan) == 1
    assert len(parse_model_output(text, ReviewModeOutput, agents=AGENTS).value.new_plan) == 2


async def test_the_workflow_runs_only_the_steps_the_setting_allows(make_scripted_runtime):
    runtime, models = make_scripted_runtime({
        "dynamic_triage": [reply(FOUR_STEPS)],
        "servicenow": fetch_then("done"),
        "review": [reply({"is_complete": True, "summary": "Done."})],
    }, max_plan_steps=2)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("four steps please"))
    assert [(task.step, task.question) for task in answer.metadata.plans[0].steps] == [(1, "q1"), (2, "q2"), (2, "q2")]
    assert "the plan had 4 steps; kept the first 2" in answer.metadata.notes
    assert len(answer.metadata.tasks) == 3
