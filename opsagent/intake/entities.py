"""Ids and names in the question, checked against the inventory.

Ticket numbers and run ids are recognised by their shape and normalised ("inc0010052" →
INC0010052). Pipeline, factory and CI names are checked against what exists: an exact match, a
near miss corrected with a note ("pl_load_finanse_dwh" → pl_load_finance_dwh), or unknown with
"did you mean" suggestions. Groups, platforms, services and regions are matched as phrases,
typos included ("Netwrok Operations"). Fuzzy matching is ``difflib``'s (standard library).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import cast

from opsagent.contracts.analysis import EntityKind, EntityMention, Span
from opsagent.intake.inventory import InventorySnapshot
from opsagent.intake.vocabulary import PLATFORMS, REGION_CODES, REGIONS, SERVICE_ALIASES
from opsagent.tools.identifiers import NAME, RUN_ID, TICKET_PREFIXES, TYPED_TICKET, normalised_ticket

WORD = re.compile(r"[a-z0-9][a-z0-9_'-]*", re.IGNORECASE)
CORRECT_AT = 0.88
"""A near miss this close to exactly one known name is corrected; closer than SUGGEST_AT is suggested."""
SUGGEST_AT = 0.75


def _mention(kind: EntityKind, value: str, match: re.Match[str], **fields: object) -> EntityMention:
    return EntityMention(kind=kind, value=value, text=match.group(), span=Span(start=match.start(), end=match.end()),
                         **fields)


def tickets_and_runs(text: str) -> Iterator[EntityMention]:
    for match in TYPED_TICKET.finditer(text):
        number = normalised_ticket(match.group(1), match.group(2))
        yield _mention(cast(EntityKind, TICKET_PREFIXES[number[:3]]), number, match, status="unverified")
    for match in RUN_ID.finditer(text):
        yield _mention("run_id", match.group().lower(), match, status="unverified")


def _looks_like_name(token: str) -> bool:
    """Snake or kebab names with a digit or an underscore; plain hyphenated words are English."""
    return "_" in token or any(char.isdigit() for char in token)


def _known_names(inventory: InventorySnapshot) -> dict[str, EntityKind]:
    names: dict[str, EntityKind] = {item: "configuration_item" for item in inventory.configuration_items}
    names |= {factory: "factory" for factory in inventory.factories}
    names |= {item.name: "pipeline" for item in inventory.pipelines}
    return names


def _source_read(kind: EntityKind, inventory: InventorySnapshot) -> bool:
    return ("pipelines" if kind in ("pipeline", "factory") else "servicenow") in inventory.complete


def names(text: str, inventory: InventorySnapshot) -> Iterator[EntityMention]:
    """Snake/kebab tokens: exact, corrected, unknown with suggestions, or unverified."""
    known = _known_names(inventory)
    by_lower = {name.lower(): (name, kind) for name, kind in known.items()}
    for match in NAME.finditer(text):
        token = match.group().lower()
        if token in by_lower:
            name, kind = by_lower[token]
            yield _mention(kind, name, match)
            continue
        close = difflib.get_close_matches(token, list(by_lower), n=3, cutoff=SUGGEST_AT)
        if not _looks_like_name(token) and not close:
            continue
        guess: EntityKind = by_lower[close[0]][1] if close else ("pipeline" if token.startswith("pl_") else "configuration_item")
        if close and difflib.SequenceMatcher(None, token, close[0]).ratio() >= CORRECT_AT and (
                len(close) == 1 or difflib.SequenceMatcher(None, token, close[1]).ratio() < CORRECT_AT):
            yield _mention(guess, by_lower[close[0]][0], match, status="corrected")
        elif _source_read(guess, inventory):
            yield _mention(guess, match.group(), match, status="unknown",
                           suggestions=[by_lower[item][0] for item in close])
        else:
            yield _mention(guess, match.group(), match, status="unverified")


def _windows(text: str, size: int) -> Iterator[tuple[int, int, str]]:
    words = list(WORD.finditer(text))
    for index in range(len(words) - size + 1):
        start, end = words[index].start(), words[index + size - 1].end()
        yield start, end, text[start:end]


def phrases(text: str, candidates: Iterable[str], kind: EntityKind, *, fuzzy: bool = True) -> Iterator[EntityMention]:
    """Multi-word names (groups, services, components) as written, or with a small typo."""
    low = text.lower()
    for name in sorted(set(candidates), key=len, reverse=True):
        size = len(name.split())
        matcher = difflib.SequenceMatcher(None, b=name.lower())  # the name side is indexed once
        for start, end, written in _windows(low, size):
            exact = written == name.lower()
            if not exact and not (fuzzy and size > 1 and _close(matcher, written)):
                continue
            yield EntityMention(kind=kind, value=name, text=text[start:end], span=Span(start=start, end=end),
                                status="exact" if exact else "corrected")


def _close(matcher: difflib.SequenceMatcher, written: str) -> bool:
    """Whether ``written`` is a near miss of the matcher's name (cheap upper bounds first)."""
    matcher.set_seq1(written)
    return (matcher.real_quick_ratio() >= CORRECT_AT and matcher.quick_ratio() >= CORRECT_AT
            and matcher.ratio() >= CORRECT_AT)


