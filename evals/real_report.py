"""Reports of the real-model run: ``evals/results/real-model/{report.json, report.md, replies.jsonl}``."""

from __future__ import annotations

import json
import math
import os
import platform
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar
from statistics import median

from pydantic import BaseModel, Field

T = TypeVar("T", int, float)

from evals.real_model import JsonValidity, RealCaseResult
from evals.report import RESULTS_DIR
from evals.stream_check import StreamCheck
from opsagent.contracts.usage import RoleUsage
from opsagent.llm.recording import RecordedReply

REAL_RESULTS_DIR = RESULTS_DIR / "real-model"


class RealSummary(BaseModel):
    generated_at: str
    provider: str
    model: str
    endpoint: str
    profile: str
    prompt_budget_tokens: int = 0
    machine: str
    cases: int
    checks_passed: int
    checks: int
    tasks: int
    fetched: int
    unsupported: int
    failed_tasks: int
    timed_out: int
    native_calls: int
    recovered_calls: int
    json_replies: JsonValidity
    json_in_answers: int
    grounding: dict[str, int]
    deadline_answers: int
    seconds_total: float
    seconds_median: float
    seconds_p90: float = 0.0
    verdicts: dict[str, int] = Field(default_factory=dict)
    """right / honest / wrong over the cases (``evals/verdict.py``)."""
    by_tag: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per question kind (a case's tags): right / honest / wrong."""
    seconds_max: float
    llm_calls: int
    input_tokens: int
    output_tokens: int
    usage_by_role: dict[str, RoleUsage] = Field(default_factory=dict)
    streams: list[StreamCheck] = Field(default_factory=list)


def _machine() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.is_file() else []
    cpu = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} vCPU {cpu}, {platform.system()} {platform.machine()}, Python {platform.python_version()}"


def summarise_real_run(results: Sequence[RealCaseResult], streams: Sequence[StreamCheck], *, provider: str,
                       model: str, endpoint: str, profile: str, prompt_budget_tokens: int = 0) -> RealSummary:
    json_total = JsonValidity()
    roles: dict[str, RoleUsage] = {}
    for result in results:
        json_total.add(result.json_replies)
        for role, usage in result.usage_by_role.items():
            total = roles.setdefault(role, RoleUsage())
            for name in ("calls", "input_tokens", "output_tokens", "cut_off_calls", "trimmed_calls"):
                setattr(total, name, getattr(total, name) + getattr(usage, name))
            total.largest_prompt_tokens = max(total.largest_prompt_tokens, usage.largest_prompt_tokens)
            total.prompt_sizes += usage.prompt_sizes
    seconds = [result.seconds for result in results] or [0.0]
    return RealSummary(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"), provider=provider, model=model,
        endpoint=endpoint, profile=profile, prompt_budget_tokens=prompt_budget_tokens, machine=_machine(), cases=len(results),
        checks_passed=sum(r.checks_passed for r in results), checks=sum(r.checks for r in results),
        tasks=sum(r.tasks for r in results), fetched=sum(r.fetched for r in results),
        unsupported=sum(r.unsupported for r in results), failed_tasks=sum(r.failed_tasks for r in results),
        timed_out=sum(r.timed_out for r in results), native_calls=sum(r.native_calls for r in results),
        recovered_calls=sum(r.recovered_calls for r in results), json_replies=json_total,
        json_in_answers=sum(r.json_in_answer for r in results),
        grounding=dict(Counter(verdict for r in results for verdict in r.grounding[-1:])),
        deadline_answers=sum(r.error_code == "timeout" for r in results),
        seconds_total=round(sum(seconds), 1), seconds_median=round(median(seconds), 1), seconds_max=max(seconds),
        seconds_p90=percentile(seconds, 90),
        verdicts={verdict: sum(r.verdict == verdict for r in results) for verdict in VERDICTS},
        by_tag=_by_tag(results),
        llm_calls=sum(r.llm_calls for r in results), input_tokens=sum(r.input_tokens for r in results),
        output_tokens=sum(r.output_tokens for r in results), usage_by_role=dict(sorted(roles.items())),
        streams=list(streams),
    )


VERDICTS = ("right", "honest", "wrong")


def _by_tag(results: Sequence[RealCaseResult]) -> dict[str, dict[str, int]]:
    tags = sorted({tag for result in results for tag in result.tags})
    return {tag: {verdict: sum(verdict == r.verdict and tag in r.tags for r in results) for verdict in VERDICTS}
            for tag in tags}


