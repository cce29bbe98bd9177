"""The app factory: settings + runtime + loop thread + store + Teams bot, and every blueprint.

Settings are read once here (tests pass ``Settings`` and, for precise paths, a scripted
``Runtime``). Nothing is global: everything the views need sits in ``app.extensions["opsagent"]``.
The loop thread starts on first use, so a forking server starts it in each worker.
"""

from __future__ import annotations

import logging
import uuid

from flask import Flask

from opsagent.runtime import Runtime, build_runtime
from opsagent.service.admission import Admission
from opsagent.service.chat_api import chat_api
from opsagent.service.chats import default_workflow
from opsagent.service.edges import register_edge_policies
from opsagent.service.errors import register_error_handlers
from opsagent.service.history import ConversationStore
from opsagent.service.loop import LoopThread
from opsagent.service.openai_api import openai_api
from opsagent.service.requestlog import REQUEST_ID, register_request_logging
from opsagent.service.state import EXTENSION_KEY, ServiceState
from opsagent.service.teams_bot import TEAMS_EXTENSION_KEY, make_teams_bot, teams_bot
from opsagent.service.web import web
from opsagent.settings import Settings, load_settings

logger = logging.getLogger(__name__)

CONVERSATIONS_DB = "conversations.sqlite3"


def _warn_about_dev_modes(settings: Settings) -> None:
    if not settings.opsagent_api_keys:
        logger.warning("OPSAGENT_API_KEYS is not set: /api/chat*, /v1/* and /mcp accept requests without a key "
                       "(local dev mode). Set it before exposing the service.")
    if settings.teams_anonymous_dev and settings.bot_app_id is None:
        logger.warning("TEAMS_ANONYMOUS_DEV=true: /api/messages accepts unsigned calls AND the outbound serviceUrl "
                       "host check is off, so the server POSTs replies to whatever serviceUrl a caller names. "
                       "Local dev only: never expose this endpoint with it.")


def _build_state(settings: Settings, runtime: Runtime | None) -> ServiceState:
    store = ConversationStore(settings.data_dir / CONVERSATIONS_DB)
    return ServiceState(settings=settings, runtime=runtime or build_runtime(settings),
                        loop=LoopThread(propagate=(REQUEST_ID,)), store=store,
                        admission=Admission(settings.max_chats_in_flight),
                        owns_runtime=runtime is None)


def create_app(settings: Settings | None = None, *, runtime: Runtime | None = None, run_id: str | None = None) -> Flask:
    """Build the Flask app.

    Args:
        settings: defaults to ``load_settings()`` (``.env`` + environment).
        runtime: an already-built runtime (tests); by default one is built from ``settings``.
            A runtime passed in is closed by its owner, not by ``close_app``.
        run_id: names this server run, shared by all its worker processes (pending Teams
            follow-ups of another run are apologised for at start); a fresh one by default.
    """
    settings = settings or load_settings()
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    state = _build_state(settings, runtime)
    app.extensions[EXTENSION_KEY] = state
    bot = make_teams_bot(settings, state.runtime, state.store, workflow=default_workflow(state),
                         admission=state.admission, run_id=run_id or uuid.uuid4().hex)
    app.extensions[TEAMS_EXTENSION_KEY] = bot
    state.teams_configured = bot is not None
    register_request_logging(app)
    register_edge_policies(app)
    register_error_handlers(app)
    for blueprint in (chat_api, openai_api, teams_bot, web):
        app.register_blueprint(blueprint)
    _warn_about_dev_modes(settings)
    return app


def close_app(app: Flask) -> None:
    """Stop the loop thread (after closing the runtime's pools if the app built it)."""
    app.extensions[EXTENSION_KEY].close()