def aliases(text: str, table: dict[str, tuple[str, ...]], kind: EntityKind) -> Iterator[EntityMention]:
    """Names by the words people write for them ("weu", "dbx")."""
    low = text.lower()
    for name, words in table.items():
        for word in sorted(words, key=len, reverse=True):
            for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", low):
                yield EntityMention(kind=kind, value=name, text=text[match.start():match.end()],
                                    span=Span(start=match.start(), end=match.end()))


def factory_by_region(text: str, inventory: InventorySnapshot, regions: list[EntityMention]) -> Iterator[EntityMention]:
    """"the North Europe factory" → the factory whose name carries that region's code."""
    low = text.lower()
    about_pipelines = PIPELINE_WORDS.search(low) is not None
    for region in regions:
        after = low[region.span.end:region.span.end + 18]
        if "factory" not in after and "adf" not in after and not about_pipelines:
            continue
        code = REGION_CODES.get(region.value, "")
        matches = [name for name in inventory.factories if code and name.lower().endswith(f"-{code}")]
        if len(matches) == 1 and "factory" not in after and "adf" not in after:  # "pipelines in North Europe"
            yield EntityMention(kind="factory", value=matches[0], text=region.text, span=region.span, status="corrected")
        elif len(matches) == 1:
            end = region.span.end + after.index("factory" if "factory" in after else "adf") + 7
            yield EntityMention(kind="factory", value=matches[0], text=text[region.span.start:end],
                                span=Span(start=region.span.start, end=min(end, len(text))), status="corrected")


RUN_NOUNS = frozenset({"pipeline", "pipelines", "pipe", "job", "jobs", "run", "runs", "load", "loads"})
DESCRIBED_REACH = 4
"""The words that name a pipeline must lie within this many words of each other."""


