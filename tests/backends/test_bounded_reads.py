"""Backend replies are read with a byte cap: a 50 MB reply costs a worker a few MB, not 50+.

The measurement runs in a fresh subprocess (so its peak RSS is this reply's alone): a loopback
server streams 50 MB of JSON, with and without a Content-Length, to the real ServiceNow client.
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from opsagent.backends.http import RetryPolicy
from opsagent.backends.servicenow import HttpServiceNowBackend
from opsagent.settings import PROJECT_ROOT, Settings
from opsagent.tools.servicenow import make_servicenow_tools

REPLY_BYTES = 50_000_000
_CHUNK = b'{"number":{"value":"INC0000001"},"short_description":{"value":"' + b"x" * 65_000 + b'"}},'


class _HugeReply(BaseHTTPRequestHandler):
    """Streams ~50 MB of ServiceNow-shaped JSON from one reused chunk (the server itself stays small)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if "declared" in self.path:
            self.send_header("Content-Length", str(REPLY_BYTES))
        self.end_headers()
        try:
            self.wfile.write(b'{"result":[')
            for _ in range(REPLY_BYTES // len(_CHUNK)):
                self.wfile.write(_CHUNK)
            self.wfile.write(b"{}]}")
        except OSError:  # the client stopped reading: that is the point
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def huge_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HugeReply)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def measure(url: str, cap: int) -> None:
    """Run in the subprocess: print the peak-RSS growth (MB) of each 50 MB list call and what it raised."""
    async def call(path: str) -> str:
        backend = HttpServiceNowBackend(url + path, auth=_NoAuth(), policy=RetryPolicy(max_response_bytes=cap))
        tools = {t.name: t for t in make_servicenow_tools(_Backends(backend), clock=_now, max_rows=20)}
        try:
            [content] = await tools["list_incidents"].invoke(arguments={})
            return content.text
        finally:
            await backend.aclose()

    results = {}
    for path in ("/streamed", "/declared"):
        before = _peak_rss_mb()
        text = asyncio.run(call(path))
        results[path] = {"growth_mb": round(_peak_rss_mb() - before, 1), "result": json.loads(text)}
    print(json.dumps(results))


class _NoAuth:
    async def header(self, client: object) -> str:
        return "Bearer test"

    def invalidate(self) -> bool:
        return False


class _Backends:
    def __init__(self, servicenow: HttpServiceNowBackend) -> None:
        self.servicenow = servicenow


def _now():  # noqa: ANN202 - a Clock
    from datetime import UTC, datetime

    return datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


def test_a_50_mb_reply_is_refused_with_bounded_memory_and_a_readable_limitation(huge_server: str) -> None:
    cap = Settings().backend_max_response_bytes
    script = f"from tests.backends.test_bounded_reads import measure; measure({huge_server!r}, {cap})"
    run = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    for path, outcome in results.items():
        assert outcome["growth_mb"] < 20, f"{path}: peak RSS grew {outcome['growth_mb']} MB for a 50 MB reply"
        result = outcome["result"]
        assert (result["status"], result["error_kind"]) == ("error", "bad_response"), result
        assert "more than 5 MB (BACKEND_MAX_RESPONSE_BYTES)" in result["message"]
        assert "fewer rows or a shorter time window" in result["message"]
