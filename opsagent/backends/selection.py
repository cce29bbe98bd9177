"""``make_backends``: pick demo or real per domain from settings, and collect what must be closed.

* ServiceNow is real when SERVICENOW_INSTANCE_URL is set (with a credential, else ConfigError).
* Log Analytics is real when LOG_ANALYTICS_WORKSPACE_ID is set.
* Health is live when any of SNOWFLAKE_STATUS_URL, DATABRICKS_STATUS_URL, DATABRICKS_HOST or
  AZURE_SUBSCRIPTION_ID is set. Live then covers all three platforms: status pages default to the
  vendors' public pages and Azure without a subscription reports "unknown" with a warning saying
  what to set. Mixing demo data into a live health report would present invented outages as real.

Anything not configured uses the demo backend from ``demo_factory`` (called at most once, and
only when some domain needs it). Half-configured pairs fail at start-up with a ``ConfigError``
naming the missing variable. Secrets stay ``SecretStr`` until the request that uses them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from azure.core.credentials_async import AsyncTokenCredential
from azure.identity.aio import DefaultAzureCredential

from opsagent.backends.base import Backends, Clock, HealthBackend, PipelineRunsBackend, ServiceNowBackend
from opsagent.backends.http import RetryPolicy
from opsagent.backends.log_analytics import LogAnalyticsPipelineRunsBackend
from opsagent.backends.service_health import LiveHealthBackend
from opsagent.backends.servicenow import HttpServiceNowBackend
from opsagent.backends.servicenow_auth import MISSING_SERVICENOW_CREDENTIAL
from opsagent.errors import ConfigError
from opsagent.settings import Settings

DemoFactory = Callable[[Settings, Clock], Backends]


class _Closable(Protocol):
    async def aclose(self) -> None: ...


BackendT = TypeVar("BackendT", bound=_Closable)


def make_backends(
    settings: Settings,
    *,
    clock: Clock,
    demo_factory: DemoFactory,
    credential: AsyncTokenCredential | None = None,
) -> Backends:
    """Build the backends one runtime uses.

    Args:
        settings: the validated settings.
        clock: "now" for reports and demo data.
        demo_factory: builds the demo (SQLite) backends; used for every unconfigured domain.
        credential: Azure credential shared by Log Analytics and Resource Health; by default one
            ``DefaultAzureCredential`` is created when either needs it, and closed with the backends.

    Raises:
        ConfigError: a backend is half-configured (names the missing variable).
    """
    check_backend_settings(settings)
    policy = RetryPolicy.from_settings(settings)
    real_servicenow = bool(settings.servicenow_instance_url)
    real_pipelines = bool(settings.log_analytics_workspace_id)
    live_health = is_live_health(settings)
    demo = None if real_servicenow and real_pipelines and live_health else demo_factory(settings, clock)
    closers: list[Callable[[], Awaitable[None]]] = list(demo.closers) if demo else []
    owned_credential = None
    if credential is None and (real_pipelines or settings.azure_subscription_id):
        credential = owned_credential = DefaultAzureCredential()

    servicenow: ServiceNowBackend = demo.servicenow if demo and not real_servicenow else _closing(
        HttpServiceNowBackend.from_settings(settings, policy=policy), closers)
    pipelines: PipelineRunsBackend = demo.pipelines if demo and not real_pipelines else _closing(
        LogAnalyticsPipelineRunsBackend.from_settings(settings, credential=credential, policy=policy,
                                                      clock=clock), closers)
    health: HealthBackend = demo.health if demo and not live_health else _closing(
        LiveHealthBackend.from_settings(settings, clock=clock, credential=credential, policy=policy), closers)
    if owned_credential is not None:
        closers.append(owned_credential.close)  # last: the clients above use it until they are closed
    return Backends(servicenow=servicenow, pipelines=pipelines, health=health, closers=closers)


def _closing(backend: BackendT, closers: list[Callable[[], Awaitable[None]]]) -> BackendT:
    closers.append(backend.aclose)
    return backend


def is_live_health(settings: Settings) -> bool:
    return bool(settings.snowflake_status_url or settings.databricks_status_url
                or settings.databricks_host or settings.azure_subscription_id)


def check_backend_settings(settings: Settings) -> None:
    """Reject settings that configure half of something, naming what is missing."""
    s = settings
    pairs = [
        ("SERVICENOW_USERNAME", s.servicenow_username, "SERVICENOW_PASSWORD", s.servicenow_password),
        ("SERVICENOW_CLIENT_ID", s.servicenow_client_id, "SERVICENOW_CLIENT_SECRET", s.servicenow_client_secret),
        ("DATABRICKS_HOST", s.databricks_host, "DATABRICKS_TOKEN", s.databricks_token),
    ]
    for name_a, value_a, name_b, value_b in pairs:
        if bool(value_a) != bool(value_b):
            present, missing = (name_a, name_b) if value_a else (name_b, name_a)
            raise ConfigError(f"{present} is set but {missing} is not; set both or neither")
    servicenow_credential = s.servicenow_username or s.servicenow_client_id or s.servicenow_token
    if servicenow_credential and not s.servicenow_instance_url:
        raise ConfigError("ServiceNow credentials are set but SERVICENOW_INSTANCE_URL is not "
                          "(e.g. https://dev12345.service-now.com)")
    if s.servicenow_instance_url and not servicenow_credential:
        raise ConfigError(MISSING_SERVICENOW_CREDENTIAL)
    if s.azure_resource_ids and not s.azure_subscription_id:
        raise ConfigError("AZURE_RESOURCE_IDS is set but AZURE_SUBSCRIPTION_ID is not; Resource Health needs both")
