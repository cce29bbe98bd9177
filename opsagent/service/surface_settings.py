"""Settings only the service's surfaces read (``OPENAI_PROGRESS``), loaded like ``opsagent.settings``.

They live here, next to the surfaces, rather than on the core ``Settings`` model: same sources
(``.env``, then the environment), same precedence and the same one-line ``ConfigError`` naming the
variable. ``create_app`` takes them explicitly (tests, ``WorkerApp``) or loads them itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opsagent.errors import ConfigError
from opsagent.settings import ENV_FILE_VARIABLE, PROJECT_ROOT, env_name

OpenAIProgress = Literal["reasoning_content", "think_tags", "content", "off"]


class SurfaceSettings(BaseModel):
    """How each surface presents progress."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    openai_progress: OpenAIProgress = Field(
        default="reasoning_content",
        description="/v1/chat/completions streams progress as delta.reasoning_content (folded away by Open WebUI "
                    "and LibreChat), as a <think> block in the content, as '> - ' lines in the content, or not at all",
    )


def load_surface_settings(env: Mapping[str, str] | None = None, *,
                          env_file: Path | str | None = None) -> SurfaceSettings:
    """Read the surface settings from ``.env`` (``$OPSAGENT_ENV_FILE``, else ``<project>/.env``) and the environment.

    Raises:
        ConfigError: naming the variable, the bad value and what is accepted.
    """
    source = os.environ if env is None else env
    path = env_file if env_file is not None else os.environ.get(ENV_FILE_VARIABLE, str(PROJECT_ROOT / ".env"))
    merged: dict[str, str | None] = dict(dotenv_values(str(path))) if path and Path(str(path)).is_file() else {}
    merged.update(source)
    values: dict[str, Any] = {field: merged[env_name(field)] for field in SurfaceSettings.model_fields
                              if merged.get(env_name(field))}
    try:
        return SurfaceSettings.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0])
        raise ConfigError(f"Invalid setting {env_name(field)}={values.get(field)!r}: {first['msg']}") from None
