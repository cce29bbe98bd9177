"""The ASGI root that uvicorn serves (``server.py``): the Flask app, and a seam for other ASGI apps.

    request ──▶ OpsAgentAsgi ──▶ an app mounted at a path prefix: by default the MCP server at
                     │           "/mcp" (``mcp_server.McpEndpoint``; ``mounts=`` replaces the default)
                     └─────────▶ BufferedBody ──▶ a2wsgi WSGIMiddleware (SERVER_THREADS) ──▶ Flask

uvicorn's asyncio loop reads request lines and headers, and ``BufferedBody`` reads bodies on the
same loop, so a slow client costs a socket and a small buffer, never a worker thread. Each request
is stamped with its arrival time (``scope.ARRIVED_AT``): its deadline runs from there.

Lifespan: at start-up, each mounted app that has a ``lifespan()`` (the MCP SDK's task group) enters
it for the server's lifetime, and Teams follow-ups promised by a process that is gone get their
apology (in the background); at shutdown (SIGTERM) the follow-ups still running get what is left of
DRAIN_TIMEOUT_SECONDS (counted from the signal; uvicorn lets in-flight HTTP requests finish
first, within the same budget), then the app is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from types import FrameType
from typing import Protocol, runtime_checkable

from a2wsgi import WSGIMiddleware
from flask import Flask

from opsagent.service.app import close_app
from opsagent.service.buffering import ASGIApp, BufferedBody, Receive, Scope, Send
from opsagent.service.follow_ups import SEND_TIMEOUT_SECONDS
from opsagent.service.mcp_server import MCP_PATH, McpEndpoint
from opsagent.service.scope import ARRIVED_AT
from opsagent.service.state import get_state
from opsagent.service.teams_bot import teams_bot_of

logger = logging.getLogger(__name__)


@runtime_checkable
class HasLifespan(Protocol):
    """A mounted app that needs something running for the server's lifetime."""

    def lifespan(self) -> AbstractAsyncContextManager[object]: ...


class OpsAgentAsgi:
    """The root ASGI app around one Flask app (built by ``create_app`` in this process)."""

    def __init__(self, flask_app: Flask, *, mounts: Mapping[str, ASGIApp] | None = None, owns_app: bool = True) -> None:
        """Args:
            flask_app: the app to serve; its settings size the thread pool and the body limits.
            mounts: ASGI apps served at path prefixes instead of Flask; default: the MCP endpoint at "/mcp".
            owns_app: close the Flask app at lifespan shutdown (tests that built it close it themselves).
        """
        self.flask_app = flask_app
        settings = get_state(flask_app).settings
        wsgi = WSGIMiddleware(flask_app, workers=settings.server_threads)  # type: ignore[arg-type]
        self._http = BufferedBody(wsgi, max_bytes=settings.max_request_bytes,  # type: ignore[arg-type]
                                  read_timeout=settings.request_read_timeout_seconds)
        if mounts is None:
            mounts = {MCP_PATH: McpEndpoint(flask_app)}
        self._mounts = {prefix.rstrip("/"): app for prefix, app in mounts.items()}
        self._owns_app = owns_app
        self._drain_started: float | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # no websockets here (a mounted app may take them one day)
            await send({"type": "websocket.close", "code": 1008})
            return
        scope[ARRIVED_AT] = time.monotonic()
        await self._route(scope["path"])(scope, receive, send)

    def _route(self, path: str) -> ASGIApp:
        for prefix, app in self._mounts.items():
            if path == prefix or path.startswith(prefix + "/"):
                return app
        return self._http

    def begin_drain(self) -> None:
        """Note when shutdown began (the first SIGTERM/SIGINT); the drain budget counts from here."""
        if self._drain_started is None:
            self._drain_started = time.monotonic()
            logger.info("shutting down: draining in-flight answers")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with contextlib.AsyncExitStack() as mounted:
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    try:
                        for app in self._mounts.values():
                            if isinstance(app, HasLifespan):
                                await mounted.enter_async_context(app.lifespan())
                    except Exception as error:
                        logger.exception("a mounted app failed to start")
                        await send({"type": "lifespan.startup.failed", "message": type(error).__name__})
                        return
                    self._on_startup()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await mounted.aclose()  # before the loop thread closes: MCP calls may still await it
                    await asyncio.to_thread(self._on_shutdown)
                    await send({"type": "lifespan.shutdown.complete"})
                    return

    def _on_startup(self) -> None:
        if threading.current_thread() is threading.main_thread():  # signals can only be hooked there
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, self._noting_drain(signal.getsignal(sig)))
        state, bot = get_state(self.flask_app), teams_bot_of(self.flask_app)
        if bot is not None:
            state.loop.start_soon(bot.agent.follow_ups.recover())

    def _noting_drain(self, previous: object) -> signal.Handlers | object:
        def handler(signum: int, frame: FrameType | None) -> None:
            self.begin_drain()
            if callable(previous):
                previous(signum, frame)

        return handler

    def _on_shutdown(self) -> None:
        self.begin_drain()
        state, bot = get_state(self.flask_app), teams_bot_of(self.flask_app)
        left = state.settings.drain_timeout_seconds - (time.monotonic() - (self._drain_started or 0.0))
        if bot is not None and bot.agent.follow_ups.in_flight:
            try:
                state.loop.submit(bot.agent.follow_ups.drain(left), timeout=max(left, 0) + SEND_TIMEOUT_SECONDS + 5)
            except Exception:
                logger.exception("drain did not complete")
        if self._owns_app:
            close_app(self.flask_app)
