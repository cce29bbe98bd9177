"""Claims about every record of a search: "every pl_x run this week succeeded", "all open P1s are assigned".

Such a claim needs every row: it fails when a search of that kind of record returned fewer rows than it
found (the rest were never seen), or when a row it returned shows another value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from opsagent.contracts.grounding import GroundingCheck
from opsagent.tools.catalog import record_of_noun, tool_spec
from opsagent.tools.vocabularies import VALUE_VOCABULARIES
from opsagent.workflows.claims import NEGATED_VALUE
from opsagent.workflows.evidence_index import EvidenceIndex, moments_of
from opsagent.workflows.time_claims import last_at

UNIVERSAL = re.compile(r"\b(?:every|all|each)(?: of)?(?: the| its| their| these| those)?\s+(?:[\w-]+\s+){0,2}?"
                       r"(?P<noun>runs?|incidents?|tickets?|changes?|change requests?|pipelines?)\b", re.IGNORECASE)
"""A quantifier over a record noun ("all runs", "every incident"), not "every 3 hours" or "at all"."""
SUBSET = re.compile(r"\b(?:except|but|other than|apart from|besides|before|after|since|until|last \d+|first \d+|"
                    r"the \w+ (?:before|after)|of them)\b|\bthe other\b", re.IGNORECASE)
"""Words that carve a subset out of "all": the claim is then about rows it does not name."""


SINCE_CLOCK = re.compile(r"\bsince\b[^.;]{0,60}?\b(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)\b", re.IGNORECASE)
"""A subset bounded by a clock time ("every run since the window closed at 19:00 has succeeded")."""


def _since_bound(sentence: str, now: datetime | None) -> datetime | None:
    """The moment "since HH:MM" names: the last time the clock showed it, at or before now."""
    found = SINCE_CLOCK.search(sentence)
    if found is None or now is None:
        return None
    return last_at(now, int(found.group("hour")), int(found.group("minute")))


def check_universal_claims(sentences: Iterable[str], index: EvidenceIndex,
                           now: datetime | None = None) -> list[GroundingCheck]:
    checks = []
    for sentence in sentences:
        quantifier = UNIVERSAL.search(sentence)
        subset = [match.group().lower() for match in SUBSET.finditer(sentence)]
        bound = _since_bound(sentence, now) if subset == ["since"] else None  # every one after a clock time
        if quantifier is None or subset and bound is None:
            continue
        noun = record_of_noun(quantifier.group("noun").lower())
        kind = "run" if noun == "pipeline" else noun  # a pipeline's values are its runs' statuses
        for vocabulary in (item for item in VALUE_VOCABULARIES.values() if item.record != "health"  # health_claims
                           and (kind is None or item.record == kind)):  # the quantified kind's values ("every run")
            for match, value in vocabulary.find(sentence[quantifier.end():]):
                start = quantifier.end() + match.start()
                if NEGATED_VALUE.search(sentence[:start]):
                    continue
                wanted = vocabulary.selected(value) or set()
                items = [item for item in index.items if item.answered and (spec := tool_spec(item.tool))
                         and spec.record == vocabulary.record and item.rows]
                unseen = [item for item in items if item.total > len(item.rows)]
                other = [row for item in items for row in item.rows for field in vocabulary.row_fields
                         if row.get(field) not in (None, "") and str(row[field]).lower() not in wanted
                         and (bound is None or any(moment >= bound for moment in moments_of(row)[:1]))]
                if items and (unseen or other):
                    why = (f"{unseen[0].tool} returned {len(unseen[0].rows)} of {unseen[0].total} rows" if unseen
                           else f"a row shows {next(str(row.get(f)) for row in other for f in vocabulary.row_fields if f in row)}")
                    checks.append(GroundingCheck(kind="value", claim=sentence, passed=False,
                                                 detail=f"\"{match.group()}\" is said of all of them, but {why}",
                                                 public="a statement about all records that the data does not back"))
    return checks
