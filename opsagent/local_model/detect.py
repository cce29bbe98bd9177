"""Which specialists a text is about, where each is mentioned, and which named targets it names.

Scoring is deliberately simple so a maintainer can predict it: a strong vocabulary word or an
unambiguous id gives its specialist 2 points, a weak word 1; 2 points select a specialist.
Typos are repaired first against the known vocabulary (one edit, words of five letters or more).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from opsagent.contracts.analysis import FilterMention, RecordWindow, TimeMention
from opsagent.local_model.knowledge import STRONG, Knowledge, SpecialistHints
from opsagent.local_model.scope import background_end, clauses
from opsagent.local_model.text import (
    CHANGE, CONFIG_ITEM, INCIDENT, PIPELINE, RUN_ID, WORD, Entities, extract, find_phrase, normalise, time_in, unique,
)

SELECT_AT = STRONG
MIN_TYPO_LENGTH = 5
ENTITY_PATTERNS: dict[str, re.Pattern[str]] = {
    "incident": INCIDENT, "change": CHANGE, "run_id": RUN_ID, "pipeline": PIPELINE, "configuration_item": CONFIG_ITEM,
}


@dataclass(frozen=True)
class Mention:
    specialist: str
    position: int
    points: int
    word: str = ""


@dataclass(frozen=True)
class Analysis:
    """One text, analysed: repaired form, entities, per-specialist scores and mentions."""

    text: str
    entities: Entities
    scores: dict[str, int]
    mentions: tuple[Mention, ...]
    asks_from: int = 0
    """Where the asks begin (after background statements, see ``scope.background_end``)."""
    times: tuple[TimeMention, ...] = ()
    """The question's time expressions (from intake), for telling which part of the text owns one."""
    record_windows: tuple[RecordWindow, ...] = ()
    """Windows placed by a record ("before CHG… started"): the record's specialist produces them."""

    def in_record_window(self, position: int) -> bool:
        return any(item.span.start <= position < item.span.end for item in self.record_windows)

    @property
    def selected(self) -> tuple[str, ...]:
        """Specialists with enough points, in order of first mention; else the best partial one."""
        chosen = [name for name in self.by_first_mention() if self.scores.get(name, 0) >= SELECT_AT]
        if chosen:
            return tuple(chosen)
        partial = sorted((-score, self.first_position(name), name) for name, score in self.scores.items() if score > 0)
        entities = self.entities
        concrete = entities.ids() or entities.config_items or entities.time_window or entities.targets
        return (partial[0][2],) if partial and concrete else ()

    def first_position(self, name: str) -> int:
        return min((m.position for m in self.mentions if m.specialist == name), default=len(self.text))

    def by_first_mention(self) -> list[str]:
        return sorted(self.scores, key=self.first_position)

    def positions(self, name: str) -> list[int]:
        return sorted(m.position for m in self.mentions if m.specialist == name)


COMMON_WORDS = frozenset(
    "whether weather sales cause cases these those there their where which while about after again "
    "should would could still since today night right other every check show tell "
    "power powers tower lower slower older order orders holder folder wonder under rolled ruled rain ruin rung "
    "spun stun tail mail nail rail sail hail jail bail fall fill file filed files aired wipe ripe type hype charge "
    "range orange chance chase stage plate slate crate grate tickle pickle tackle ticker mower rower brown crown "
    "clown frown grown known shown town dawn dune bridge fridge gateway later layer player prayer"
    .split()
)
"""Ordinary English words that must never be "repaired" into a vocabulary word."""


class TypoFixer:
    """One-edit typo repair against a vocabulary (a symmetric-deletion index: fast and exact)."""

    def __init__(self, vocabulary: Iterable[str], protected: Iterable[str] = ()) -> None:
        targets = {word for word in vocabulary if word.isalpha()}
        self.known = targets | COMMON_WORDS | {word for word in protected if word.isalpha()}
        index: dict[str, str] = {}
        for word in sorted(targets):
            if len(word) >= MIN_TYPO_LENGTH:
                for variant in (word, *_deletions(word)):
                    index.setdefault(variant, word)
        self.index = index

    def fix_word(self, word: str) -> str:
        if len(word) < MIN_TYPO_LENGTH or word in self.known or not word.isalpha():
            return word
        if word.endswith("s") and word[:-1] in self.known:  # a plural ("windows") is not a typo
            return word
        for variant in (word, *_deletions(word)):
            if variant in self.index:
                return self.index[variant]
        return word

    def fix(self, text: str) -> str:
        return WORD.sub(lambda match: self.fix_word(match.group()), normalise(text))


