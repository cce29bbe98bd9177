"""In-process benchmarks: critical-path ratio, parallel vs naive sequential, offline cost, call counts.

Every run goes through the real workflow with the local model and the demo data; the latency
simulation only adds waiting (see ``latency.py``). Figures are ratios measured in one run.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from pathlib import Path

from bench.latency import FlakyMethod, SlowModelProvider, slow_backends
from opsagent.backends.demo import make_demo_backends
from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.plans import PlanStep
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer
from opsagent.contracts.role_inputs import ReviewInput, SpecialistInput
from opsagent.llm.providers import make_local_provider
from opsagent.runtime import Runtime, build_runtime, utc_now
from opsagent.settings import Settings, load_settings
from opsagent.tools.rendering import MAX_OUTPUT_CHARS
from opsagent.workflows.execution import run_task
from opsagent.workflows.plan_preview import preview_plan
from opsagent.workflows.prompts import review_messages
from opsagent.workflows.role_call import ask_for_reply
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
    backends = make_demo_backends(settings, utc_now)
    if flaky_health_method:
        backends = replace(backends, health=FlakyMethod(backends.health, flaky_health_method))
    if backend_delay:
        backends = slow_backends(backends, backend_delay)
    models = SlowModelProvider(model_delay, make_local_provider(settings)) if model_delay else None
    return build_runtime(settings, models=models, backends=backends)


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


def critical_path_llm_calls(answer: Answer) -> int:
    """Model calls a user waits for: planners, the slowest task of each step, reviews (the summary
    is written by the review call, so it adds none)."""
    meta = answer.metadata
    planner_calls = len(meta.plans) + (1 if meta.review and meta.review.retry_accepted is False else 0)
    reviewer_calls = len(meta.review.verdicts) if meta.review else 0
    ordered = sorted(meta.tasks, key=lambda t: (t.mode != "user", t.step))
    steps = sum(max(t.llm_calls for t in step_tasks) for _, step_tasks in groupby(ordered, key=lambda t: (t.mode, t.step)))
    return planner_calls + steps + reviewer_calls


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
        ratios, calls, critical, tokens = [], [], [], []
        await ask(runtime, scenario.question)  # warm-up: builds the demo database, fills caches
        for _ in range(repeats):
            answer, wall = await ask(runtime, scenario.question)
            ratios.append(wall / critical_path_seconds(answer, model_delay, backend_delay))
            calls.append(answer.metadata.llm_calls)
            critical.append(critical_path_llm_calls(answer))
            tokens.append(answer.metadata.input_tokens)
        figures[f"{scenario.name}.shape_ok"] = float(shape_of(answer) == scenario.expected_shape)
        figures[f"{scenario.name}.wall_over_critical_path"] = round(statistics.median(ratios), 3)
        figures[f"{scenario.name}.llm_calls"] = statistics.median(calls)
        figures[f"{scenario.name}.critical_path_llm_calls"] = statistics.median(critical)
        figures[f"{scenario.name}.prompt_tokens_est"] = statistics.median(tokens)
        figures[f"{scenario.name}.max_tool_output_chars"] = max(
            (item.output_chars for t in answer.metadata.tasks for item in t.evidence), default=0)
        await runtime.aclose()
    figures["tool_output_cap_chars"] = MAX_OUTPUT_CHARS
    return figures


async def run_one(runtime: Runtime, answer: Answer, task: PlanStep, previous: list[TaskResult]) -> TaskResult:
    role_input = SpecialistInput(agent=task.agent, task=task, question=answer.metadata.analysis.question,
                                 analysis=answer.metadata.analysis, previous=previous)
    return await run_task(runtime.agents.specialists[task.agent], role_input, timeout_seconds=60)


async def run_plan_one_task_at_a_time(runtime: Runtime, answer: Answer) -> list[TaskResult]:
    """The plan of ``answer``, one task after another (what simple plan-and-execute agents do)."""
    results: list[TaskResult] = []
    previous: list[TaskResult] = []
    for _, step_tasks in groupby(answer.metadata.plans[0].steps, key=lambda t: t.step):
        current = [await run_one(runtime, answer, task, previous) for task in step_tasks]
        results += current
        previous = current
    return results


async def naive_answer(runtime: Runtime, question: str, answer: Answer) -> float:
    """A whole naive answer: the same planner call, the same plan one task at a time, the same review."""
    started = time.perf_counter()
    chat = WorkflowInput.from_question(question)
    await preview_plan(runtime, chat)
    results = await run_plan_one_task_at_a_time(runtime, answer)
    review = ReviewInput(question=question, analysis=answer.metadata.analysis, parts=answer.metadata.parts,
                         results=results)
    await ask_for_reply(runtime.agents.review, review_messages(review), timeout_seconds=60)
    return time.perf_counter() - started


async def parallel_vs_sequential(settings: Settings, model_delay: float, backend_delay: float) -> dict[str, float]:
    """Our answer vs a naive plan-and-execute answer to the same question with the same plan.

    Also the step alone: the plan's tasks concurrently vs one at a time, outside the workflow.
    """
    runtime = make_runtime(settings, model_delay=model_delay, backend_delay=backend_delay)
    question = SCENARIOS[0].question
    await ask(runtime, question)  # warm-up
    answer, ours = await ask(runtime, question)
    naive = await naive_answer(runtime, question, answer)
    tasks = answer.metadata.plans[0].steps
    started = time.perf_counter()
    await asyncio.gather(*(run_one(runtime, answer, t, []) for t in tasks))
    step_parallel = time.perf_counter() - started
    started = time.perf_counter()
    await run_plan_one_task_at_a_time(runtime, answer)
    step_sequential = time.perf_counter() - started
    await runtime.aclose()
    return {"parallel_step.tasks": len(tasks),
            "answer.workflow_s": round(ours, 3), "answer.naive_sequential_s": round(naive, 3),
            "naive_sequential_answer_over_workflow": round(naive / ours, 2),
            "step_only.naive_sequential_over_parallel": round(step_sequential / step_parallel, 2)}


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


async def grounding_rates(settings: Settings) -> dict[str, float]:
    """How often the grounding step sends a draft back (REGENERATE) or blocks it (BLOCK), over every
    evaluation case that reached an answer from the evidence (local model, demo data)."""
    from evals.case import load_cases
    from evals.harness import CaseRunner

    runner = CaseRunner(settings, make_backends=make_demo_backends)
    first, final = [], []
    try:
        for case in load_cases():
            result = await runner.run(case)
            verdicts = result.grounding_verdicts
            if verdicts:
                first.append(verdicts[0])
                final.append(verdicts[-1])
    finally:
        await runner.aclose()
    answers = len(final) or 1
    return {"grounding.answers": len(final),
            "grounding.regenerate_rate": round(sum(v == "regenerate" for v in first) / answers, 4),
            "grounding.block_rate": round(sum(v == "block" for v in final) / answers, 4)}
