"""Planner accuracy on the labelled development set, through the real CLI (``opsagent plan -``).

The set has a tuning part (rules were adjusted against it) and a held-out part (written first,
never tuned on). Thresholds apply to the whole set; per-part figures are printed (``-s``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DEVSET = Path(__file__).resolve().parents[2] / "evals" / "devset"
PARTS = ("tuning", "heldout")
THRESHOLDS = {"route": 0.95, "agents": 0.90, "shape": 0.90}


def load_part(part: str) -> list[dict]:
    return [json.loads(line) for line in (DEVSET / f"{part}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def shape_of(plan: list[dict]) -> str:
    if not plan:
        return "none"
    if len({task["step"] for task in plan}) > 1:
        return "sequential"
    return "parallel" if len(plan) > 1 else "single"


def score(case: dict, decision: dict) -> dict[str, bool]:
    agents = sorted({task["agent"] for task in decision.get("plan", [])})
    return {
        "route": decision.get("route") == case["route"],
        "agents": agents == sorted(case["agents"]),
        "shape": shape_of(decision.get("plan", [])) == case["shape"],
    }


def run_plan_cli(cases: list[dict], tmp_path: Path) -> list[dict]:
    lines = [json.dumps({"question": case["question"], "history": case.get("history", [])}) for case in cases]
    env = {**os.environ, "LLM_PROVIDER": "local", "DATA_DIR": str(tmp_path / "var")}
    done = subprocess.run(
        [sys.executable, "-m", "opsagent", "plan", "-"], input="\n".join(lines) + "\n", capture_output=True,
        text=True, env=env, cwd=DEVSET.parents[1], timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[dict, dict]]]:
    cases = {part: load_part(part) for part in PARTS}
    everything = [case for part in PARTS for case in cases[part]]
    decisions = run_plan_cli(everything, tmp_path_factory.mktemp("devset"))
    assert len(decisions) == len(everything)
    paired, index = {}, 0
    for part in PARTS:
        paired[part] = list(zip(cases[part], decisions[index:index + len(cases[part])], strict=True))
        index += len(cases[part])
    return paired


def figures(pairs: list[tuple[dict, dict]]) -> dict[str, float]:
    scores = [score(case, decision) for case, decision in pairs]
    return {metric: sum(item[metric] for item in scores) / len(scores) for metric in THRESHOLDS}


def test_devset_is_big_and_varied_enough() -> None:
    cases = [case for part in PARTS for case in load_part(part)]
    assert len(cases) >= 80
    assert len(load_part("heldout")) >= 0.2 * len(cases)
    assert {case["route"] for case in cases} == {"reject", "clarify", "execute"}
    assert {case["shape"] for case in cases} == {"none", "single", "parallel", "sequential"}
    assert sum(1 for case in cases if case.get("history")) >= 8


def test_planner_accuracy_meets_thresholds(results: dict[str, list[tuple[dict, dict]]]) -> None:
    for part in PARTS:
        shown = ", ".join(f"{metric} {value:.1%}" for metric, value in figures(results[part]).items())
        print(f"\n{part} ({len(results[part])} questions): {shown}")
        for case, decision in results[part]:
            failed = [metric for metric, ok in score(case, decision).items() if not ok]
            if failed:
                print(f"  miss {case['id']} {failed}: {case['question'][:70]!r} -> {decision.get('route')} "
                      f"{[(task['step'], task['agent']) for task in decision.get('plan', [])]}")
    overall = figures([pair for part in PARTS for pair in results[part]])
    print(f"whole set: {overall}")
    for metric, minimum in THRESHOLDS.items():
        assert overall[metric] >= minimum, f"{metric} accuracy {overall[metric]:.1%} < {minimum:.0%}"
