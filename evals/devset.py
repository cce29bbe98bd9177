"""Planning accuracy on the labelled dev set (``evals/devset/*.jsonl``), per question category.

Each line is a question (optionally with history) labelled with the route, the specialists and the
plan shape a correct planner chooses, and the category of understanding it tests (negation,
exact-time, follow-up…). The tuning part was used to adjust the planner; the held-out part never was.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.runtime import Runtime
from opsagent.workflows.plan_preview import preview_plan

DEVSET_DIR = Path(__file__).resolve().parent / "devset"
DEVSET_NOW = "2025-01-10T09:00Z"
"""The moment the dev set is planned at: "yesterday" or "between 22:00 and 02:00" must not depend on the hour."""
PARTS = ("tuning", "heldout")
METRICS = ("route", "agents", "shape")


class DevCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    route: Literal["reject", "clarify", "execute", "action", "help"]
    """``action``: a request to act (answered as one, with the records it names: specialists and shape
    are not labelled); ``help``: a greeting or a request for help, answered without a plan."""
    agents: list[str] = Field(default_factory=list)
    shape: Literal["none", "single", "parallel", "sequential"]
    history: list[MessageData] = Field(default_factory=list)
    category: str = "uncategorised"
    part: str = ""


class CategoryScore(BaseModel):
    category: str
    questions: int
    route: float
    agents: float
    shape: float
    planned_right: float
    """Share with route, specialists and shape all right."""


def load_devset(parts: Iterable[str] = PARTS, directory: Path = DEVSET_DIR) -> list[DevCase]:
    cases = []
    for part in parts:
        for line in (directory / f"{part}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                cases.append(DevCase.model_validate({**json.loads(line), "part": part}))
    return cases


def shape_of(plan: Sequence[dict[str, Any]]) -> str:
    if not plan:
        return "none"
    if len({task["step"] for task in plan}) > 1:
        return "sequential"
    return "parallel" if len(plan) > 1 else "single"


def score(case: DevCase, decision: dict[str, Any]) -> dict[str, bool]:
    """Which of route / agents / shape the planner's decision (an ``opsagent plan`` line) got right."""
    plan = decision.get("plan", [])
    if case.route in ("action", "help"):
        right = decision.get("route") == case.route
        return {"route": right, "agents": right, "shape": right}
    return {
        "route": decision.get("route") == case.route,
        "agents": sorted({task["agent"] for task in plan}) == sorted(case.agents),
        "shape": shape_of(plan) == case.shape,
    }


async def plan_devset(runtime: Runtime, cases: Sequence[DevCase]) -> list[dict[str, Any]]:
    """The planner's decision for each case, in process (what ``opsagent plan -`` prints)."""
    decisions = []
    for case in cases:
        preview = await preview_plan(runtime, WorkflowInput.from_question(case.question, case.history))
        decisions.append(preview.model_dump(mode="json"))
    return decisions


def accuracy(pairs: Sequence[tuple[DevCase, dict[str, Any]]]) -> dict[str, float]:
    scores = [score(case, decision) for case, decision in pairs]
    if not scores:
        return {metric: 0.0 for metric in (*METRICS, "planned_right")}
    figures = {metric: sum(item[metric] for item in scores) / len(scores) for metric in METRICS}
    figures["planned_right"] = sum(all(item.values()) for item in scores) / len(scores)
    return figures


def by_category(pairs: Sequence[tuple[DevCase, dict[str, Any]]]) -> list[CategoryScore]:
    grouped: dict[str, list[tuple[DevCase, dict[str, Any]]]] = defaultdict(list)
    for case, decision in pairs:
        grouped[case.category].append((case, decision))
    return [CategoryScore(category=category, questions=len(items), **accuracy(items))
            for category, items in sorted(grouped.items())]
