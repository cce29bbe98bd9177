"""In-process benchmarks: critical-path ratio, parallel vs naive sequential, offline cost, call counts.

Every run goes through the real workflow with the local model and the demo data; the latency
simulation only adds waiting (see ``latency.py``). Figures are ratios measured in one run.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

from bench.latency import FlakyMethod, SlowModelProvider, slow_backends
from opsagent.backends.base import Backends
from opsagent.backends.demo import make_demo_backends
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer, TaskResult
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import Settings, load_settings
from opsagent.tools.rendering import MAX_OUTPUT_CHARS
from opsagent.workflows.execution import run_task
from opsagent.workflows.runner import answer_chat, stream_chat


@dataclass(frozen=True)
class Scenario:
    name: str
    question: str
    expected_shape: str
    flaky_health_method: str | None = None
    """A health backend method that fails every other call, so the reviewer asks for the retry."""


SCENARIOS = (
    Scenario("parallel3", "Is Databricks, Snowflake or Azure degraded right now?", "parallel"),
    Scenario("sequential2", "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?",
             "sequential"),
    Scenario("review_retry", "Which pipelines failed today, and is Snowflake degraded?", "review-retry",
             flaky_health_method="snowflake"),
)


def bench_settings(data_dir: Path) -> Settings:
    return load_settings({}, env_file=None, data_dir=data_dir, task_timeout_seconds=60, request_timeout_seconds=120)


def make_runtime(
    settings: Settings, *, model_delay: float = 0.0, backend_delay: float = 0.0, flaky_health_method: str | None = None
) -> Runtime:
    backends = make_demo_backends(settings, _clock())
    if flaky_health_method:
        backends = Backends(servicenow=backends.servicenow, pipelines=backends.pipelines,
                            health=FlakyMethod(backends.health, flaky_health_method), closers=backends.closers)
    if backend_delay:
        backends = slow_backends(backends, backend_delay)
    models = SlowModelProvider(model_delay) if model_delay else None
    return build_runtime(settings, models=models, backends=backends)


def _clock():
    from opsagent.runtime import utc_now

    return utc_now


def task_seconds(task: TaskResult, model_delay: float, backend_delay: float) -> float:
    """Each model call costs the model delay; each call but the last issues one round of tool calls."""
    rounds = max(0, task.llm_calls - 1)
    return task.llm_calls * model_delay + rounds * backend_delay


def critical_path_seconds(answer: Answer, model_delay: float, backend_delay: float) -> float:
    """The best a perfectly parallel run could do: planner + slowest task per step + reviewer calls."""
    meta = answer.metadata
    planner_calls = len(meta.plans) + (1 if meta.review and meta.review.retry_accepted is False else 0)
    reviewer_calls = len(meta.review.verdicts) if meta.review else 0
    bound = (planner_calls + reviewer_calls) * model_delay
    ordered = sorted(meta.tasks, key=lambda t: (t.mode != "user", t.step))
    for _, step_tasks in groupby(ordered, key=lambda t: (t.mode, t.step)):
        bound += max(task_seconds(t, model_delay, backend_delay) for t in step_tasks)
    return bound


def shape_of(answer: Answer) -> str:
    meta = answer.metadata
    if meta.review and meta.review.retry_used and meta.review.retry_accepted:
        return "review-retry"
    steps = {t.step for t in meta.plans[0].steps} if meta.plans else set()
    return "sequential" if len(steps) > 1 else "parallel" if meta.plans and len(meta.plans[0].steps) > 1 else "single"


async def ask(runtime: Runtime, question: str) -> tuple[Answer, float]:
    started = time.perf_counter()
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question), workflow="dynamic")
    return answer, time.perf_counter() - started


async def critical_path_ratios(settings: Settings, model_delay: float, backend_delay: float, repeats: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for scenario in SCENARIOS:
        runtime = make_runtime(settings, model_delay=model_delay, backend_delay=backend_delay,
                               flaky_health_method=scenario.flaky_health_method)
        ratios, calls, tokens = [], [], []
        await ask(runtime, scenario.question)  # warm-up: builds the demo database, fills caches
        for _ in range(repeats):
            answer, wall = await ask(runtime, scenario.question)
            ratios.append(wall / critical_path_seconds(answer, model_delay, backend_delay))
            calls.append(answer.metadata.llm_calls)
            tokens.append(answer.metadata.input_tokens)
        figures[f"{scenario.name}.shape_ok"] = float(shape_of(answer) == scenario.expected_shape)
        figures[f"{scenario.name}.wall_over_critical_path"] = round(statistics.median(ratios), 3)
        figures[f"{scenario.name}.llm_calls"] = statistics.median(calls)
        figures[f"{scenario.name}.prompt_tokens_est"] = statistics.median(tokens)
        figures[f"{scenario.name}.max_tool_output_chars"] = max(
            (len(call.result) for t in answer.metadata.tasks for call in t.tool_calls), default=0)
        await runtime.aclose()
    figures["tool_output_cap_chars"] = MAX_OUTPUT_CHARS
    return figures


async def naive_sequential(runtime: Runtime, answer: Answer) -> float:
    """Re-run the same plan one task at a time (simple plan-and-execute agents), without the workflow."""
    started = time.perf_counter()
    previous: list[TaskResult] = []
    for _, step_tasks in groupby(answer.metadata.plans[0].steps, key=lambda t: t.step):
        current = []
        for task in step_tasks:
            agent = runtime.agents.specialists[task.agent]
            current.append(await run_task(agent, task, previous=previous, timeout_seconds=60, mode="user"))
        previous = current
    return time.perf_counter() - started


async def parallel_vs_sequential(settings: Settings, model_delay: float, backend_delay: float) -> dict[str, float]:
    """The same one-step plan, run as the orchestrator does (concurrently) and one task at a time."""
    runtime = make_runtime(settings, model_delay=model_delay, backend_delay=backend_delay)
    answer, _ = await ask(runtime, SCENARIOS[0].question)
    tasks = answer.metadata.plans[0].steps
    started = time.perf_counter()
    await asyncio.gather(*(run_task(runtime.agents.specialists[t.agent], t, timeout_seconds=60, mode="user") for t in tasks))
    parallel = time.perf_counter() - started
    sequential = await naive_sequential(runtime, answer)
    await runtime.aclose()
    return {"parallel_step.tasks": len(tasks), "parallel_step.seconds": round(parallel, 3),
            "naive_sequential.seconds": round(sequential, 3),
            "naive_sequential_over_parallel": round(sequential / parallel, 2)}


async def offline_cost(settings: Settings, questions: Sequence[str], repeats: int) -> dict[str, float]:
    """CPU per query with no delays, and time to the first streamed progress event."""
    runtime = make_runtime(settings)
    for question in questions:  # warm-up: demo database, imports, caches
        await ask(runtime, question)
    cpu, first_event = [], []
    for _ in range(repeats):
        for question in questions:
            cpu_started, wall_started = time.process_time(), time.perf_counter()
            first = None
            async for item in stream_chat(runtime, WorkflowInput.from_question(question)):
                if first is None:
                    first = time.perf_counter() - wall_started
            cpu.append(time.process_time() - cpu_started)
            first_event.append(first or 0.0)
    await runtime.aclose()
    return {"offline.cpu_ms_per_query.p50": round(1000 * statistics.median(cpu), 2),
            "offline.cpu_ms_per_query.mean": round(1000 * statistics.fmean(cpu), 2),
            "offline.first_progress_ms.p50": round(1000 * statistics.median(first_event), 2)}
