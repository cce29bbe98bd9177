"""The grounding check's verdict on a written answer (see ``workflows/grounding.py``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

GroundingVerdict = Literal["pass", "regenerate", "block"]
CheckKind = Literal["identifier", "number", "negative_claim", "part_coverage"]


class GroundingCheck(BaseModel):
    """One claim of the answer checked against the evidence."""

    kind: CheckKind
    claim: str
    passed: bool
    detail: str = ""
    """For a failure: a concrete sentence the writer can act on ("INC0010066 appears in no tool output")."""


class GroundingReport(BaseModel):
    """Score in [0, 1] = share of checks passed; the verdict follows the configured thresholds."""

    score: float = Field(ge=0.0, le=1.0)
    verdict: GroundingVerdict
    attempt: int = Field(ge=1)
    checks: list[GroundingCheck] = Field(default_factory=list)

    @property
    def failures(self) -> list[GroundingCheck]:
        return [check for check in self.checks if not check.passed]
