"""What every backend shares: the injected clock and ``Page``, some rows of a larger result.

Sits under the record modules (``tickets``, ``pipeline_records``, ``health_records``) and
``base``, which re-exports it with them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

RecordT = TypeVar("RecordT")

Clock = Callable[[], datetime]
"""Returns "now" (UTC, tz-aware). Injected so tests can fix time."""


class Page(BaseModel, Generic[RecordT]):
    """Some rows of a larger result: ``total`` counts every match, ``items`` holds at most the cap."""

    items: list[RecordT] = Field(default_factory=list)
    total: int = 0
    warnings: list[str] = Field(default_factory=list)
    """Partial results, skipped pages and similar limitations the user should hear about."""
    unreadable: int = 0
    """Matching records that came back but could not be parsed (counted in ``total``, not in ``items``)."""
