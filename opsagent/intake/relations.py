"""An ask that relates two kinds of record: "which failed pipelines have an open incident?".

Product code, for every model. Such an ask is answered only by searching both kinds and pairing their
rows: a list of failed pipelines, however true, does not say which of them have a ticket. Coverage holds
a part with a relation to a search of the other kind (``workflows/coverage``); the offline model, which
pairs no rows, says it could not read the relation instead of listing both kinds.

The asked kind is named by a noun ("tickets", "change request") or by a value only that kind has
("failed", "P1"); the related kind by a noun after a relation word ("with", "without", "that have",
"linked to", "for", "behind"…), with no list word ("and", "or", ",") in between: "failed pipelines or
P1s" asks for two lists. A value after a relation word describes ("changes nobody has approved"), and a
name ("pl_ingest_sales", "the change CHG…", "that pipeline") is a filter on its own kind, not a relation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from opsagent.contracts.analysis import EntityMention, RecordRelation, Span
from opsagent.tools.catalog import RECORDS, tool_spec
from opsagent.tools.vocabularies import VOCABULARIES

FAMILIES = {"incident": "incident", "change": "change", "run": "pipeline", "pipeline": "pipeline",
            "run_count": "pipeline"}
"""Record kinds one search family answers (a pipeline's runs are the pipeline's); health is left out: a
platform is asked about by its name, and "status" or "issues" name no platform."""
VAGUE_NOUNS = frozenset({"issue", "issues", "problem", "problems", "case", "cases", "job", "jobs", "load", "loads"})
"""Nouns that name a record only loosely: "pipelines with issues" are failing pipelines, "for the support case" is
the user's own errand, "incidents about job clusters" or "high load" name no run."""
COMPOUND = re.compile(r"(?:\b(?:state|status|priority|assignee|assignment|owner|group)\s+$)"
                      r"|(?:^\s+(?:advisory|management|board|team|manager|of)\b)", re.IGNORECASE)
"""Before or after a noun, a word that makes it part of another thing ("a priority change", "the change advisory
board", "a change of assignee"): no record of that kind."""
POINTED = re.compile(r"\b(?:that|this|these|those|its|their|the same)\s+$", re.IGNORECASE)
"""Before a noun, a pointer at a record named earlier ("an incident for that pipeline"): a name, not a kind."""
DEFINITE = re.compile(r"\bthe\s+$", re.IGNORECASE)
"""Before a singular noun, when the question names a record of that kind: that record ("pl_x's latest failed run
+ open inc for the pipeline?")."""
RELATION = re.compile(
    r"\b(?:with(?:out)?|that (?:have|has|had|got|are linked to|is linked to)|which (?:have|has|had)|having|have|has|had|"
    r"lacking|missing|linked (?:to|with)|tied to|related to|attached to|associated with|behind|for|against|about|"
    r"mentioning|raised (?:for|against|on)|opened (?:for|against|on)|logged (?:for|against)|during|while|within|inside|"
    r"overlapping(?: with)?|coincid(?:e|es|ed|ing) with)\b",
    re.IGNORECASE)
NEGATION = re.compile(r"\b(?:without|lacking|missing|no|not|never|none|nobody|no one|dont|doesnt|didnt|havent|hasnt)\b"
                      r"|n't\b", re.IGNORECASE)
LIST_WORD = re.compile(r"\b(?:and|or|plus|then|also)\b|[,;&]", re.IGNORECASE)
STILL = r"(?:still|yet|already|also|now|currently)"
"""Adverbs between "and" and a relation word ("… and still without a linked change")."""
SAME_SUBJECT = re.compile(rf"\band(?:\s+(?:{STILL}|do|does|did|don't|dont))*\s*$", re.IGNORECASE)
""""failed and (still) have a ticket": a second predicate of the same records, not a second list."""
MAX_GAP_WORDS = 6


def _blanked(text: str, span: Span, spans: Sequence[Span]) -> str:
    """``text`` (the ask at ``span``) in lower case, with what lies at ``spans`` blanked out."""
    low = text.lower()
    for item in spans:
        if item.within(span.start, span.end):
            start, end = item.start - span.start, item.end - span.start
            low = low[:start] + " " * (end - start) + low[end:]
    return low