def _deletions(word: str) -> list[str]:
    return [word[:index] + word[index + 1:] for index in range(len(word))]


def _vocabulary_mentions(text: str, hints: SpecialistHints) -> list[Mention]:
    found = []
    for phrase, points in hints.vocabulary.items():
        position = find_phrase(text, phrase)
        if position >= 0:
            found.append(Mention(hints.name, position, points, phrase))
    return found


def _entity_mentions(low: str, hints: SpecialistHints) -> list[Mention]:
    found = []
    for kind, points in hints.entity_weights.items():
        pattern = ENTITY_PATTERNS.get(kind)
        match = pattern.search(low) if pattern else None
        if match:
            found.append(Mention(hints.name, match.start(), points))
    return found


def target_positions(text: str, hints: SpecialistHints) -> list[tuple[int, str]]:
    """Targets (e.g. platforms) named in ``text``, as (position, target name), in text order."""
    found = []
    for target in hints.targets:
        positions = [find_phrase(text, word) for word in target.words]
        hits = [position for position in positions if position >= 0]
        if hits:
            found.append((min(hits), target.name))
    return sorted(found)


def analyse(text: str, knowledge: Knowledge, fixer: TypoFixer | None = None,
            times: Sequence[TimeMention] = ()) -> Analysis:
    """Score every registered specialist for ``text`` and extract its entities (``times``: the
    question's time expressions as intake resolved them)."""
    low = fixer.fix(text) if fixer else normalise(text)
    entities = extract(text, knowledge.groups, times)
    mentions: list[Mention] = []
    targets: list[str] = []
    for hints in knowledge.specialists:
        mentions += _vocabulary_mentions(low, hints) + _entity_mentions(low, hints)
        found = [(position, name) for position, name in target_positions(low, hints)
                 if not _names_anothers_thing(low, position, hints.name, knowledge)]
        targets += [name for _, name in found]
        target_points = hints.entity_weights.get("target", 0)
        mentions += [Mention(hints.name, position, target_points) for position, _ in found if target_points]
        group_points = hints.entity_weights.get("group", 0)
        mentions += [Mention(hints.name, find_phrase(low, group.lower()), group_points)
                     for group in entities.groups if group in hints.groups and group_points]
    asks_from = background_end(low)
    mentions = _relevant(mentions, low, knowledge, entities.groups, asks_from)
    if asks_from:
        entities = replace(entities, time_window=time_in(low[asks_from:], times))
    scores = {hints.name: 0 for hints in knowledge.specialists}
    for mention in mentions:
        scores[mention.specialist] += mention.points
    entities = replace(entities, targets=unique(targets))
    return Analysis(low, entities, scores, tuple(sorted(mentions, key=lambda m: m.position)), asks_from, tuple(times))


def with_filters(analysis: Analysis, filters: Sequence[FilterMention], knowledge: Knowledge) -> Analysis:
    """A stated filter names what is asked about when nothing else does: "anything critical open?" is
    about incidents (priority 1), "any sev1s?" too."""
    if not filters or analysis.selected:
        return analysis
    scores = dict(analysis.scores)
    mentions = list(analysis.mentions)
    for hints in knowledge.specialists:
        owned = [item for item in filters if item.field in hints.filters]
        if owned:
            scores[hints.name] = max(scores[hints.name], SELECT_AT)
            mentions.append(Mention(hints.name, owned[0].span.start, SELECT_AT))
    return replace(analysis, scores=scores, mentions=tuple(sorted(mentions, key=lambda m: m.position)))


THEN = re.compile(r"\b(?:and\s+)?then\b")


