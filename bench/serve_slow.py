"""The production server (uvicorn, as ``make run``) on a latency-simulating model and backends.

    python -m bench.serve_slow --port 8765 --model-delay 0.2 --backend-delay 0.05

Used by ``bench/http_load.py``; bench-only, so the product has no latency knobs.
"""

from __future__ import annotations

import argparse
from functools import partial

from bench.scenarios import bench_settings, make_runtime
from opsagent.service.server import WorkerApp, run_server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model-delay", type=float, default=0.2)
    parser.add_argument("--backend-delay", type=float, default=0.05)
    args = parser.parse_args()
    from pathlib import Path

    settings = bench_settings(Path(args.data_dir)).model_copy(
        update={"port": args.port, "server_threads": args.threads, "server_workers": args.workers,
                "max_chats_in_flight": args.threads - 16, "log_level": "WARNING"}
    )
    slow = partial(make_runtime, model_delay=args.model_delay, backend_delay=args.backend_delay)
    run_server(settings, WorkerApp(settings, make_runtime=slow), f"bench server on http://127.0.0.1:{args.port}")


if __name__ == "__main__":
    main()
