"""Fixtures for the local rules model: its knowledge, role clients and runtimes on the demo data."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from opsagent.agents.config import AgentConfig, load_agent_config
from opsagent.agents.specialists import SPECIALISTS, SpecialistSpec
from opsagent.llm.local_client import LocalChatClient
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import CONFIG_DIR, Settings, load_settings


def role_config(file_name: str) -> AgentConfig:
    """A role's YAML with the registry filled in, as ``agents/roles.py`` does it."""
    config = load_agent_config(CONFIG_DIR / file_name)
    listing = "\n".join(f"- {spec.name}: specialist." for spec in SPECIALISTS)
    modes = {name: mode.model_copy(update={"instructions": mode.instructions.replace("{specialists}", listing)})
             for name, mode in (config.modes or {}).items()} or None
    instructions = (config.instructions or "").replace("{specialists}", listing) or None
    return config.model_copy(update={"instructions": instructions, "modes": modes})


@pytest.fixture
def local_client() -> Callable[[str], LocalChatClient]:
    def make(file_name: str) -> LocalChatClient:
        return LocalChatClient(role_config(file_name))

    return make


@pytest.fixture
def local_settings(tmp_path: Path) -> Settings:
    return load_settings({}, env_file=None, data_dir=tmp_path / "var", llm_provider="local")


@pytest.fixture
def local_runtime(local_settings: Settings) -> Callable[..., Runtime]:
    """A runtime on the local model and the demo data; ``specialists=`` swaps tool factories."""
    def make(specialists: Sequence[SpecialistSpec] = SPECIALISTS, **overrides) -> Runtime:
        return build_runtime(local_settings.model_copy(update=overrides), specialists=specialists)

    return make
