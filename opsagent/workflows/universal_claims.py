"""Claims about every record of a search: "every pl_x run this week succeeded", "all open P1s are assigned".

Such a claim needs every row: it fails when a search of that kind of record returned fewer rows than it
found (the rest were never seen), or when a row it returned shows another value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from opsagent.contracts.grounding import GroundingCheck
from opsagent.tools.catalog import tool_spec
from opsagent.tools.vocabularies import VALUE_VOCABULARIES
from opsagent.workflows.claims import NEGATED_VALUE
from opsagent.workflows.evidence_index import EvidenceIndex

UNIVERSAL = re.compile(r"\b(?:every|all|each)(?: of)?(?: the| its| their| these| those)?\s+(?:[\w-]+\s+){0,2}?"
                       r"(?P<noun>runs?|incidents?|tickets?|changes?|change requests?|pipelines?)\b", re.IGNORECASE)
"""A quantifier over a record noun ("all runs", "every incident"), not "every 3 hours" or "at all"."""
SUBSET = re.compile(r"\b(?:except|but|other than|apart from|besides|before|after|since|until|last \d+|first \d+|"
                    r"the \w+ (?:before|after)|of them)\b|\bthe other\b", re.IGNORECASE)
"""Words that carve a subset out of "all": the claim is then about rows it does not name."""


def check_universal_claims(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for sentence in sentences:
        quantifier = UNIVERSAL.search(sentence)
        if quantifier is None or SUBSET.search(sentence):
            continue
        for vocabulary in (item for item in VALUE_VOCABULARIES.values() if item.record != "health"):  # health_claims
            for match, value in vocabulary.find(sentence[quantifier.end():]):
                start = quantifier.end() + match.start()
                if NEGATED_VALUE.search(sentence[:start]):
                    continue
                wanted = vocabulary.selected(value) or set()
                items = [item for item in index.items if item.answered and (spec := tool_spec(item.tool))
                         and spec.record == vocabulary.record and item.rows]
                unseen = [item for item in items if item.total > len(item.rows)]
                other = [row for item in items for row in item.rows for field in vocabulary.row_fields
                         if row.get(field) not in (None, "") and str(row[field]).lower() not in wanted]
                if items and (unseen or other):
                    why = (f"{unseen[0].tool} returned {len(unseen[0].rows)} of {unseen[0].total} rows" if unseen
                           else f"a row shows {next(str(row.get(f)) for row in other for f in vocabulary.row_fields if f in row)}")
                    checks.append(GroundingCheck(kind="value", claim=sentence, passed=False,
                                                 detail=f"\"{match.group()}\" is said of all of them, but {why}",
                                                 public="a statement about all records that the data does not back"))
    return checks
