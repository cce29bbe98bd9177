"""The real-model report's per-role prompt sizes: p50 / p95 over every call of the run, not per answer."""

from __future__ import annotations

from evals.real_model import RealCaseResult
from evals.real_report import percentile, render_real_markdown, summarise_real_run
from opsagent.contracts.usage import RoleUsage


def usage(*sizes: int) -> RoleUsage:
    role = RoleUsage()
    for size in sizes:
        role.add(input_tokens=size, output_tokens=10)
    return role


def case(case_id: str, tags: tuple[str, ...] = (), verdict: str = "right", seconds: float = 1.0,
         **roles: RoleUsage) -> RealCaseResult:
    return RealCaseResult(id=case_id, tags=list(tags), question="q", workflow="dynamic", route="execute",
                          usage_by_role=roles, verdict=verdict, seconds=seconds)


def test_nearest_rank_percentiles():
    assert percentile([], 95) == 0
    assert percentile([7], 50) == percentile([7], 95) == 7
    values = list(range(1, 101))  # 1..100: nearest rank is the value itself
    assert (percentile(values, 50), percentile(values, 95)) == (50, 95)
    assert percentile([30, 10, 20], 50) == 20  # order of the calls does not matter


def test_report_pools_every_call_of_a_role_across_answers():
    sizes_a, sizes_b = [900, 1200], [1000, 4000, 1100]
    results = [case("a", planner=usage(*sizes_a), review=usage(2000)), case("b", planner=usage(*sizes_b))]
    summary = summarise_real_run(results, [], provider="openai", model="m", endpoint="e", profile="local-small",
                                 prompt_budget_tokens=6000)
    planner = summary.usage_by_role["planner"]
    pooled = sorted(sizes_a + sizes_b)
    assert planner.calls == 5 and sorted(planner.prompt_sizes) == pooled
    assert planner.largest_prompt_tokens == max(pooled) and planner.input_tokens == sum(pooled)
    row = next(line for line in render_real_markdown(summary, results).splitlines() if line.startswith("| planner |"))
    p50, p95 = pooled[2], pooled[4]  # nearest rank over 5 calls: the 3rd and the 5th
    assert row.startswith(f"| planner | 5 | {p50} | {p95} | {max(pooled)} |")
    assert "prompt budget of 6000 tokens" in render_real_markdown(summary, results)


def test_report_counts_verdicts_per_question_kind_and_the_p90_time():
    results = [case("a", ("count", "servicenow"), "right", 10), case("b", ("count",), "wrong", 50),
               case("c", ("existence", "servicenow"), "honest", 20), *(case(f"d{i}", ("which",), "right", 30 + i)
                                                                       for i in range(7))]
    summary = summarise_real_run(results, [], provider="openai", model="m", endpoint="e", profile="p")
    assert summary.verdicts == {"right": 8, "honest": 1, "wrong": 1}
    assert summary.by_tag["count"] == {"right": 1, "honest": 0, "wrong": 1}
    assert summary.by_tag["servicenow"] == {"right": 1, "honest": 1, "wrong": 0}
    times = sorted(result.seconds for result in results)
    assert summary.seconds_p90 == times[8]  # nearest rank: the 9th of 10
    markdown = render_real_markdown(summary, results)
    assert "| count | 2 | 1 | 0 | 1 |" in markdown and "right 8, honest 1, wrong 1 of 10" in markdown
