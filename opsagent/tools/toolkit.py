"""Toolsets: a specialist's tools as one small class, turned into the MAF function tools it registers.

A toolset (``ServiceNowTools``, ``LogAnalyticsTools``, ``HealthTools``) has one async method per
tool, named as the tool: its signature gives the parameters' types and defaults, its docstring is
the tool's description. Each parameter's description comes from the catalog (``FilterSpec.help``),
so what a model reads about a filter is written once, next to its vocabulary. The specialists load
``factory(backends, *, clock, max_rows) -> list[FunctionTool]``; each toolset module keeps that
factory as a one-line wrapper around ``Toolset.functions``.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from agent_framework import FunctionTool, tool
from pydantic import BaseModel, Field, create_model

from opsagent.backends.base import Backends, Clock
from opsagent.tools.catalog import ToolSpec, tools_of

ToolMethod = Callable[..., Awaitable[str]]


class Toolset:
    """The tools of one specialist, bound to the backends, the clock and the row cap (no globals)."""

    specialist: ClassVar[str] = ""

    def __init__(self, backends: Backends, *, clock: Clock, max_rows: int) -> None:
        self.backends = backends
        self.clock = clock
        self.max_rows = max_rows

    def functions(self) -> list[FunctionTool]:
        """One function tool per catalogued tool of this specialist, in catalog order."""
        return [function_tool(getattr(self, spec.name), spec, max_rows=self.max_rows)
                for spec in tools_of(self.specialist)]


def function_tool(method: ToolMethod, spec: ToolSpec, *, max_rows: int) -> FunctionTool:
    """``method`` as a MAF tool named and described by ``spec`` (the docstring says what it does)."""
    return tool(method, name=spec.name, description=inspect.cleandoc(method.__doc__ or spec.purpose),
                schema=input_model(method, spec, max_rows=max_rows))


def input_model(method: ToolMethod, spec: ToolSpec, *, max_rows: int) -> type[BaseModel]:
    """The arguments' model: the method's types and defaults, the catalog's descriptions.

    Raises:
        ValueError: a parameter the catalog does not describe (every parameter is a catalogued filter).
    """
    hints = typing.get_type_hints(method)
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(method).parameters.items():
        described = spec.filter(name)
        if described is None:
            raise ValueError(f"{spec.name}: parameter {name!r} is not in the tool catalog")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], Field(default, description=described.describe(max_rows=max_rows)))
    return create_model(f"{spec.name}_input", **fields)
