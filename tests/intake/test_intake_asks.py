"""Where one ask ends and the next begins: a second predicate of the same subject is not a second question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
INVENTORY = InventorySnapshot()  # names from the words alone: platforms and snake_case pipelines need no inventory


def asks(question: str) -> list[tuple[str, str]]:
    return [(ask.text, ask.shape) for ask in analyse_question(question, now=NOW, inventory=INVENTORY).asks]


@pytest.mark.parametrize("question", [
    "which incidents are p2 and are still unassigned",
    "list pipelines that failed and are not ticketed",
    "which changes still need approval and are due to start before monday?",
    "what incidents were opened today and have no assignee",
])
def test_a_second_predicate_of_the_same_subject_stays_in_its_ask(question: str) -> None:
    [(text, shape)] = asks(question)
    assert text == question.rstrip("?") and shape in ("which", "list")


@pytest.mark.parametrize(("question", "second"), [
    ("which changes need approval and is databricks healthy", ("is databricks healthy", "yes_no")),
    ("is pl_ingest_sales failing and is there an incident", ("is there an incident", "yes_no")),
    ("which pipelines failed and are there incidents for them", ("are there incidents for them", "yes_no")),
    ("which changes are scheduled and are incidents open on them?", ("are incidents open on them", "yes_no")),
])
def test_a_clause_with_its_own_subject_is_a_second_ask(question: str, second: tuple[str, str]) -> None:
    found = asks(question)
    assert len(found) == 2 and found[1] == second


@pytest.mark.parametrize("question", ["is INC0010049 still open and has Amira Haddad updated it?",
                                      "are there open P1s and is Elif Demir on them?"])
def test_a_person_named_after_the_auxiliary_is_a_subject_of_its_own(question: str) -> None:
    assert len(asks(question)) == 2


@pytest.mark.parametrize(("question", "shape"), [
    ("c360 failed again?", "yes_no"),
    ("sales ingest still failing?", "yes_no"),
    ("pipelines failed today?", "list"),  # which ones, not whether
    ("which pipelines are red", "which"),
])
def test_a_status_asked_by_intonation_is_a_yes_no_question(question: str, shape: str) -> None:
    [(_, found)] = asks(question)
    assert found == shape


def test_a_status_stated_without_a_question_mark_is_no_yes_no_question() -> None:
    """"finance dwh load failed again — is it the same thing?": the first piece states what happened."""
    found = asks("finance dwh load failed again — is it the WH_FINANCE suspended thing from before?")
    assert found[0][1] != "yes_no" and found[-1][1] == "yes_no"


def test_same_as_after_a_dash_is_an_ask_of_its_own() -> None:
    """"why did crm fail just after midnight - same as the evening one?": a "No" answers the comparison, not the why."""
    assert asks("why did crm accounts fail just after midnight - same as the evening one?") == [
        ("why did crm accounts fail just after midnight", "why"), ("same as the evening one", "compare")]
