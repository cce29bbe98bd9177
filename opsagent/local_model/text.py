"""Shared text analysis: tokens, typo repair and the entities ops questions carry.

Entities are what a question is *about* (ticket numbers, run ids, pipeline names, CIs, regions,
time windows, priorities); they decide tool arguments and are carried into every planned task.
The patterns are a few readable tables rather than one regex per question type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

WORD = re.compile(r"[a-z0-9][a-z0-9_\-']*")
INCIDENT = re.compile(r"\bINC\d{5,10}\b", re.IGNORECASE)
CHANGE = re.compile(r"\bCHG\d{5,10}\b", re.IGNORECASE)
RUN_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
PIPELINE = re.compile(r"\bpl_[a-z0-9_]*[a-z0-9]\b", re.IGNORECASE)
CONFIG_ITEM = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:prod|dev|test|uat|weu|neu|\d{1,3})(?:-[a-z0-9]+)*\b")

REGIONS: dict[str, str] = {
    "west europe": "West Europe", "westeurope": "West Europe", "weu": "West Europe",
    "north europe": "North Europe", "northeurope": "North Europe", "neu": "North Europe",
    "east us 2": "East US 2", "eastus2": "East US 2", "east us": "East US", "west us": "West US",
    "eu-west-1": "eu-west-1", "frankfurt": "Frankfurt", "netherlands": "West Europe", "ireland": "North Europe",
}
"""Region words users type → the region name tools understand (longest phrase wins)."""
NAMED_REGION = re.compile(r"\b(?:in|for|from) (?:the )?([a-z][a-z\- ]{2,30}?) region\b")
""""in the Antarctica region": a region the table does not know is passed on as typed, so the
tool can say it has no data for it (and list the regions it knows) instead of it being dropped."""
NOT_A_REGION = frozenset("same other that this which each any every one my our your their a an".split())

TIME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(since|from) (yesterday|today|last night|this morning|monday|last week)\b"), "since {2}"),
    (re.compile(r"\b(?:in the |over the |during the |for the )?(last|past|previous|next) (\d+) ?(minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|w)\b"), "{1} {2} {3}"),
    (re.compile(r"\b(?:in the |over the )?(last|past|previous|next) (hour|day|week|24h)\b"), "{1} {2}"),
    (re.compile(r"\b(\d+) ?(h|hrs|hours|d|days)\b"), "last {1} {2}"),
    (re.compile(r"\b(?:overnight|(?:yesterday|last) evening)\b"), "last night"),
    (re.compile(r"\b(today|yesterday|tomorrow|last night|this week|tonight)\b"), "{1}"),
    (re.compile(r"\bthis morning\b"), "today"),
    (re.compile(r"\b(recently|recent|lately)\b"), "last 7 days"),
)
"""Time phrases → the plain phrase tools resolve (``timewindow.py``); first match wins."""

UNIT_WORDS = {"h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "d": "days", "day": "days",
              "w": "weeks", "week": "weeks", "min": "minutes", "mins": "minutes", "minute": "minutes"}

PRIORITY_WORDS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"\bp1\s*/\s*p2\b|\bp1 (?:and|or) p2\b|\bp1-p2\b"), 2),
    (re.compile(r"\bp([1-5])s?\b"), 0),
    (re.compile(r"\bpriority ([1-5])\b"), 0),
    (re.compile(r"\b(critical|sev ?1)\b"), 1),
    (re.compile(r"\b(high[- ]priority|high prio|urgent|major)\b"), 2),
)
"""Priority phrases → "priority N or more urgent"; 0 means "take the captured digit"."""


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
    priority: int | None = None
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


def time_window(text: str) -> str | None:
    """The first time phrase in ``text`` as a plain phrase, e.g. "last 24 hours" or "since yesterday"."""
    low = normalise(text)
    for pattern, template in TIME_PATTERNS:
        match = pattern.search(low)
        if match:
            parts = [UNIT_WORDS.get(part, part) for part in match.groups()]
            phrase = template.format(None, *parts)
            return phrase.replace("last 24h", "last 24 hours").replace("next 24h", "next 24 hours")
    return None


def priority(text: str) -> int | None:
    low = normalise(text)
    for pattern, value in PRIORITY_WORDS:
        match = pattern.search(low)
        if match:
            return value or int(match.group(1))
    return None


def regions(text: str) -> tuple[str, ...]:
    low = normalise(text)
    found = [(find_phrase(low, phrase), name) for phrase, name in REGIONS.items()]
    known = unique(name for position, name in sorted(found) if position >= 0)
    if known:
        return known
    named = NAMED_REGION.search(low)
    return (named.group(1).title(),) if named and not set(named.group(1).split()) & NOT_A_REGION else ()


def extract(text: str, groups: Iterable[str] = ()) -> Entities:
    """Every entity in ``text``; ``groups`` are the assignment-group names to recognise."""
    low = normalise(text)
    return Entities(
        incidents=unique(match.upper() for match in INCIDENT.findall(text)),
        changes=unique(match.upper() for match in CHANGE.findall(text)),
        run_ids=unique(match.lower() for match in RUN_ID.findall(text)),
        pipelines=unique(match.lower() for match in PIPELINE.findall(text)),
        config_items=unique(item for item in CONFIG_ITEM.findall(low) if item not in REGIONS),
        regions=regions(low),
        time_window=time_window(low),
        priority=priority(low),
        groups=unique(group for group in groups if contains_phrase(low, group.lower())),
    )
