"""LLM-facing tools: typed MAF function tools over the backends, one module per specialist.

Each factory has the signature ``factory(backends, *, clock, max_rows) -> list[FunctionTool]`` and
closes over its backend (no globals). Every tool returns the ``ToolResult`` envelope as text
(``envelope.py``), shaped by ``rendering.py``; time phrases are resolved by ``timewindow.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from agent_framework import FunctionTool

from opsagent.tools.log_analytics import make_log_analytics_tools
from opsagent.tools.service_health import make_service_health_tools
from opsagent.tools.servicenow import make_servicenow_tools

__all__ = ["TOOL_FACTORIES", "make_log_analytics_tools", "make_service_health_tools", "make_servicenow_tools"]

TOOL_FACTORIES: Mapping[str, Callable[..., list[FunctionTool]]] = MappingProxyType({
    "servicenow": make_servicenow_tools,
    "log_analytics": make_log_analytics_tools,
    "service_health": make_service_health_tools,
})
"""Specialist name -> tool factory, as the specialist registry names them."""
