"""Concurrent chats through the real HTTP server on loopback: p50/p95 latency and throughput.

The server is the production one (gunicorn, threaded) in a child process, on the latency-simulating
model and backends; the load comes from this process over keep-alive connections on 127.0.0.1 only,
so the client's own CPU shares the machine with the server's workers.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from collections.abc import Iterator

import httpx

QUESTION = "Is Databricks or Snowflake degraded right now?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def slow_server(model_delay: float, backend_delay: float, threads: int, workers: int) -> Iterator[str]:
    port = free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        command = [sys.executable, "-m", "bench.serve_slow", "--port", str(port), "--data-dir", data_dir,
                   "--threads", str(threads), "--workers", str(workers), "--model-delay", str(model_delay), "--backend-delay", str(backend_delay)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ})
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
                if process.poll() is not None:
                    raise RuntimeError(f"bench server exited: {process.stderr.read().decode()[-500:]}")
            else:
                raise RuntimeError("bench server did not start within 60 s")
            yield base
        finally:
            process.terminate()
            process.wait(timeout=30)


async def one_chat(client: httpx.AsyncClient, base: str) -> float:
    started = time.perf_counter()
    response = await client.post(f"{base}/api/chat_dynamic", json={"messages": [{"role": "user", "content": QUESTION}]})
    response.raise_for_status()
    return time.perf_counter() - started


async def load(base: str, concurrency: int, min_samples: int) -> dict[str, float]:
    """Batches of ``concurrency`` simultaneous chats until at least ``min_samples`` latencies."""
    rounds = max(1, math.ceil(min_samples / concurrency))
    limits = httpx.Limits(max_connections=concurrency + 8, max_keepalive_connections=concurrency + 8)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        await one_chat(client, base)  # warm-up: demo database, first connection
        latencies: list[float] = []
        started = time.perf_counter()
        for _ in range(rounds):
            latencies += await asyncio.gather(*(one_chat(client, base) for _ in range(concurrency)))
        wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        f"http.c{concurrency}.p50_s": round(statistics.median(ordered), 3),
        f"http.c{concurrency}.p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        f"http.c{concurrency}.throughput_per_s": round(len(latencies) / wall, 1),
    }


async def http_figures(
    levels: tuple[int, ...], *, model_delay: float, backend_delay: float, min_samples: int, workers: int
) -> dict[str, float]:
    figures: dict[str, float] = {"http.server_workers": workers}
    with slow_server(model_delay, backend_delay, threads=max(levels) + 16, workers=workers) as base:
        for level in levels:
            figures.update(await load(base, level, min_samples))
    top = max(levels)
    figures[f"http.p95_c{top}_over_p50_c1"] = round(figures[f"http.c{top}.p95_s"] / figures["http.c1.p50_s"], 3)
    return figures
