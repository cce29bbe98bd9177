"""ServiceNow credentials for ``HttpServiceNowBackend`` (``backends.servicenow``).

Sits between ``settings`` and the ServiceNow client: ``make_servicenow_auth`` picks the credential
(a static bearer token, an OAuth client — client credentials or password grant — or basic auth),
and the client asks it for an ``Authorization`` header per attempt. An OAuth token is fetched
from ``/oauth_token.do`` lazily, refreshed before expiry and once after a 401; a static
credential cannot be fixed by retrying. Token requests go through ``backends.http`` retries.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping

import httpx
from pydantic import SecretStr

from opsagent.backends.http import RetryPolicy, request_json
from opsagent.backends.records import to_float
from opsagent.errors import BackendResponseError, ConfigError
from opsagent.settings import Settings

BACKEND = "ServiceNow"
MISSING_SERVICENOW_CREDENTIAL = (
    "SERVICENOW_INSTANCE_URL is set but no credential is: set SERVICENOW_USERNAME and SERVICENOW_PASSWORD, "
    "or SERVICENOW_CLIENT_ID and SERVICENOW_CLIENT_SECRET, or SERVICENOW_TOKEN"
)
_TOKEN_MARGIN_SECONDS = 60.0


class OAuthToken:
    """An OAuth access token from ``/oauth_token.do``, fetched lazily and refreshed before expiry."""

    def __init__(self, form: Mapping[str, str | SecretStr], *, instance_url: str, policy: RetryPolicy) -> None:
        self._form = dict(form)
        self._url = f"{instance_url}/oauth_token.do"
        self._policy = policy
        self._token: SecretStr | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    async def header(self, client: httpx.AsyncClient) -> str:
        async with self._lock:  # one fetch even when many tool calls start at once
            if self._token is None or self._policy.clock() >= self._expires_at:
                self._token = await self._fetch(client)
            return f"Bearer {self._token.get_secret_value()}"

    def invalidate(self) -> bool:
        """Forget the token after a 401; ``True`` because a fresh token may fix it."""
        self._token = None
        return True

    async def _fetch(self, client: httpx.AsyncClient) -> SecretStr:
        async def build() -> httpx.Request:
            form = {k: v.get_secret_value() if isinstance(v, SecretStr) else v for k, v in self._form.items()}
            return client.build_request("POST", self._url, data=form, headers={"Accept": "application/json"})

        response = await request_json(client, build, policy=self._policy, backend=BACKEND, query="oauth token")
        body = response.body if isinstance(response.body, dict) else {}
        if not body.get("access_token"):
            raise BackendResponseError("ServiceNow token endpoint returned no access_token", backend=BACKEND)
        expires_in = to_float(body.get("expires_in"), default=1800.0)
        self._expires_at = self._policy.clock() + max(expires_in - _TOKEN_MARGIN_SECONDS, 0.0)
        return SecretStr(str(body["access_token"]))


class StaticAuth:
    """Basic auth or a pre-issued bearer token; a 401 cannot be fixed by retrying."""

    def __init__(self, secret: SecretStr, *, username: str | None = None) -> None:
        self._secret = secret
        self._username = username

    async def header(self, client: httpx.AsyncClient) -> str:
        if self._username is None:
            return f"Bearer {self._secret.get_secret_value()}"
        raw = f"{self._username}:{self._secret.get_secret_value()}".encode()
        return "Basic " + base64.b64encode(raw).decode()

    def invalidate(self) -> bool:
        return False


def make_servicenow_auth(settings: Settings, *, policy: RetryPolicy) -> OAuthToken | StaticAuth:
    """Pick the credential from settings: token > OAuth client > basic (pairs are checked by ``selection``).

    Raises:
        ConfigError: no usable credential is configured.
    """
    s = settings
    if s.servicenow_token:
        return StaticAuth(s.servicenow_token)
    if s.servicenow_client_id and s.servicenow_client_secret:
        form: dict[str, str | SecretStr] = {"client_id": s.servicenow_client_id,
                                            "client_secret": s.servicenow_client_secret}
        if s.servicenow_username and s.servicenow_password:
            form |= {"grant_type": "password", "username": s.servicenow_username, "password": s.servicenow_password}
        else:
            form["grant_type"] = "client_credentials"
        return OAuthToken(form, instance_url=(s.servicenow_instance_url or "").rstrip("/"), policy=policy)
    if s.servicenow_username and s.servicenow_password:
        return StaticAuth(s.servicenow_password, username=s.servicenow_username)
    raise ConfigError(MISSING_SERVICENOW_CREDENTIAL)
