"""The offline model's parts, on general shapes of questions (the eval suite covers the real wordings).

Tool choice is read from the catalog: tests name the kind of constraint, not a sentence the rules were
tuned on, and one test adds a tool to the catalog to show it is picked up without a rule.
"""

from __future__ import annotations

import pytest
from agent_framework import Message

from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.plans import ClarifyOutput, PartGap, ReviewModeOutput, ReviewOutput, UserModeOutput
from opsagent.contracts.role_inputs import ClarifyInput, ReplanInput, attach_role_input
from opsagent.local_model import MODEL_ID
from opsagent.local_model.calls import choose
from opsagent.local_model.knowledge import KNOWLEDGE_FILE, Lexicon, load_knowledge_file
from opsagent.local_model.reading import read_question
from opsagent.tools import catalog
from opsagent.tools.catalog import FilterSpec, ToolSpec
from tests.llm.conftest import AGENTS, REGISTRY, analysis_of, local_reply, planner_input

LEXICON = Lexicon(load_knowledge_file())
CATALOG = {spec.specialist: {other.name for other in catalog.TOOLS if other.specialist == spec.specialist}
           for spec in catalog.TOOLS}


def calls_for(question: str) -> list[tuple[str, dict]]:
    [reading] = read_question(analysis_of(question), LEXICON)
    chosen = choose(reading, CATALOG)
    assert not reading.unread and not chosen.unapplied, (reading.unread, chosen.unapplied)
    return [(call.tool, call.arguments) for choice in chosen.choices for call in choice.calls]


async def plan(client, question: str, history=()) -> UserModeOutput:
    return UserModeOutput.model_validate_json(await local_reply(client, planner_input(question, history)),
                                              context={"agents": AGENTS})


# --- the seam -------------------------------------------------------------------------------

async def test_the_prompt_text_means_nothing_and_no_typed_input_is_no_answer(local_client) -> None:
    role_input = planner_input("which P1 incidents are open?")
    replies = []
    for text in ("which P1 incidents are open?", "completely different words"):
        message = Message("user", [text])
        attach_role_input(message, role_input)
        replies.append((await local_client.get_response([message], options={})).text)
    assert replies[0] == replies[1]
    bare = await local_client.get_response([Message("user", ["which P1 incidents are open?"])], options={})
    assert "only answer requests that come through its workflow" in bare.text and bare.model == MODEL_ID


def test_the_knowledge_file_refuses_unknown_keys(tmp_path) -> None:
    broken = tmp_path / "knowledge.yaml"
    broken.write_text(KNOWLEDGE_FILE.read_text() + "\nmeaningfull: [typo]\n")
    with pytest.raises(ValueError, match="knowledge.yaml: meaningfull: Extra inputs are not permitted"):
        load_knowledge_file(broken)


# --- reading words --------------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "read"), [("incidnets", "incidents"), ("databriks", "databricks"),
                                              ("pipline", "pipeline"), ("detials", "details")])
def test_a_one_letter_slip_of_a_known_word_is_read_as_that_word(typed: str, read: str) -> None:
    assert LEXICON.repaired(typed) == read


@pytest.mark.parametrize("typed", ["aproved", "emergncy", "nto", "yday", "flaky"])
def test_filter_values_negations_and_unknown_words_are_never_guessed(typed: str) -> None:
    """A misspelt filter value would search with the wrong polarity or none; a negation dropped flips it."""
    assert LEXICON.repaired(typed) is None


# --- tool choice from the catalog -------------------------------------------------------------

@pytest.mark.parametrize(("question", "expected"), [
    ("show INC0010001", [("get_incident", {"number": "INC0010001"})]),  # an id: the look-up of its kind
    ("which P2 incidents are open?",  # a filter: the parameter with that vocabulary
     [("list_incidents", {"priority": 2, "priority_match": "exactly", "state": "open"})]),
    ("which pipelines failed today?", [("list_failed_pipelines", {"time_window": "today"})]),  # a fixed value
    ("why did pl_a_b fail?", [("get_pipeline_run_details", {"pipeline_name": "pl_a_b"})]),  # one record by name
    ("is snowflake degraded?", [("check_snowflake_health", {})]),  # a platform: its own check
    ("which emergency changes are not approved?", [("list_change_requests", {"type": "emergency",
                                                                             "approval": "not approved"})]),
])
def test_the_tool_and_its_arguments_come_from_the_catalogs_filters(question: str, expected: list) -> None:
    assert calls_for(question) == expected


def test_a_name_no_tool_filters_by_becomes_the_words_a_record_must_contain() -> None:
    assert calls_for("any open incidents for pl_a_b?") == [("list_incidents", {"state": "open", "text": "pl_a_b"})]


