"""A minimal Chrome DevTools Protocol driver for headless Chromium (no Selenium, no internet).

Chromium picks a free debugging port and writes it to ``DevToolsActivePort`` in its profile dir;
we attach to the page target over a websocket and send commands one at a time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import websocket

from tests.service.conftest import poll

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-default-apps", "--metrics-recording-only", "--remote-debugging-port=0", "--remote-allow-origins=*",
]


def find_chromium() -> str | None:
    return next((path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None)


class Page:
    def __init__(self, ws_url: str) -> None:
        self._ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self._ids = iter(range(1, 1_000_000))

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        message_id = next(self._ids)
        self._ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:  # events arrive interleaved; skip to our reply
            reply = json.loads(self._ws.recv())
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float = 20.0) -> Any:
        return poll(lambda: self.evaluate(expression), timeout=timeout, what=f"page: {expression}")

    def close(self) -> None:
        self._ws.close()


def _debugging_port(profile: Path, process: subprocess.Popen, timeout: float = 20.0) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text().splitlines()[0])
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        time.sleep(0.05)
    raise RuntimeError("chromium did not open its debugging port")


@contextmanager
def chromium_page(binary: str, profile: Path) -> Iterator[Page]:
    """Start headless Chromium on about:blank and attach to its page."""
    process = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page: Page | None = None
    try:
        port = _debugging_port(profile, process)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            targets = json.load(response)
        page = Page(next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page"))
        yield page
    finally:
        if page is not None:
            page.close()
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