def _kind_mentions(low: str, span: Span, entities: Sequence[EntityMention],
                   named: frozenset[str]) -> Iterator[tuple[int, int, str, bool]]:
    """(start, end, family, a noun of a kind) of each noun or one-kind value in the ask, names left out."""
    names = [(item.span.start - span.start, item.span.end - span.start) for item in entities
             if item.span.within(span.start, span.end)]
    found: list[tuple[int, int, str, bool]] = []
    for kind in RECORDS.values():
        family = FAMILIES.get(kind.name)
        for noun in kind.nouns if family else ():
            for match in re.finditer(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", low):
                if noun not in VAGUE_NOUNS and not _names_it(low, match, names):
                    before = low[:match.start()]
                    if COMPOUND.search(before) or COMPOUND.match(low[match.end():]):
                        continue
                    named_one = family in named and not noun.endswith("s") and DEFINITE.search(before)
                    found.append((match.start(), match.end(), family, not (POINTED.search(before) or named_one)))
    values: dict[tuple[int, int], set[str]] = {}
    for vocabulary in VOCABULARIES.values():
        if vocabulary.role == "value":  # "latest" orders incidents and runs alike: it names no kind
            for match, _ in vocabulary.find(low):
                values.setdefault((match.start(), match.end()), set()).add(vocabulary.record)
    found += [(start, end, FAMILIES[kind], False) for (start, end), kinds in values.items()
              if len(kinds) == 1 and (kind := next(iter(kinds))) in FAMILIES]  # "open": incidents and changes alike
    kept: list[tuple[int, int, str, bool]] = []
    for item in sorted(set(found), key=lambda item: (item[0], -item[1])):  # "change request", not "change"
        if not kept or item[0] >= kept[-1][1]:
            kept.append(item)
    yield from kept


def _names_it(low: str, match: re.Match[str], names: Sequence[tuple[int, int]]) -> bool:
    """A noun right before or after a name is that name's ("the change CHG…", "the pl_x pipeline")."""
    return any(0 <= start - match.end() <= 1 or 0 <= match.start() - end <= 1 for start, end in names)


def find_relation(text: str, span: Span, entities: Sequence[EntityMention], named: frozenset[str] = frozenset(),
                  times: Sequence[Span] = ()) -> RecordRelation | None:
    """The first relation between two kinds of record in one ask, if any; ``named``: the families the whole
    question names a record of; ``times``: windows it gives ("failed pipelines in the last 24h that have …"),
    which neither relate nor count as words between the two kinds."""
    low = _blanked(text, span, [item.span for item in entities])
    mentions = list(_kind_mentions(low, span, entities, named))
    windows_out = _blanked(text, span, times)
    for index, (_, head_end, head, _) in enumerate(mentions):
        other = next((item for item in mentions[index + 1:] if item[2] != head and item[3]), None)
        if other is None:
            continue
        gap = windows_out[head_end:other[0]]
        relation = RELATION.search(gap)
        listed = LIST_WORD.search(SAME_SUBJECT.sub("", gap[:relation.start()])) if relation else None
        if relation and not listed and not LIST_WORD.search(gap, relation.end()) and len(gap.split()) <= MAX_GAP_WORDS:
            return RecordRelation(head=head, other=other[2], words=text[head_end + relation.start():other[1]].strip(),
                                  negated=bool(NEGATION.search(gap)),
                                  span=Span(start=span.start + head_end + relation.start(), end=span.start + other[1]))
    return None


def searched_families(tools: Iterable[str]) -> set[str]:
    """The families the tools called fetched; a ticket's look-up also fetches the tickets it links (its "links":
    the change raised for it or that caused it, its parent, the tickets its text names)."""
    specs = [spec for tool in tools if (spec := tool_spec(tool))]
    families = {FAMILIES.get(spec.record) for spec in specs} - {None}
    return families | ({"incident", "change"} if any(spec.is_lookup and spec.record in ("incident", "change")
                                                     for spec in specs) else set())


def searched_both(relation: RecordRelation, tools: Iterable[str]) -> bool:
    """Whether the tools called fetched both kinds the relation pairs."""
    return {relation.head, relation.other} <= searched_families(tools)
