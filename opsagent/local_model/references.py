"""Resolve a question against the conversation: "it", "that pipeline", "same for snowflake".

Order of trust: the question itself, then the user's latest earlier message, then the assistant's
reply to it, then older turns. Only an entity actually written in the conversation is used:
nothing is guessed. A short follow-up ("databricks", "the sales one") after a clarification
picks the matching suggested question from the assistant's list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from opsagent.local_model.detect import Analysis, TypoFixer, analyse
from opsagent.local_model.knowledge import Knowledge
from opsagent.local_model.policy import unresolved_kinds
from opsagent.local_model.text import Entities, contains_phrase, find_phrase, words

HISTORY_MESSAGES = 6
"""How far back references are looked up (latest messages first)."""
FOLLOW_UP_LEADS = ("same for", "what about", "how about", "and for", "and what about", "and", "also", "now for")
STOPWORDS = frozenset("the a an one and or for of to in on is are was it its that this what about same how".split())
SUGGESTION = re.compile(r"(?:^[ \t]*|(?<=[:?.!])[ \t]+)[-*•][ \t]+(.+?)(?=(?<=[?.!])[ \t]+[-*•][ \t]|\n|$)",
                        re.MULTILINE)
"""Suggested questions: list items one a line, or run together ("For example: - Why …? - Why …?")."""
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


def _pick_suggestion(question: Analysis, history: Sequence[Turn]) -> str | None:
    """After a clarification: the assistant's suggested question that the short reply points at."""
    last = next((turn for turn in reversed(history) if turn.role == "assistant"), None)
    if last is None:
        return None
    keys = [word for word in words(question.text) if word not in STOPWORDS and len(word) > 2]
    for item in SUGGESTION.findall(last.text):  # list items, one a line or run together on one line
        if any(contains_phrase(item.lower(), key) for key in keys):
            return item.strip()
    return None


def _substitute(previous: Analysis, fragment: Analysis) -> str:
    """The previous question with the fragment's new target / time / pipeline swapped in."""
    text = previous.text
    new, old = fragment.entities, previous.entities
    changed = False
    for kind in ("target", "pipeline", "incident", "change", "region"):
        new_values, old_values = new.of_kind(kind), old.of_kind(kind)
        if new_values and old_values and find_phrase(text, old_values[0].lower()) >= 0:
            text = text.replace(old_values[0].lower(), new_values[0], 1)
            changed = True
    if new.time_window and old.time_window:
        text, changed = text.replace(old.time_window, new.time_window, 1), True
    if not changed:
        text = f"{text.rstrip('?. ')} — {_strip_lead(fragment.text)}"
    return text


def _strip_lead(text: str) -> str:
    for lead in FOLLOW_UP_LEADS:
        if text.startswith(lead + " "):
            return text[len(lead) + 1:]
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
        analysis = analyse(text, knowledge, fixer)
    if analysis.selected or not history:
        return Resolution(text, from_history=bool(kinds))
    return _follow_up(analysis, history, knowledge, fixer) or Resolution(text, from_history=bool(kinds))


def _follow_up(analysis: Analysis, history: Sequence[Turn], knowledge: Knowledge, fixer: TypoFixer) -> Resolution | None:
    suggestion = _pick_suggestion(analysis, history)
    if suggestion:
        return Resolution(suggestion.lower(), from_history=True)
    previous_turn = next((turn for turn in reversed(history) if turn.role == "user"), None)
    if previous_turn is None:
        return None
    previous = analyse(previous_turn.text, knowledge, fixer)
    if not previous.selected:
        return None
    return Resolution(_substitute(previous, analysis), from_history=True)
