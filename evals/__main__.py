"""``python -m evals``: run the suite on the configured provider and write the reports.

``python -m evals --real`` runs the real-model subset (``evals/subsets/real-model.yaml``) against
the OpenAI-compatible endpoint the settings name, plus the two streaming checks (see
``evals/real_model.py``); it refuses to run on the offline model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from evals.case import EvalCase, load_cases, load_frozen, load_paraphrases
from evals.devset import DEVSET_NOW, CategoryScore, by_category, load_devset, plan_devset
from evals.harness import CaseRunner
from evals.judge import judge_answer, judge_available
from evals.report import summarise_results, write_reports
from opsagent.backends.demo import make_demo_backends
from opsagent.agents.model_provider import ModelProvider
from opsagent.llm.providers import make_model_provider
from opsagent.runtime import build_runtime
from opsagent.settings import Settings, load_settings


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m evals", description="Run OpsAgent's evaluation suite.")
    parser.add_argument("--tag", action="append", default=[], help="only cases with this tag (repeatable)")
    parser.add_argument("--id", action="append", default=[], help="only cases whose id starts with this (repeatable)")
    parser.add_argument("--set", action="append", default=[], choices=["cases", "paraphrases", "frozen"],
                        help="which sets to run (repeatable; default all three: the suite, its paraphrases written "
                             "blind, the frozen held-out file)")
    parser.add_argument("--real", action="store_true",
                        help="the real-model run: a subset against the configured OpenAI-compatible endpoint")
    parser.add_argument("--subset", default="real-model", help="with --real: evals/subsets/<name>.yaml")
    parser.add_argument("--no-streams", action="store_true", help="with --real: skip the two streaming checks")
    parser.add_argument("--workflow", choices=["dynamic", "triage"],
                        help="run every case on this workflow (default: each case's own, mostly dynamic)")
    return parser.parse_args(argv)


async def devset_by_category(settings: Settings, models: ModelProvider) -> list[CategoryScore]:
    """Planning accuracy per dev-set category, on the suite's model."""
    cases = load_devset()
    moment = datetime.fromisoformat(DEVSET_NOW.replace("Z", "+00:00"))
    runtime = build_runtime(settings, models=models, clock=lambda: moment)
    try:
        decisions = await plan_devset(runtime, cases)
    finally:
        await runtime.aclose()
    return by_category(list(zip(cases, decisions, strict=True)))


def selected_cases(args: argparse.Namespace) -> list[EvalCase]:
    """The suite, then its paraphrases, then the frozen file — as filtered by --set, --tag and --id."""
    sets = set(args.set) or {"cases", "paraphrases", "frozen"}
    suite = load_cases(tags=set(args.tag) or None)
    chosen = [*(suite if "cases" in sets else []), *(load_paraphrases(suite) if "paraphrases" in sets else []),
              *(load_frozen() if "frozen" in sets and not args.tag else [])]
    picked = [case for case in chosen if not args.id or any(case.id.startswith(prefix) for prefix in args.id)]
    return [case.model_copy(update={"workflow": args.workflow}) for case in picked] if args.workflow else picked


async def run_suite(args: argparse.Namespace, settings: Settings) -> int:
    models = make_model_provider(settings)
    cases = selected_cases(args)
    results = []
    runner = CaseRunner(settings, make_backends=make_demo_backends, models=models)
    for case in cases:
        result = await runner.run(case)
        if judge_available(models) and case.expect.facts:
            verdict = await judge_answer(models, case, result.answer)
            result = result.model_copy(update={"judge": "pass" if verdict.passed else f"fail: {verdict.reason}",
                                               "passed": result.passed and verdict.passed})
        failed = "; ".join(f"{check.name} {check.detail}".strip() for check in result.checks if not check.passed)
        mark = {"right": "pass", "honest": "HONEST", "wrong": "WRONG"}[result.verdict]
        print(f"{mark:<6} {case.id}{'  — ' + failed if failed else ''}", file=sys.stderr)
        results.append(result)
    await runner.aclose()
    await models.aclose()
    summary = summarise_results(results, provider=models.provider, model=models.model)
    if not args.tag and not args.id and not args.set:
        summary.planning = await devset_by_category(settings, models)
    paths = write_reports(results, summary)
    seeded = summary.seeded
    for item in summary.sets:
        print(f"{item.set:<12} {item.cases:>5} answers: right {item.right} ({item.share('right'):.0%}), "
              f"honest {item.honest} ({item.share('honest'):.0%}), wrong {item.wrong} ({item.share('wrong'):.0%})")
    print(f"{summary.passed}/{summary.cases} passed ({summary.pass_rate:.0%}); "
          f"ungrounded ids: {summary.ungrounded_ids}; reports: {', '.join(str(p) for p in paths)}")
    if seeded is not None and seeded.correct:
        print(f"grounding evaluator: caught {seeded.caught}/{seeded.seeded} seeded wrong summaries "
              f"({seeded.catch_rate:.1%}), flagged {seeded.false_alarms}/{seeded.correct} correct ones")
    for score in summary.planning:
        print(f"planning {score.category:<14} {score.questions:>3} questions, {score.planned_right:.0%} planned right")
    if not args.tag and not args.id and not args.set:
        await report_lying_model()
    return 0


