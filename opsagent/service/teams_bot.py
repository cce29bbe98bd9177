"""Blueprint: ``POST /api/messages``, the Teams / Bot Framework endpoint (Microsoft 365 Agents SDK).

The SDK's ``HttpAdapterBase`` is framework-agnostic: we wrap the Flask request in an object that
satisfies its ``HttpRequestProtocol``, validate the caller's JWT first (``auth.py``), and run
``process_request`` on the app's loop thread. With bot credentials (``BOT_APP_ID``...) every call
needs a valid Bot Framework token; without them the endpoint is not enabled (404, so monitors do
not read it as an outage), unless ``TEAMS_ANONYMOUS_DEV=true`` (local dev: no tokens in, none out).
Everything the SDK would choke on (a ``serviceUrl`` that is not an http(s) URL with a host and a
valid port) is a 400 before any work, and the SDK's own refusals get the service's JSON error shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from microsoft_agents.activity import Activity, ActivityTypes
from microsoft_agents.authentication.msal import MsalConnectionManager
from microsoft_agents.hosting.core import AgentAuthConfiguration, ClaimsIdentity, HttpAdapterBase
from microsoft_agents.hosting.core.http import HttpResponse
from microsoft_agents.hosting.core.security import OutboundHostValidator
from pydantic import ValidationError

from opsagent.contracts.results import WorkflowKind
from opsagent.errors import RequestError
from opsagent.runtime import Runtime
from opsagent.service.admission import Admission
from opsagent.service.auth import authorize_bot_request
from opsagent.service.follow_ups import FollowUps, PendingStore
from opsagent.service.history import ConversationStore
from opsagent.service.state import get_state
from opsagent.service.teams_agent import OpsTeamsAgent, on_turn_error
from opsagent.service.validation import check_text, json_object_body
from opsagent.settings import Settings

teams_bot = Blueprint("teams_bot", __name__)
TEAMS_EXTENSION_KEY = "opsagent.teams"
"""``app.extensions`` key of the app's ``TeamsBot`` (``None`` when Teams is not configured)."""

# A turn may take the request deadline plus this (replies and typing included) before it is cancelled.
TURN_MARGIN_SECONDS = 10.0


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


def teams_bot_of(app: Flask) -> TeamsBot | None:
    """The app's Teams bot, or ``None`` when Teams is not enabled."""
    return app.extensions.get(TEAMS_EXTENSION_KEY)


def _connection_settings(settings: Settings) -> dict[str, Any]:
    secret = settings.bot_app_password.get_secret_value() if settings.bot_app_password else None
    # VALIDATE_ISSUER: accept only the Bot Connector issuer and the Entra issuers of our tenant (plus the
    # SDK's Microsoft first-party ones); the SDK leaves this check off unless asked.
    return {"CLIENTID": settings.bot_app_id, "CLIENTSECRET": secret, "TENANTID": settings.bot_tenant_id,
            "AUTHTYPE": "ClientSecret", "ANONYMOUS_ALLOWED": settings.bot_app_id is None and settings.teams_anonymous_dev,
            "VALIDATE_ISSUER": True}


def make_teams_bot(settings: Settings, runtime: Runtime, store: ConversationStore, *, workflow: WorkflowKind,
                   admission: Admission, run_id: str) -> TeamsBot | None:
    """The bot when it is configured (credentials, or explicit anonymous dev mode), else ``None``."""
    if settings.bot_app_id is None and not settings.teams_anonymous_dev:
        return None
    connections = MsalConnectionManager(CONNECTIONS={"SERVICE_CONNECTION": {"SETTINGS": _connection_settings(settings)}})
    # With real tokens, replies may only go to Microsoft's channel hosts (the SDK's default list).
    # Anonymous dev mode turns that check off: replies go to any serviceUrl (see the start-up warning).
    validator = OutboundHostValidator(enabled=settings.bot_app_id is not None)
    adapter = FlaskCloudAdapter(connection_manager=connections, host_validator=validator)
    adapter.on_turn_error = on_turn_error
    follow_ups = FollowUps(adapter, PendingStore(store.path, run_id=run_id))
    agent = OpsTeamsAgent(runtime, store, workflow=workflow, reply_window_seconds=settings.teams_reply_window_seconds,
                          history_limit=settings.history_max_messages, admission=admission, follow_ups=follow_ups)
    return TeamsBot(adapter=adapter, agent=agent, auth_config=connections.get_default_connection_configuration())


