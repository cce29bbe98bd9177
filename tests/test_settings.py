"""Settings: read once from .env and the environment, validated, with one-line errors."""

from __future__ import annotations

import pytest

from opsagent.errors import ConfigError
from opsagent.settings import Settings, load_settings


def test_defaults_need_no_configuration():
    settings = load_settings({}, env_file=None)
    assert settings.provider == "local" and settings.dynamic_plan is True and settings.host == "127.0.0.1"


def test_environment_wins_over_dotenv_file(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("TOOL_MAX_ROWS=5\nDYNAMIC_PLAN=true\n")
    settings = load_settings({"TOOL_MAX_ROWS": "7"}, env_file=env_file)
    assert settings.tool_max_rows == 7 and settings.dynamic_plan is True


def test_provider_is_inferred_from_what_is_configured():
    assert load_settings({"AZURE_OPENAI_ENDPOINT": "https://x"}, env_file=None).provider == "azure_openai"
    assert load_settings({"OPENAI_API_KEY": "sk-x"}, env_file=None).provider == "openai"
    assert load_settings({"OPENAI_API_KEY": "sk-x", "LLM_PROVIDER": "local"}, env_file=None).provider == "local"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        pytest.param({"TASK_TIMEOUT_SECONDS": "soon"}, r"^Invalid setting TASK_TIMEOUT_SECONDS='soon': ", id="number"),
        pytest.param({"LLM_PROVIDER": "gemini"}, r"^Invalid setting LLM_PROVIDER='gemini': .*'azure_openai'", id="choice"),
        pytest.param({"PORT": "0"}, r"^Invalid setting PORT='0'", id="range"),
        pytest.param({"DYNAMIC_PLAN": "sometimes"}, r"^Invalid setting DYNAMIC_PLAN='sometimes'", id="bool"),
    ],
)
def test_bad_values_name_the_variable(env, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(env, env_file=None)


def test_secrets_are_never_shown():
    settings = load_settings({"SERVICENOW_PASSWORD": "hunter2", "OPSAGENT_API_KEYS": "k1,k2"}, env_file=None)
    assert "hunter2" not in repr(settings) and "k1" not in repr(settings)
    assert [key.get_secret_value() for key in settings.opsagent_api_keys] == ["k1", "k2"]


def test_env_example_documents_every_setting():
    from opsagent.settings import PROJECT_ROOT

    text = (PROJECT_ROOT / ".env.example").read_text()
    missing = [name.upper() for name in Settings.model_fields if f"{name.upper()}=" not in text]
    assert missing == []


def test_the_env_file_can_be_chosen_or_switched_off(tmp_path, monkeypatch):
    chosen = tmp_path / "ops.env"
    chosen.write_text("TOOL_MAX_ROWS=9\n")
    monkeypatch.setenv("OPSAGENT_ENV_FILE", str(chosen))
    assert load_settings({}).tool_max_rows == 9
    monkeypatch.setenv("OPSAGENT_ENV_FILE", "")
    assert load_settings({}).tool_max_rows == 20


@pytest.mark.parametrize("name", ["OPSAGENT_API_KEYS", "AZURE_RESOURCE_IDS", "ALLOWED_HOSTS", "ALLOWED_ORIGINS"])
@pytest.mark.parametrize("value", [",", " , ,"], ids=["comma", "commas-and-spaces"])
def test_separator_only_lists_are_refused_naming_the_variable(name, value):
    """``OPSAGENT_API_KEYS=","`` once parsed to no keys and silently switched authentication off."""
    with pytest.raises(ConfigError, match=rf"^Invalid setting {name}=.*only separators"):
        load_settings({name: value}, env_file=None)


def test_threads_must_outnumber_chats_in_flight():
    """Otherwise chats could take every thread and /healthz would queue behind them."""
    with pytest.raises(ConfigError, match=r"^Invalid settings: SERVER_THREADS \(8\) must be larger than MAX_CHATS_IN"):
        load_settings({"SERVER_THREADS": "8", "MAX_CHATS_IN_FLIGHT": "8"}, env_file=None)
