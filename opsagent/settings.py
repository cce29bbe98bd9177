"""Settings: every environment variable OpsAgent reads, typed and validated once at start-up.

This is the only module that reads ``os.environ``. Precedence: explicit keyword arguments >
process environment > ``.env`` file > defaults (python-dotenv's convention: the real environment
wins over the file). Each field's env name is its name in upper case.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from opsagent.errors import ConfigError
from opsagent.model_profiles import DEADLINE_FIELDS, ModelProfile, required_request_seconds, with_profile_defaults

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PROJECT_ROOT / "config"

Provider = Literal["azure_openai", "openai", "local"]


OpenAIProgress = Literal["reasoning_content", "think_tags", "content", "off"]
"""Where /v1/chat/completions streams progress (see ``service/openai_format.py``)."""


class Settings(BaseModel):
    """All of OpsAgent's configuration. Secrets are ``SecretStr`` so they never print."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # --- model provider -------------------------------------------------------------------
    llm_provider: Provider | None = Field(
        default=None, description="azure_openai | openai | local; unset = picked from what is configured"
    )
    azure_openai_endpoint: str | None = None
    azure_openai_deployment: str | None = None
    azure_openai_api_key: SecretStr | None = None
    azure_openai_api_version: str = "2024-10-21"
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    openai_model: str = "gpt-4o-mini"
    model_profile: ModelProfile = Field(default="hosted", description="defaults for the limits below: hosted | local-small")
    model_timeout_seconds: float = Field(default=60.0, gt=0, description="one HTTP call to the model")
    model_max_retries: int = Field(default=2, ge=0, le=5, description="SDK retries of a failed or timed-out call")
    planner_max_tokens: int | None = Field(default=None, ge=16, description="output cap of (dynamic) triage; unset = YAML")
    review_max_tokens: int | None = Field(default=None, ge=16, description="output cap of the reviewer; unset = YAML")
    clarify_max_tokens: int | None = Field(default=None, ge=16, description="output cap of clarify; unset = YAML")
    specialist_max_tokens: int | None = Field(default=None, ge=16, description="output cap of specialists; unset = YAML")
    prompt_budget_tokens: int = Field(default=24_000, ge=500, description="largest prompt one model call may send")
    specialist_tool_choice: Literal["required", "auto"] = Field(
        default="required", description="a specialist's first turn must call a tool (required) or may (auto)")

    # --- workflow -------------------------------------------------------------------------
    dynamic_plan: bool = Field(default=True, description=(
        "/api/chat and the 'opsagent' model use the dynamic workflow (measured better: docs/evaluation.md); "
        "false: the triage workflow"))
    task_timeout_seconds: float = Field(default=60.0, gt=0, description="one specialist task, or one planner/review call")
    request_timeout_seconds: float = Field(default=300.0, gt=0, description="unset = (MAX_PLAN_STEPS + 2) x task timeout")
    max_plan_tasks: int = Field(default=8, ge=1, le=32)
    max_plan_steps: int = Field(default=3, ge=1, le=8, description="sequential steps one plan may hold; later ones are cut")
    progress_keepalive_seconds: float = Field(default=10.0, ge=0, description="a 'still working' event after this much "
                                              "silence in a stream; 0 = never")
    planner_min_confidence: float = Field(default=0.5, ge=0.0, le=1.0,
                                          description="below this the planner's guess becomes a question back")
    grounding_pass_at: float = Field(default=0.7, ge=0.0, le=1.0, description="grounding score that publishes")
    grounding_block_below: float = Field(default=0.3, ge=0.0, le=1.0,
                                         description="below this the answer is blocked without a rewrite")
    max_answer_chars: int = Field(default=12_000, ge=1_000, description="every answer is cut to this length")
    max_turn_chars: int = Field(default=4_000, ge=200, description="an answer is stored in the history cut to this length")
    specialist_max_tool_rounds: int = Field(default=4, ge=1, le=20, description="model rounds with tool calls per task")
    specialist_max_tool_calls: int = Field(default=10, ge=1, le=50, description="tool calls per task")
    agent_config_dir: Path = CONFIG_DIR
    runbooks_dir: Path = PROJECT_ROOT / "runbooks"

    # --- tools and backends ---------------------------------------------------------------
    tool_max_rows: int = Field(default=20, ge=1, le=500)
    data_dir: Path = PROJECT_ROOT / "var"
    backend_timeout_seconds: float = Field(default=20.0, gt=0)
    backend_max_attempts: int = Field(default=4, ge=1, le=10)
    backend_max_response_bytes: int = Field(default=5_000_000, ge=10_000, description="larger replies are refused")
    servicenow_instance_url: str | None = None
    servicenow_username: str | None = None
    servicenow_password: SecretStr | None = None
    servicenow_client_id: str | None = None
    servicenow_client_secret: SecretStr | None = None
    servicenow_token: SecretStr | None = None
    log_analytics_workspace_id: str | None = None
    log_analytics_endpoint: str = "https://api.loganalytics.io"
    snowflake_status_url: str | None = None
    databricks_status_url: str | None = None
    databricks_host: str | None = None
    databricks_token: SecretStr | None = None
    azure_subscription_id: str | None = None
    azure_resource_ids: list[str] = Field(default_factory=list)

    # --- service --------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    server_workers: int = Field(default=1, ge=1, le=64)
    server_threads: int = Field(default=64, ge=2, le=1024)
    max_chats_in_flight: int = Field(default=48, ge=1, le=1000, description="per process; past it chats get a 503")
    drain_timeout_seconds: float = Field(default=25.0, ge=0, description="SIGTERM: time to finish in-flight answers")
    request_read_timeout_seconds: float = Field(default=30.0, gt=0, description="time a client may take to send a body")
    opsagent_api_keys: list[SecretStr] = Field(default_factory=list)
    allowed_hosts: list[str] = Field(default_factory=list, description="Host headers accepted; empty = see host_policy")
    allowed_origins: list[str] = Field(default_factory=list, description="browser origins besides our own that may POST")
    max_request_bytes: int = Field(default=1_000_000, ge=1_000)
    max_messages: int = Field(default=50, ge=1)
    max_message_chars: int = Field(default=8_000, ge=1)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    enable_otel: bool = False
    openai_progress: OpenAIProgress = Field(
        default="reasoning_content",
        description="/v1/chat/completions streams progress as delta.reasoning_content (folded away by Open WebUI "
                    "and LibreChat), as a <think> block in the content, as '> - ' lines in the content, or not at all",
    )

    # --- Teams ----------------------------------------------------------------------------
    bot_app_id: str | None = Field(default=None, description="Azure Bot app (client) id; enables JWT checks")
    bot_app_password: SecretStr | None = None
    bot_tenant_id: str | None = None
    teams_anonymous_dev: bool = Field(default=False, description="accept unsigned Bot Framework calls (local dev only)")
    teams_reply_window_seconds: float = Field(default=10.0, gt=0, description="later answers go as a follow-up")
    history_max_messages: int = Field(default=20, ge=0, le=200, description="stored turns fed back per conversation")

    @field_validator("azure_resource_ids", "opsagent_api_keys", "allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _split_comma_list(cls, value: Any) -> Any:
        """``"a, b"`` -> ``["a", "b"]``. A value made only of separators (``","``) is a mistake, not an
        empty list: for OPSAGENT_API_KEYS it would silently switch authentication off."""
        if isinstance(value, str):
            parts = [part.strip() for part in value.split(",") if part.strip()]
            if value.strip() and not parts:
                raise ValueError("holds only separators and no value; leave it empty or list values separated by commas")
            return parts
        return value

    @field_validator("data_dir", "agent_config_dir", "runbooks_dir", mode="after")
    @classmethod
    def _relative_to_project(cls, value: Path) -> Path:
        return value if value.is_absolute() else PROJECT_ROOT / value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="before")
    @classmethod
    def _apply_model_profile(cls, data: Any) -> Any:
        """Fill what the profile sets and the user did not; derive the deadline when it is not set."""
        if not isinstance(data, dict):
            return data
        defaults = {name: cls.model_fields[name].default for name in DEADLINE_FIELDS}
        return with_profile_defaults(data, field_defaults=defaults)

    @property
    def deadline_shortfall(self) -> str | None:
        """Why the request deadline cannot hold one full pass (an explicit choice is kept, not refused)."""
        needed = required_request_seconds(task_timeout_seconds=self.task_timeout_seconds,
                                          max_plan_steps=self.max_plan_steps)
        if self.request_timeout_seconds >= needed:
            return None
        return (f"REQUEST_TIMEOUT_SECONDS ({self.request_timeout_seconds:g}) is shorter than the planner, "
                f"MAX_PLAN_STEPS ({self.max_plan_steps}) tasks of TASK_TIMEOUT_SECONDS ({self.task_timeout_seconds:g}) "
                f"and the review ({needed:g} s): a slow but healthy answer may be cut; unset it to use {needed:g}")

    @model_validator(mode="after")
    def _threads_outnumber_chats(self) -> Settings:
        if self.server_threads <= self.max_chats_in_flight:
            raise ValueError(f"SERVER_THREADS ({self.server_threads}) must be larger than MAX_CHATS_IN_FLIGHT "
                             f"({self.max_chats_in_flight}), so probes and cheap requests always find a thread")
        return self

    @property
    def is_loopback(self) -> bool:
        """Bound to this machine only (the default ``make run``): the dev-mode Host policy applies."""
        return self.host in ("127.0.0.1", "localhost", "::1") or self.host.startswith("127.")

    def secret_values(self) -> list[str]:
        """Every configured secret in clear, for the log redaction filter only (never for output)."""
        values: list[str] = []
        for name in type(self).model_fields:
            value = getattr(self, name)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, SecretStr):
                    values.append(item.get_secret_value())
        return values

    @property
    def provider(self) -> Provider:
        """The provider in force: the explicit choice, else the one whose settings are present."""
        if self.llm_provider:
            return self.llm_provider
        if self.azure_openai_endpoint:
            return "azure_openai"
        if self.openai_api_key or self.openai_base_url:
            return "openai"
        return "local"