def described_pipelines(text: str, inventory: InventorySnapshot) -> Iterator[EntityMention]:
    """A pipeline named by the words of its name ("the iot telemetry pipeline", "the finance load" →
    pl_ingest_iot_telemetry, pl_load_finance_dwh): two of its words close together, or one that only
    it has and that carries a digit or stands before "pipeline" / "job" / "run". Only when exactly one
    pipeline fits best; the reading is noted like any correction."""
    words = [(match.group().lower(), match.start(), match.end()) for match in WORD.finditer(text)]
    tokens = {item.name: [token for token in item.name.lower().split("_")[1:] if token] for item in inventory.pipelines}
    owners: dict[str, int] = {}
    for parts in tokens.values():
        for token in set(parts):
            owners[token] = owners.get(token, 0) + 1
    best: list[tuple[int, str, int, int]] = []
    for name, parts in tokens.items():
        hits = [index for index, (word, _, _) in enumerate(words) if word in parts]
        for first in hits:
            group = [index for index in hits if first <= index < first + DESCRIBED_REACH]
            matched = {words[index][0] for index in group}
            after = words[group[-1] + 1][0] if group[-1] + 1 < len(words) else ""
            single = len(matched) == 1 and owners.get(next(iter(matched)), 0) == 1 and (
                any(char.isdigit() for char in next(iter(matched))) or (len(next(iter(matched))) >= 6 and after in RUN_NOUNS))
            if len(matched) >= 2 or single:
                best.append((len(matched), name, words[group[0]][1], words[group[-1]][2]))
    if not best:
        return
    top = max(score for score, *_ in best)
    winners = {name for score, name, *_ in best if score == top}
    if len(winners) == 1:
        _, name, start, end = next(item for item in best if item[0] == top)
        yield EntityMention(kind="pipeline", value=name, text=text[start:end], span=Span(start=start, end=end),
                            status="corrected")


PIPELINE_WORDS = re.compile(r"\bpipelines?\b")
"""A question about pipelines: a region it names is the factory in that region."""


TEAM = re.compile(r"\b(?:the\s+)?([a-z][a-z]+(?:\s+[a-z][a-z]+)?)\s+(?:team|group|squad)\b", re.IGNORECASE)


def teams(text: str, groups: Iterable[str]) -> Iterator[EntityMention]:
    """"the data platform team" → Data Platform Ops: the one group whose name starts with those words."""
    for match in TEAM.finditer(text):
        words = match.group(1).lower()
        named = [group for group in groups if group.lower().startswith(words + " ") or group.lower() == words]
        if len(named) == 1:
            yield EntityMention(kind="assignment_group", value=named[0], text=match.group(),
                                span=Span(start=match.start(), end=match.end()), status="corrected")


def _accent_free(text: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))


def people(text: str, names: Iterable[str]) -> Iterator[EntityMention]:
    """A person as the records write them ("Tomás Ortega", "tomas ortega"), or by a first name only one
    person has ("what is Priya working on?")."""
    plain = _accent_free(text)
    known = list(names)
    for mention in phrases(plain, [_accent_free(name) for name in known], "person"):
        value = next(name for name in known if _accent_free(name) == mention.value)
        yield mention.model_copy(update={"value": value, "text": text[mention.span.start:mention.span.end]})
    firsts: dict[str, list[str]] = {}
    for name in known:
        firsts.setdefault(_accent_free(name.split()[0]).lower(), []).append(name)
    for match in WORD.finditer(plain):
        owners = firsts.get(match.group().lower(), [])
        if len(owners) == 1 and len(match.group()) >= 3:
            yield EntityMention(kind="person", value=owners[0], text=text[match.start():match.end()],
                                span=Span(start=match.start(), end=match.end()), status="corrected")


def find_entities(text: str, inventory: InventorySnapshot) -> list[EntityMention]:
    """Every entity in ``text``, the longest mention winning where two overlap."""
    regions = list(aliases(text, REGIONS, "region"))
    components = [item.name for item in inventory.components if item.platform == "Azure"]
    found = [
        *tickets_and_runs(text), *names(text, inventory), *factory_by_region(text, inventory, regions),
        *described_pipelines(text, inventory),
        *phrases(text, inventory.assignment_groups, "assignment_group"), *teams(text, inventory.assignment_groups),
        *phrases(text, components, "azure_service", fuzzy=False),
        *aliases(text, {value: (key,) for key, value in SERVICE_ALIASES.items()}, "azure_service"),
        *aliases(text, PLATFORMS, "platform"), *regions, *people(text, inventory.people),
    ]
    kept: list[EntityMention] = []
    for mention in sorted(found, key=lambda item: (item.span.start, -(item.span.end - item.span.start))):
        if not any(other.span.start <= mention.span.start < other.span.end for other in kept):
            kept.append(mention)
    return kept
