"""What a pipeline's history holds of its failures, read for a "none": "no failures at all in the 14 days of
history", "no cluster-launch failures in that history", "no earlier 2108 failures before today's run".

A history (``get_pipeline_history``) groups every failure of its retention by error, with each start; a none of
failures (of a kind) is backed when no group holds one — of that kind, or before the latest when "earlier" is said.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from opsagent.backends.pipeline_records import squashed
from opsagent.intake.vocabulary import PLATFORM_WORDS
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.evidence_index import EvidenceIndex

NO_FAILURES = re.compile(r"\b(?:no|zero)\s+(?P<kind>(?:[\w-]+\s+){0,3}?)failures?\b|\bfailures?\W+(?:none|0)\b"
                         r"|\b(?:never|not|\w+n't)\s+(?:once\s+)?failed\b", re.IGNORECASE)
"""A pipeline said to have no failures (of a kind): "no failures at all", "no cluster-launch failures", "Failures: none"."""
ANY_KIND = frozenset({"other", "new", "recent", "earlier", "previous", "prior", "more", "further", "real", "actual",
                      "such", "similar", "of", "its", "the", "any", "failed"})
"""Words before "failures" that name no kind of failure ("no other failures" is OTHER_KIND's)."""
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
"""Any moment: only whether the words name a time is read."""
EARLIER = re.compile(r"\b(?:earlier|previous|prior|before)\b", re.IGNORECASE)


def error_text(group: dict[str, Any]) -> str:
    """What a history's failure group says of its error: code, activity, failure type and message."""
    return " ".join(str(group.get(field) or "") for field in ("error_code", "failed_activity", "failure_type",
                                                               "error_message"))


def history_none(sentence: str, record: str | None, index: EvidenceIndex) -> str | None:
    """Why ``record``'s history backs a none of failures, or ``None``: "it has no failures at all in the 14 days of
    history", "no cluster-launch failures in that history" — the history holds no failure group, or none whose code,
    activity or message holds all the kind's words (a history holds every failure of its retention)."""
    said = NO_FAILURES.search(sentence)
    histories = [row for _, row in index.rows_for(record)
                 if isinstance(row.get("failure_groups"), list)] if record else []
    words = re.split(r"[\s-]+", (said.group("kind") or "").lower()) if said else []
    if not histories or "other" in words:
        return None  # "no other failures": OTHER_KIND's reading
    kind = [word for word in words if word and word not in ANY_KIND]
    earlier = bool(EARLIER.search(sentence))  # "no earlier 2108 failures before today's run": the latest one aside
    starts = [(squashed(error_text(group)), moment)
              for row in histories for group in row["failure_groups"] if isinstance(group, dict)
              for moment in (iso_moment(start) for start in group.get("starts") or []) if moment]
    latest = max((moment for _, moment in starts), default=None)
    held = [text for text, moment in starts if not (earlier and moment == latest)]
    if not held:
        return f"{record}'s history holds no {'earlier ' if earlier else ''}failure"
    if kind and _a_kind_of_error(kind, index) and not any(all(squashed(word) in text for word in kind) for text in held):
        return f"none of {record}'s failure groups says {' '.join(kind)}"
    return None


def _a_kind_of_error(kind: list[str], index: EvidenceIndex) -> bool:
    """The words name a kind of error the user asked about (or a code) — not a time ("weekend", "overnight") or a
    platform ("Databricks"), whose failures the error words need not name."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    question = index.question.lower()
    return all(word.isdigit() or re.search(rf"(?<![\w-]){re.escape(word)}", question) for word in kind) and not any(
        word in PLATFORM_WORDS for word in kind) and next(find_times(" ".join(kind), index.now or EPOCH), None) is None
