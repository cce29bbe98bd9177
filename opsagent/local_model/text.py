"""Shared text analysis: tokens, typo repair and the entities ops questions carry.

Entities are what a question is *about* (ticket numbers, run ids, pipeline names, CIs, regions);
they decide tool arguments and are carried into every planned task. Time windows, priorities and
other filters are not read here: the intake analysis found them already (see ``task_facts.py``).
The patterns are a few readable tables rather than one regex per question type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from opsagent.contracts.analysis import TimeMention
from opsagent.intake.vocabulary import REGIONS

WORD = re.compile(r"[a-z0-9][a-z0-9_\-']*")
INCIDENT = re.compile(r"\bINC\d{5,10}\b", re.IGNORECASE)
CHANGE = re.compile(r"\bCHG\d{5,10}\b", re.IGNORECASE)
RUN_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
PIPELINE = re.compile(r"\bpl_[a-z0-9_]*[a-z0-9]\b", re.IGNORECASE)
CONFIG_ITEM = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:prod|dev|test|uat|weu|neu|\d{1,3})(?:-[a-z0-9]+)*\b")

REGION_WORDS: dict[str, str] = {word: name for name, words in REGIONS.items() for word in words}
"""Region words users type → the region name tools understand (longest phrase wins)."""
NAMED_REGION = re.compile(r"\b(?:in|for|from) (?:the )?([a-z][a-z\- ]{2,30}?) region\b")
""""in the Antarctica region": a region the table does not know is passed on as typed, so the
tool can say it has no data for it (and list the regions it knows) instead of it being dropped."""
NOT_A_REGION = frozenset("same other that this which each any every one my our your their a an".split())


@dataclass(frozen=True)
class Entities:
    """What a piece of text names, in order of appearance, without duplicates."""

    incidents: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()
    pipelines: tuple[str, ...] = ()
    config_items: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    time_window: str | None = None
    """The phrase of the first time expression intake found in this text (tools resolve it the same way)."""
    groups: tuple[str, ...] = ()
    targets: tuple[str, ...] = field(default=())
    """Named things a specialist checks separately (e.g. platforms), filled by ``detect.py``."""

    def ids(self) -> tuple[str, ...]:
        return self.incidents + self.changes + self.run_ids + self.pipelines

    def of_kind(self, kind: str) -> tuple[str, ...]:
        value = getattr(self, KIND_FIELDS.get(kind, kind), ())
        if isinstance(value, tuple):
            return value
        return () if value is None else (str(value),)

    def is_empty(self) -> bool:
        return not (self.ids() or self.config_items or self.targets or self.groups)


KIND_FIELDS = {
    "incident": "incidents", "change": "changes", "run_id": "run_ids", "pipeline": "pipelines",
    "configuration_item": "config_items", "region": "regions", "group": "groups", "target": "targets",
}
"""Entity kinds as YAML hints name them → ``Entities`` fields."""


def normalise(text: str) -> str:
    """Lower case, straight quotes, single spaces: the form every rule matches against."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    return " ".join(text.split())


def words(text: str) -> list[str]:
    return WORD.findall(normalise(text))


def unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def contains_phrase(text: str, phrase: str) -> bool:
    """Whole-word phrase match on normalised text."""
    return find_phrase(text, phrase) >= 0


def find_phrase(text: str, phrase: str) -> int:
    """Position of ``phrase`` as whole words in ``text`` (normalised), or -1."""
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        before_ok = start == 0 or not text[start - 1].isalnum()
        after_ok = end == len(text) or not (text[end].isalnum() or text[end] == "_")
        if before_ok and after_ok:
            return start
        start = text.find(phrase, start + 1)
    return -1


def regions(text: str) -> tuple[str, ...]:
    low = normalise(text)
    found = [(find_phrase(low, phrase), -len(phrase), name) for phrase, name in REGION_WORDS.items()]
    known = unique(name for position, _, name in sorted(found) if position >= 0)
    if known:
        return known
    named = NAMED_REGION.search(low)
    return (named.group(1).title(),) if named and not set(named.group(1).split()) & NOT_A_REGION else ()


def time_in(text: str, times: Sequence[TimeMention]) -> str | None:
    """The tool phrase of the first of intake's time expressions written (or carried) in ``text``."""
    low = normalise(text)
    return next((item.phrase for item in times if normalise(item.text) in low or normalise(item.phrase) in low), None)


def extract(text: str, groups: Iterable[str] = (), times: Sequence[TimeMention] = ()) -> Entities:
    """Every entity in ``text``; ``groups`` are the assignment-group names to recognise, ``times``
    the question's time expressions as intake resolved them (never parsed again here)."""
    low = normalise(text)
    return Entities(
        incidents=unique(match.upper() for match in INCIDENT.findall(text)),
        changes=unique(match.upper() for match in CHANGE.findall(text)),
        run_ids=unique(match.lower() for match in RUN_ID.findall(text)),
        pipelines=unique(match.lower() for match in PIPELINE.findall(text)),
        config_items=unique(item for item in CONFIG_ITEM.findall(low) if item not in REGION_WORDS),
        regions=regions(low),
        time_window=time_in(low, times),
        groups=unique(group for group in groups if contains_phrase(low, group.lower())),
    )
