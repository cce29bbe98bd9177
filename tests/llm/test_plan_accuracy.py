"""Planner accuracy on the labelled development set, through the real CLI (``opsagent plan -``).

The set has a tuning part (rules were adjusted against it) and a held-out part (written first,
never tuned on). Thresholds apply to the whole set and to each understanding category; per-part
and per-category figures are printed (``-s``) and reported by ``make eval``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.devset import DEVSET_DIR, DEVSET_NOW, PARTS, DevCase, accuracy, by_category, load_devset, score

THRESHOLDS = {"route": 0.75, "agents": 0.75, "shape": 0.75}
MIN_CATEGORY_PLANNED_RIGHT: dict[str, float] = {
    "negation": 0.35, "qualifier": 0.85, "exact-time": 0.35, "follow-up": 0.95, "scope": 0.55, "typo": 1.0,
    "chaining": 0.5, "runbook": 1.0, "multi-step": 0.7, "single-domain": 0.7, "reject": 1.0, "clarify": 1.0,
    "action": 1.0,
}
"""Per category, the share planned right (route, specialists and shape): measured on the offline model,
rounded down to 5 % (whole set: route 79.0 %, agents 78.3 %, shape 77.1 %). It plans only what it reads whole
and asks back about the rest, so nearly every miss is a question asked back instead of planned — which
``test_a_missed_route_is_a_question_asked_back`` holds. The cases are kept as written."""

Pairs = list[tuple[DevCase, dict]]


def run_plan_cli(cases: list[DevCase], tmp_path: Path) -> list[dict]:
    lines = [json.dumps({"question": case.question, "history": [m.model_dump() for m in case.history]}) for case in cases]
    env = {**os.environ, "LLM_PROVIDER": "local", "DATA_DIR": str(tmp_path / "var")}
    done = subprocess.run(
        # the dev set's moment: "between 22:00 and 02:00" must not depend on when the suite runs
        [sys.executable, "-m", "opsagent", "plan", "-", "--now", DEVSET_NOW], input="\n".join(lines) + "\n",
        capture_output=True,
        text=True, env=env, cwd=DEVSET_DIR.parents[1], timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Pairs:
    cases = load_devset()
    decisions = run_plan_cli(cases, tmp_path_factory.mktemp("devset"))
    assert len(decisions) == len(cases)
    return list(zip(cases, decisions, strict=True))


def test_devset_is_big_and_varied_enough() -> None:
    cases = load_devset()
    assert len(cases) >= 80
    assert sum(case.part == "heldout" for case in cases) >= 0.2 * len(cases)
    assert {case.route for case in cases} == {"reject", "clarify", "execute", "action"}
    assert {case.shape for case in cases} == {"none", "single", "parallel", "sequential"}
    assert sum(1 for case in cases if case.history) >= 8
    understanding = ("negation", "qualifier", "exact-time", "follow-up", "scope", "typo", "chaining", "runbook")
    assert all(sum(case.category == name for case in cases) >= 4 for name in understanding)


def test_planner_accuracy_meets_thresholds(results: Pairs) -> None:
    for part in PARTS:
        pairs = [pair for pair in results if pair[0].part == part]
        shown = ", ".join(f"{metric} {value:.1%}" for metric, value in accuracy(pairs).items())
        print(f"\n{part} ({len(pairs)} questions): {shown}")
        for case, decision in pairs:
            failed = [metric for metric, ok in score(case, decision).items() if not ok]
            if failed:
                print(f"  miss {case.id} [{case.category}] {failed}: {case.question[:70]!r} -> {decision.get('route')} "
                      f"{[(task['step'], task['agent']) for task in decision.get('plan', [])]}")
    overall = accuracy(results)
    print(f"whole set: {overall}")
    for metric, minimum in THRESHOLDS.items():
        assert overall[metric] >= minimum, f"{metric} accuracy {overall[metric]:.1%} < {minimum:.0%}"


def test_a_missed_route_is_a_question_asked_back(results: Pairs) -> None:
    """Where the planner does not take the expected route, it asks back: it never executes what should be
    refused or asked back, and never refuses what it should answer."""
    guessed = {case.id: decision.get("route") for case, decision in results
               if not score(case, decision)["route"] and decision.get("route") != "clarify"}
    assert not guessed, guessed


def test_every_category_meets_its_minimum(results: Pairs) -> None:
    scores = {item.category: item for item in by_category(results)}
    for item in scores.values():
        print(f"{item.category:<14}{item.questions:>4}  planned right {item.planned_right:.0%}")
    assert set(MIN_CATEGORY_PLANNED_RIGHT) <= set(scores), "a category with a minimum has no questions"
    below = {name: f"{scores[name].planned_right:.0%}" for name, minimum in MIN_CATEGORY_PLANNED_RIGHT.items()
             if scores[name].planned_right < minimum}
    assert not below, f"categories below their minimum: {below}"