def test_a_tool_added_to_the_catalog_is_chosen_without_a_new_rule(monkeypatch) -> None:
    """A listing that filters runs by any status (as the tools branch adds) wins for a status it can apply."""
    runs = ToolSpec(name="list_pipeline_runs", specialist="log_analytics", record="run", purpose="runs by status",
                    filters=(FilterSpec(parameter="status", kind="choice", vocabulary="run_status"),
                             FilterSpec(parameter="time_window", kind="window")))
    monkeypatch.setattr(catalog, "TOOLS", (*catalog.TOOLS, runs))
    monkeypatch.setattr("opsagent.local_model.calls.TOOLS", catalog.TOOLS)
    tools = {**CATALOG, "log_analytics": CATALOG["log_analytics"] | {"list_pipeline_runs"}}
    [reading] = read_question(analysis_of("which runs were cancelled today?"), LEXICON)
    [choice] = choose(reading, tools).choices
    assert [(call.tool, call.arguments) for call in choice.calls] == [
        ("list_pipeline_runs", {"status": "Cancelled", "time_window": "today"})]


def test_a_qualifier_no_tool_applies_is_left_unapplied() -> None:
    """Changes have no priority: "P1 changes" must not be answered as all changes."""
    [reading] = read_question(analysis_of("which P1 changes are scheduled?"), LEXICON)
    assert "P1" in choose(reading, CATALOG).unapplied


@pytest.mark.parametrize("question", [
    "which failed pipelines have an open incident?",
    "any P1s with a change request linked?",
    "failed loads without a ticket",
    "changes that have incidents raised against them",
])
async def test_a_relation_between_two_kinds_is_asked_back_not_answered_with_two_lists(local_client, question) -> None:
    """This model pairs no rows: two lists side by side would not say which records have (or lack) the other."""
    [relation] = [ask.relation for ask in analysis_of(question).asks if ask.relation]
    asked = await plan(local_client, question)
    assert asked.clarify and not asked.plan and relation.words in asked.offline_unread


# --- roles ----------------------------------------------------------------------------------

async def test_dependent_asks_are_planned_in_steps_and_independent_ones_in_parallel(local_client) -> None:
    chained = await plan(local_client, "which pipelines failed today, and is there an open incident for any of them?")
    assert [(task.step, task.agent) for task in chained.plan] == [(1, "log_analytics"), (2, "servicenow")]
    both = await plan(local_client, "is databricks degraded, and which P1 incidents are open?")
    assert sorted((task.step, task.agent) for task in both.plan) == [(1, "service_health"), (1, "servicenow")]
    assert [task.part for task in both.plan] == [part.id for part in both.parts]


async def test_off_topic_is_refused_and_unread_words_are_asked_back(local_client) -> None:
    assert (await plan(local_client, "tell me a joke")).should_reject
    unread = await plan(local_client, "which pipelines are flaky?")
    assert unread.clarify and unread.offline_unread == ["flaky"] and not unread.plan


async def test_a_request_to_act_plans_only_the_look_up_of_what_it_names(local_client) -> None:
    output = await plan(local_client, "please close INC0010049")
    assert not output.should_reject and [task.agent for task in output.plan] == ["servicenow"]


async def test_review_mode_asks_again_for_a_transient_gap_only(local_client) -> None:
    question = "which pipelines failed today?"
    results = [TaskResult(step=1, agent="log_analytics", question=question, status="failed", error="boom", part="p1")]

    def replan(retryable: bool) -> ReplanInput:
        gap = PartGap(part="p1", text=question, reason="log_analytics failed: boom", retryable=retryable)
        return ReplanInput(question=question, analysis=analysis_of(question), results=results, gaps=[gap],
                           review=ReviewOutput(is_complete=False), specialists=REGISTRY, max_tasks=8)

    again = ReviewModeOutput.model_validate_json(await local_reply(local_client, replan(True)), context={"agents": AGENTS})
    assert again.accept_review and [(task.agent, task.part) for task in again.new_plan] == [("log_analytics", "p1")]
    declined = ReviewModeOutput.model_validate_json(await local_reply(local_client, replan(False)),
                                                    context={"agents": AGENTS})
    assert not declined.accept_review and "boom" in declined.rejection_reason


async def test_clarify_names_the_unread_words_and_offers_questions_it_can_read(local_client) -> None:
    question = "which open P1 incidents are flaky?"
    role_input = ClarifyInput(question=question, analysis=analysis_of(question), specialists=REGISTRY,
                              unread=["flaky"], candidates=["What is the status of INC0010001?"])
    output = ClarifyOutput.model_validate_json(await local_reply(local_client, role_input))
    assert output.clarification_request.startswith("The offline demo model couldn't read 'flaky'")
    assert "connect a model" in output.clarification_request
    assert output.possible_interpretations and "INC0010001" not in " ".join(output.possible_interpretations)
    for option in output.possible_interpretations:  # every option is a question this model reads whole
        readings = read_question(analysis_of(option), LEXICON)
        assert readings and not any(reading.unread for reading in readings), option
