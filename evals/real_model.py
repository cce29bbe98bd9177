"""The real-model run: a documented subset of the eval cases against any OpenAI-compatible endpoint.

Measures what a real (small) model does to the workflow, per case: route and plan, tool-call
compliance (tasks that fetched, unsupported tasks, calls written as text and recovered), JSON
validity of every structured reply (valid as sent / needed repair / unusable), the grounding
verdicts, time and tokens per role. Every reply is recorded verbatim (``llm/recording.py``) so the
run's outputs can become repair fixtures. Never part of ``make test``: it needs a model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError

from evals.case import EvalCase
from evals.checks import run_checks, ungrounded_entities
from evals.harness import CaseRunner
from evals.verdict import Verdict, verdict_of
from opsagent.agents.config import load_agent_config
from opsagent.agents.specialists import SPECIALISTS
from opsagent.contracts.plans import OUTPUT_MODELS
from opsagent.contracts.repair import parse_model_output, text_function_calls
from opsagent.contracts.results import Answer
from opsagent.contracts.usage import RoleUsage
from opsagent.llm.recording import RecordedReply, recording
from opsagent.settings import CONFIG_DIR

SUBSETS_DIR = Path(__file__).resolve().parent / "subsets"
AGENT_NAMES = frozenset(spec.name for spec in SPECIALISTS)
TOOL_NAMES = frozenset(tool for spec in SPECIALISTS for tool in load_agent_config(CONFIG_DIR / spec.config_file).tools)


class JsonValidity(BaseModel):
    """Structured replies (planner, review, clarify) of one case, by how usable they were."""

    valid: int = 0
    """Parsed as sent: the whole reply is JSON that validates, with nothing repaired."""
    repaired: int = 0
    """Usable after a safe repair (JSON in a fence or prose, a dropped unknown agent, a string step…)."""
    failed: int = 0
    """Not usable: the step fell back (a refusal, or the evidence instead of a written answer)."""
    missing: int = 0
    """No reply at all: the call timed out, was cut off or failed."""

    def add(self, other: JsonValidity) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class RealCaseResult(BaseModel):
    id: str
    tags: list[str]
    question: str
    workflow: str
    route: str
    error_code: str | None = None
    checks_passed: int = 0
    checks: int = 0
    failed_checks: list[str] = Field(default_factory=list)
    verdict: Verdict = "right"
    """right / honest / wrong, as the offline eval judges (``evals/verdict.py``): never the product's own verdict."""
    wrong_because: list[str] = Field(default_factory=list)
    plan: list[str] = Field(default_factory=list)
    """The first plan as "step:agent"."""
    notes: list[str] = Field(default_factory=list)
    tasks: int = 0
    fetched: int = 0
    unsupported: int = 0
    failed_tasks: int = 0
    timed_out: int = 0
    tool_calls: int = 0
    native_calls: int = 0
    recovered_calls: int = 0
    json_replies: JsonValidity = Field(default_factory=JsonValidity)
    json_in_answer: bool = False
    """A tool call or fenced JSON shown to the user as (part of) the answer: must never happen."""
    grounding: list[str] = Field(default_factory=list)
    ungrounded: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usage_by_role: dict[str, RoleUsage] = Field(default_factory=dict)
    answer: str = ""


def load_subset(name: str) -> list[str]:
    """The case ids of ``evals/subsets/<name>.yaml``."""
    path = SUBSETS_DIR / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in SUBSETS_DIR.glob("*.yaml")))
        raise ValueError(f"no subset {name!r} (known: {known})")
    return [str(item["id"]) for item in yaml.safe_load(path.read_text(encoding="utf-8"))]


def classify_reply(reply: RecordedReply) -> str | None:
    """``valid`` / ``repaired`` / ``failed`` / ``missing`` for a structured reply; None for free text."""
    model = OUTPUT_MODELS.get(reply.response_format)
    if model is None:
        return None
    if reply.error:
        return "missing"
    parsed = parse_model_output(reply.text, model, agents=AGENT_NAMES)
    if parsed.value is None:
        return "failed"
    try:
        data = json.loads(reply.text)
        model.model_validate(data, context={"agents": AGENT_NAMES})
    except (json.JSONDecodeError, ValidationError, TypeError):
        return "repaired"
    return "valid" if isinstance(data, dict) and not parsed.notes else "repaired"


def json_validity(replies: Sequence[RecordedReply]) -> JsonValidity:
    counts = JsonValidity()
    for reply in replies:
        kind = classify_reply(reply)
        if kind is not None:
            setattr(counts, kind, getattr(counts, kind) + 1)
    return counts


def shows_json(answer: Answer) -> bool:
    """The user was shown a function call or a fenced JSON block instead of (or inside) the answer."""
    return bool(text_function_calls(answer.text, TOOL_NAMES)) or "```json" in answer.text


def summarise_real(case: EvalCase, answer: Answer, replies: Sequence[RecordedReply], *,
                   duration_ms: float) -> RealCaseResult:
    meta = answer.metadata
    ungrounded = ungrounded_entities(answer)
    checks = run_checks(case, answer, ungrounded=ungrounded)
    verdict, wrong_because = verdict_of(case, answer, checks)
    tasks = [task for task in meta.tasks if task.status != "skipped"]
    evidence = [item for task in tasks for item in task.evidence if not item.repeated]
    return RealCaseResult(
        id=case.id, tags=case.tags, question=case.question, workflow=case.workflow, route=meta.route,
        error_code=meta.error_code, checks_passed=sum(check.passed for check in checks), checks=len(checks),
        failed_checks=[f"{check.name} {check.detail}".strip() for check in checks if not check.passed],
        verdict=verdict, wrong_because=wrong_because,
        plan=[f"{task.step}:{task.agent}" for task in meta.plans[0].steps] if meta.plans else [],
        notes=[*meta.notes, *(note for task in tasks for note in task.notes)],
        tasks=len(tasks), fetched=sum(bool(task.answered_evidence) for task in tasks),
        unsupported=sum(task.status == "unsupported" for task in tasks),
        failed_tasks=sum(task.status == "failed" for task in tasks),
        timed_out=sum(task.status == "timeout" for task in tasks),
        tool_calls=len(evidence), native_calls=sum(not item.recovered for item in evidence),
        recovered_calls=sum(item.recovered for item in evidence),
        json_replies=json_validity(replies), json_in_answer=shows_json(answer),
        grounding=[report.verdict for report in meta.grounding], ungrounded=ungrounded,
        seconds=round(duration_ms / 1000, 1), llm_calls=meta.llm_calls, input_tokens=meta.input_tokens,
        output_tokens=meta.output_tokens, usage_by_role=meta.usage_by_role, answer=answer.text[:1200],
    )


async def run_real_case(case: EvalCase, runner: CaseRunner) -> tuple[RealCaseResult, list[RecordedReply]]:
    """One case against the configured model, under the settings' own request deadline, recorded."""
    with recording() as recorder:
        answer, duration_ms = await runner.answer(case, deadline_seconds=runner.settings.request_timeout_seconds)
    replies = list(recorder.replies)
    return summarise_real(case, answer, replies, duration_ms=duration_ms), replies
