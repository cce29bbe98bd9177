"""Run eval cases through the real runtime and workflows, with a fixed "now" and optional faults."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from evals.case import CaseSet, Domain, EvalCase, Fault
from evals.checks import Check, run_checks, ungrounded_entities
from evals.graded import GradedAnswer
from evals.verdict import Verdict, verdict_of
from opsagent.backends.base import Backends
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer
from opsagent.errors import BackendAuthError, BackendError, BackendResponseError, BackendUnavailableError
from opsagent.agents.model_provider import ModelProvider
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import Settings
from opsagent.workflows.runner import answer_chat

FAULTS: dict[Fault, Callable[[str], BackendError]] = {
    "not_authorised": lambda name: BackendAuthError(f"not authorised for {name} (check credentials)", backend=name, status_code=401),
    "unavailable": lambda name: BackendUnavailableError(f"{name} unavailable after retries (HTTP 503)", backend=name, status_code=503),
    "bad_response": lambda name: BackendResponseError(f"{name} returned a malformed response", backend=name),
}


INVENTORY_READS = frozenset({"list_pipelines", "list_configuration_items", "list_assignment_groups", "list_components",
                             "list_people"})


class FaultyBackend:
    """Stands in for a backend whose calls fail the way the case says.

    ``failures=None`` fails every call (a permanent outage); ``failures=1`` fails only the first
    query a tool makes and then delegates to the real backend (a transient blip that a retry can
    get past). The intake's inventory reads do not use up a transient fault: the blip is meant to
    hit the specialist's tool, whose retry is what the case checks.
    """

    def __init__(self, inner: Any, error: Callable[[], BackendError], *, failures: int | None = None) -> None:
        self.kind = getattr(inner, "kind", "faulty")
        self._inner = inner
        self._error = error
        self._left = failures

    def __getattr__(self, name: str) -> Callable[..., Any]:
        real = getattr(self._inner, name)
        if not callable(real):
            return real

        async def call(*args: Any, **kwargs: Any) -> Any:
            if self._left is None or (self._left > 0 and name not in INVENTORY_READS):
                if self._left is not None:
                    self._left -= 1
                raise self._error()
            return await real(*args, **kwargs)

        return call


DOMAINS: dict[Domain, tuple[str, str]] = {
    "servicenow": ("servicenow", "ServiceNow"),
    "log_analytics": ("pipelines", "Log Analytics"),
    "service_health": ("health", "the status service"),
}
"""Case domain -> (``Backends`` attribute, name used in the error message)."""


def with_faults(backends: Backends, faults: dict[Domain, Fault], transient: dict[Domain, Fault] | None = None) -> Backends:
    """``backends`` with the faulty ones swapped in: ``faults`` fail always, ``transient`` once."""
    replaced: dict[str, FaultyBackend] = {}
    for domain, (fault, failures) in {**{d: (f, None) for d, f in faults.items()},
                                      **{d: (f, 1) for d, f in (transient or {}).items()}}.items():
        attribute, label = DOMAINS[domain]
        replaced[attribute] = FaultyBackend(getattr(backends, attribute), lambda f=fault, n=label: FAULTS[f](n),
                                            failures=failures)
    return dataclasses.replace(backends, **replaced)


class CaseResult(BaseModel):
    id: str
    tags: list[str]
    passed: bool
    """Right: every check the case asks for passed."""
    verdict: Verdict = "right"
    wrong_because: list[str] = Field(default_factory=list)
    set: CaseSet = "cases"
    checks: list[Check]
    route: str
    ungrounded: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0
    answer: str = ""
    judge: str | None = None
    grounding_verdicts: list[str] = Field(default_factory=list)
    """The grounding step's verdict for each draft, in order (pass / regenerate / block)."""
    graded: GradedAnswer | None = Field(default=None, exclude=True)
    """An executed answer with the evidence it was graded against (the seeded grounding suite's input)."""


RuntimeKey = tuple[datetime, str, int | None]


class CaseRunner:
    """Runs cases on runtimes shared by every case with the same clock, faults and row cap.

    A runtime is built once per such group (building one per case was most of the suite's time).
    Cases with transient faults get their own runtime: the fault is used up by the first call.
    """

    def __init__(self, settings: Settings, *, make_backends: Callable[[Settings, Callable[[], datetime]], Backends],
                 models: ModelProvider | None = None) -> None:
        self.settings = settings
        self.make_backends = make_backends
        self.models = models
        self._shared: dict[RuntimeKey, Runtime] = {}

    def _build(self, case: EvalCase) -> Runtime:
        settings = self.settings
        if case.tool_max_rows is not None:
            settings = settings.model_copy(update={"tool_max_rows": case.tool_max_rows})
        clock = lambda: case.now  # noqa: E731 - the case's frozen "now"
        backends = with_faults(self.make_backends(settings, clock), case.faults, case.transient_faults)
        return build_runtime(settings, models=self.models, backends=backends, clock=clock)

    async def answer(self, case: EvalCase, *, deadline_seconds: float | None = None) -> tuple[Answer, float]:
        """The answer to one case (and its wall time in ms), on a runtime whose clock is the case's fixed "now"."""
        runtime = self._build(case) if case.transient_faults else self._shared_runtime(case)
        started = time.perf_counter()
        try:
            answer, _ = await answer_chat(runtime, WorkflowInput.from_question(case.question, case.history),
                                          workflow=case.workflow, deadline_seconds=deadline_seconds)
        finally:
            if case.transient_faults:
                await runtime.aclose()
        return answer, (time.perf_counter() - started) * 1000

    def _shared_runtime(self, case: EvalCase) -> Runtime:
        key = (case.now, json.dumps(case.faults, sort_keys=True), case.tool_max_rows)
        return self._shared.get(key) or self._shared.setdefault(key, self._build(case))

    async def run(self, case: EvalCase) -> CaseResult:
        """One case, answered and checked; every executed answer is kept as graded for the seeded suite."""
        answer, duration_ms = await self.answer(case)
        result = summarise(case, answer, duration_ms=duration_ms)
        if result.route in ("execute", "action") and answer.summary and not case.transient_faults \
                and case.set == "cases" and answer.metadata.tasks:
            known = self._shared_runtime(case).intake.known_names()
            result.graded = GradedAnswer.of(case.id, case.question, answer, known, right=result.passed)
        return result

    async def aclose(self) -> None:
        for runtime in self._shared.values():
            await runtime.aclose()
        self._shared.clear()


def summarise(case: EvalCase, answer: Answer, *, duration_ms: float) -> CaseResult:
    ungrounded = ungrounded_entities(answer)
    checks = run_checks(case, answer, ungrounded=ungrounded)
    verdict, why = verdict_of(case, answer, checks)
    meta = answer.metadata
    return CaseResult(
        id=case.id, tags=case.tags, passed=verdict == "right", verdict=verdict, wrong_because=why, set=case.set,
        checks=checks, route=meta.route,
        ungrounded=ungrounded, llm_calls=meta.llm_calls, input_tokens=meta.input_tokens,
        output_tokens=meta.output_tokens, duration_ms=round(duration_ms, 1), answer=answer.text,
        grounding_verdicts=[report.verdict for report in meta.grounding],
    )


async def run_cases(cases: Sequence[EvalCase], settings: Settings, **kwargs: Any) -> list[CaseResult]:
    runner = CaseRunner(settings, **kwargs)
    try:
        return [await runner.run(case) for case in cases]
    finally:
        await runner.aclose()
