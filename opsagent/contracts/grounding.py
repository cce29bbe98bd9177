"""The grounding check's verdict on a written answer (see ``workflows/grounding.py``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

GroundingVerdict = Literal["pass", "regenerate", "partial", "block"]
"""partial: the sentences with unsupported claims are left out (named under Limitations in the product's
words); block: no supported claim is left, the evidence is shown instead."""
CheckKind = Literal["identifier", "number", "negative_claim", "part_coverage", "lead", "value", "link",
                    "comparison", "placement", "history"]


class GroundingCheck(BaseModel):
    """One claim of the answer checked against the evidence."""

    kind: CheckKind
    claim: str
    passed: bool
    detail: str = ""
    """For a failure: a concrete sentence the writer can act on ("INC0010066 appears in no tool output")."""
    public: str = ""
    """For a failure: what was left out, in the product's words only (never the model's sentence), for
    the answer's limitations ("a statement about the state of INC… that the data contradicts")."""

    @classmethod
    def of(cls, kind: CheckKind, claim: str, ok: bool, detail: str, public: str) -> GroundingCheck:
        """A check whose detail and public wording are kept only when it fails."""
        return cls(kind=kind, claim=claim, passed=ok, detail="" if ok else detail, public="" if ok else public)


class GroundingReport(BaseModel):
    """Score in [0, 1] = share of checks passed; the verdict follows the configured thresholds."""

    score: float = Field(ge=0.0, le=1.0)
    verdict: GroundingVerdict
    attempt: int = Field(ge=1)
    checks: list[GroundingCheck] = Field(default_factory=list)
    kept: str = ""
    """For partial and block: the answer without the sentences a failed check is about."""

    @property
    def failures(self) -> list[GroundingCheck]:
        return [check for check in self.checks if not check.passed]

    def describe(self) -> str:
        """"pass (score 0.92)", or "nothing to check" when the answer states nothing about the data (a
        greeting, a question asked back): a score over no checks would claim a verification that never ran."""
        if not self.checks:
            return "nothing to check (no claim about the data)"
        return f"{self.verdict} (score {self.score:.2f})"
