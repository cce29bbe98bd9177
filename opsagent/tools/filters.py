"""Set filters the model writes as text: one value, a list, or a negation ("not approved").

Sits between a tool's string parameter and its backend's set-valued query: ``parse_set_filter``
maps lenient labels to canonical values (a negation to the complement of what it names), and the
``SetFilter`` it returns says the filter in words for the message and records the resolved set
for the envelope's ``query``, so an answer can state exactly what was searched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opsagent.tools.rendering import ArgumentError, ToolCall
from opsagent.tools.vocabularies import Vocabulary

_NEGATION = re.compile(r"^(?:not\s+|!=?\s*)", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|;|\bor\b)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class SetFilter:
    """A resolved filter: what was asked, the labels it named, and the canonical values it selects."""

    argument: str
    asked: str
    named: tuple[str, ...]
    """The labels asked for, in words ("in progress", "not requested"), before any negation."""
    is_negated: bool
    values: tuple[str, ...]
    """The values that match, in the order of the universe."""
    is_everything: bool
    """True when the filter selects every value, i.e. restricts nothing."""

    @property
    def restriction(self) -> list[str] | None:
        """The values for a backend query; ``None`` when the filter restricts nothing."""
        return None if self.is_everything else list(self.values)

    def words(self) -> str:
        """``"approval not 'approved'"``, ``"state 'new' or 'on hold'"``."""
        listed = " or ".join(repr(label) for label in self.named)
        return f"{self.argument} {'not ' if self.is_negated else ''}{listed}"

    def to_json(self) -> dict[str, Any]:
        return {"asked": self.asked, "values": list(self.values)}


def parse_set_filter(
    value: str, choices: Mapping[str, tuple[str, ...]], *, universe: Sequence[str], argument: str
) -> SetFilter:
    """Resolve ``value``: a label, labels joined by commas or "or", or "not" before them (the complement).

    Args:
        value: what the model wrote, e.g. ``"In Progress"``, ``"new, on_hold"``, ``"not resolved"``.
        choices: normalised label (lower case, words joined by ``_``) -> the canonical values it stands for.
            A label that itself starts with "not" (``not_requested``) is a value, never a negation.
        universe: every canonical value, in display order (the complement is taken within it).
        argument: the parameter's name, for messages.

    Raises:
        ArgumentError: an unknown label, a "not" in the middle of a list, or a filter that matches nothing.
    """
    text = value.strip()
    negation = _NEGATION.match(text)
    is_negated = negation is not None and _key(text) not in choices
    parts = [part for part in _SEPARATOR.split(text[negation.end():] if is_negated and negation else text) if part]
    if not parts:
        raise ArgumentError(f"{argument}: empty value; accepted: {_accepted(choices)}.")
    keys = [_lookup(part, choices, argument=argument, is_negated=is_negated) for part in parts]
    named = {item for key in keys for item in choices[key]}
    selected = [item for item in universe if (item in named) != is_negated]
    if not selected:
        raise ArgumentError(f"{argument}: {value.strip()!r} excludes every value, so nothing could match.")
    return SetFilter(argument=argument, asked=text, named=tuple(key.replace("_", " ") for key in keys),
                     is_negated=is_negated, values=tuple(selected), is_everything=len(selected) == len(universe))


def _lookup(part: str, choices: Mapping[str, tuple[str, ...]], *, argument: str, is_negated: bool) -> str:
    key = _key(part)
    if key in choices:
        return key
    inner = _key(_NEGATION.sub("", part)) if _NEGATION.match(part) else ""
    if inner in choices and is_negated:
        return inner  # "not a, not b": the repeated "not" says what the first one already did
    if inner in choices:
        raise ArgumentError(f"{argument}: {part.strip()!r} inside a list of values; put 'not' once, before "
                            "the whole list ('not a, b' excludes a and b).")
    raise ArgumentError(f"{argument}: unknown value {part.strip()!r}; accepted: {_accepted(choices)}.")


def _key(text: str) -> str:
    return "_".join(text.strip().lower().replace("-", " ").split())


def _accepted(choices: Mapping[str, tuple[str, ...]]) -> str:
    return ", ".join(sorted(choices)) + ", or 'not <value>'"


def vocabulary_filter(call: ToolCall, value: str, vocabulary: Vocabulary, *, argument: str) -> SetFilter:
    """``parse_set_filter`` over every way ``vocabulary`` writes its values, recorded in ``call.query``."""
    resolved = parse_set_filter(value, vocabulary.choices_by_key(), universe=vocabulary.values(), argument=argument)
    call.query[argument] = resolved.to_json()
    return resolved