def _message_fields(activity: Activity) -> dict[str, str | None]:
    """What a message turn needs to answer and reply (and to store the turn), by wire name."""
    def id_of(account: Any) -> str | None:
        return getattr(account, "id", None)

    return {"serviceUrl": activity.service_url, "from.id": id_of(activity.from_property),
            "recipient.id": id_of(activity.recipient), "conversation.id": id_of(activity.conversation),
            "text": activity.text}


def _check_message(activity: Activity) -> None:
    """Refuse a message activity that could not be answered or stored, before any work is done."""
    for where, value in _message_fields(activity).items():
        if where != "text" and not (value or "").strip():
            raise RequestError(400, "invalid_activity", f"A message Activity needs '{where}'.", param=where)
        if value is not None:
            check_text(value, where)


def service_url_problem(value: str) -> str | None:
    """Why a ``serviceUrl`` cannot be replied to (the SDK's connector raises a bare ValueError), or ``None``."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        return "is not a valid URL (bad host or port)"
    if parts.scheme not in ("http", "https"):
        return "must be an http or https URL"
    if not parts.hostname:
        return "has no host"
    if parts.username is not None or any(ch.isspace() or not ch.isprintable() for ch in value):
        return "must be a plain URL (no credentials, spaces or control characters)"
    return None


def _check_service_url(activity: Activity) -> None:
    if activity.service_url is not None and (problem := service_url_problem(activity.service_url)):
        raise RequestError(400, "invalid_activity", f"'serviceUrl' {problem}.", param="serviceUrl")


def _activity_body() -> dict[str, Any]:
    body = json_object_body("The request body must be a Bot Framework Activity (a JSON object).")
    try:
        activity = Activity.model_validate(body)
    except ValidationError as error:
        where = ".".join(str(part) for part in error.errors()[0]["loc"])
        raise RequestError(400, "invalid_activity", f"The Activity is invalid at '{where}'.") from None
    if activity.type == ActivityTypes.message:
        _check_message(activity)
    _check_service_url(activity)
    return body


_SDK_REFUSALS = {400: "invalid_activity", 401: "unauthorized", 405: "method_not_allowed", 415: "unsupported_media_type"}


def _to_flask(response: HttpResponse) -> Response:
    """The SDK's answer; its refusals (``{"error": "..."}``, e.g. the host validator's 401) in our error shape."""
    if response.status_code >= 400 and isinstance(response.body, dict) and isinstance(response.body.get("error"), str):
        code = _SDK_REFUSALS.get(response.status_code, "bot_request_refused")
        raise RequestError(response.status_code, code, response.body["error"])
    if response.body is None:
        return Response(status=response.status_code)
    out = jsonify(response.body)
    out.status_code = response.status_code
    return out


@teams_bot.post("/api/messages")
def messages() -> Response:
    state = get_state()
    bot = teams_bot_of(current_app)
    if bot is None:
        raise RequestError(404, "teams_not_enabled", "The Teams endpoint is not enabled on this server: set BOT_APP_ID, "
                           "BOT_APP_PASSWORD and BOT_TENANT_ID (or TEAMS_ANONYMOUS_DEV=true for local testing).")
    timeout = state.settings.request_timeout_seconds + TURN_MARGIN_SECONDS
    claims = state.loop.submit(authorize_bot_request(request.headers.get("Authorization"), bot.auth_config), timeout=30)
    activity_request = _ActivityRequest(request.method, dict(request.headers), _activity_body(), claims)
    return _to_flask(state.loop.submit(bot.adapter.process_request(activity_request, bot.agent), timeout=timeout))
