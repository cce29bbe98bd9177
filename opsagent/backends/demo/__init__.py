"""The demo backends (embedded default): a realistic data set in SQLite, built on first use.

``make_demo_backends(settings, clock)`` wires one ``DemoStore`` (``settings.data_dir/demo.sqlite``)
into the three readers. The data set is described for users in ``docs/demo-data.md``; it is
seeded from ``data/*.json`` by ``seed.py`` with times relative to the clock's "now".
"""

from __future__ import annotations

from opsagent.backends.base import Backends, Clock
from opsagent.backends.demo.health import DemoHealthBackend
from opsagent.backends.demo.pipelines import DemoPipelineRunsBackend
from opsagent.backends.demo.servicenow import DemoServiceNowBackend
from opsagent.backends.demo.store import DemoStore
from opsagent.settings import Settings

__all__ = [
    "DemoHealthBackend",
    "DemoPipelineRunsBackend",
    "DemoServiceNowBackend",
    "DemoStore",
    "make_demo_backends",
]


def make_demo_backends(settings: Settings, clock: Clock) -> Backends:
    """All three backends over the demo data set; the database is built lazily by the first query."""
    store = DemoStore(settings.data_dir, clock)
    return Backends(
        servicenow=DemoServiceNowBackend(store),
        pipelines=DemoPipelineRunsBackend(store),
        health=DemoHealthBackend(store),
        closers=[store.aclose],
    )
