"""Shared fixtures: settings on a temporary data dir, and runtimes driven by scripted models."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from opsagent.agents.specialists import SPECIALISTS, SpecialistSpec
from opsagent.backends.base import Backends
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import ENV_FILE_VARIABLE, Settings, load_settings
from tests.fakes import TEST_SPECIALISTS_TOOLS, ScriptedModels, Script, recording_tools

FIXED_NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


def pytest_configure(config: pytest.Config) -> None:
    """A developer's .env must not reach the tests (or the servers and CLIs they start)."""
    os.environ[ENV_FILE_VARIABLE] = ""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings({}, env_file=None, data_dir=tmp_path / "var")


class _UnusedBackend:
    kind = "unused"


def unused_backends() -> Backends:
    """Backends for runtimes whose tools never touch one (scripted specialists)."""
    return Backends(servicenow=_UnusedBackend(), pipelines=_UnusedBackend(), health=_UnusedBackend())  # type: ignore[arg-type]


def scripted_runtime(settings: Settings, scripts: dict[str, Script], *, tool_rows: dict[str, list[dict]] | None = None,
                     **overrides) -> tuple[Runtime, ScriptedModels]:
    """A runtime whose every role answers from a script and whose tools only echo (or return ``tool_rows``)."""
    models = ScriptedModels(scripts)
    specs = [
        SpecialistSpec(spec.name, spec.config_file, recording_tools(*TEST_SPECIALISTS_TOOLS[spec.name], rows=tool_rows))
        for spec in SPECIALISTS
    ]
    runtime = build_runtime(
        settings.model_copy(update=overrides), models=models, backends=unused_backends(),
        clock=lambda: FIXED_NOW, specialists=specs,
    )
    return runtime, models


@pytest.fixture
def make_scripted_runtime(settings: Settings) -> Callable[..., tuple[Runtime, ScriptedModels]]:
    def make(scripts: dict[str, Script], **overrides) -> tuple[Runtime, ScriptedModels]:
        return scripted_runtime(settings, scripts, **overrides)  # tool_rows=… passes through

    return make