def percentile(values: Sequence[T], pct: int) -> T | int:
    """Nearest-rank percentile (0 for no values): the p50/p95 prompt sizes of a role, the p90 time per answer."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)] if ordered else 0


def _json_cell(counts: JsonValidity) -> str:
    return f"{counts.valid}/{counts.repaired}/{counts.failed}/{counts.missing}"


def render_real_markdown(summary: RealSummary, results: Sequence[RealCaseResult]) -> str:
    s = summary
    lines = [
        "# OpsAgent on a real model", "",
        f"`{s.model}` ({s.provider}, {s.endpoint}), `MODEL_PROFILE={s.profile}`, {s.generated_at}, {s.machine}.", "",
        f"- **Tool-call compliance**: {s.fetched}/{s.tasks} tasks fetched data; {s.unsupported} unsupported, "
        f"{s.failed_tasks} failed, {s.timed_out} timed out; {s.native_calls} native tool calls, "
        f"{s.recovered_calls} written as text and recovered.",
        f"- **JSON replies** (planner, review, clarify): {s.json_replies.valid} valid as sent, "
        f"{s.json_replies.repaired} repaired, {s.json_replies.failed} unusable, {s.json_replies.missing} missing; "
        f"**{s.json_in_answers} answers showed JSON** to the user.",
        f"- **Grounding** (final verdict per answer): {', '.join(f'{k} {v}' for k, v in sorted(s.grounding.items())) or 'none'}.",
        f"- **Deterministic checks**: {s.checks_passed}/{s.checks} passed (written for the local planner; read the misses).",
        f"- **Answers** (`evals/verdict.py`, from the demo data): "
        f"{', '.join(f'{v} {s.verdicts.get(v, 0)}' for v in VERDICTS)} of {s.cases}.",
        f"- **Time**: {s.seconds_total:.0f} s for {s.cases} cases, median {s.seconds_median:.0f} s, "
        f"p90 {s.seconds_p90:.0f} s, max {s.seconds_max:.0f} s; "
        f"{s.deadline_answers} answer(s) hit the request deadline.",
        f"- **Model calls**: {s.llm_calls}, {s.input_tokens} prompt / {s.output_tokens} output tokens.", "",
        f"Prompt tokens per call and role (p50 / p95 / largest) against the profile's prompt budget of "
        f"{s.prompt_budget_tokens} tokens:", "",
        "| role | calls | prompt p50 | prompt p95 | largest prompt | prompt tokens | output tokens | cut off | trimmed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(f"| {role} | {u.calls} | {percentile(u.prompt_sizes, 50)} | {percentile(u.prompt_sizes, 95)} | "
          f"{u.largest_prompt_tokens} | {u.input_tokens} | {u.output_tokens} | {u.cut_off_calls} | {u.trimmed_calls} |"
          for role, u in s.usage_by_role.items()), "",
        "| question kind (tag) | cases | right | honest | wrong |", "|---|---:|---:|---:|---:|",
        *(f"| {tag} | {sum(counts.values())} | {counts['right']} | {counts['honest']} | {counts['wrong']} |"
          for tag, counts in s.by_tag.items()), "",
        "| stream | passed | first event s | longest silence s | progress | keep-alive | answer chars | total s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        *(f"| {c.endpoint} | {'yes' if c.passed else '**no**'} | {c.first_event_seconds} | {c.longest_silence_seconds} | "
          f"{c.progress_events} | {c.keepalive_events} | {c.answer_chars} | {c.seconds} |" for c in s.streams), "",
        "JSON column: valid / repaired / unusable / missing. Tools: fetched/tasks, native + recovered calls.", "",
        "| case | verdict | route | plan | tools | calls n+r | unsupp. | JSON | grounding | checks | s | tokens in/out |",
        "|---|---|---|---|---|---:|---:|---|---|---:|---:|---:|",
    ]
    for r in results:
        route = r.route + (f" ({r.error_code})" if r.error_code else "") + (" **JSON shown**" if r.json_in_answer else "")
        lines.append(f"| {r.id} | {r.verdict} | {route} | {' '.join(r.plan) or '-'} | {r.fetched}/{r.tasks} | "
                     f"{r.native_calls}+{r.recovered_calls} | {r.unsupported} | {_json_cell(r.json_replies)} | "
                     f"{' → '.join(r.grounding) or '-'} | {r.checks_passed}/{r.checks} | {r.seconds:.0f} | "
                     f"{r.input_tokens}/{r.output_tokens} |")
    lines += ["", "## Failed checks and notes", ""]
    for r in results:
        if r.failed_checks or r.notes:
            said = [*(f"WRONG: {why}" for why in r.wrong_because), *r.failed_checks, *(f"note: {n}" for n in r.notes)]
            lines.append(f"- **{r.id}**: " + "; ".join(said).replace("|", "/"))
    return "\n".join(lines) + "\n"


def write_real_reports(summary: RealSummary, results: Sequence[RealCaseResult], replies: Sequence[tuple[str, RecordedReply]],
                       directory: Path = REAL_RESULTS_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path, md_path, replies_path = directory / "report.json", directory / "report.md", directory / "replies.jsonl"
    payload = {"summary": summary.model_dump(), "cases": [r.model_dump() for r in results]}
    json_path.write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    md_path.write_text(render_real_markdown(summary, results), encoding="utf-8")
    replies_path.write_text("".join(json.dumps({"case": case_id, **reply.model_dump()}) + "\n"
                                    for case_id, reply in replies), encoding="utf-8")
    return [json_path, md_path, replies_path]
