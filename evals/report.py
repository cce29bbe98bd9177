"""Eval reports: JSON for machines, markdown for people, a PNG chart of pass rate per tag."""

from __future__ import annotations

import json
import platform
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from evals.devset import CategoryScore
from evals.harness import CaseResult
from evals.seeded_grounding import SeededReport, seeded_report

RESULTS_DIR = Path(__file__).resolve().parent / "results"


class TagSummary(BaseModel):
    tag: str
    cases: int
    passed: int
    """Right answers."""
    honest: int = 0
    wrong: int = 0

    @property
    def rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


class SetSummary(BaseModel):
    """Right / honest / wrong over one set of cases: the suite, its paraphrases, the frozen held-out file."""

    set: str
    cases: int
    right: int
    honest: int
    wrong: int
    tags: list[TagSummary] = []
    grounding: dict[str, int] = {}
    """The product's own final grounding verdicts (pass / block), reported beside the verdicts, never in them."""

    def share(self, verdict: str) -> float:
        return getattr(self, verdict) / self.cases if self.cases else 0.0


def _tags(results: Sequence[CaseResult]) -> list[TagSummary]:
    per_tag: dict[str, list[CaseResult]] = defaultdict(list)
    for result in results:
        for tag in result.tags:
            per_tag[tag].append(result)
    return [TagSummary(tag=tag, cases=len(items), passed=sum(r.verdict == "right" for r in items),
                       honest=sum(r.verdict == "honest" for r in items), wrong=sum(r.verdict == "wrong" for r in items))
            for tag, items in sorted(per_tag.items())]


def summarise_set(name: str, results: Sequence[CaseResult]) -> SetSummary:
    verdicts = [result.verdict for result in results]
    finals = Counter(result.grounding_verdicts[-1] for result in results if result.grounding_verdicts)
    return SetSummary(set=name, cases=len(results), right=verdicts.count("right"), honest=verdicts.count("honest"),
                      wrong=verdicts.count("wrong"), tags=_tags(results), grounding=dict(finals))


class EvalSummary(BaseModel):
    generated_at: str
    provider: str
    model: str
    machine: str
    cases: int
    passed: int
    ungrounded_ids: int
    llm_calls: int
    input_tokens: int
    output_tokens: int
    tags: list[TagSummary]
    sets: list[SetSummary] = []
    """Right / honest / wrong per set (suite, paraphrases, frozen held-out); the fields above are the suite's."""
    seeded: SeededReport | None = None
    """The grounding evaluator against seeded wrong versions of this run's correct answers."""
    planning: list[CategoryScore] = []
    """Planning accuracy on the dev set, per category (``evals/devset``)."""

    @property
    def pass_rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


def summarise_results(everything: Sequence[CaseResult], *, provider: str, model: str) -> EvalSummary:
    results = [result for result in everything if result.set == "cases"]
    sets = [summarise_set(name, [r for r in everything if r.set == name]) for name in ("cases", "paraphrases", "frozen")
            if any(r.set == name for r in everything)]
    return EvalSummary(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        provider=provider, model=model, machine=f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip(),
        cases=len(results), passed=sum(r.passed for r in results),
        ungrounded_ids=sum(len(r.ungrounded) for r in results),
        llm_calls=sum(r.llm_calls for r in results),
        input_tokens=sum(r.input_tokens for r in results), output_tokens=sum(r.output_tokens for r in results),
        tags=_tags(results), sets=sets,
        seeded=seeded_report([r.graded for r in results if r.graded is not None]),
    )


def _seeded_lines(report: SeededReport | None) -> list[str]:
    if report is None or not report.correct:
        return []
    return [
        "## Grounding evaluator on seeded mistakes", "",
        f"Every executed answer broken one way at a time: {report.caught}/{report.seeded} wrong versions caught "
        f"({report.catch_rate:.1%}); {report.false_alarms}/{report.correct} right answers and correct rewordings "
        f"flagged ({report.false_alarm_rate:.1%}).", "",
        "| seeded mistake | seeded | caught | rate |", "|---|---:|---:|---:|",
        *(f"| {kind.kind} | {kind.seeded} | {kind.caught} | {kind.rate:.0%} |" for kind in report.kinds), "",
    ]


