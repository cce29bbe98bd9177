"""The interface agents need from a model provider (implemented in ``llm/providers.py`` and by tests)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from agent_framework import SupportsChatGetResponse
from pydantic import BaseModel


class ModelProvider(Protocol):
    """Hands each agent role its chat client and says, honestly, which model answers."""

    provider: str
    model: str

    def client_for(self, role: str) -> SupportsChatGetResponse:
        """The chat client for the agent named ``role`` (its YAML ``name``)."""
        ...

    def response_format(self, model: type[BaseModel], *, agents: Collection[str] = ()) -> type[BaseModel] | dict[str, Any]:
        """What to pass as ``response_format`` for a structured-output role.

        ``agents``: the registered specialists, so a plan's ``agent`` can be sent as an enum that a
        grammar-constrained server enforces.
        """
        ...

    async def aclose(self) -> None:
        """Close the connections the clients hold (the runtime's end); nothing for clients without any."""
        ...
