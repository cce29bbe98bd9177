"""Intake's names (checked against the inventory) and conversation handling (follow-ups, references)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opsagent.backends.base import ComponentInfo, PipelineInfo
from opsagent.contracts.requests import MessageData
from opsagent.intake import analyse_question
from opsagent.intake.inventory import SOURCES, InventorySnapshot

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
INVENTORY = InventorySnapshot(
    pipelines=(PipelineInfo(name="pl_load_finance_dwh", factory="adf-prod-weu"),
               PipelineInfo(name="pl_load_finance_mart", factory="adf-prod-weu"),
               PipelineInfo(name="pl_ingest_iot_telemetry", factory="adf-prod-neu")),
    configuration_items=("vm-shir-01", "sqlmi-prod-weu"),
    assignment_groups=("Data Platform Ops", "Network Operations"),
    components=(ComponentInfo(platform="Azure", name="Key Vault", region="West Europe"),),
    complete=SOURCES,
)


def analysed(question: str, history: list[tuple[str, str]] = (), inventory: InventorySnapshot = INVENTORY):
    messages = [MessageData(role=role, content=text) for role, text in history]
    return analyse_question(question, messages, now=NOW, inventory=inventory)


def test_a_near_miss_is_corrected_with_a_note() -> None:
    analysis = analysed("why did pl_load_finanse_dwh fail?")
    assert analysis.resolved_question == "why did pl_load_finance_dwh fail?"
    [pipeline] = analysis.entities
    assert (pipeline.kind, pipeline.value, pipeline.text, pipeline.status) == (
        "pipeline", "pl_load_finance_dwh", "pl_load_finanse_dwh", "corrected")
    assert analysis.notes == ['"pl_load_finanse_dwh" as pipeline pl_load_finance_dwh']


def test_an_unknown_name_is_unresolved_with_suggestions_never_guessed() -> None:
    analysis = analysed("why did pl_load_finance_fail_job fail?")
    assert analysis.resolved_question == "why did pl_load_finance_fail_job fail?"
    [unresolved] = analysis.unresolved
    assert unresolved.text == "pl_load_finance_fail_job"
    assert unresolved.suggestions and set(unresolved.suggestions) <= {"pl_load_finance_dwh", "pl_load_finance_mart"}


def test_without_an_inventory_names_are_unverified_not_unknown() -> None:
    analysis = analysed("why did pl_anything_new fail?", inventory=InventorySnapshot())
    assert [item.status for item in analysis.entities] == ["unverified"] and analysis.unresolved == []


def test_tickets_are_normalised_and_groups_found_with_a_typo() -> None:
    analysis = analysed("is inc10049 assigned to Netwrok Operations?")
    assert analysis.values("incident") == ["INC0010049"]
    assert analysis.values("assignment_group") == ["Network Operations"]


def test_the_region_of_a_factory_names_the_factory() -> None:
    analysis = analysed("failed runs in the North Europe factory today")
    assert analysis.values("factory") == ["adf-prod-neu"]


@pytest.mark.parametrize(("previous", "follow_up", "resolved"), [
    ("what failed in ADF in the last 24 hours?", "and for last week?", "what failed in ADF last week?"),
    ("is Databricks degraded?", "what about Snowflake?", "is Snowflake degraded?"),
    ("open P1 incidents", "and P2?", "open P2 incidents?"),
    ("open incidents for Data Platform Ops", "only the P1s", "open incidents for Data Platform Ops, only P1s?"),
    ("changes this week that are approved", "and the ones not approved?", "changes this week that are not approved?"),
])
def test_a_short_follow_up_re_asks_the_previous_question_with_one_value_changed(
        previous: str, follow_up: str, resolved: str) -> None:
    analysis = analysed(follow_up, [("user", previous), ("assistant", "(the answer)")])
    assert analysis.resolved_question == resolved
    assert analysis.follow_up is not None and analysis.follow_up.previous_question == previous


@pytest.mark.parametrize(("previous", "follow_up", "window"), [
    ("what failed in ADF in the last 24h?", "and what about the 24 hours before that?",
     "from 2025-01-08T09:00Z to 2025-01-09T09:00Z"),
    ("any incidents opened yesterday?", "what about the day before that?", "from 2025-01-08T00:00Z to 2025-01-09T00:00Z"),
    ("what failed last week?", "and the previous week?", "from 2024-12-27T09:00Z to 2025-01-03T09:00Z"),
])
def test_a_follow_up_can_ask_for_the_window_just_before_the_previous_one(previous: str, follow_up: str, window: str) -> None:
    """Even when the previous answer offered suggestions: "the day before that" is not one of them."""
    analysis = analysed(follow_up, [("user", previous), ("assistant", "Answer.\n\n- Show me the day's changes.")])
    assert window in analysis.resolved_question
    [time] = analysis.times
    assert time.as_range() == window.removeprefix("from ")


@pytest.mark.parametrize("follow_up", [
    "and which of those has been open the longest?",
    "and who is working on them?",
    "and are any of them P1?  why?",
    "and for Network Operations, which is the oldest?",
])
def test_a_follow_up_that_says_more_than_a_new_value_keeps_its_own_words(follow_up: str) -> None:
    """Rewriting is for exact substitutions only: "and which of those has been open the longest?" turned into the
    previous question with "open" swapped in lost "the longest" (the answer listed them all)."""
    history = [("user", "which incidents are open for Data Platform Ops?"), ("assistant", "INC0010049, INC0010050.")]
    analysis = analysed(follow_up, history)
    assert analysis.follow_up is None and analysis.resolved_question == follow_up


def test_a_new_question_is_not_a_follow_up() -> None:
    analysis = analysed("show INC0010052", [("user", "open P1 incidents"), ("assistant", "INC0010052 …")])
    assert analysis.follow_up is None and analysis.resolved_question == "show INC0010052"


def test_ordinals_point_at_the_rows_the_previous_answer_listed() -> None:
    answer = MessageData(role="assistant", content="(text without ids)", refs=("INC0010052", "INC0010050", "INC0010049"))
    history = [MessageData(role="user", content="open P1 and P2 incidents"), answer]
    second = analyse_question("tell me more about the second one", history, now=NOW, inventory=INVENTORY)
    assert second.resolved_question == "tell me more about INC0010050"
    last = analyse_question("who owns the last one?", history, now=NOW, inventory=INVENTORY)
    assert last.resolved_question == "who owns INC0010049?"


def test_without_stored_refs_the_answer_text_is_read_in_order() -> None:
    history = [("user", "which pipelines failed?"),
               ("assistant", "pl_ingest_sales (3 runs), then pl_load_finance_dwh (run de22cd92-ac4b-43a1-954f-3ef5d45b3a07)")]
    analysis = analysed("why did the second pipeline fail?", history)
    assert analysis.resolved_question == "why did pl_load_finance_dwh fail?"
    run = analysed("what happened in that run?", history)
    assert run.resolved_question == "what happened in de22cd92-ac4b-43a1-954f-3ef5d45b3a07?"


def test_a_time_phrase_is_not_a_reference() -> None:
    history = [("user", "failed pipelines"), ("assistant", "pl_ingest_sales, pl_load_finance_dwh")]
    assert analysed("and the last 7 days?", history).resolved_question == "failed pipelines the last 7 days?"


def test_a_reference_with_nothing_to_point_at_stays_as_written() -> None:
    assert analysed("tell me about the second one").resolved_question == "tell me about the second one"


def test_a_short_reply_to_a_question_back_picks_the_offered_question() -> None:
    history = [("user", "why did the pipeline fail?"),
               ("assistant", "Which pipeline do you mean?\n- Why did pl_ingest_sales fail?\n- Why did pl_load_finance_dwh fail?")]
    assert analysed("the finance one", history).resolved_question == "Why did pl_load_finance_dwh fail?"
    assert analysed("the other one", history).follow_up is None  # matches neither: not guessed


@pytest.mark.parametrize(("question", "pipeline"), [
    ("how is the iot telemetry pipeline doing?", "pl_ingest_iot_telemetry"),
    ("did the finance dwh load run ok last night?", "pl_load_finance_dwh"),
])
def test_a_pipeline_named_by_the_words_of_its_name_is_read_as_that_pipeline_with_a_note(question: str, pipeline: str) -> None:
    analysis = analysed(question)
    assert analysis.values("pipeline") == [pipeline] and pipeline in analysis.resolved_question
    assert any(pipeline in note for note in analysis.notes)


def test_words_shared_by_several_pipelines_name_none_of_them() -> None:
    """"the finance load" fits pl_load_finance_dwh and pl_load_finance_mart equally: no guess."""
    analysis = analysed("did the finance load run ok?")
    assert analysis.values("pipeline") == [] and analysis.notes == []


def test_bullets_of_an_answer_are_facts_not_options_to_pick() -> None:
    """Only a question back offers options; after an answer, "and Azure?" re-asks with Azure."""
    answer = "Yes — Databricks is degraded.\n\n- Databricks incident 'Delays starting job clusters in Azure West Europe'"
    analysis = analysed("and Azure?", [("user", "is databricks degraded?"), ("assistant", answer)])
    assert analysis.resolved_question == "is Azure degraded?"
