"""Claims about a relation the evidence never looked at.

"Which failed pipelines have an open incident?" answered from a search of runs alone: coverage reports the part
missing (``workflows/coverage``), but the answer the model wrote may still say "the failed pipelines with an open
incident are …" (all of them) or "… that have an open incident: none". Each sentence that speaks of the kind of
record no search fetched, while the question relates it to another, is a claim nothing backs — unless it says that
kind was not checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.relations import FAMILIES, VAGUE_NOUNS, searched_families
from opsagent.tools.catalog import RECORDS
from opsagent.workflows.claims import sentences as read_sentences
from opsagent.workflows.evidence_index import EvidenceIndex

UNCHECKED = re.compile(r"\b(?:not|never|n't|no|without)\s+(?:\w+\s+){0,2}(?:check|checked|search|searched|look|looked|"
                       r"fetch|fetched|query|queried|pull|pulled)\b|\bunchecked\b|\bcould(?:n't| not) (?:check|see|tell)\b",
                       re.IGNORECASE)
"""A sentence that says the kind was not looked at ("I did not check the tickets"): honest, not a claim."""


def _nouns(family: str) -> list[str]:
    return [noun for kind in RECORDS.values() if FAMILIES.get(kind.name) == family for noun in kind.nouns
            if len(noun) > 2 and noun not in VAGUE_NOUNS]  # "an open INC"; "a connectivity issue" names no ticket


def _said_of(sentence: str, nouns: Iterable[str]) -> bool:
    low = sentence.lower()
    return any(re.search(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", low) for noun in nouns)


def check_relations(text: str, analysis: QuestionAnalysis | None, index: EvidenceIndex) -> list[GroundingCheck]:
    """Each sentence about a kind of record the question relates to another and no search fetched."""
    if analysis is None:
        return []
    fetched = searched_families(item.tool for item in index.items if item.answered)
    checks = []
    for ask in analysis.asks:
        relation = ask.relation
        unsearched = [family for family in (relation.other, relation.head) if family not in fetched] if relation else []
        if not unsearched:
            continue
        nouns = [noun for family in unsearched for noun in _nouns(family)]
        for sentence in read_sentences(text):
            if _said_of(sentence, nouns) and not UNCHECKED.search(sentence):
                checks.append(GroundingCheck.of(
                    "link", sentence, False,
                    f"no search fetched the {' or '.join(unsearched)} records \"{relation.words}\" asks about",
                    "a claim about records no search fetched"))
    return checks
