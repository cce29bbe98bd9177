"""``python -m bench [--full]``: every benchmark in one run; one ``name=value`` line per figure.

Writes bench/results/bench.json, bench.md and bench.png. Not a pass/fail test: goals are shown
next to the measured figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench.http_load import http_figures
from bench.scenarios import (
    SCENARIOS,
    bench_settings,
    critical_path_ratios,
    grounding_rates,
    offline_cost,
    parallel_vs_sequential,
)

RESULTS_DIR = Path(__file__).resolve().parent / "results"
GOALS = {
    "parallel3.wall_over_critical_path": ("<=", 1.03),
    "sequential2.wall_over_critical_path": ("<=", 1.03),
    "review_retry.wall_over_critical_path": ("<=", 1.03),
    "http.p95_c200_over_p50_c1": ("<=", 1.25),
    "offline.cpu_ms_per_query.p50": ("<=", 5.0),
    "offline.first_progress_ms.p50": ("<=", 50.0),
    "grounding.block_rate": ("<=", 0.02),
}


def machine() -> str:
    cpu = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                    if line.startswith("model name")), "")
    return f"{os.cpu_count()} vCPU {cpu or platform.processor()}, Python {platform.python_version()}"


def write_reports(figures: dict[str, float], meta: dict[str, object]) -> None:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "bench.json").write_text(json.dumps({"meta": meta, "figures": figures}, indent=1))
    lines = ["# OpsAgent benchmark results", "", f"{meta['generated_at']} · {meta['machine']} · mode {meta['mode']} · "
             f"model delay {meta['model_delay_s']} s/call, backend delay {meta['backend_delay_s']} s/call", "",
             "| figure | value | goal |", "|---|---:|---|"]
    for name, value in figures.items():
        goal = GOALS.get(name)
        verdict = ""
        if goal:
            met = value <= goal[1]  # every goal is an upper bound
            verdict = f"{goal[0]} {goal[1]} ({'met' if met else 'missed'})"
        lines.append(f"| {name} | {value} | {verdict} |")
    (RESULTS_DIR / "bench.md").write_text("\n".join(lines) + "\n")
    plot(figures)


def plot(figures: dict[str, float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = sorted(int(k.split(".")[1][1:]) for k in figures if k.startswith("http.c") and k.endswith(".p50_s"))
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(levels, [figures[f"http.c{n}.p50_s"] for n in levels], marker="o", label="p50")
    left.plot(levels, [figures[f"http.c{n}.p95_s"] for n in levels], marker="o", label="p95")
    left.set_xscale("log")
    left.set_xlabel("concurrent chats")
    left.set_ylabel("latency (s)")
    left.set_title("HTTP server on loopback")
    left.legend()
    names = [s.name for s in SCENARIOS]
    right.bar(names, [figures[f"{n}.wall_over_critical_path"] for n in names], color="#2f6db5")
    right.axhline(1.03, color="red", linestyle="--", label="goal 1.03")
    right.set_ylim(0.9, max(1.2, *[figures[f"{n}.wall_over_critical_path"] for n in names]) + 0.05)
    right.set_title("wall time ÷ critical-path bound")
    right.legend()
    figure.tight_layout()
    figure.savefig(RESULTS_DIR / "bench.png", dpi=110)
    plt.close(figure)


async def run(full: bool) -> dict[str, float]:
    model_delay, backend_delay = 0.2, 0.05
    repeats = 5 if full else 2
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data_dir:
        settings = bench_settings(Path(data_dir))
        figures.update(await critical_path_ratios(settings, model_delay, backend_delay, repeats))
        figures.update(await parallel_vs_sequential(settings, model_delay, backend_delay))
        figures.update(await offline_cost(settings, [s.question for s in SCENARIOS], repeats=20 if full else 5))
        figures.update(await grounding_rates(settings))
    figures.update(await http_figures((1, 10, 50, 200), model_delay=model_delay, backend_delay=backend_delay,
                                      min_samples=100 if full else 20, workers=os.cpu_count() or 1))
    meta = {"generated_at": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(),
            "mode": "full" if full else "quick", "model_delay_s": model_delay, "backend_delay_s": backend_delay}
    write_reports(figures, meta)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--full", action="store_true", help="more repeats (several minutes)")
    args = parser.parse_args()
    for name, value in asyncio.run(run(args.full)).items():
        print(f"{name}={value}")
    print(f"reports: {RESULTS_DIR}/bench.json, bench.md, bench.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
