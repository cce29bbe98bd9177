"""Filters read from the tool catalog's vocabularies that the state/priority patterns do not cover: the
assignee (a person of the inventory, or nobody), the age ("older than 2 days", "open for more than a
week") and the order ("the oldest open ticket", "newest first"). Each becomes a ``FilterMention`` like
any other, so planners get it as a hint and the answer checks ask whether a search applied it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from opsagent.contracts.analysis import EntityMention, FilterMention, Span
from opsagent.tools.timewindow import unit_minutes
from opsagent.tools.vocabularies import ASSIGNEE, CHANGE_ORDER, INCIDENT_ORDER

NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}
AGE = re.compile(
    r"\b(?:older than|(?:been\s+)?open(?:ed)?\s+(?:for\s+)?(?:more|longer)\s+than|(?:for\s+)?(?:more|longer)\s+than|"
    r"over)\s+(?P<count>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)\s+"
    r"(?P<unit>hours?|days?|weeks?|months?)(?:\s+old)?\b",
    re.IGNORECASE,
)
"""An age stated as a bound: "older than 2 days", "open for more than a week", "over 3 days old"."""
ASSIGNED = re.compile(r"\b(?:assigned to|working on|work(?:s|ing)? on|owned by|owns|with|on)\b", re.IGNORECASE)
CHANGE_WORDS = re.compile(r"\bchange|\bchg\b|\bcrs?\b|\brfcs?\b|\bdeployments?\b", re.IGNORECASE)




def _count_and_unit(match: re.Match[str]) -> tuple[int, str]:
    count = match.group("count").lower().replace("a couple of", "couple of").replace("a few", "few")
    return NUMBER_WORDS.get(count) or int(count), match.group("unit").lower().rstrip("s")


def _duration(match: re.Match[str]) -> str:
    number, unit = _count_and_unit(match)
    return f"{number} {unit}{'s' if number != 1 else ''}"


def duration_minutes(match: re.Match[str]) -> int:
    """An age match in minutes ("more than two days" → 2880)."""
    number, unit = _count_and_unit(match)
    return number * (unit_minutes(unit) or 0)


def age_filters(text: str) -> Iterator[FilterMention]:
    for match in AGE.finditer(text):
        # the bound is the filter's own words: "open" in "open for more than a day" stays the state's
        bound = re.search(r"\b(?:older|more|longer|over)\b", match.group(), re.IGNORECASE)
        start = match.start() + (bound.start() if bound else 0)
        yield FilterMention(field="age", values=[_duration(match)], text=text[start:match.end()],
                            span=Span(start=start, end=match.end()))


def assignee_filters(text: str, entities: Sequence[EntityMention]) -> Iterator[FilterMention]:
    """Nobody ("unassigned", "nobody picked up"), someone ("is anyone working on it?"), or a person it names."""
    for match, value in ASSIGNEE.find(text):
        yield FilterMention(field="assignee", values=[value], text=match.group(),
                            span=Span(start=match.start(), end=match.end()))
    for entity in entities:
        if entity.kind == "person" and entity.usable:
            yield FilterMention(field="assignee", values=[entity.value], text=entity.text, span=entity.span)


INCIDENT_WORDS = re.compile(r"\bincidents?\b|\btickets?\b|\bincs?\b|\bp[1-5]s?\b|\bsev\s?[1-5]s?\b", re.IGNORECASE)


def order_filters(text: str) -> Iterator[FilterMention]:
    """"the oldest open ticket", "newest first", "next up": the order of incidents or of changes."""
    if CHANGE_WORDS.search(text):
        vocabulary, field = CHANGE_ORDER, "change_order"
    elif INCIDENT_WORDS.search(text):
        vocabulary, field = INCIDENT_ORDER, "incident_order"
    else:
        return
    for match, value in vocabulary.find(text):
        yield FilterMention(field=field, values=[value], text=match.group(),
                            span=Span(start=match.start(), end=match.end()))


def catalog_filters(text: str, entities: Sequence[EntityMention]) -> list[FilterMention]:
    return [*age_filters(text), *assignee_filters(text, entities), *order_filters(text)]