def _planning_lines(scores: Sequence[CategoryScore]) -> list[str]:
    if not scores:
        return []
    return [
        "## Planning accuracy on the dev set, per category", "",
        "| category | questions | route | specialists | shape | all right |", "|---|---:|---:|---:|---:|---:|",
        *(f"| {s.category} | {s.questions} | {s.route:.0%} | {s.agents:.0%} | {s.shape:.0%} | {s.planned_right:.0%} |"
          for s in scores), "",
    ]


def _set_lines(sets: Sequence[SetSummary]) -> list[str]:
    labels = {"cases": "the suite", "paraphrases": "paraphrases of the suite (written blind)",
              "frozen": "frozen held-out file (never tuned to)"}
    return [
        "## Right, honest, wrong", "",
        "Right: every check passes. Wrong: says something the data contradicts, or answers a request to act, an "
        "off-topic or a vague message as a read. Honest: neither (asked back, said what it could not read or do). "
        "The product's own grounding verdicts are shown beside, never counted.", "",
        "| set | answers | right | honest | wrong | grounding pass / block |", "|---|---:|---:|---:|---:|---|",
        *(f"| {labels.get(s.set, s.set)} | {s.cases} | {s.right} ({s.share('right'):.0%}) | {s.honest} "
          f"({s.share('honest'):.0%}) | {s.wrong} ({s.share('wrong'):.0%}) | "
          f"{s.grounding.get('pass', 0)} / {s.grounding.get('block', 0)} |" for s in sets), "",
    ]


def render_markdown(summary: EvalSummary, results: Sequence[CaseResult]) -> str:
    lines = [
        "# OpsAgent evaluation report", "",
        f"Provider **{summary.provider}** (model `{summary.model}`), {summary.generated_at}, {summary.machine}.", "",
        f"**{summary.passed}/{summary.cases} cases passed ({summary.pass_rate:.0%})**, "
        f"{summary.ungrounded_ids} ungrounded id(s), {summary.llm_calls} model calls, "
        f"{summary.input_tokens} input / {summary.output_tokens} output tokens (estimated for the local model).", "",
        "| tag | cases | passed | rate |", "|---|---:|---:|---:|",
        *(f"| {t.tag} | {t.cases} | {t.passed} | {t.rate:.0%} |" for t in summary.tags), "",
        *_set_lines(summary.sets), *_seeded_lines(summary.seeded), *_planning_lines(summary.planning),
        "| case | verdict | route | model calls | tokens in/out | ms | failed checks |", "|---|---|---|---:|---:|---:|---|",
    ]
    for r in results:
        failed = "; ".join(f"{c.name}: {c.detail}".rstrip(": ") for c in r.checks if not c.passed)
        verdict = {"right": "right", "honest": "honest", "wrong": "**WRONG**"}[r.verdict]
        lines.append(f"| {r.id} | {verdict} | {r.route} | {r.llm_calls} | "
                     f"{r.input_tokens}/{r.output_tokens} | {r.duration_ms:.0f} | {failed.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def plot_pass_rates(summary: EvalSummary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tags = [t.tag for t in summary.tags]
    rates = [100 * t.rate for t in summary.tags]
    figure, axis = plt.subplots(figsize=(9, 4.5))
    bars = axis.barh(tags, rates, color="#2f6db5")
    axis.bar_label(bars, labels=[f"{t.passed}/{t.cases}" for t in summary.tags], padding=3, fontsize=8)
    axis.set_xlim(0, 110)
    axis.set_xlabel("cases passed (%)")
    axis.set_title(f"OpsAgent evals — {summary.passed}/{summary.cases} passed ({summary.model})")
    axis.invert_yaxis()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_reports(results: Sequence[CaseResult], summary: EvalSummary, directory: Path = RESULTS_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path, md_path, png_path = directory / "report.json", directory / "report.md", directory / "pass_rates.png"
    payload = {"summary": summary.model_dump(), "cases": [r.model_dump() for r in results]}
    json_path.write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
    md_path.write_text(render_markdown(summary, results), encoding="utf-8")
    plot_pass_rates(summary, png_path)
    return [json_path, md_path, png_path]
