"""Model profiles: hosted defaults, the local-small profile, explicit settings win, a deadline that holds."""

from __future__ import annotations

import logging

import pytest

from opsagent.errors import ConfigError
from opsagent.model_profiles import LOCAL_SMALL, required_request_seconds
from opsagent.runtime import build_runtime
from opsagent.settings import load_settings


def test_hosted_defaults_hold_one_full_pass():
    settings = load_settings({}, env_file=None)
    assert (settings.model_profile, settings.model_timeout_seconds, settings.model_max_retries) == ("hosted", 60, 2)
    assert settings.specialist_tool_choice == "required" and settings.specialist_max_tokens is None
    # planner + 3 steps + review, each bounded by the 60 s task timeout
    assert settings.request_timeout_seconds == 300 == (3 + 2) * settings.task_timeout_seconds
    assert settings.deadline_shortfall is None


def test_local_small_profile_sets_generous_timeouts_and_smaller_caps():
    settings = load_settings({"MODEL_PROFILE": "local-small"}, env_file=None)
    for name, value in LOCAL_SMALL.items():
        assert getattr(settings, name) == value, name
    assert settings.request_timeout_seconds == required_request_seconds(task_timeout_seconds=300, max_plan_steps=2)
    assert settings.request_timeout_seconds == 1200 and settings.deadline_shortfall is None


def test_explicit_settings_win_over_the_profile_and_the_deadline_follows_them():
    settings = load_settings({"MODEL_PROFILE": "local-small", "TASK_TIMEOUT_SECONDS": "100",
                              "SPECIALIST_TOOL_CHOICE": "required"}, env_file=None, specialist_max_tokens=123)
    assert settings.task_timeout_seconds == 100 and settings.specialist_tool_choice == "required"
    assert settings.specialist_max_tokens == 123 and settings.review_max_tokens == LOCAL_SMALL["review_max_tokens"]
    assert settings.request_timeout_seconds == 400  # (2 steps + planner + review) x 100 s


def test_a_short_explicit_deadline_is_kept_and_named_at_start_up(caplog, tmp_path):
    settings = load_settings({"REQUEST_TIMEOUT_SECONDS": "120"}, env_file=None, data_dir=tmp_path)
    assert settings.request_timeout_seconds == 120
    assert settings.deadline_shortfall.startswith("REQUEST_TIMEOUT_SECONDS (120) is shorter than the planner, "
                                                  "MAX_PLAN_STEPS (3) tasks of TASK_TIMEOUT_SECONDS (60)")
    with caplog.at_level(logging.WARNING, logger="opsagent.runtime"):
        build_runtime(settings)
    assert any("REQUEST_TIMEOUT_SECONDS (120)" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        pytest.param({"MODEL_PROFILE": "tiny"}, r"^Invalid setting MODEL_PROFILE='tiny': .*'hosted'", id="profile"),
        pytest.param({"MODEL_PROFILE": "local-small", "TASK_TIMEOUT_SECONDS": "slow"},
                     r"^Invalid setting TASK_TIMEOUT_SECONDS='slow'", id="bad-number-under-a-profile"),
        pytest.param({"SPECIALIST_TOOL_CHOICE": "none"}, r"^Invalid setting SPECIALIST_TOOL_CHOICE='none'", id="choice"),
        pytest.param({"MAX_PLAN_STEPS": "0"}, r"^Invalid setting MAX_PLAN_STEPS='0'", id="steps"),
    ],
)
def test_bad_profile_values_name_the_variable(env, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(env, env_file=None)


def test_role_limits_reach_the_agents(tmp_path):
    """Per-role output caps replace the YAML's; the specialists' first turn follows SPECIALIST_TOOL_CHOICE."""
    settings = load_settings({"MODEL_PROFILE": "local-small"}, env_file=None, data_dir=tmp_path, review_max_tokens=555)
    agents = build_runtime(settings).agents
    assert agents.dynamic_triage.agent.default_options["max_tokens"] == 450
    assert agents.review.agent.default_options["max_tokens"] == 555
    assert agents.clarify.agent.default_options["max_tokens"] == 300
    specialist = agents.specialists["servicenow"]
    assert specialist.agent.default_options["max_tokens"] == 300 and specialist.run_options()["tool_choice"] == "auto"
    hosted = build_runtime(load_settings({}, env_file=None, data_dir=tmp_path)).agents
    assert hosted.review.agent.default_options["max_tokens"] == 900  # config/review_agent.yaml
    assert hosted.specialists["servicenow"].run_options()["tool_choice"] == "required"


def test_model_calls_get_the_profile_timeout_and_no_retries():
    from opsagent.llm.providers import make_model_provider

    settings = load_settings({"MODEL_PROFILE": "local-small", "LLM_PROVIDER": "openai",
                              "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, env_file=None)
    sdk = make_model_provider(settings).client.client
    assert (sdk.timeout, sdk.max_retries) == (240, 0)
