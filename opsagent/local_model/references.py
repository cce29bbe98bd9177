"""Resolve pronouns against the conversation: "it", "that pipeline", "the change".

Order of trust: the question itself, then the user's latest earlier message, then the assistant's
reply to it, then older turns. Only an entity actually written in the conversation is used:
nothing is guessed. Follow-ups that change a value ("and for last week?") and ordinals into the
previous answer ("the second one") are rewritten by intake before any model runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from opsagent.local_model.detect import Analysis, TypoFixer, analyse
from opsagent.local_model.knowledge import Knowledge
from opsagent.local_model.policy import unresolved_kinds
from opsagent.local_model.text import Entities, contains_phrase

HISTORY_MESSAGES = 6
"""How far back references are looked up (latest messages first)."""
ANY_KIND_ORDER = ("incident", "change", "run_id", "pipeline", "target", "configuration_item")


@dataclass(frozen=True)
class Turn:
    role: str
    text: str


@dataclass(frozen=True)
class Resolution:
    """The question to plan for, and what could not be resolved."""

    text: str
    unresolved: tuple[str, ...] = ()
    from_history: bool = False


def _candidates(history: Sequence[Turn]) -> list[Turn]:
    recent = list(history)[-HISTORY_MESSAGES:]
    users = [turn for turn in reversed(recent) if turn.role == "user"]
    assistants = [turn for turn in reversed(recent) if turn.role == "assistant"]
    ordered: list[Turn] = []
    for index in range(max(len(users), len(assistants))):
        ordered += users[index:index + 1] + assistants[index:index + 1]
    return ordered


def _first_of_kind(entities: Entities, kind: str) -> str | None:
    kinds = ANY_KIND_ORDER if kind == "any" else (kind,)
    for each in kinds:
        values = entities.of_kind(each)
        if values:
            return values[0]
    return None


def lookup(kind: str, history: Sequence[Turn], knowledge: Knowledge, fixer: TypoFixer) -> str | None:
    """The most recent entity of ``kind`` ("any" = whatever was discussed) in the conversation."""
    for turn in _candidates(history):
        value = _first_of_kind(analyse(turn.text, knowledge, fixer).entities, kind)
        if value:
            return value
    return None


def _replace_references(text: str, kinds_to_values: dict[str, str], references: dict[str, str]) -> str:
    for phrase, kind in sorted(references.items(), key=lambda item: -len(item[0])):
        value = kinds_to_values.get(kind)
        if value and contains_phrase(text, phrase):
            text = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w])", value, text, count=1)
    return text


def resolve(question: str, history: Sequence[Turn], knowledge: Knowledge, fixer: TypoFixer,
            *, dependent: bool = False, analysis: Analysis | None = None) -> Resolution:
    """Rewrite ``question`` so it names what it refers to, using the conversation when needed.

    Args:
        dependent: the question chains its own asks ("the pipeline it mentions"), so a reference
            is answered by an earlier step of the plan rather than by the history.
        analysis: ``question`` already analysed (saves the work).
    """
    analysis = analysis or analyse(question, knowledge, fixer)
    text = analysis.text
    kinds = unresolved_kinds(analysis, knowledge.policy, demonstrative_only=dependent)
    if kinds:
        found = {kind: lookup(kind, history, knowledge, fixer) for kind in kinds}
        missing = tuple(kind for kind, value in found.items() if value is None)
        if missing:
            return Resolution(text, unresolved=missing)
        text = _replace_references(text, {k: v for k, v in found.items() if v}, dict(knowledge.policy.references))
    return Resolution(text, from_history=bool(kinds))
