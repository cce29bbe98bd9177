"""What OpsAgent does with replies a real small model gave (``tests/fixtures/real_model/``).

Every fixture is a reply recorded verbatim by ``make eval-real`` (Qwen2.5-Coder-1.5B on llama.cpp),
with a ``kept_for`` saying which path it exercises: ``valid``, ``repaired`` or ``unusable``
structured replies (planner, re-plan, triage, review), and specialist replies that wrote a tool
call as text (``call``) or wrote something that is not a call (``no call``). Expectations are read
from the recorded JSON itself; the replies run through the real parsing, decisions, review and
specialist task code, with the real tools on the demo data.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from agent_framework import Agent

from evals.real_model import AGENT_NAMES, classify_reply
from opsagent.agents.config import load_agent_config
from opsagent.agents.factory import ConfiguredAgent
from opsagent.agents.specialists import SPECIALISTS
from opsagent.backends.demo import make_demo_backends
from opsagent.contracts.messages import (
    DraftAnswer,
    ExecutionPlan,
    PlannerReply,
    Rejection,
    RunTrail,
)
from opsagent.contracts.plans import OUTPUT_MODELS, PlanStep, ReviewOutput
from opsagent.contracts.repair import parse_model_output, text_function_calls
from opsagent.contracts.role_inputs import ReviewInput, SpecialistInput
from opsagent.intake import analyse_question
from opsagent.llm.recording import RecordedReply
from opsagent.settings import CONFIG_DIR, Settings
from opsagent.workflows.decisions import decide_review_mode, decide_triage, decide_user_mode
from opsagent.workflows.execution import run_task
from opsagent.workflows.review import ReviewExecutor
from tests.fakes import ScriptedChatClient, ScriptedModels

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real_model" / "replies.jsonl"
RECORDS: list[dict[str, Any]] = [json.loads(line) for line in FIXTURES.read_text(encoding="utf-8").splitlines()
                                 if line.strip()]
KINDS = ("valid", "repaired", "unusable", "call", "no call")
SPEC_BY_NAME = {spec.name: spec for spec in SPECIALISTS}
CONFIG_TOOLS = {spec.name: tuple(load_agent_config(CONFIG_DIR / spec.config_file).tools) for spec in SPECIALISTS}
SMALL = Settings(model_profile="local-small")
"""The settings the recorded run used (MODEL_PROFILE=local-small)."""
PLANNER_LIMITS = {"agents": AGENT_NAMES, "max_tasks": SMALL.max_plan_tasks, "max_steps": SMALL.max_plan_steps}
NOW_IN_PROMPT = re.compile(r"Current time \(UTC\): (\d{4}-\d\d-\d\dT\d\d:\d\dZ)")


def kind_of(record: dict[str, Any]) -> str:
    return record["kept_for"].split(":", 1)[0]


def reply_of(record: dict[str, Any]) -> RecordedReply:
    return RecordedReply(**{name: record[name] for name in RecordedReply.model_fields if name in record})


def fixture_id(record: dict[str, Any]) -> str:
    return f"{record['case']}:{record['role']}:{record['source_line']}"


def of_kind(*kinds: str) -> list[Any]:
    return [pytest.param(record, id=fixture_id(record)) for record in RECORDS if kind_of(record) in kinds]


def raw_json(record: dict[str, Any]) -> dict[str, Any]:
    """The structured reply as the model sent it (valid and repaired ones are whole JSON documents)."""
    return json.loads(record["text"])


def written_call(text: str) -> tuple[str, dict[str, Any]]:
    """The call a specialist wrote, read independently of repair.py: the JSON in a ```json fence or
    in <response> tags, naming the tool under "name" or "function"."""
    block = re.search(r"```json\s*(\{.*?\})\s*```", text, re.DOTALL) or re.search(
        r"<response>\s*(\{.*\})\s*</response>", text, re.DOTALL)
    assert block, f"no fenced or tagged JSON in {text!r}"
    data = json.loads(block.group(1))
    return data.get("name") or data["function"], data["arguments"]


def now_of(record: dict[str, Any]) -> datetime:
    found = NOW_IN_PROMPT.search(record["prompt_excerpt"])
    assert found, "the recorded prompt names its current time"
    return datetime.strptime(found.group(1), "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def trail_for(record: dict[str, Any], **fields: Any) -> RunTrail:
    question = record["prompt_excerpt"].split("\n\nContext from OpsAgent", 1)[0].removeprefix("User question: ")
    analysis = analyse_question(question, [], now=now_of(record))
    return RunTrail(workflow="dynamic", question=question, analysis=analysis, **fields)


# --------------------------------------------------------------------------- the fixtures themselves


def test_every_repair_path_has_a_recorded_reply():
    assert RECORDS, FIXTURES
    assert {kind_of(record) for record in RECORDS} == set(KINDS)
    for record in RECORDS:
        assert kind_of(record) in KINDS, record["kept_for"]
        structured = kind_of(record) in ("valid", "repaired", "unusable")
        assert (record["response_format"] in OUTPUT_MODELS) is structured, fixture_id(record)


@pytest.mark.parametrize("record", of_kind("call", "no call"), ids=fixture_id)
def test_specialist_fixtures_match_the_agents_current_tools(record):
    """A recorded specialist call was offered the tools its YAML still lists first, in order, with the
    local-small tool_choice; tools added since come after them; if a tool is renamed or removed,
    these fixtures must be recorded again."""
    assert list(CONFIG_TOOLS[record["role"]])[: len(record["tools"])] == record["tools"]
    assert record["tool_choice"] == SMALL.specialist_tool_choice
    assert record["function_calls"] == [], "no native call: every call in this run was written as text"


# --------------------------------------------------------------------------- structured replies

EXPECTED_CLASS = {"valid": "valid", "repaired": "repaired", "unusable": "failed"}


@pytest.mark.parametrize("record", of_kind("valid", "repaired", "unusable"), ids=fixture_id)
def test_the_real_run_classifies_json_validity(record):
    assert classify_reply(reply_of(record)) == EXPECTED_CLASS[kind_of(record)]


@pytest.mark.parametrize("record", of_kind("valid"), ids=fixture_id)
def test_valid_replies_parse_to_their_output_model_unchanged(record):
    model = OUTPUT_MODELS[record["response_format"]]
    parsed = parse_model_output(record["text"], model, **PLANNER_LIMITS)
    assert parsed.error is None and parsed.notes == []
    assert isinstance(parsed.value, model)
    dumped = parsed.value.model_dump()
    for name, value in raw_json(record).items():
        if name not in model.model_fields:
            continue
        if isinstance(value, list) and value and isinstance(value[0], dict):  # plan, tasks, parts
            assert [{key: item[key] for key in entry} for item, entry in zip(dumped[name], value, strict=True)] \
                == [{key: entry[key].strip() if key == "question" else entry[key] for key in entry} for entry in value]
        else:
            assert dumped[name] == value, name


@pytest.mark.parametrize("record", of_kind("repaired"), ids=fixture_id)
def test_repaired_replies_are_usable_and_the_notes_say_what_was_repaired(record):
    model = OUTPUT_MODELS[record["response_format"]]
    raw = raw_json(record)
    plan_field = next(name for name in ("plan", "new_plan", "tasks") if name in raw)
    steps = sorted({entry["step"] for entry in raw[plan_field]})
    assert steps != list(range(1, len(steps) + 1)), "this fixture's repair is a renumbering"
    parsed = parse_model_output(record["text"], model, **PLANNER_LIMITS)
    assert parsed.notes == [f"renumbered plan steps {steps} to 1..{len(steps)}"]
    by_old = {old: new for new, old in enumerate(steps, start=1)}
    assert [(task.step, task.agent, task.question) for task in getattr(parsed.value, plan_field)] == [
        (by_old[entry["step"]], entry["agent"], entry["question"]) for entry in raw[plan_field]]


@pytest.mark.parametrize("record", of_kind("unusable"), ids=fixture_id)
def test_unusable_replies_were_cut_off_and_are_not_json(record):
    assert record["finish_reason"] == "length"
    cap = SMALL.review_max_tokens if record["role"] == "review" else SMALL.planner_max_tokens
    assert record["output_tokens"] >= cap
    with pytest.raises(json.JSONDecodeError):
        json.loads(record["text"])


# --------------------------------------------------------------------------- what the workflow decides


@pytest.mark.parametrize("record", [r for r in of_kind("valid", "unusable")
                                    if r.values[0]["response_format"] == "UserModeOutput"], ids=fixture_id)
def test_first_plan_decisions(record):
    decision = decide_user_mode(PlannerReply(trail=trail_for(record), mode="user", text=record["text"]),
                                min_confidence=SMALL.planner_min_confidence, **PLANNER_LIMITS)
    if kind_of(record) == "unusable":
        # A reply cut off inside its JSON object has no answer: nothing nested in it is taken for one.
        assert isinstance(decision, Rejection) and decision.failure == "planner_failed"
        assert "no JSON object" in decision.reason
        return
    raw = raw_json(record)
    if raw["should_reject"]:
        assert isinstance(decision, Rejection) and decision.failure is None
        assert decision.reason == raw["reject_reason"]
    else:
        assert isinstance(decision, ExecutionPlan)
        assert [(step.step, step.agent) for step in decision.steps] == [(t["step"], t["agent"]) for t in raw["plan"]]
        assert [part.id for part in decision.trail.parts] == [part["id"] for part in raw["parts"]]


@pytest.mark.parametrize("record", [r for r in of_kind("valid")
                                    if r.values[0]["response_format"] == "TriageOutput"], ids=fixture_id)
def test_triage_decision_runs_every_chosen_specialist(record):
    decision = decide_triage(PlannerReply(trail=trail_for(record), mode="user", text=record["text"]),
                             agents=AGENT_NAMES, max_tasks=8)
    assert isinstance(decision, ExecutionPlan)
    assert sorted(step.agent for step in decision.steps) == sorted(task["agent"] for task in raw_json(record)["tasks"])
    assert {step.step for step in decision.steps} == {1}


@pytest.mark.parametrize("record", [r for r in of_kind("valid", "repaired")
                                    if r.values[0]["response_format"] == "ReviewModeOutput"], ids=fixture_id)
def test_replan_decisions_keep_the_repair_notes(record):
    review = ReviewOutput(is_complete=False, summary="earlier verdict", missing_aspects=["p1"])
    trail = trail_for(record, reviews=[review])
    decision = decide_review_mode(PlannerReply(trail=trail, mode="review", text=record["text"]), **PLANNER_LIMITS)
    raw = raw_json(record)
    expected_notes = parse_model_output(record["text"], OUTPUT_MODELS["ReviewModeOutput"], **PLANNER_LIMITS).notes
    assert (kind_of(record) == "repaired") == bool(expected_notes)
    if raw["accept_review"]:
        assert isinstance(decision, ExecutionPlan) and decision.mode == "review"
    else:  # the model declined (with a plan attached or not): the reviewer's answer stands
        assert isinstance(decision, DraftAnswer) and decision.review == review
        assert decision.trail.retry_accepted is False
        assert decision.trail.retry_rejection_reason == raw["rejection_reason"]
    assert decision.trail.notes == expected_notes


def review_agent(text: str) -> ConfiguredAgent:
    models = ScriptedModels(scripts={"review": [text]})
    config = load_agent_config(CONFIG_DIR / "review_agent.yaml")
    return ConfiguredAgent(agent=Agent(client=models.client_for("review"), name="review"), config=config, models=models)


@pytest.mark.parametrize("record", [r for r in of_kind("valid", "unusable")
                                    if r.values[0]["response_format"] == "ReviewOutput"], ids=fixture_id)
async def test_review_verdicts(record):
    trail = trail_for(record)
    executor = ReviewExecutor(review_agent(record["text"]), allow_retry=True, timeout_seconds=30)
    verdict, note = await executor._ask(ReviewInput(question=trail.question, analysis=trail.analysis, results=[]))
    if kind_of(record) == "valid":
        assert note is None
        assert verdict == ReviewOutput.model_validate(raw_json(record))
    else:  # no verdict: no written answer, so grounding shows the evidence instead
        assert note is not None and note.startswith("review failed: no JSON object in the model's reply")
        start = " ".join(record["text"].split())[:30]
        assert start in " ".join(note.split())
        assert verdict.summary == "" and verdict.confidence == 0.0


# --------------------------------------------------------------------------- calls written as text


@pytest.mark.parametrize("record", of_kind("call"), ids=fixture_id)
def test_text_calls_are_recovered_for_the_agents_tools_only(record):
    name, arguments = written_call(record["text"])
    tools = CONFIG_TOOLS[record["role"]]
    assert name in tools
    assert text_function_calls(record["text"], tools) == [(name, arguments)]
    for other, other_tools in CONFIG_TOOLS.items():
        if other != record["role"]:
            assert text_function_calls(record["text"], other_tools) == [], other


@pytest.mark.parametrize("record", of_kind("no call"), ids=fixture_id)
def test_replies_that_are_not_calls_yield_none(record):
    assert text_function_calls(record["text"], CONFIG_TOOLS[record["role"]]) == []
    for tools in CONFIG_TOOLS.values():  # nor for any other specialist
        assert text_function_calls(record["text"], tools) == []


AFTER_THE_ROUND = "Those are the rows the tool returned."
"""What the model says once its text call's result comes back as a tool round (the second model call)."""


async def replay_task(record: dict[str, Any], tmp_path: Path):
    """The recorded reply replayed as the specialist's model, through the real task runner and tools."""
    role = record["role"]
    now = now_of(record)
    backends = make_demo_backends(Settings(data_dir=tmp_path), lambda: now)
    tools = SPEC_BY_NAME[role].load_tool_factory()(backends, clock=lambda: now, max_rows=20)
    client = ScriptedChatClient([record["text"], AFTER_THE_ROUND])
    config = load_agent_config(CONFIG_DIR / SPEC_BY_NAME[role].config_file)
    agent = ConfiguredAgent(agent=Agent(client=client, tools=tools, name=role), config=config,
                            models=ScriptedModels(scripts={}), tools=tuple(tools), tool_choice="auto")
    question = record["prompt_excerpt"].split("\n\nContext from OpsAgent", 1)[0]
    step = PlanStep.model_validate({"step": 1, "agent": role, "question": question}, context={"agents": AGENT_NAMES})
    role_input = SpecialistInput(agent=role, task=step, question=question,
                                 analysis=analyse_question(question, [], now=now))
    result = await run_task(agent, role_input, timeout_seconds=60)
    return result, client


@pytest.mark.parametrize("record", of_kind("call"), ids=fixture_id)
async def test_recovered_calls_are_executed_once_and_never_shown_as_the_answer(record, tmp_path):
    name, arguments = written_call(record["text"])
    result, client = await replay_task(record, tmp_path)
    assert len(client.calls) == 2, "the text call runs once and its result goes back to the model as a tool round"
    round_contents = [content for message in client.calls[1][0] for content in message.contents]
    assert [content.name for content in round_contents if content.type == "function_call"] == [name]
    [returned] = [content for content in round_contents if content.type == "function_result"]
    assert result.evidence[0].message[:60] in " ".join(str(returned.result).split())
    assert result.notes == [f"recovered 1 tool call(s) the model wrote as text: {name}"]
    assert [(item.tool, item.arguments, item.recovered) for item in result.evidence] == [(name, arguments, True)]
    assert result.response != record["text"] and "```" not in result.response and "<tools>" not in result.response
    evidence = result.evidence[0]
    if "the tool rejects" in record["kept_for"]:
        assert not evidence.answered
        assert result.status == "failed" and result.error.startswith("every tool call failed")
    else:
        assert evidence.answered, evidence.message
        assert result.status == "ok"


@pytest.mark.parametrize("record", [r for r in of_kind("call") if re.search(r'"\w+": "\d+"', r.values[0]["text"])],
                         ids=fixture_id)
async def test_string_numbers_in_recovered_calls_reach_the_tool_as_numbers(record, tmp_path):
    _, arguments = written_call(record["text"])
    numeric = {key: int(value) for key, value in arguments.items() if isinstance(value, str) and value.isdigit()}
    assert numeric
    result, _ = await replay_task(record, tmp_path)
    assert result.evidence[0].answered
    query = result.evidence[0].query
    for key, value in numeric.items():
        asked = query[key]["asked"] if isinstance(query[key], dict) else query[key]
        assert asked == value and isinstance(asked, int), query


@pytest.mark.parametrize("record", of_kind("no call"), ids=fixture_id)
async def test_non_calls_execute_nothing_and_the_task_is_unsupported(record, tmp_path):
    result, client = await replay_task(record, tmp_path)
    assert len(client.calls) == 1
    assert result.evidence == [] and result.notes == []
    assert result.status == "unsupported"  # never "ok": a JSON "result" the model invented is not evidence
