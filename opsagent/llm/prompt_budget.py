"""The prompt budget: no model call sends more than ``PROMPT_BUDGET_TOKENS`` (estimated) if it can help it.

Small self-hosted models have small contexts (and every prompt token costs seconds on a CPU), so
a prompt over the budget loses *data rows* first: the indented JSON lines the prompts render for
each tool call's rows (``  {"number": …}``). Instructions, questions, the context lines and each
call's summary line stay. The longest run of rows is shortened first, and every shortened run
says how many rows were left out. When nothing droppable is left the prompt goes as it is (over
budget) rather than losing the question.

``fit_prompt`` is pure, so prompt builders can call it on their own lines; the chat middleware
applies it to the user messages of any call that is still over budget.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_framework import ChatContext, ChatMiddleware, Content, Message

from opsagent.llm.metering import CHARS_PER_TOKEN, TRIMMED_METADATA_KEY, prompt_tokens

logger = logging.getLogger(__name__)

ROW_LINE = re.compile(r"^\s{2,}[{\[]")
"""A data row as the prompts render it: indented JSON."""


def _tokens(chars: int) -> int:
    return chars // CHARS_PER_TOKEN


def left_out_line(count: int) -> str:
    return f"  …{count} more row(s) left out to fit the prompt budget"


@dataclass(frozen=True)
class FittedPrompt:
    lines: list[str]
    dropped_rows: int
    fits: bool


def _row_runs(lines: Sequence[str]) -> list[list[int]]:
    """Indexes of consecutive row lines, one list per run."""
    runs: list[list[int]] = []
    for index, line in enumerate(lines):
        if ROW_LINE.match(line):
            if runs and runs[-1][-1] == index - 1:
                runs[-1].append(index)
            else:
                runs.append([index])
    return runs


def fit_prompt(lines: Sequence[str], budget_tokens: int, *, fixed_tokens: int = 0) -> FittedPrompt:
    """``lines`` shortened to fit ``budget_tokens`` (with ``fixed_tokens`` already spent elsewhere).

    Drops rows from the end of the longest run of rows, one at a time, keeping at least one row per
    run while any run has more; each shortened run ends with a line saying how many rows it lost.
    """
    over = fixed_tokens + _tokens(sum(len(line) + 1 for line in lines)) - budget_tokens
    if over <= 0:
        return FittedPrompt(list(lines), 0, True)
    runs = _row_runs(lines)
    kept = [len(run) for run in runs]
    to_free = over * CHARS_PER_TOKEN
    while to_free > 0 and any(kept):
        longest = max(range(len(runs)), key=lambda index: kept[index])
        kept[longest] -= 1
        run = runs[longest]
        to_free -= len(lines[run[kept[longest]]]) + 1
        if kept[longest] == len(run) - 1:  # the first row this run loses: it gains the "left out" line
            to_free += len(left_out_line(len(run))) + 1
    dropped: set[int] = set()
    marker_after: dict[int, int] = {}
    for run, count in zip(runs, kept, strict=True):
        if count < len(run):
            dropped.update(run[count:])
            marker_after[run[-1]] = len(run) - count
    fitted: list[str] = []
    for index, line in enumerate(lines):
        if index not in dropped:
            fitted.append(line)
        if index in marker_after:
            fitted.append(left_out_line(marker_after[index]))
    return FittedPrompt(fitted, len(dropped), to_free <= 0)


def _with_text(message: Message, text: str) -> Message:
    """The same message with new text (the attached typed input stays, for the offline model)."""
    return Message(message.role, [Content.from_text(text)], author_name=message.author_name,
                   message_id=message.message_id, additional_properties=message.additional_properties)


def fit_messages(messages: Sequence[Message], options: dict[str, Any], budget_tokens: int) -> tuple[list[Message], int]:
    """The messages with rows dropped from the largest user message first until the prompt fits.

    Returns the messages and how many rows were dropped (0: unchanged).
    """
    fitted = list(messages)
    dropped = 0
    order = sorted((index for index, message in enumerate(fitted) if message.role == "user" and message.text),
                   key=lambda index: -len(fitted[index].text))
    for index in order:
        total = prompt_tokens(fitted, options)
        if total <= budget_tokens:
            break
        lines = fitted[index].text.split("\n")
        others = total - _tokens(len(fitted[index].text))
        result = fit_prompt(lines, budget_tokens, fixed_tokens=others)
        if result.dropped_rows:
            fitted[index] = _with_text(fitted[index], "\n".join(result.lines))
            dropped += result.dropped_rows
    return fitted, dropped


class PromptBudgetMiddleware(ChatMiddleware):
    """Chat middleware that shortens an agent's prompt to the budget before the call is sent."""

    def __init__(self, role: str, budget_tokens: int | None) -> None:
        self.role = role
        self.budget_tokens = budget_tokens

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        if self.budget_tokens is not None:
            options = dict(context.options or {})
            if prompt_tokens(context.messages, options) > self.budget_tokens:
                messages, dropped = fit_messages(context.messages, options, self.budget_tokens)
                if dropped:
                    context.messages = messages
                    context.metadata[TRIMMED_METADATA_KEY] = True
                    logger.info("%s prompt over %d tokens: left out %d data row(s)", self.role, self.budget_tokens,
                                dropped)
        await call_next()
