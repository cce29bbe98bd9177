"""Model providers: the real clients are constructed and configured (no network is touched)."""

from __future__ import annotations

import pytest
from agent_framework.openai import OpenAIChatCompletionClient

from opsagent.errors import ConfigError
from opsagent.llm.providers import LocalModelProvider, SharedClientProvider, make_model_provider
from opsagent.settings import load_settings


def provider_for(**env: str):
    return make_model_provider(load_settings(env, env_file=None))


def test_local_is_the_default_when_nothing_is_configured():
    provider = provider_for()
    assert isinstance(provider, LocalModelProvider)
    assert (provider.provider, provider.model) == ("local", "local-rules")


def test_azure_openai_with_an_api_key():
    provider = provider_for(AZURE_OPENAI_ENDPOINT="https://my-res.openai.azure.com",
                            AZURE_OPENAI_DEPLOYMENT="gpt-4o-prod", AZURE_OPENAI_API_KEY="k-123")
    assert isinstance(provider, SharedClientProvider) and provider.provider == "azure_openai"
    client = provider.client
    assert isinstance(client, OpenAIChatCompletionClient)
    assert type(client.client).__name__ == "AsyncAzureOpenAI"
    assert client.model == "gpt-4o-prod" and client.api_version == "2024-10-21"
    assert str(client.service_url()).startswith("https://my-res.openai.azure.com/openai/deployments/gpt-4o-prod")
    assert client.client.timeout == 60.0


def test_azure_openai_with_entra_id_uses_the_credential_chain():
    provider = provider_for(AZURE_OPENAI_ENDPOINT="https://my-res.openai.azure.com", AZURE_OPENAI_DEPLOYMENT="dep")
    client = provider.client
    assert type(client.client).__name__ == "AsyncAzureOpenAI"
    assert client.client._azure_ad_token_provider is not None  # bearer tokens from DefaultAzureCredential
    assert client.client.api_key == "<missing API key>"  # the SDK's placeholder: no key is sent, the token is


def test_openai_compatible_server_via_base_url():
    provider = provider_for(LLM_PROVIDER="openai", OPENAI_BASE_URL="http://localhost:11434/v1", OPENAI_MODEL="llama3.1")
    client = provider.client
    assert (provider.provider, provider.model) == ("openai", "llama3.1")
    assert str(client.service_url()).rstrip("/") == "http://localhost:11434/v1"
    assert type(client.client).__name__ == "AsyncOpenAI"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        pytest.param({"LLM_PROVIDER": "azure_openai"}, "needs AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_DEPLOYMENT",
                     id="azure-missing"),
        pytest.param({"LLM_PROVIDER": "openai"}, "needs OPENAI_API_KEY", id="openai-missing"),
    ],
)
def test_half_configured_providers_fail_clearly(env, message):
    with pytest.raises(ConfigError, match=message):
        provider_for(**env)
