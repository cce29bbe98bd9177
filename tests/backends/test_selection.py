"""make_backends: demo or real per domain, closers registered, half-configured settings refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from datetime import datetime, timezone
from typing import Any

import pytest
from azure.identity.aio import DefaultAzureCredential

from opsagent.backends.base import Backends, Clock
from opsagent.backends.demo import make_demo_backends
from opsagent.backends.selection import make_backends
from opsagent.errors import ConfigError
from opsagent.settings import Settings
from tests.backends.fake_servers import FakeCredential

NOW = datetime(2025, 1, 10, 3, 0, tzinfo=timezone.utc)
WORKSPACE = "0b9d2c4e-1111-4a2b-9c3d-5e6f7a8b9c0d"


@dataclass
class DemoKind:
    kind: str = "demo"


@dataclass
class RecordingDemoFactory:
    """Stands in for the SQLite demo factory: counts calls and whether its closer ran."""

    calls: list[Settings] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)

    def __call__(self, settings: Settings, clock: Clock) -> Backends:
        self.calls.append(settings)

        async def close() -> None:
            self.closed.append("demo")

        return Backends(servicenow=DemoKind(), pipelines=DemoKind(), health=DemoKind(), closers=[close])  # type: ignore[arg-type]


def clock() -> datetime:
    return NOW


@pytest.fixture
def demo() -> RecordingDemoFactory:
    return RecordingDemoFactory()


async def test_nothing_configured_is_all_demo(demo: RecordingDemoFactory) -> None:
    backends = make_backends(Settings(), clock=clock, demo_factory=demo)
    assert backends.describe() == {"servicenow": "demo", "log_analytics": "demo", "service_health": "demo"}
    assert len(demo.calls) == 1
    await backends.aclose()
    assert demo.closed == ["demo"]


async def test_servicenow_alone_is_real(demo: RecordingDemoFactory) -> None:
    settings = Settings(servicenow_instance_url="https://dev1.service-now.com", servicenow_token="tok")
    backends = make_backends(settings, clock=clock, demo_factory=demo)
    assert backends.describe() == {"servicenow": "servicenow", "log_analytics": "demo", "service_health": "demo"}
    assert len(backends.closers) == 2
    await backends.aclose()
    assert demo.closed == ["demo"]


async def test_mixes_with_the_real_demo_factory(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, servicenow_instance_url="https://dev1.service-now.com", servicenow_token="t")
    backends = make_backends(settings, clock=clock, demo_factory=make_demo_backends)
    assert backends.describe() == {"servicenow": "servicenow", "log_analytics": "demo", "service_health": "demo"}
    await backends.aclose()


async def test_everything_real_never_builds_the_demo(demo: RecordingDemoFactory) -> None:
    settings = Settings(
        servicenow_instance_url="https://dev1.service-now.com", servicenow_username="u", servicenow_password="p",
        log_analytics_workspace_id=WORKSPACE, snowflake_status_url="https://status.snowflake.com",
    )
    backends = make_backends(settings, clock=clock, demo_factory=demo, credential=FakeCredential())
    assert backends.describe() == {"servicenow": "servicenow", "log_analytics": "log_analytics", "service_health": "live"}
    assert demo.calls == [] and len(backends.closers) == 3
    await backends.aclose()


@pytest.mark.parametrize(
    "settings",
    [{"databricks_host": "https://adb-1.azuredatabricks.net", "databricks_token": "dapi"},
     {"azure_subscription_id": "6a1b2c3d-0000-4000-8000-000000000001"},
     {"databricks_status_url": "https://status.databricks.com"}],
    ids=["databricks-host", "azure-subscription", "status-url"],
)
async def test_any_health_source_makes_health_live(demo: RecordingDemoFactory, settings: dict[str, Any]) -> None:
    backends = make_backends(Settings(**settings), clock=clock, demo_factory=demo, credential=FakeCredential())
    assert backends.describe()["service_health"] == "live"
    assert backends.describe()["servicenow"] == "demo"
    await backends.aclose()


async def test_default_azure_credential_is_created_shared_and_closed_last(demo: RecordingDemoFactory) -> None:
    settings = Settings(log_analytics_workspace_id=WORKSPACE, azure_subscription_id="6a1b2c3d-0000-4000-8000-000000000001")
    backends = make_backends(settings, clock=clock, demo_factory=demo)
    credential = getattr(backends.closers[-1], "__self__", None)
    assert isinstance(credential, DefaultAzureCredential)
    assert backends.pipelines._client._config.credential is credential  # type: ignore[attr-defined]
    await backends.aclose()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"servicenow_instance_url": "https://dev1.service-now.com"}, "SERVICENOW_INSTANCE_URL is set but no credential"),
        ({"servicenow_instance_url": "https://x", "servicenow_username": "u"},
         "SERVICENOW_USERNAME is set but SERVICENOW_PASSWORD is not"),
        ({"servicenow_instance_url": "https://x", "servicenow_client_secret": "s"},
         "SERVICENOW_CLIENT_SECRET is set but SERVICENOW_CLIENT_ID is not"),
        ({"servicenow_token": "t"}, "SERVICENOW_INSTANCE_URL is not"),
        ({"databricks_host": "https://adb-1.azuredatabricks.net"}, "DATABRICKS_HOST is set but DATABRICKS_TOKEN is not"),
        ({"azure_resource_ids": "/subscriptions/x/rg"}, "AZURE_RESOURCE_IDS is set but AZURE_SUBSCRIPTION_ID is not"),
    ],
    ids=["no-credential", "user-only", "secret-only", "no-instance", "host-only", "resources-only"],
)
def test_half_configured_settings_are_refused_before_anything_is_built(
    demo: RecordingDemoFactory, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        make_backends(Settings(**settings), clock=clock, demo_factory=demo)
    assert demo.calls == []
