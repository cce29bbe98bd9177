"""The local summarizer: the direct answer written from structured evidence, never from prose."""

from __future__ import annotations

from opsagent.contracts.role_inputs import ReviewInput


def write_summary(review: ReviewInput) -> tuple[str, list[str]]:
    """(summary, key facts) for the question, from the tasks' evidence."""
    lines = [item.message for result in review.results if result.succeeded for item in result.evidence if item.message]
    return " ".join(dict.fromkeys(lines)), []
