"""The one shape every tool result has, so models (real or local), the workflow and evals can read it.

A tool returns ``ToolResult(...).to_text()``: compact JSON with the status, what was searched,
the total number of matches, the rows shown (at most the configured cap) and a truncation flag.
"No data" is a result, not an error; errors say what kind and what was searched.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

ToolStatus = Literal["ok", "no_data", "error"]
ErrorKind = Literal["not_authorised", "not_found", "unavailable", "bad_response", "bad_arguments"]


class ToolResult(BaseModel):
    """The envelope of every tool's output."""

    tool: str
    status: ToolStatus
    source: str = ""
    """Which backend answered: "demo", "servicenow", "log_analytics", a status page URL…"""
    query: dict[str, Any] = Field(default_factory=dict)
    """What was searched, in the tool's own terms (resolved time windows included)."""
    total: int = 0
    shown: int = 0
    truncated: bool = False
    items: list[dict[str, Any]] = Field(default_factory=list)
    message: str = ""
    error_kind: ErrorKind | None = None
    warnings: list[str] = Field(default_factory=list)

    def to_text(self) -> str:
        return json.dumps(self.model_dump(exclude_defaults=False), default=str, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> ToolResult | None:
        """Parse a tool's output back; ``None`` when it is not an envelope (e.g. a framework error string)."""
        try:
            return cls.model_validate_json(text)
        except ValueError:
            return None
