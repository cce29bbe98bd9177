"""Review: the verdict and, in the same reply, the answer written from the evidence.

The coverage check already ran in the workflow (``ReviewInput.gaps``); this role asks for the one
re-plan only when it could fill a gap (a failed, timed-out or data-less task, or a transient tool
failure), never for "not authorised", "not found" or bad arguments, and writes the summary from
the structured evidence (``summary.py``).
"""

from __future__ import annotations

from opsagent.contracts.role_inputs import ReviewInput
from opsagent.local_model.summary import write_summary


def review_output(review: ReviewInput) -> dict:
    """``ReviewOutput`` as a JSON-ready dict."""
    summary, facts = write_summary(review)
    retryable = [gap for gap in review.gaps if gap.retryable]
    if not retryable:
        return {"is_complete": True, "summary": summary, "key_facts": facts, "missing_aspects": [],
                "suggested_approach": "", "confidence": 0.8 if not review.gaps else 0.5}
    return {
        "is_complete": False,
        "summary": summary,
        "key_facts": facts,
        "missing_aspects": [gap.describe() for gap in retryable],
        "suggested_approach": "Ask again for: " + "; ".join(gap.part for gap in retryable),
        "confidence": 0.6,
    }