async def report_lying_model() -> None:
    """The checks against a model that lies on purpose (``evals/lying_model.py``), written beside the report."""
    from evals.lying_model import BLIND_LIES_FILE, DEV_LIES_FILES, LIES_FILE, load_lies, run_lies
    from evals.report import RESULTS_DIR

    # the held-out set: only its totals are printed and written, never which lie got through
    sets = (("lying_model", "lying model", LIES_FILE, False),
            *((f"lying_model_{name}", f"lying model (blind, {name})", path, False) for name, path in DEV_LIES_FILES.items()),
            ("lying_model_heldout", "lying model (blind, held out)", BLIND_LIES_FILE, True))
    for name, title, path, blind in sets:
        with tempfile.TemporaryDirectory() as directory:
            report = await run_lies(load_lies(path), Path(directory))
        totals = {"lies": report.lies, "caught": report.caught, "truths": report.truths, "flagged": report.flagged,
                  "errored": report.errored}
        (RESULTS_DIR / f"{name}.json").write_text(json.dumps(totals) if blind else report.model_dump_json(indent=1),
                                                  encoding="utf-8")
        print(f"{title}: {report.caught}/{report.lies} lies "
              f"caught ({report.caught / report.lies:.0%}), {report.flagged}/{report.truths} truths flagged"
              + (f", {report.errored} runs failed (a crash is no catch)" if report.errored else ""))
        for item in [] if blind else report.missed():
            print(f"  lie {'run failed' if item.errored else 'reached the user'}: {item.id} ({item.kind})")


async def run_real(args: argparse.Namespace, settings: Settings) -> int:
    from evals.real_model import load_subset, run_real_case
    from evals.real_report import summarise_real_run, write_real_reports
    from evals.stream_check import run_stream_checks

    if settings.provider == "local":
        print("--real needs a model: set LLM_PROVIDER=openai and OPENAI_BASE_URL (see docs/evaluation.md)",
              file=sys.stderr)
        return 2
    models = make_model_provider(settings)
    wanted = load_subset(args.subset)
    cases = [case for case in load_cases() if case.id in wanted
             and (not args.id or any(case.id.startswith(prefix) for prefix in args.id))]
    results, replies = [], []
    runner = CaseRunner(settings, make_backends=make_demo_backends, models=models)
    for case in cases:
        result, recorded = await run_real_case(case, runner)
        results.append(result)
        replies.extend((case.id, reply) for reply in recorded)
        print(f"{case.id}: {result.route} plan={' '.join(result.plan) or '-'} fetched={result.fetched}/{result.tasks} "
              f"recovered={result.recovered_calls} json={result.json_replies.model_dump()} "
              f"grounding={result.grounding} {result.seconds:.0f}s", file=sys.stderr)
    await runner.aclose()
    await models.aclose()
    with tempfile.TemporaryDirectory() as data_dir:
        streams = [] if args.no_streams else await asyncio.to_thread(run_stream_checks, settings, Path(data_dir))
    for check in streams:
        print(f"stream {check.endpoint}: {'ok' if check.passed else 'FAILED'} {check.detail}", file=sys.stderr)
    endpoint = settings.openai_base_url or settings.azure_openai_endpoint or "api.openai.com"
    summary = summarise_real_run(results, streams, provider=models.provider, model=models.model, endpoint=endpoint,
                                 profile=settings.model_profile, prompt_budget_tokens=settings.prompt_budget_tokens)
    paths = write_real_reports(summary, results, replies)
    print(f"{summary.fetched}/{summary.tasks} tasks fetched, {summary.json_in_answers} JSON answers, "
          f"grounding {summary.grounding}; reports: {', '.join(str(p) for p in paths)}")
    return 0


async def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    settings = load_settings()
    return await (run_real(args, settings) if args.real else run_suite(args, settings))


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
