"""Tracing is MAF's own instrumentation: off by default (it costs CPU with no exporter), on with ENABLE_OTEL."""

from __future__ import annotations

from agent_framework import observability

from opsagent.settings import load_settings
from opsagent.telemetry import configure_tracing


def test_tracing_is_off_by_default_and_on_with_enable_otel():
    configure_tracing(load_settings({}, env_file=None))
    assert observability.OBSERVABILITY_SETTINGS.ENABLED is False
    configure_tracing(load_settings({"ENABLE_OTEL": "true"}, env_file=None))
    try:
        assert observability.OBSERVABILITY_SETTINGS.ENABLED is True  # even after the sticky disable above
    finally:
        configure_tracing(load_settings({}, env_file=None))
    assert observability.OBSERVABILITY_SETTINGS.ENABLED is False
