"""Reading what each role receives (formats fixed by ``workflows/prompts.py``).

- triage / clarify: the conversation as chat messages, the question last;
- specialists: their task, maybe after ``Previous step results:``; after MAF ran the tools, the
  function results follow in the same conversation;
- review / review-mode triage: one message with ``User question:``, ``Task results:`` blocks and,
  for the planner, the ``Reviewer verdict:``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_framework import Message

from opsagent.llm.local.references import Turn

SEPARATOR = "\n---\n"
_FIELD = re.compile(r"^(Step|Agent|Question|Status|Response): ?(.*)$")


@dataclass(frozen=True)
class TaskBlock:
    """One earlier task result as a prompt shows it."""

    agent: str = ""
    question: str = ""
    response: str = ""
    status: str = "ok"
    step: int = 1


@dataclass(frozen=True)
class ReviewInput:
    question: str
    results: tuple[TaskBlock, ...]
    missing: tuple[str, ...] = ()
    suggested: str = ""
    summary: str = ""


@dataclass(frozen=True)
class SpecialistInput:
    task: str
    previous: tuple[TaskBlock, ...] = field(default=())


def conversation(messages: Sequence[Message]) -> tuple[str, list[Turn]]:
    """(latest user question, the turns before it)."""
    turns = [Turn(str(m.role), m.text or "") for m in messages if str(m.role) in ("user", "assistant") and m.text]
    last_user = max((index for index, turn in enumerate(turns) if turn.role == "user"), default=-1)
    if last_user < 0:
        return "", turns
    return turns[last_user].text, turns[:last_user]


def last_user_text(messages: Sequence[Message]) -> str:
    return next((m.text or "" for m in reversed(messages) if str(m.role) == "user" and m.text), "")


def parse_blocks(text: str) -> tuple[TaskBlock, ...]:
    """``Agent: … / Question: … / Status: … / Response: …`` blocks separated by ``---`` lines."""
    blocks = []
    for chunk in text.split(SEPARATOR):
        values: dict[str, str] = {}
        current = None
        for line in chunk.strip("\n-").splitlines():
            match = _FIELD.match(line)
            if match and (match.group(1) != "Response" or "Response" not in values):
                current = match.group(1)
                values[current] = match.group(2)
            elif current == "Response":
                values["Response"] += "\n" + line
        if "Agent" in values:
            step = values.get("Step", "1")
            blocks.append(TaskBlock(values["Agent"].strip(), values.get("Question", "").strip(),
                                    values.get("Response", "").strip(), values.get("Status", "ok").strip(),
                                    int(step) if step.isdigit() else 1))
    return tuple(blocks)


def specialist_input(text: str) -> SpecialistInput:
    if not text.startswith("Previous step results:"):
        return SpecialistInput(text.strip())
    body, _, task = text.rpartition("\nYour task: ")
    return SpecialistInput(task.strip(), parse_blocks(body.removeprefix("Previous step results:")))


def review_input(text: str) -> ReviewInput:
    """Parse a review (or review-mode planner) message."""
    head, _, rest = text.partition("\n\nTask results:\n")
    question = head.removeprefix("User question:").strip()
    results_text, _, verdict = rest.partition("\n\nReviewer verdict:\n")
    missing = tuple(line[2:].strip() for line in verdict.splitlines()
                    if line.startswith("- ") and line[2:].strip() != "(none listed)")
    suggested = next((line.removeprefix("Suggested approach:").strip() for line in verdict.splitlines()
                      if line.startswith("Suggested approach:")), "")
    summary = next((line.removeprefix("Summary:").strip() for line in verdict.splitlines()
                    if line.startswith("Summary:")), "")
    return ReviewInput(question, parse_blocks(results_text), missing, suggested, summary)
