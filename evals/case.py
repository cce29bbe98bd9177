"""The shape of one evaluation case file (``evals/cases/*.yaml``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opsagent.contracts.requests import MessageData

Shape = Literal["none", "single", "parallel", "sequential"]
Fault = Literal["not_authorised", "unavailable", "bad_response"]
Domain = Literal["servicenow", "log_analytics", "service_health"]
TAGS = {
    "easy", "medium", "hard", "servicenow", "log_analytics", "service_health", "multi-domain", "clarify",
    "reject", "review-retry", "datetime", "large-output", "error-handling", "follow-up",
    # answer shapes (synthesis: the direct answer the evidence supports)
    "synthesis", "existence", "count", "which", "record", "correlation",
    # understanding categories (what was asked reached the tools)
    "understanding", "negation", "qualifier", "exact-time", "scope", "typo", "chaining", "runbook",
    # what the tools can say (people, age, order, history, memory of past incidents, the shift briefing,
    # record text) and the messages that are not questions (requests to act, greetings and help)
    "people", "age", "order", "history", "memory", "briefing", "text", "action", "help",
}
CASES_DIR = Path(__file__).resolve().parent / "cases"
PARAPHRASES_DIR = Path(__file__).resolve().parent / "paraphrases"
FROZEN_DIR = Path(__file__).resolve().parent / "heldout"
CaseSet = Literal["cases", "paraphrases", "frozen"]


class ToolExpectation(BaseModel):
    """A tool that must be called; ``args`` are key arguments that must match (case-insensitive)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Conclusion(BaseModel):
    """The ids the direct answer concludes with: exactly these, no other ticket, run or pipeline id.

    With ``anchor``, only the clause of the direct answer that contains the anchor is checked (e.g.
    "have none" for the pipelines without an incident); otherwise the whole direct answer.
    """

    model_config = ConfigDict(extra="forbid")

    names: list[str] = Field(default_factory=list)
    anchor: str = ""


class Expectations(BaseModel):
    model_config = ConfigDict(extra="forbid")

    route: Literal["reject", "clarify", "execute", "help", "action", "error"]
    agents: list[str] = Field(default_factory=list)
    """The specialists of the first plan (as a set); empty = not checked."""
    shape: Shape | None = None
    tools_called: list[ToolExpectation] = Field(default_factory=list)
    tools_not_called: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    """Substrings (case-insensitive) the answer must contain: ids, counts, states."""
    forbidden: list[str] = Field(default_factory=list)
    """Substrings the answer must not contain (claims that would be wrong)."""
    answer_first: list[str] = Field(default_factory=list)
    """Substrings the direct answer (the summary before facts and evidence) must contain: "Yes", "3 of"."""
    conclusion: Conclusion | None = None
    runbook: str | None = None
    """The runbook the plan must follow (its file name without .yaml)."""
    retry_used: bool | None = None
    max_llm_calls: int | None = None


class EvalCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    question: str = Field(min_length=1)
    history: list[MessageData] = Field(default_factory=list)
    now: datetime = datetime.fromisoformat("2025-01-10T09:00:00+00:00")
    workflow: Literal["dynamic", "triage"] = "dynamic"
    faults: dict[Domain, Fault] = Field(default_factory=dict)
    """Every call to that backend fails this way (a permanent outage)."""
    transient_faults: dict[Domain, Fault] = Field(default_factory=dict)
    """Only the first call to that backend fails this way; later calls succeed (a blip a retry can fix)."""
    tool_max_rows: int | None = None
    expect: Expectations
    tags: list[str] = Field(min_length=1)
    why: str = ""
    """How the truth was computed from the data (the cases written blind say it)."""
    set: CaseSet = "cases"
    """Paraphrases and the frozen file are judged on outcomes only: the route, what the answer says and
    must not say — not which tools or how many model calls (a different wording may take another path)."""

    @property
    def outcome_only(self) -> bool:
        return self.set != "cases"

    def model_post_init(self, _: Any) -> None:
        unknown = set(self.tags) - TAGS
        if unknown:
            raise ValueError(f"unknown tags {sorted(unknown)}; known: {sorted(TAGS)}")
        both = set(self.faults) & set(self.transient_faults)
        if both:
            raise ValueError(f"{sorted(both)} cannot have both a permanent and a transient fault")


class Paraphrase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    style: list[str] = Field(default_factory=list)


class Paraphrases(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str
    paraphrases: list[Paraphrase] = Field(min_length=1)


def load_paraphrases(cases: list[EvalCase], directory: Path = PARAPHRASES_DIR) -> list[EvalCase]:
    """Each paraphrase as a case of its own (``<id>~<n>``): the original's history and truth, new words.
    Paraphrases of cases not loaded (a filtered run, cases still pending) are left out."""
    by_id = {case.id: case for case in cases}
    found: list[EvalCase] = []
    for path in sorted(directory.glob("*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            entry = Paraphrases.model_validate(item)
            original = by_id.get(entry.case)
            if original is None:
                continue
            found += [original.model_copy(update={"id": f"{original.id}~{number}", "question": paraphrase.text,
                                                  "set": "paraphrases"})
                      for number, paraphrase in enumerate(entry.paraphrases, start=1)]
    return found


def load_frozen(directory: Path = FROZEN_DIR) -> list[EvalCase]:
    return [case.model_copy(update={"set": "frozen"}) for case in load_cases(directory)]


def load_cases(directory: Path = CASES_DIR, *, tags: set[str] | None = None) -> list[EvalCase]:
    """Every case under ``directory`` (files hold one case or a list), optionally filtered by tag."""
    cases: list[EvalCase] = []
    for path in sorted(directory.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else [data]:
            try:
                cases.append(EvalCase.model_validate(item))
            except ValidationError as error:
                raise ValueError(f"{path.name}: case {item.get('id', '?')!r}: {error.errors()[0]['msg']}") from None
    ids = [case.id for case in cases]
    duplicates = {case_id for case_id in ids if ids.count(case_id) > 1}
    if duplicates:
        raise ValueError(f"duplicate case ids: {sorted(duplicates)}")
    return [case for case in cases if not tags or tags & set(case.tags)]
