"""A graded answer: the text the grounding step checked and everything it was checked against."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.contracts.results import Answer


class GradedAnswer(BaseModel):
    case_id: str
    text: str
    """The direct answer, a blank line, then the facts as "- " lines (what the grounding step reads)."""
    question: str
    results: list[TaskResult]
    parts: list[QuestionPart] = Field(default_factory=list)
    known_names: list[str] = Field(default_factory=list)
    analysis: QuestionAnalysis | None = None
    right: bool = False
    """The eval judged the original answer right: false alarms are counted on these only."""

    @classmethod
    def of(cls, case_id: str, question: str, answer: Answer, known_names: Iterable[str] = (), *,
           right: bool = False) -> GradedAnswer:
        review = answer.metadata.review.verdicts[-1] if answer.metadata.review and answer.metadata.review.verdicts else None
        summary, facts = (review.summary, review.key_facts) if review else (answer.summary, answer.facts)
        listed = "\n".join(f"- {fact}" for fact in facts)
        return cls(case_id=case_id, text=f"{summary.strip()}\n\n{listed}".strip(), question=question,
                   results=answer.metadata.tasks, parts=answer.metadata.parts, known_names=sorted(known_names),
                   analysis=answer.metadata.analysis, right=right)


def evidence_of(graded: GradedAnswer) -> list[ToolEvidence]:
    return [item for result in graded.results for item in result.evidence]


def evidence_text(graded: GradedAnswer) -> str:
    return " ".join(f"{item.rows} {item.arguments} {item.message}" for item in evidence_of(graded)).lower()
