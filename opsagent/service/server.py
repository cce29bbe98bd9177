"""``serve()``: the production server, uvicorn, serving the ASGI root (``asgi.py``) on ``HOST:PORT``.

Why uvicorn (and not gunicorn's threaded workers, which read request headers inside the worker
thread, so 80 clients trickling headers took all 64 threads): uvicorn's asyncio loop reads
request lines, headers and (through ``BufferedBody``) bodies, and only a complete request is
handed to one of SERVER_THREADS worker threads (a2wsgi) to run Flask. A chat holds a thread
while it waits or streams, and admission control keeps MAX_CHATS_IN_FLIGHT below the thread count.
SERVER_WORKERS adds processes (uvicorn's supervisor, spawned, each with its own app, loop thread
and thread pool) to use more cores. Settings and agent YAML are checked in the parent first, so a
bad configuration fails before anything binds. SIGTERM drains (see ``asgi.py``) within
DRAIN_TIMEOUT_SECONDS; uvicorn stops accepting at once and lets in-flight requests finish.
"""

from __future__ import annotations

import asyncio
import math
import socket
import uuid
from collections.abc import Callable

import uvicorn
from uvicorn.supervisors import Multiprocess

from opsagent.runtime import Runtime, build_runtime
from opsagent.service.h11_errors import JsonErrorH11Protocol
from opsagent.service.requestlog import configure_logging
from opsagent.settings import Settings, load_settings


class WorkerApp:
    """Builds the app in the process that serves it (uvicorn calls it: ``factory=True``).

    Picklable, because uvicorn *spawns* its worker processes: ``make_runtime`` (a benchmark's
    slowed-down runtime, say) must be a module-level function or a ``functools.partial`` of one.
    Every worker of one run shares ``run_id`` (see ``follow_ups``).
    """

    def __init__(self, settings: Settings, *, make_runtime: Callable[[Settings], Runtime] | None = None) -> None:
        self.settings = settings
        self.make_runtime = make_runtime
        self.run_id = uuid.uuid4().hex

    def __call__(self) -> object:
        from opsagent.service.app import create_app
        from opsagent.service.asgi import OpsAgentAsgi
        from opsagent.service.state import get_state

        configure_logging(self.settings.log_level, secrets=self.settings.secret_values())  # again in a spawned worker
        runtime = self.make_runtime(self.settings) if self.make_runtime else None
        app = create_app(self.settings, runtime=runtime, run_id=self.run_id)
        if runtime is not None:  # a runtime passed in is not closed by close_app: hand it over
            get_state(app).owns_runtime = True
        return OpsAgentAsgi(app)


class _AnnouncingServer(uvicorn.Server):
    """uvicorn's server, printing one line once it listens (what ``make run`` shows)."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self.banner, flush=True)


def uvicorn_config(settings: Settings, app: object, *, factory: bool) -> uvicorn.Config:
    """The uvicorn settings OpsAgent runs with (shared with the tests that serve the real stack)."""
    return uvicorn.Config(
        app, factory=factory, host=settings.host, port=settings.port, workers=settings.server_workers,
        http=JsonErrorH11Protocol, lifespan="on", log_config=None, access_log=False,  # our log line has the request id
        proxy_headers=False, timeout_graceful_shutdown=math.ceil(settings.drain_timeout_seconds),
    )


def describe(settings: Settings) -> tuple[str, str]:
    """(model, data) for the start-up line; building a runtime also validates every agent YAML."""
    runtime = build_runtime(settings)
    try:
        kinds = sorted(set(runtime.backends.describe().values()))
        return runtime.models.model, "+".join(kinds)
    finally:
        asyncio.run(runtime.aclose())


def run_server(settings: Settings, app: WorkerApp, banner: str) -> None:
    """Serve ``app`` until SIGTERM/SIGINT (one process, or uvicorn's supervisor over SERVER_WORKERS)."""
    config = uvicorn_config(settings, app, factory=True)
    if settings.server_workers == 1:
        _AnnouncingServer(config, banner).run()
        return
    sockets = [config.bind_socket()]
    print(banner, flush=True)
    Multiprocess(config, sockets=sockets).run()


def serve(host: str | None = None, port: int | None = None) -> int:
    """Serve until interrupted; returns the exit code. ``host``/``port`` override the settings."""
    overrides = {key: value for key, value in (("host", host), ("port", port)) if value is not None}
    settings = load_settings(**overrides)
    configure_logging(settings.log_level, secrets=settings.secret_values())
    model, data = describe(settings)
    banner = f"OpsAgent listening on http://{settings.host}:{settings.port} (model: {model}, data: {data})"
    run_server(settings, WorkerApp(settings), banner)
    return 0
