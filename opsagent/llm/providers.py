"""Model providers: which chat client each agent talks to, chosen once from settings.

- ``azure_openai``: an Azure OpenAI deployment, with an API key or Microsoft Entra ID
  (``DefaultAzureCredential``), through MAF's ``OpenAIChatCompletionClient(azure_endpoint=...)``.
- ``openai``: OpenAI or any OpenAI-compatible server (Ollama, vLLM, LiteLLM) via ``base_url``.
- ``local``: the deterministic offline rules model (``opsagent/local_model``); this module is the
  only one that imports it, so the product never depends on the offline model.

Every client gets the same bounded tool loop: a specialist may take a few tool rounds, never 40.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from agent_framework import SupportsChatGetResponse
from pydantic import BaseModel

from opsagent.errors import ConfigError
from opsagent.settings import Settings

AZURE_COGNITIVE_SCOPE = "https://cognitiveservices.azure.com/.default"


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


def _enum_agents(schema: Any, agents: tuple[str, ...]) -> Any:
    """Every ``agent`` property of a plan item becomes an enum of the registered specialists."""
    if isinstance(schema, list):
        return [_enum_agents(item, agents) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: _enum_agents(value, agents) for key, value in schema.items()}
    properties = result.get("properties")
    if isinstance(properties, dict) and "agent" in properties and "question" in properties:
        properties["agent"] = {**properties["agent"], "enum": list(agents)}
    return result


@functools.cache
def strict_response_format(model: type[BaseModel], agents: tuple[str, ...] = ()) -> dict[str, Any]:
    """The model as an OpenAI strict ``json_schema`` response format that Azure OpenAI accepts.

    The openai library makes every property required and closes objects; it keeps pydantic's
    ``default`` values, which strict mode rejects, so those (and length limits) are removed here.
    A plan's ``agent`` is an enum of ``agents``, so a grammar-constrained server cannot invent one.
    Our own parser (``contracts/repair.py``) still validates the reply against the full model.
    Cached per model: building it costs milliseconds, and MAF passes the dict on unchanged.
    """
    from openai.lib._parsing._completions import type_to_response_format_param

    param = dict(type_to_response_format_param(model))
    json_schema = dict(param["json_schema"])
    schema = _strip_keywords(json_schema["schema"])
    json_schema["schema"] = _enum_agents(schema, agents) if agents else schema
    param["json_schema"] = json_schema
    return param


def bound_tool_loop(client: Any, settings: Settings) -> Any:
    """Cap the function-invocation loop: a few model rounds and calls per task, not MAF's 40."""
    config = getattr(client, "function_invocation_configuration", None)
    if isinstance(config, dict):
        config["max_iterations"] = settings.specialist_max_tool_rounds
        config["max_function_calls"] = settings.specialist_max_tool_calls
    return client


@dataclass
class SharedClientProvider:
    """One chat client (and its connection pool) for every agent: the real providers."""

    client: SupportsChatGetResponse
    provider: str
    model: str

    def client_for(self, role: str) -> SupportsChatGetResponse:
        return self.client

    def response_format(self, model: type[BaseModel], *, agents: Collection[str] = ()) -> dict[str, Any]:
        return strict_response_format(model, tuple(sorted(agents)))

    async def aclose(self) -> None:
        """The SDK client's connection pool, closed on the loop that used it (not left to the garbage collector,
        which finds the loop closed)."""
        inner = getattr(self.client, "client", None)
        if inner is not None and hasattr(inner, "close"):
            await inner.close()


@dataclass
class LocalModelProvider:
    """The offline rules model: one client for every role (it reads the role from the typed input)."""

    client: SupportsChatGetResponse
    provider: str = "local"
    model: str = "local-rules"

    def client_for(self, role: str) -> SupportsChatGetResponse:
        return self.client

    def response_format(self, model: type[BaseModel], *, agents: Collection[str] = ()) -> type[BaseModel]:
        return model

    async def aclose(self) -> None:
        return None  # in process: no connections


def make_local_provider(settings: Settings) -> LocalModelProvider:
    from opsagent.local_model import LocalChatClient  # the only import of the offline model

    return LocalModelProvider(bound_tool_loop(LocalChatClient(), settings))


def _with_timeout(client: Any, settings: Settings) -> Any:
    """Bound every HTTP call to the model; the SDK's own retries stay small (none for a slow local model)."""
    inner = getattr(client, "client", None)
    if inner is not None and hasattr(inner, "with_options"):
        client.client = inner.with_options(timeout=settings.model_timeout_seconds,
                                           max_retries=settings.model_max_retries)
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
    return bound_tool_loop(_with_timeout(client, settings), settings)


def make_openai_client(settings: Settings) -> SupportsChatGetResponse:
    """OpenAI, or an OpenAI-compatible server when ``OPENAI_BASE_URL`` is set (key may be a dummy)."""
    from agent_framework.openai import OpenAIChatCompletionClient

    if settings.openai_api_key is None and not settings.openai_base_url:
        raise ConfigError("LLM_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    client = OpenAIChatCompletionClient(model=settings.openai_model, api_key=api_key, base_url=settings.openai_base_url)
    return bound_tool_loop(_with_timeout(client, settings), settings)


def make_model_provider(settings: Settings) -> SharedClientProvider | LocalModelProvider:
    """The provider the settings ask for (``local`` when nothing is configured)."""
    match settings.provider:
        case "azure_openai":
            return SharedClientProvider(
                make_azure_openai_client(settings), "azure_openai", settings.azure_openai_deployment or ""
            )
        case "openai":
            return SharedClientProvider(make_openai_client(settings), "openai", settings.openai_model)
        case _:
            return make_local_provider(settings)
