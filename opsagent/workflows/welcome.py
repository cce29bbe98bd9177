"""Replies that need no tools: a greeting, a request for help, thanks — short, kind, and with example
questions built from the data, so a newcomer's first message gets something they can click or copy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

CAPABILITIES = (
    "I look things up across ServiceNow (incidents and change requests), Azure Data Factory pipeline runs "
    "and the health of Databricks, Snowflake and Azure, and answer from what the tools return. "
    "I'm read-only: I never change a ticket, a pipeline or a platform."
)
GENERAL_EXAMPLES = (
    "Anything I should know before my shift?",
    "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?",
    "Is Databricks or Snowflake degraded right now?",
)
MAX_EXAMPLES = 5


def example_list(found: Sequence[str]) -> list[str]:
    """Questions about what the data holds right now first, then general ones; at most five."""
    return list(dict.fromkeys([*found, *GENERAL_EXAMPLES]))[:MAX_EXAMPLES]


def reply_text(kind: Literal["greeting", "help", "thanks"], examples: Sequence[str]) -> str:
    if kind == "thanks":
        return "You're welcome. Ask me again any time — for example: " + f"*{example_list(examples)[0]}*"
    opening = "Hi! I'm OpsAgent." if kind == "greeting" else "Here is what I can do."
    listed = "\n".join(f"- {item}" for item in example_list(examples))
    return f"{opening} {CAPABILITIES}\n\nTry for example:\n{listed}"
