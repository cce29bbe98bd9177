"""A specialist's second turn: a grounded markdown answer written only from the tool results.

Every row shown comes from a tool result; counts are the tools' own (``shown`` of ``total``);
failed or not-found calls are reported as such. Columns are picked by name from a preference
list, so new tools render sensibly without code changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opsagent.tools.envelope import ToolResult

PREFERRED_COLUMNS = (
    "number", "kind", "title", "name", "pipeline_name", "run_id", "activity_name", "short_description", "type",
    "state", "status", "last_status", "priority", "approval", "impact", "region", "assignment_group",
    "configuration_item", "opened_at", "start_date", "end_date", "start", "started_at", "updated_at",
    "duration_min", "runs", "succeeded", "failed", "success_rate_pct", "error_code", "failed_activity",
    "error_message", "detail",
)
MAX_COLUMNS = 7
CELL_CHARS = 90
DETAIL_FIELDS = 14


@dataclass(frozen=True)
class CallOutcome:
    """One function call and what came back."""

    name: str
    arguments: dict[str, Any]
    result_text: str


def _cell(value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(str(item) for item in value)
    text = "" if value is None else str(value)
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _columns(items: Sequence[dict[str, Any]]) -> list[str]:
    keys = list(dict.fromkeys(key for item in items for key in item))
    chosen = [key for key in PREFERRED_COLUMNS if key in keys]
    chosen += [key for key in keys if key not in chosen]
    filled = [key for key in chosen if any(item.get(key) not in (None, "", []) for item in items)]
    return filled[:MAX_COLUMNS]


def table(items: Sequence[dict[str, Any]]) -> str:
    columns = _columns(items)
    header = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns)
    rows = ["| " + " | ".join(_cell(item.get(column)) for column in columns) + " |" for item in items]
    return "\n".join([header, *rows])


def details(item: dict[str, Any]) -> str:
    keys = [key for key in PREFERRED_COLUMNS if key in item] + [key for key in item if key not in PREFERRED_COLUMNS]
    lines = [f"- **{key}**: {_cell(item[key])}" for key in keys[:DETAIL_FIELDS] if item.get(key) not in (None, "", [])]
    return "\n".join(lines)


def _call_label(outcome: CallOutcome) -> str:
    shown = ", ".join(f"{key}={value}" for key, value in outcome.arguments.items())
    return f"`{outcome.name}({shown})`"


def _envelope_section(outcome: CallOutcome, result: ToolResult) -> str:
    label = _call_label(outcome)
    if result.status == "error":
        return f"**{label} failed** ({result.error_kind or 'error'}): {result.message or 'no details'}"
    if result.status == "no_data" or not result.items:
        return f"**{label}**: {result.message or 'no matching data.'}"
    count = f"showing {result.shown} of {result.total}" if result.truncated or result.total > result.shown else (
        f"{result.total} row{'s' if result.total != 1 else ''}")
    body = details(result.items[0]) if len(result.items) == 1 and _is_lookup(outcome) else table(result.items)
    parts = [f"**{label}** — {count}", result.message, body]
    parts += [f"_Note: {warning}_" for warning in result.warnings]
    return "\n\n".join(part for part in parts if part)


def _is_lookup(outcome: CallOutcome) -> bool:
    return outcome.name.startswith("get_")


def section(outcome: CallOutcome) -> str:
    """The markdown for one call: its rows, its 'nothing found', or its failure."""
    result = ToolResult.from_text(outcome.result_text)
    if result is None:
        return f"**{_call_label(outcome)} failed**: {outcome.result_text.strip()[:300] or 'no output'}"
    return _envelope_section(outcome, result)


def answer(task: str, outcomes: Sequence[CallOutcome]) -> str:
    """The whole answer: one section per tool call, in call order, then a one-line tally."""
    if not outcomes:
        return "I could not call any tool for this task, so I have no data to report."
    failed = [outcome for outcome in outcomes if _failed(outcome)]
    tally = (f"_{len(outcomes) - len(failed)} of {len(outcomes)} tool calls succeeded; "
             f"{len(failed)} failed and are reported above._" if failed else "")
    return "\n\n".join(part for part in [*(section(outcome) for outcome in outcomes), tally] if part)


def _failed(outcome: CallOutcome) -> bool:
    result = ToolResult.from_text(outcome.result_text)
    return result is None or result.status == "error"


def result_text(value: Any) -> str:
    """A function result's payload as text (MAF may hand back strings, lists of contents or objects)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(result_text(getattr(item, "text", None) or item) for item in value)
    return json.dumps(value, default=str) if value is not None else ""
