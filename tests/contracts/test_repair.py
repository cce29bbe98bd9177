"""Repairing model output: what is safe is repaired (with a note), the rest is a clear error."""

from __future__ import annotations

import pytest

from opsagent.contracts.plans import ClarifyOutput, ReviewModeOutput, TriageOutput, UserModeOutput
from opsagent.contracts.repair import extract_json_object, parse_model_output

AGENTS = {"servicenow", "log_analytics", "service_health"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": 1}', {"a": 1}, id="bare"),
        pytest.param('Sure!\n```json\n{"a": {"b": [1, 2]}}\n```\nDone.', {"a": {"b": [1, 2]}}, id="fenced-in-prose"),
        pytest.param('I think {not json} but {"a": "}"}', {"a": "}"}, id="skips-non-json-braces"),
        pytest.param("[1, 2]", None, id="list-is-not-an-object"),
        pytest.param("", None, id="empty"),
    ],
)
def test_extract_json_object(text, expected):
    assert extract_json_object(text) == expected


def plan_of(text: str, **kwargs):
    return parse_model_output(text, UserModeOutput, agents=AGENTS, **kwargs)


def test_string_steps_are_coerced_and_gaps_renumbered_in_order():
    result = plan_of('{"plan": [{"step": "step 5", "agent": "servicenow", "question": "b"},'
                     ' {"step": "2", "agent": "log_analytics", "question": "a"}]}')
    assert [(s.step, s.agent) for s in result.value.plan] == [(1, "log_analytics"), (2, "servicenow")]
    assert result.notes == ["renumbered plan steps [2, 5] to 1..2"]


def test_unknown_agents_and_empty_questions_are_dropped_with_notes():
    result = plan_of('{"plan": [{"step": 1, "agent": "jira", "question": "x"},'
                     ' {"step": 1, "agent": "SERVICENOW", "question": "  "},'
                     ' {"step": 1, "agent": "Service_Health", "question": "ok?"}, "junk"]}')
    assert [(s.agent, s.question) for s in result.value.plan] == [("service_health", "ok?")]
    assert result.notes == ["dropped a task for unknown agent 'jira'", "dropped a task for servicenow with no question",
                            "dropped a plan entry that is not an object: 'junk'"]


def test_plans_longer_than_the_cap_are_cut():
    tasks = ",".join(f'{{"step": {i}, "agent": "servicenow", "question": "q{i}"}}' for i in range(1, 6))
    result = plan_of(f'{{"plan": [{tasks}]}}', max_tasks=3)
    assert [s.question for s in result.value.plan] == ["q1", "q2", "q3"]
    assert "the plan had 5 tasks; kept the first 3" in result.notes


def test_bad_step_values_become_step_one():
    result = plan_of('{"plan": [{"step": "soon", "agent": "servicenow", "question": "q"}]}')
    assert result.value.plan[0].step == 1 and "treated it as step 1" in result.notes[0]


@pytest.mark.parametrize(
    ("model", "text", "error"),
    [
        pytest.param(UserModeOutput, "no json here", "no JSON object in the model's reply", id="prose"),
        pytest.param(UserModeOutput, '{"should_reject": "maybe"}', "UserModeOutput did not validate: should_reject", id="type"),
        pytest.param(ClarifyOutput, '{"possible_interpretations": []}', "ClarifyOutput did not validate: clarification_request",
                     id="missing-required"),
    ],
)
def test_unrepairable_output_is_an_error_not_an_exception(model, text, error):
    result = parse_model_output(text, model, agents=AGENTS)
    assert result.value is None and result.error.startswith(error)


def test_review_mode_and_triage_plans_are_repaired_too():
    review = parse_model_output('{"accept_review": true, "new_plan": [{"step": "1", "agent": "x", "question": "q"},'
                                ' {"step": "1", "agent": "log_analytics", "question": "q"}]}', ReviewModeOutput, agents=AGENTS)
    assert [s.agent for s in review.value.new_plan] == ["log_analytics"]
    triage = parse_model_output('{"tasks": [{"agent": "Log_Analytics", "question": "q"}]}', TriageOutput, agents=AGENTS)
    assert triage.value.tasks[0].agent == "log_analytics"


def test_an_object_cut_off_at_max_tokens_yields_nothing_nested_in_it() -> None:
    """A review cut off mid-JSON must not validate as a complete review from a nested object."""
    cut = '{"is_complete": false, "missing_aspects": ["x"], "evidence": [{"id": "p1", "text": "a"}, {"id": "p2", "te'
    assert extract_json_object(cut) is None
    assert extract_json_object('Use {braces} freely. {"a": 1}') == {"a": 1}  # a stray brace in prose is skipped
