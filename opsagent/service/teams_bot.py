"""Blueprint: ``POST /api/messages``, the Teams / Bot Framework endpoint (Microsoft 365 Agents SDK).

The SDK's ``HttpAdapterBase`` is framework-agnostic: we wrap the Flask request in an object that
satisfies its ``HttpRequestProtocol``, validate the caller's JWT first (``auth.py``), and run
``process_request`` on the app's loop thread. With bot credentials (``BOT_APP_ID``...) every call
needs a valid Bot Framework token; without them the endpoint answers 503, unless
``TEAMS_ANONYMOUS_DEV=true`` (local dev: no tokens in, none out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, jsonify, request
from microsoft_agents.activity import Activity
from microsoft_agents.authentication.msal import MsalConnectionManager
from microsoft_agents.hosting.core import AgentAuthConfiguration, ClaimsIdentity, HttpAdapterBase
from microsoft_agents.hosting.core.http import HttpResponse
from microsoft_agents.hosting.core.security import OutboundHostValidator
from pydantic import ValidationError

from opsagent.contracts.results import WorkflowKind
from opsagent.errors import RequestError
from opsagent.runtime import Runtime
from opsagent.service.auth import authorize_bot_request
from opsagent.service.history import ConversationStore
from opsagent.service.state import get_state
from opsagent.service.teams_agent import OpsTeamsAgent, on_turn_error
from opsagent.settings import Settings

teams_bot = Blueprint("teams_bot", __name__)


class FlaskCloudAdapter(HttpAdapterBase):
    """All request handling is inherited; only the error handler is ours (see ``teams_agent``)."""


@dataclass
class _ActivityRequest:
    """The SDK's ``HttpRequestProtocol`` over an already-read Flask request."""

    method: str
    headers: dict[str, str]
    body: dict[str, Any]
    claims: ClaimsIdentity

    async def json(self) -> dict[str, Any]:
        return self.body

    def get_claims_identity(self) -> ClaimsIdentity:
        return self.claims

    def get_path_param(self, name: str) -> str:
        return ""


@dataclass
class TeamsBot:
    adapter: FlaskCloudAdapter
    agent: OpsTeamsAgent
    auth_config: AgentAuthConfiguration


def _connection_settings(settings: Settings) -> dict[str, Any]:
    secret = settings.bot_app_password.get_secret_value() if settings.bot_app_password else None
    return {"CLIENTID": settings.bot_app_id, "CLIENTSECRET": secret, "TENANTID": settings.bot_tenant_id,
            "AUTHTYPE": "ClientSecret", "ANONYMOUS_ALLOWED": settings.bot_app_id is None and settings.teams_anonymous_dev}


def make_teams_bot(settings: Settings, runtime: Runtime, store: ConversationStore, *, workflow: WorkflowKind) -> TeamsBot | None:
    """The bot when it is configured (credentials, or explicit anonymous dev mode), else ``None``."""
    if settings.bot_app_id is None and not settings.teams_anonymous_dev:
        return None
    connections = MsalConnectionManager(CONNECTIONS={"SERVICE_CONNECTION": {"SETTINGS": _connection_settings(settings)}})
    # With real tokens, replies may only go to Microsoft's channel hosts (the SDK's default list).
    validator = OutboundHostValidator(enabled=settings.bot_app_id is not None)
    adapter = FlaskCloudAdapter(connection_manager=connections, host_validator=validator)
    adapter.on_turn_error = on_turn_error
    agent = OpsTeamsAgent(runtime, store, workflow=workflow, reply_window_seconds=settings.teams_reply_window_seconds,
                          history_limit=settings.history_max_messages)
    return TeamsBot(adapter=adapter, agent=agent, auth_config=connections.get_default_connection_configuration())


def _activity_body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise RequestError(400, "invalid_json", "The request body must be a Bot Framework Activity (a JSON object).")
    try:
        Activity.model_validate(body)
    except ValidationError as error:
        where = ".".join(str(part) for part in error.errors()[0]["loc"])
        raise RequestError(400, "invalid_activity", f"The Activity is invalid at '{where}'.") from None
    return body


def _to_flask(response: HttpResponse) -> Response:
    if response.body is None:
        return Response(status=response.status_code)
    out = jsonify(response.body)
    out.status_code = response.status_code
    return out


@teams_bot.post("/api/messages")
def messages() -> Response:
    state = get_state()
    bot = state.bot
    if bot is None:
        raise RequestError(503, "bot_not_configured", "The Teams endpoint is not configured: set BOT_APP_ID, "
                           "BOT_APP_PASSWORD and BOT_TENANT_ID (or TEAMS_ANONYMOUS_DEV=true for local testing).")
    timeout = state.settings.request_timeout_seconds + 10
    claims = state.loop.submit(authorize_bot_request(request.headers.get("Authorization"), bot.auth_config), timeout=30)
    activity_request = _ActivityRequest(request.method, dict(request.headers), _activity_body(), claims)
    return _to_flask(state.loop.submit(bot.adapter.process_request(activity_request, bot.agent), timeout=timeout))
