"""A specialist's second turn: a short factual reply from the tool results in the conversation.

The data itself travels as evidence (the workflow records every call); this reply only says, in
one line per call, what each tool found, so it never adds a fact the tools did not return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_framework import Message

from opsagent.contracts.tool_result import ToolResult
from opsagent.local_model.tool_calls import PlannedCall


def call_results(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """(tool name, result text) of the calls made since the last user message, in call order."""
    names: dict[str, str] = {}
    results: list[tuple[str, str]] = []
    for message in _since_last_user(messages):
        for content in message.contents:
            if content.type == "function_call":
                names[content.call_id or ""] = content.name or "?"
            elif content.type == "function_result":
                text = content.result if isinstance(content.result, str) else "".join(
                    getattr(item, "text", "") or "" for item in (content.items or []))
                results.append((names.get(content.call_id or "", "?"), text or str(content.result or "")))
    return results


def _since_last_user(messages: Sequence[Message]) -> Sequence[Message]:
    start = max((index for index, m in enumerate(messages) if str(m.role) == "user"), default=-1) + 1
    return messages[start:]


def call_rounds(messages: Sequence[Message]) -> int:
    """How many times this task's model turn asked for tools so far."""
    return sum(1 for message in _since_last_user(messages) if any(c.type == "function_call" for c in message.contents))


def made_calls(messages: Sequence[Message]) -> list[PlannedCall]:
    calls = []
    for message in _since_last_user(messages):
        for content in message.contents:
            if content.type == "function_call":
                arguments = content.parse_arguments() if hasattr(content, "parse_arguments") else content.arguments
                calls.append(PlannedCall(content.name or "?", dict(arguments or {}) if isinstance(arguments, dict) else {}))
    return calls


def result_rows(results: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """The data rows of the calls' results (envelopes that did not parse have none)."""
    rows: list[dict[str, Any]] = []
    for _, text in results:
        envelope = ToolResult.from_text(text)
        if envelope is not None and envelope.status == "ok":
            rows += [dict(item) for item in envelope.items]
    return rows


def capped_results(results: Sequence[tuple[str, str]]) -> bool:
    """Whether any result showed fewer rows than it counted (the cap cut it)."""
    envelopes = [ToolResult.from_text(text) for _, text in results]
    return any(envelope is not None and envelope.total > len(envelope.items) for envelope in envelopes)


def reply_from_results(results: Sequence[tuple[str, str]]) -> str:
    lines = []
    for name, text in results:
        envelope = ToolResult.from_text(text)
        if envelope is None:
            lines.append(f"{name}: failed ({text.strip()[:200] or 'no output'})")
        elif envelope.status == "error":
            lines.append(f"{name}: failed ({envelope.error_kind or 'error'}): {envelope.message}")
        else:
            lines.append(f"{name}: {envelope.message or 'no matching data.'}")
    return "\n".join(lines)
