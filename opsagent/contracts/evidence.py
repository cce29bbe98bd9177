"""Evidence: what the tools returned, as data, and the task results that carry it.

Every specialist task ends as a ``TaskResult`` whose ``evidence`` lists each tool call with its
arguments, status and (bounded) rows. Later steps, the reviewer, the grounding check, the answer
and the evals all read this data rather than the specialist's prose. A task is ``ok`` only when
at least one tool call came back with an answer; prose without one is ``unsupported``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from opsagent.contracts.tool_result import ToolResult

EvidenceStatus = Literal["ok", "no_data", "not_found", "error"]
"""``not_found``: a lookup by id that the backend answered with "no such record" (an answer, not a failure)."""
TaskStatus = Literal["ok", "unsupported", "failed", "timeout", "skipped"]
PlanMode = Literal["user", "review", "triage"]
"""Which plan a task came from: the first (user-mode) plan, the review-mode re-plan, or triage."""

FRAMEWORK_ERROR_PREFIX = "Error:"
"""MAF reports a raising tool or unparsable arguments to the model as "Error: …"."""
NON_ENVELOPE_EXCERPT_CHARS = 300


class ToolEvidence(BaseModel):
    """One tool call and its outcome, as data."""

    call_id: str = ""
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: EvidenceStatus
    error_kind: str | None = None
    message: str = ""
    query: dict[str, Any] = Field(default_factory=dict)
    """What was searched, in the tool's own terms (resolved windows included)."""
    rows: list[dict[str, Any]] = Field(default_factory=list)
    total: int = 0
    shown: int = 0
    truncated: bool = False
    warnings: list[str] = Field(default_factory=list)
    source: str = ""
    output_chars: int = 0
    """Size of the tool's raw output (what a model's context had to hold)."""
    recovered: bool = False
    """The model wrote this call as text; it was recognised and executed for it."""
    repeated: bool = False
    """An identical call had already run in this task; its result was reused, not fetched again."""

    @property
    def answered(self) -> bool:
        """The backend answered: rows, an empty result, or "no such record"."""
        return self.status != "error"

    @classmethod
    def from_output(cls, tool: str, arguments: dict[str, Any], output: str, *, call_id: str = "") -> ToolEvidence:
        """Evidence from a tool's text output: our envelope, or a framework error string."""
        envelope = ToolResult.from_text(output)
        if envelope is None:
            text = " ".join(output.split())[:NON_ENVELOPE_EXCERPT_CHARS]
            return cls(call_id=call_id, tool=tool, arguments=arguments, status="error", error_kind="tool_failed",
                       message=text or "the tool returned nothing", output_chars=len(output))
        status: EvidenceStatus = "not_found" if envelope.error_kind == "not_found" else envelope.status
        return cls(
            call_id=call_id, tool=tool, arguments=arguments, status=status, error_kind=envelope.error_kind,
            message=envelope.message, query=envelope.query, rows=envelope.items, total=envelope.total,
            shown=envelope.shown, truncated=envelope.truncated, warnings=envelope.warnings, source=envelope.source,
            output_chars=len(output),
        )


class TaskResult(BaseModel):
    """The outcome of one planned task. A failure is a result too: the workflow goes on."""

    step: int = 1
    agent: str
    question: str
    part: str = ""
    """Which part of the question this task covers (the plan's part id)."""
    mode: PlanMode = "user"
    status: TaskStatus
    response: str = ""
    """The specialist's own words (bounded); the evidence is what counts."""
    error: str | None = None
    evidence: list[ToolEvidence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    llm_calls: int = 0

    @property
    def succeeded(self) -> bool:
        return self.status == "ok"

    @property
    def answered_evidence(self) -> list[ToolEvidence]:
        return [item for item in self.evidence if item.answered]
