"""``serve()``: the production WSGI server (gunicorn, threaded workers) on ``HOST:PORT``.

Threads, not processes, carry concurrency: workflows run on each worker's one asyncio loop, and
a request holds a thread while it waits or streams, so SERVER_THREADS bounds concurrent chats
per worker; SERVER_WORKERS adds processes (each with its own loop) to use more cores.
The app (and its loop) is built in the worker, after the fork. Settings and agent YAML are
checked in the parent first, so a bad configuration fails before anything binds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from gunicorn.app.base import BaseApplication

from opsagent.runtime import build_runtime
from opsagent.service.requestlog import configure_logging
from opsagent.settings import Settings, load_settings

logger = logging.getLogger(__name__)

GRACEFUL_TIMEOUT_SECONDS = 30


class OpsAgentServer(BaseApplication):
    """gunicorn embedded: no config file, no command line of its own."""

    def __init__(self, settings: Settings, banner: str) -> None:
        self.settings = settings
        self.banner = banner
        super().__init__()

    def load_config(self) -> None:
        options: dict[str, Any] = {
            "bind": f"{self.settings.host}:{self.settings.port}",
            "workers": self.settings.server_workers,
            "worker_class": "gthread",
            "threads": self.settings.server_threads,
            "timeout": int(self.settings.request_timeout_seconds) + 60,
            "graceful_timeout": GRACEFUL_TIMEOUT_SECONDS,
            "accesslog": None,  # our own request log line has the request id
            "control_socket_disable": True,  # no runtime control socket in the user's home directory
            "loglevel": self.settings.log_level.lower(),
            "when_ready": lambda _arbiter: print(self.banner, flush=True),
            "worker_exit": lambda _arbiter, worker: _close_worker_app(worker),
        }
        for key, value in options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from opsagent.service.app import create_app

        return create_app(self.settings)


def _close_worker_app(worker: Any) -> None:
    app = getattr(worker, "wsgi", None)
    if app is not None and hasattr(app, "extensions"):
        from opsagent.service.app import close_app

        close_app(app)


def describe(settings: Settings) -> tuple[str, str]:
    """(model, data) for the start-up line; building a runtime also validates every agent YAML."""
    runtime = build_runtime(settings)
    try:
        kinds = sorted(set(runtime.backends.describe().values()))
        return runtime.models.model, "+".join(kinds)
    finally:
        asyncio.run(runtime.aclose())


def serve(host: str | None = None, port: int | None = None) -> int:
    """Serve until interrupted; returns the exit code. ``host``/``port`` override the settings."""
    overrides = {key: value for key, value in (("host", host), ("port", port)) if value is not None}
    settings = load_settings(**overrides)
    configure_logging(settings.log_level)
    model, data = describe(settings)
    banner = f"OpsAgent listening on http://{settings.host}:{settings.port} (model: {model}, data: {data})"
    OpsAgentServer(settings, banner).run()
    return 0
