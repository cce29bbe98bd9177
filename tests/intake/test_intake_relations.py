"""Asks that relate two kinds of record, and asks that only look like it (lists, descriptions, names)."""

from __future__ import annotations

import pytest

from opsagent.contracts.analysis import RecordRelation
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from opsagent.intake.relations import searched_both
from tests.intake.test_intake_asks import NOW

INVENTORY = InventorySnapshot()


def relations(question: str) -> list[RecordRelation]:
    return [ask.relation for ask in analyse_question(question, now=NOW, inventory=INVENTORY).asks if ask.relation]


@pytest.mark.parametrize(("question", "head", "other", "negated"), [
    ("which failed pipelines have an open incident?", "pipeline", "incident", False),
    ("pipelines that broke overnight without a ticket yet", "pipeline", "incident", True),
    ("which of the failed loads dont have an inc raised", "pipeline", "incident", True),
    ("any P1s with a change request linked?", "incident", "change", False),
    ("which p2 tickets have no linked change", "incident", "change", True),
    ("changes that have incidents raised against them this week", "change", "incident", False),
    ("incidents tied to a deployment", "incident", "change", False),
    ("is there a ticket about the failed runs?", "incident", "pipeline", False),
    ("did any runs fail during a maintenance?", "pipeline", "change", False),
    ("any ticket for the pipeline that failed at 3am?", "incident", "pipeline", False),  # no pipeline named
    # a window between the two kinds is no word of the relation
    ("runs that failed since monday morning at 6 with no ticket raised", "pipeline", "incident", True),
    ("P2s opened in the last 3 days and still without a linked change", "incident", "change", True),
])
def test_a_kind_related_to_another_kind_is_a_relation(question: str, head: str, other: str, negated: bool) -> None:
    [relation] = relations(question)
    assert (relation.head, relation.other, relation.negated) == (head, other, negated)
    assert relation.words in question and relation.words.split()[-1].rstrip("?s") in question


@pytest.mark.parametrize("question", [
    "failed pipelines or P1s?",  # two lists
    "open incidents, failed runs",
    "show me open changes nobody has approved",  # a value after the verb describes the change
    "incidents with priority 1",
    "pipelines with issues",  # loose: failing pipelines
    "is there an incident for pl_ingest_sales?",  # a name filters its own kind
    "is there an incident for the pl_ingest_sales pipeline?",
    "what is the status of the change CHG0030017 for tonight?",
    "pl_ingest_sales failed. is there an incident for that pipeline?",  # a pointer at a named record
    "last run of pl_ingest_sales and any ticket for the pipeline",  # "the" of a kind the question names
    "need the run id of the failed load for the support case",
    "any incidents about job clusters?",  # loose nouns and compounds name no record
    "which incidents had a priority change this week",
    "open incidents for the change advisory board",
])
def test_lists_descriptions_and_names_are_no_relation(question: str) -> None:
    assert relations(question) == []


def test_a_relation_is_searched_only_when_both_kinds_were() -> None:
    [relation] = relations("which failed pipelines have an open incident?")
    assert not searched_both(relation, ["list_failed_pipelines"])
    assert not searched_both(relation, ["list_incidents", "get_incident"])
    assert searched_both(relation, ["list_pipeline_runs", "list_incidents"])