def with_then_asks(analysis: Analysis) -> Analysis:
    """"Find the firewall change, then tell me what failed during it": after "then" comes an ask of
    its own, so the one specialist its words name is asked even when those words are weak."""
    cuts = [match.end() for match in THEN.finditer(analysis.text)]
    if not cuts:
        return analysis
    bounds = [*cuts, len(analysis.text)]
    scores = dict(analysis.scores)
    for start, end in zip(bounds, bounds[1:], strict=False):
        named = {m.specialist for m in analysis.mentions if start <= m.position < end}
        if len(named) == 1:
            name = next(iter(named))
            scores[name] = max(scores[name], SELECT_AT)
    return replace(analysis, scores=scores)


def with_record_windows(analysis: Analysis, windows: Sequence[RecordWindow]) -> Analysis:
    """"Did anything fail in the 30 minutes before CHG… started?": the record only places the window;
    what happened in it is asked of the specialists whose words (even weak ones) name it."""
    if not windows:
        return analysis
    analysis = replace(analysis, record_windows=tuple(windows))
    owners = {m.specialist for m in analysis.mentions if analysis.in_record_window(m.position)}
    scores = dict(analysis.scores)
    for mention in analysis.mentions:
        if owners and mention.specialist not in owners and mention.word and not analysis.in_record_window(mention.position):
            scores[mention.specialist] = max(scores[mention.specialist], SELECT_AT)
    return replace(analysis, scores=scores)


QUALIFIER_REACH = 3
"""A platform word this close before another specialist's noun names that thing, not the platform."""


def _names_anothers_thing(low: str, position: int, name: str, knowledge: Knowledge) -> bool:
    """"the Snowflake upgrade *change*", "the Databricks *incident*": the platform word qualifies a
    record another specialist holds, so it is not a health check."""
    following = WORD.findall(low[position:])[1:1 + QUALIFIER_REACH]
    nouns = {word for hints in knowledge.specialists if hints.name != name
             for word, points in hints.vocabulary.items() if points >= STRONG and " " not in word}
    return any(word in nouns for word in following)


def _spans(text: str, phrases: Iterable[str]) -> list[tuple[int, int]]:
    found = []
    for phrase in phrases:
        position = find_phrase(text, phrase)
        if position >= 0:
            found.append((position, position + len(phrase)))
    return found


def _relevant(mentions: list[Mention], low: str, knowledge: Knowledge, groups: Iterable[str],
              asks_from: int) -> list[Mention]:
    """Drop mentions that do not ask anything of their specialist (see ``scope`` and the YAML's
    ``vocabulary.ignore`` / ``vocabulary.contextual``). A group name's own words ("Data *Platform*
    Ops") belong to the group; a word inside a longer vocabulary phrase ("*status* page") to the phrase."""
    group_spans = _spans(low, (group.lower() for group in groups))
    masks = {hints.name: _spans(low, hints.ignore) + group_spans for hints in knowledge.specialists}
    words = [(m.position, m.position + len(m.word)) for m in mentions if m.word]
    kept = [m for m in mentions if not (m.word and (
        any(a <= m.position < b for a, b in masks[m.specialist])  # masked
        or any(a <= m.position and m.position + len(m.word) <= b and b - a > len(m.word) for a, b in words)))]
    asked = {m.specialist for m in kept if m.position >= asks_from}
    kept = [m for m in kept if m.specialist in asked]
    parts = clauses(low)
    contextual = {hints.name: hints.contextual for hints in knowledge.specialists}
    by_name = {hints.name: hints for hints in knowledge.specialists}

    def counts(mention: Mention) -> bool:
        if mention.word not in contextual[mention.specialist]:
            return True
        if not any(m.specialist != mention.specialist for m in kept):
            return True
        clause = next((part for part in parts if part.start <= mention.position < part.end), None)
        return clause is not None and (bool(target_positions(clause.text, by_name[mention.specialist])) or any(
            m.specialist == mention.specialist and m.word not in contextual[m.specialist]
            and clause.start <= m.position < clause.end for m in kept))

    return [m for m in kept if counts(m)]
