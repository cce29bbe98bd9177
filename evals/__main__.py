"""``python -m evals``: run the suite on the configured provider and write the reports."""

from __future__ import annotations

import argparse
import asyncio
import sys

from evals.case import load_cases
from evals.harness import CaseRunner
from evals.judge import judge_answer, judge_available
from evals.report import summarise_results, write_reports
from opsagent.backends.demo import make_demo_backends
from opsagent.llm.providers import make_model_provider
from opsagent.settings import load_settings


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals", description="Run OpsAgent's evaluation suite.")
    parser.add_argument("--tag", action="append", default=[], help="only cases with this tag (repeatable)")
    parser.add_argument("--id", action="append", default=[], help="only cases whose id starts with this (repeatable)")
    args = parser.parse_args(argv)
    settings = load_settings()
    models = make_model_provider(settings)
    cases = [case for case in load_cases(tags=set(args.tag) or None)
             if not args.id or any(case.id.startswith(prefix) for prefix in args.id)]
    results = []
    runner = CaseRunner(settings, make_backends=make_demo_backends, models=models)
    for case in cases:
        result = await runner.run(case)
        if judge_available(models) and case.expect.facts:
            verdict = await judge_answer(models, case, result.answer)
            result = result.model_copy(update={"judge": "pass" if verdict.passed else f"fail: {verdict.reason}",
                                               "passed": result.passed and verdict.passed})
        failed = "; ".join(f"{check.name} {check.detail}".strip() for check in result.checks if not check.passed)
        print(f"{'pass' if result.passed else 'FAIL'}  {case.id}{'  — ' + failed if failed else ''}", file=sys.stderr)
        results.append(result)
    await runner.aclose()
    summary = summarise_results(results, provider=models.provider, model=models.model)
    paths = write_reports(results, summary)
    print(f"{summary.passed}/{summary.cases} passed ({summary.pass_rate:.0%}); "
          f"ungrounded ids: {summary.ungrounded_ids}; reports: {', '.join(str(p) for p in paths)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
