"""Model providers: which chat client each agent talks to, chosen once from settings.

- ``azure_openai``: an Azure OpenAI deployment, with an API key or Microsoft Entra ID
  (``DefaultAzureCredential``), through MAF's ``OpenAIChatCompletionClient(azure_endpoint=...)``.
- ``openai``: OpenAI or any OpenAI-compatible server (Ollama, vLLM, LiteLLM) via ``base_url``.
- ``local``: the deterministic offline rules model; one client per role, configured by the role's YAML.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent_framework import SupportsChatGetResponse
from pydantic import BaseModel

from opsagent.agents.config import AgentConfig
from opsagent.errors import ConfigError
from opsagent.settings import Settings

AZURE_COGNITIVE_SCOPE = "https://cognitiveservices.azure.com/.default"


class ModelProvider(Protocol):
    """Hands each agent its chat client and says, honestly, which model answers."""

    provider: str
    model: str

    def client_for(self, config: AgentConfig) -> SupportsChatGetResponse: ...

    def response_format(self, model: type[BaseModel]) -> type[BaseModel] | dict[str, Any]:
        """What to pass as ``response_format`` for a structured-output role."""
        ...


# Keywords OpenAI's strict Structured Outputs rejects (Azure OpenAI refuses 'default' outright).
_UNSUPPORTED_STRICT_KEYWORDS = frozenset({"default", "minLength", "maxLength"})


def _strip_keywords(schema: Any) -> Any:
    """Drop unsupported keywords from every schema node (property *names* are left alone)."""
    if isinstance(schema, list):
        return [_strip_keywords(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            cleaned[key] = {name: _strip_keywords(sub) for name, sub in value.items()}
        elif key not in _UNSUPPORTED_STRICT_KEYWORDS:
            cleaned[key] = _strip_keywords(value)
    return cleaned


@functools.cache
def strict_response_format(model: type[BaseModel]) -> dict[str, Any]:
    """The model as an OpenAI strict ``json_schema`` response format that Azure OpenAI accepts.

    The openai library makes every property required and closes objects; it keeps pydantic's
    ``default`` values, which strict mode rejects, so those (and length limits) are removed here.
    Our own parser (``contracts/repair.py``) still validates the reply against the full model.
    Cached per model: building it costs milliseconds, and MAF passes the dict on unchanged.
    """
    from openai.lib._parsing._completions import type_to_response_format_param

    param = dict(type_to_response_format_param(model))
    json_schema = dict(param["json_schema"])
    json_schema["schema"] = _strip_keywords(json_schema["schema"])
    param["json_schema"] = json_schema
    return param


@dataclass
class SharedClientProvider:
    """One chat client (and its connection pool) for every agent: the real providers."""

    client: SupportsChatGetResponse
    provider: str
    model: str

    def client_for(self, config: AgentConfig) -> SupportsChatGetResponse:
        return self.client

    def response_format(self, model: type[BaseModel]) -> dict[str, Any]:
        return strict_response_format(model)


@dataclass
class LocalModelProvider:
    """The offline rules model: a client per role, because the role's YAML drives its rules."""

    config_dir: Path | None = None
    """Where the specialists' YAML lives (the planner roles read their vocabulary)."""
    provider: str = "local"
    model: str = "local-rules"
    _clients: dict[str, SupportsChatGetResponse] = field(default_factory=dict)

    def client_for(self, config: AgentConfig) -> SupportsChatGetResponse:
        from opsagent.llm.local_client import LocalChatClient

        if config.name not in self._clients:
            self._clients[config.name] = LocalChatClient(config, config_dir=self.config_dir)
        return self._clients[config.name]

    def response_format(self, model: type[BaseModel]) -> type[BaseModel]:
        """The local model reads the role's mode from the pydantic class itself."""
        return model


def _with_timeout(client: Any, settings: Settings) -> Any:
    """Bound every HTTP call to the model; the SDK's own retries stay small."""
    inner = getattr(client, "client", None)
    if inner is not None and hasattr(inner, "with_options"):
        client.client = inner.with_options(timeout=settings.model_timeout_seconds, max_retries=2)
    return client


def make_azure_openai_client(settings: Settings, *, credential: Any | None = None) -> SupportsChatGetResponse:
    """Azure OpenAI: API key when given, else Entra ID through ``azure-identity``."""
    from agent_framework.openai import OpenAIChatCompletionClient

    missing = [name for name, value in (
        ("AZURE_OPENAI_ENDPOINT", settings.azure_openai_endpoint),
        ("AZURE_OPENAI_DEPLOYMENT", settings.azure_openai_deployment),
    ) if not value]
    if missing:
        raise ConfigError(f"LLM_PROVIDER=azure_openai needs {' and '.join(missing)}")
    auth: dict[str, Any]
    if settings.azure_openai_api_key is not None:
        auth = {"api_key": settings.azure_openai_api_key.get_secret_value()}
    else:
        if credential is None:
            from azure.identity import DefaultAzureCredential, get_bearer_token_provider

            credential = get_bearer_token_provider(DefaultAzureCredential(), AZURE_COGNITIVE_SCOPE)
        auth = {"credential": credential}
    client = OpenAIChatCompletionClient(
        model=settings.azure_openai_deployment,
        azure_endpoint=settings.azure_openai_endpoint,
        api_version=settings.azure_openai_api_version,
        **auth,
    )
    return _with_timeout(client, settings)


def make_openai_client(settings: Settings) -> SupportsChatGetResponse:
    """OpenAI, or an OpenAI-compatible server when ``OPENAI_BASE_URL`` is set (key may be a dummy)."""
    from agent_framework.openai import OpenAIChatCompletionClient

    if settings.openai_api_key is None and not settings.openai_base_url:
        raise ConfigError("LLM_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    client = OpenAIChatCompletionClient(model=settings.openai_model, api_key=api_key, base_url=settings.openai_base_url)
    return _with_timeout(client, settings)


def make_model_provider(settings: Settings) -> ModelProvider:
    """The provider the settings ask for (``local`` when nothing is configured)."""
    match settings.provider:
        case "azure_openai":
            return SharedClientProvider(
                make_azure_openai_client(settings), "azure_openai", settings.azure_openai_deployment or ""
            )
        case "openai":
            return SharedClientProvider(make_openai_client(settings), "openai", settings.openai_model)
        case _:
            return LocalModelProvider(config_dir=settings.agent_config_dir)
