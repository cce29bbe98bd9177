"""Deterministic Data Factory run history for the demo data set (used by ``seed.py``).

Reads the pipeline definitions of ``data/pipelines.json`` and yields pipeline-run and activity-run
rows whose times are minute offsets from "now". The story (which runs fail, and why) is in the JSON
file; this module only expands schedules, applies a seeded RNG to older runs, and splits each
run's duration across its activities the way ADF logs them (activities after a failure never run).
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_CANCEL_RATE = 0.01
_LATENCY_MIN = 2


@dataclass(frozen=True)
class RunPlan:
    """What happens to one scheduled run: its status, duration and (when failed) error template."""

    k: int
    start: float
    duration: float
    status: str
    error_ref: str | None = None


def stable_uuid(key: str) -> str:
    """A version-4-shaped UUID derived from ``key``, so run ids are the same on every build."""
    return str(uuid.UUID(bytes=hashlib.sha256(key.encode()).digest()[:16], version=4))


def generate_runs(data: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]:
    """Yield ``(pipeline_run_row, activity_run_rows)`` for every pipeline in ``data``."""
    history = data["history_days"] * 1440
    quiet = data["random_quiet_hours"] * 60
    for spec in data["pipelines"]:
        for plan in _plan_runs(spec, history=history, quiet=quiet):
            yield _materialise(spec, plan, data["errors"])


def _plan_runs(spec: Mapping[str, Any], *, history: int, quiet: int) -> Iterator[RunPlan]:
    rng = random.Random(f"opsagent-demo:{spec['name']}")
    k = 0
    while (scheduled := -(spec["phase_min"] + k * spec["interval_min"])) > -history:
        # Draw the same numbers for every run, so editing one override never shifts the others.
        start = scheduled + rng.randint(0, _LATENCY_MIN)
        duration = max(1, round(spec["duration_min"] * rng.uniform(0.8, 1.3)))
        roll, pick = rng.random(), rng.random()
        yield _decide(spec, k, start, duration, roll=roll, pick=pick, is_quiet=start > -quiet)
        k += 1


def _decide(
    spec: Mapping[str, Any], k: int, start: float, duration: float, *, roll: float, pick: float, is_quiet: bool
) -> RunPlan:
    override = spec["overrides"].get(str(k))
    if override is not None:
        status = override.get("status", "Failed" if "error" in override else "Succeeded")
        plan = RunPlan(k, start, override.get("duration", duration), status, override.get("error"))
        if status in ("Failed", "Cancelled") and plan.start + plan.duration >= 0:
            raise ValueError(f"{spec['name']} run {k}: a finished run must end before now; shorten its duration.")
    elif not is_quiet and roll < spec["fail_rate"] and spec["background_errors"]:
        errors = spec["background_errors"]
        plan = RunPlan(k, start, max(1, round(duration * 0.4)), "Failed", errors[int(pick * len(errors))])
    elif not is_quiet and roll < spec["fail_rate"] + _CANCEL_RATE:
        plan = RunPlan(k, start, max(1, round(duration * 0.5)), "Cancelled")
    else:
        plan = RunPlan(k, start, duration, "Succeeded")
    if plan.status == "Succeeded" and plan.start + plan.duration >= 0:
        plan = RunPlan(k, start, plan.duration, "InProgress")  # still running at "now"
    return plan


def _materialise(
    spec: Mapping[str, Any], plan: RunPlan, errors: Mapping[str, Any]
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    run_id = stable_uuid(f"{spec['name']}/{plan.k}")
    finished = plan.status in ("Succeeded", "Failed", "Cancelled")
    end = plan.start + plan.duration if finished else None
    failing, error = _failing_activity(spec, plan, errors)
    activities = _activities(spec, plan, run_id, failing=failing, error=error)
    code = error["code"] if error else ""
    failure_type = error["failure_type"] if error else ""
    if error:
        message = f"Operation on target {spec['activities'][failing][0]} failed: {error['message']}"
    else:
        message = "Pipeline run was cancelled by a user." if plan.status == "Cancelled" else ""
    run = (run_id, spec["name"], spec["factory"], plan.status, plan.start, end, failure_type, code, message,
           json.dumps(spec["parameters"], sort_keys=True))
    return run, activities


def _failing_activity(
    spec: Mapping[str, Any], plan: RunPlan, errors: Mapping[str, Any]
) -> tuple[int | None, dict[str, str] | None]:
    """Index of the activity that fails (or is cancelled / still running) and its resolved error."""
    names = [name for name, _ in spec["activities"]]
    if plan.status == "Cancelled":
        return len(names) // 2, None
    if plan.status == "InProgress":
        return min(len(names) - 1, len(names) // 2), None
    if plan.status != "Failed" or plan.error_ref is None:
        return None, None
    template_name, _, pinned = plan.error_ref.partition("@")
    template = errors[template_name]
    if pinned:
        index = names.index(pinned)
    else:
        index = next(i for i, (_, kind) in enumerate(spec["activities"]) if kind == template["activity_type"])
    message = template["message"].format(source=spec["source"], runtime=spec["runtime"])
    return index, {"code": template["code"], "failure_type": template["failure_type"], "message": message}


def _activities(
    spec: Mapping[str, Any], plan: RunPlan, run_id: str, *, failing: int | None, error: dict[str, str] | None
) -> list[tuple[Any, ...]]:
    if plan.status == "Queued":
        return []
    chosen = spec["activities"] if failing is None else spec["activities"][: failing + 1]
    span = -plan.start if plan.status == "InProgress" else plan.duration  # a running run: only time so far
    step = span / len(chosen)
    rows = []
    for index, (name, kind) in enumerate(chosen):
        start = plan.start + index * step
        is_last = index == len(chosen) - 1
        status = plan.status if is_last and failing is not None else "Succeeded"
        end = None if status == "InProgress" else start + step
        code, message, failure_type = (error["code"], error["message"], error["failure_type"]) if (
            is_last and error
        ) else ("", "", "")
        rows.append((stable_uuid(f"{run_id}/{name}"), run_id, index, name, kind, status, start, end,
                     code, message, failure_type))
    return rows
