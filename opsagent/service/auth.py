"""Who may call: bearer API keys for the HTTP APIs, Bot Framework JWTs for the Teams endpoint.

API keys: when ``OPSAGENT_API_KEYS`` is set, ``/api/chat*``, ``/v1/*`` and ``/mcp`` (checked in
``mcp_server``, before the MCP SDK) need ``Authorization: Bearer <key>``; every configured key is
compared in constant time. Unset means
local dev mode (a warning at start-up). Teams: with bot credentials the token's signature,
audience and issuer are checked by the Agents SDK's ``JwtTokenValidator`` (issuer validation is
switched on in ``teams_bot``); its lifetime check is lenient (5 minutes of leeway, ``exp``
optional), so ``check_token_lifetime`` then requires ``exp`` and allows only ``CLOCK_SKEW_SECONDS``.
Anonymous calls are accepted only in explicit local-dev mode (``TEAMS_ANONYMOUS_DEV=true``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Mapping
from typing import Any

from microsoft_agents.hosting.core import AgentAuthConfiguration, ClaimsIdentity, JwtTokenValidator
from pydantic import SecretStr

from opsagent.errors import RequestError

logger = logging.getLogger(__name__)


def _bearer_token(header: str | None) -> str | None:
    scheme, _, token = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def key_scope(key: str) -> str:
    """A short, stable, non-reversible name for an API key (it scopes that key's conversations)."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def check_api_key(header: str | None, keys: list[SecretStr]) -> str | None:
    """Accept the request when no keys are configured or the bearer token matches one of them.

    Returns:
        The caller's scope (``key_scope`` of the matching key), or ``None`` in local dev mode.

    Raises:
        RequestError: 401 ``invalid_api_key`` otherwise (the message never echoes the token).
    """
    if not keys:
        return None
    token = _bearer_token(header)
    if token is None:
        raise RequestError(401, "invalid_api_key", "Missing API key: send 'Authorization: Bearer <key>'.")
    supplied = token.encode()
    matches = [hmac.compare_digest(supplied, key.get_secret_value().encode()) for key in keys]
    if not any(matches):
        raise RequestError(401, "invalid_api_key", "Invalid API key.")
    return key_scope(token)


async def authorize_bot_request(header: str | None, config: AgentAuthConfiguration) -> ClaimsIdentity:
    """The public-API equivalent of the SDK's private ``_authorize_request``.

    Raises:
        RequestError: 401 when the header is missing (and anonymous calls are not allowed) or the
            token does not validate; the reason is logged by the SDK, not sent to the caller.
    """
    validator = JwtTokenValidator(config)
    if not header:
        if config.ANONYMOUS_ALLOWED:
            return validator.get_anonymous_claims()
        raise RequestError(401, "unauthorized", "Authorization header not found.")
    token = _bearer_token(header)
    if token is None:
        raise RequestError(401, "unauthorized", "Authorization header must be 'Bearer <token>'.")
    try:
        identity = await validator.validate_token(token)
        check_token_lifetime(identity.claims, now=time.time())
    except Exception as error:  # PyJWT errors, ValueError, JWKS fetch failures: all mean "not accepted"
        logger.warning("Teams token refused (%s: %s)", type(error).__name__, error)
        raise RequestError(401, "unauthorized", "Invalid token or authentication failed.") from error
    return identity


CLOCK_SKEW_SECONDS = 60


def check_token_lifetime(claims: Mapping[str, Any], *, now: float) -> None:
    """Require a numeric ``exp`` in the future and any ``nbf`` in the past, give or take the clock skew.

    Raises:
        ValueError: naming the claim (logged, never sent to the caller).
    """
    expires = claims.get("exp")
    if not isinstance(expires, int | float) or isinstance(expires, bool):
        raise ValueError("the token has no numeric 'exp' claim")
    if expires + CLOCK_SKEW_SECONDS <= now:
        raise ValueError("the token has expired")
    starts = claims.get("nbf")
    if starts is not None and (not isinstance(starts, int | float) or starts - CLOCK_SKEW_SECONDS > now):
        raise ValueError("the token is not valid yet")