def env_name(field: str) -> str:
    return field.upper()


ENV_FILE_VARIABLE = "OPSAGENT_ENV_FILE"
"""Names the dotenv file to read instead of ``<project>/.env``; empty means none (tests use that)."""
_DEFAULT = object()


def load_settings(
    env: Mapping[str, str] | None = None,
    *,
    env_file: Path | str | None | object = _DEFAULT,
    **overrides: Any,
) -> Settings:
    """Read settings from ``.env`` and the environment, validate them, and fail in one clear line.

    Args:
        env: the environment to read (defaults to ``os.environ``).
        env_file: a dotenv file (default: ``$OPSAGENT_ENV_FILE``, else ``<project>/.env``); a missing
            file is fine.
        overrides: explicit values that win over everything.

    Raises:
        ConfigError: naming the variable, the bad value and what is accepted.
    """
    merged: dict[str, str | None] = {}
    if env_file is _DEFAULT:
        env_file = os.environ.get(ENV_FILE_VARIABLE, str(PROJECT_ROOT / ".env"))
    if env_file and Path(str(env_file)).is_file():
        merged.update(dotenv_values(str(env_file)))
    merged.update(os.environ if env is None else env)
    values: dict[str, Any] = {}
    for field in Settings.model_fields:
        raw = merged.get(env_name(field))
        if raw is not None and raw != "":
            values[field] = raw
    values.update(overrides)
    try:
        return Settings.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        if not first["loc"]:  # a rule between settings (model validator): its message names them
            raise ConfigError(f"Invalid settings: {first['msg'].removeprefix('Value error, ')}") from None
        field = str(first["loc"][0])
        shown = "***" if "SecretStr" in str(Settings.model_fields.get(field, Field()).annotation) else values.get(field)
        raise ConfigError(f"Invalid setting {env_name(field)}={shown!r}: {first['msg']}") from None
