"""Fixtures for the tool tests: the demo backends on a fixed clock, and a way to call a tool as MAF does."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from opsagent.backends.base import Backends
from opsagent.backends.demo import make_demo_backends
from opsagent.backends.demo.seed import ensure_database
from opsagent.settings import Settings
from opsagent.agents.specialists import SPECIALISTS
from opsagent.contracts.tool_result import ToolResult

DEMO_NOW = datetime(2025, 1, 10, 9, 30, tzinfo=UTC)
"""A Friday morning; the demo data is relative to it, so every expectation below is too."""

RunTool = Callable[..., Awaitable[ToolResult]]
RunToolText = Callable[..., Awaitable[str]]
DemoSql = Callable[..., list[tuple[Any, ...]]]


def minutes_from_now(moment: datetime) -> float:
    """The demo store's offset for ``moment``: minutes from ``DEMO_NOW`` (negative in the past)."""
    return (moment - DEMO_NOW).total_seconds() / 60


@pytest.fixture(scope="session")
def demo_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo-data")


@pytest.fixture
def demo_sql(demo_data_dir: Path) -> DemoSql:
    """``demo_sql(sql, *params)``: rows straight from the demo SQLite file, the oracle expected values come from.

    Times there are minute offsets from "now"; turn datetimes into them with ``minutes_from_now``.
    """
    path = ensure_database(demo_data_dir)

    def run(sql: str, *params: Any) -> list[tuple[Any, ...]]:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()

    return run


@pytest.fixture
def demo_backends(demo_data_dir: Path) -> Backends:
    return make_demo_backends(Settings(data_dir=demo_data_dir), lambda: DEMO_NOW)


@pytest.fixture
def run_tool_text(demo_backends: Backends) -> RunToolText:
    """``await run_tool_text(name, max_rows=20, **arguments)``: the tool's text, invoked the way MAF invokes it."""

    async def run(name: str, *, max_rows: int = 20, backends: Backends | None = None, **arguments: object) -> str:
        tools = {
            tool.name: tool
            for factory in (spec.load_tool_factory() for spec in SPECIALISTS)
            for tool in factory(backends or demo_backends, clock=lambda: DEMO_NOW, max_rows=max_rows)
        }
        contents = await tools[name].invoke(arguments=arguments)
        assert len(contents) == 1 and contents[0].type == "text"
        return contents[0].text

    return run


@pytest.fixture
def run_tool(run_tool_text: RunToolText) -> RunTool:
    """Like ``run_tool_text``, parsed back into the envelope (failing the test if it is not one)."""

    async def run(name: str, **kwargs: object) -> ToolResult:
        text = await run_tool_text(name, **kwargs)
        result = ToolResult.from_text(text)
        assert result is not None, text
        assert result.tool == name
        return result

    return run
