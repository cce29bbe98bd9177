"""Tracing: MAF's own OpenTelemetry instrumentation, off unless ENABLE_OTEL=true.

MAF instruments by default; with no exporter the spans go nowhere but still cost CPU on every
superstep, agent run and tool call (≈ 20 % of an offline answer), so OpsAgent turns it off unless
asked. With ENABLE_OTEL=true the exporters come from the standard OTEL_* variables.
"""

from __future__ import annotations

from agent_framework.observability import configure_otel_providers, disable_instrumentation, enable_instrumentation

from opsagent.settings import Settings

SERVICE_NAME = "opsagent"


def configure_tracing(settings: Settings) -> None:
    """Apply the process-wide tracing choice; called once when a runtime is built."""
    if settings.enable_otel:
        enable_instrumentation(force=True)  # undo an earlier (sticky) disable in this process
        configure_otel_providers(service_name=SERVICE_NAME)
    else:
        disable_instrumentation()
