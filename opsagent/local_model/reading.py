"""A question read ask by ask: the record kinds each wants, its constraints and cues, or what it could not read.

Kinds come from an ask's nouns and ids, else its statuses, filters and names (another specialist's status only
qualifies them). Cues must fit ("them" needs something before it, "latest" one record, "why" a named one), else
they are **unread**. A leading clause without a question word is the topic of the next ask or, if it predicates
("pl_x failed this morning; is Snowflake the cause?"), a scene: looked up, not answered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from opsagent.contracts.analysis import Ask, AskShape, EntityMention, QuestionAnalysis, RecordWindow, Span, TimeMention
from opsagent.intake.asks import ASKING, shape_of
from opsagent.intake.entities import find_entities
from opsagent.intake.filters import find_filters
from opsagent.intake.inventory import InventorySnapshot
from opsagent.intake.record_windows import find_record_windows
from opsagent.intake.times import find_times
from opsagent.local_model.knowledge import FILTER_VOCABULARIES, Lexicon
from opsagent.local_model.knowledge import Found, nouns, read_words
from opsagent.tools.catalog import RECORDS, TOOLS
from opsagent.tools.vocabularies import VOCABULARIES

NAMED = frozenset({"pipeline", "factory", "configuration_item", "assignment_group", "region", "azure_service"})
"""Entity kinds a general tool filters by (each an inventory list of the same name)."""
ID_RECORDS = {"incident": "incident", "change": "change", "run_id": "run", "platform": "health"}
SPECIALIST_OF = {spec.record: spec.specialist for spec in reversed(TOOLS)}  # record kind → its specialist
ORDER = frozenset({"latest", "oldest"})
WORD_ONLY = ("why", "when", "who", "how")  # shapes an ask of nothing but its question word has ("- when and why?")
PREVIOUS = "previous"  # what a runbook step's pronoun builds on: the step before
BREAK = re.compile(r"[;.:!?\-–—]")  # two sentences ("…; is …", "… - how many?"), not a list ("… and …")


@dataclass(frozen=True)
class Reading:
    ask: Ask
    scope: QuestionAnalysis  # the analysis inside the ask, plus what it borrows (an earlier window, names)
    records: tuple[str, ...] = ()  # ``named`` and the kinds a status refines them to ("failed": runs)
    named: tuple[str, ...] = ()  # the kinds the ask names itself
    nouns: tuple[str, ...] = ()  # the kinds its nouns name ("the latest run": runs; "when did pl_x last fail": none)
    values: tuple[tuple[str, str], ...] = ()  # (vocabulary, value) intake did not read as a filter
    cues: frozenset[str] = frozenset()
    cue_words: tuple[tuple[str, str], ...] = ()  # (cue, its words as written): named back when nothing reads it
    rank: tuple[str, str] | None = None
    unread: tuple[str, ...] = ()
    after: str = ""  # the ask whose results this one builds on ("… an incident for any of them?")
    scene: bool = False  # a statement setting the scene ("pl_x failed this morning; …"): looked up, not answered
    extra: tuple[EntityMention, ...] = ()
    dangling: bool = False  # a pronoun with nothing to point at: the conversation may say what it is
    memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)  # worked out once

    @property
    def id(self) -> str:
        return self.ask.id

    def entities(self, kind: str) -> list[str]:
        found = [*self.scope.values(kind), *(item.value for item in self.extra if item.kind == kind)]  # type: ignore[arg-type]
        return list(dict.fromkeys(found))


def entity_records(scope: QuestionAnalysis, extra: Sequence[EntityMention] = ()) -> list[str]:
    """The records named things are in: an id its own kind, a name every kind a general tool filters by it."""
    kinds = {item.kind for item in (*scope.entities, *extra) if item.usable}
    inventories = kinds & NAMED
    found = [ID_RECORDS[kind] for kind in kinds if kind in ID_RECORDS]
    found += [spec.record for spec in TOOLS if not spec.fixed  # memory of closed incidents is no kind of a name
              and any(item.kind == "name" and item.inventory in inventories for item in spec.filters)]
    return list(dict.fromkeys(found))


def _kinds(named_nouns: Sequence[str], found: Found, scope: QuestionAnalysis,
           extra: Sequence[EntityMention]) -> tuple[list[str], list[str]]:
    """(kinds to search, kinds named): a record placing a window is looked up; another's status qualifies."""
    anchors = {item.record for item in scope.record_windows}
    ids = [ID_RECORDS[item.kind] for item in (*scope.entities, *extra)
           if item.usable and item.kind in ID_RECORDS and item.value not in anchors]
    values = [VOCABULARIES[name].record for name, _ in found.values]
    values += [VOCABULARIES[item.field].record for item in scope.filters if item.field in VOCABULARIES]
    named = list(dict.fromkeys([*named_nouns, *ids])) or list(dict.fromkeys([*values, *entity_records(scope, extra)]))
    if "health" in named and len(named) > 1 and not (scope.values("platform") or
                                                      [item for item in extra if item.kind == "platform"]):
        named.remove("health")  # "the status of INC…" is the incident's
    specialists = {SPECIALIST_OF.get(kind) for kind in named}
    records = [*named, *(kind for kind in values if SPECIALIST_OF.get(kind) in specialists or "overlap" in found.cues)]
    records += [ID_RECORDS[item.kind] for item in scope.entities if item.value in anchors and item.kind in ID_RECORDS]
    return list(dict.fromkeys(records)), named


def _settle(found: Found, scope: QuestionAnalysis, named_nouns: Sequence[str], lexicon: Lexicon,
            shape: str) -> QuestionAnalysis:
    """Values and filters placed where the ask puts them (the scope, with filters re-homed, is returned)."""
    kept = []
    for item in scope.filters:  # "runs that were cancelled": a run status, not the incident state intake read
        moved = [(meaning.name, meaning.value) for meaning in lexicon.phrases.get(tuple(item.text.lower().split()), [])
                 if meaning.kind == "value" and VOCABULARIES[meaning.name].record in named_nouns]
        vocab = VOCABULARIES.get(item.field)
        if named_nouns and vocab and vocab.record not in named_nouns and moved and not item.negated:
            found.values += moved
        else:
            kept.append(item)
    stated = {item.field: item for item in kept}
    for negation, vocabulary, value in found.excluded:  # "only the P2s, not the P1": left out already
        item = stated.get(vocabulary)
        if item and not item.negated and value not in item.values and item.match != "or_higher" \
                and negation in found.unread:
            found.unread.remove(negation)
    others = {SPECIALIST_OF.get(kind) for kind in named_nouns}
    if shape != "yes_no" and named_nouns and any(SPECIALIST_OF.get(VOCABULARIES[name].record) not in others
                                                 for name, _ in found.values):
        found.cues.setdefault("state", "")  # "how healthy were our pipelines?": how they were doing
        found.values = [item for item in found.values if SPECIALIST_OF.get(VOCABULARIES[item[0]].record) in others]
    found.values = [(name, value) for name, value in found.values if not (name in FILTER_VOCABULARIES and (
        name in stated or named_nouns and VOCABULARIES[name].record not in named_nouns))]  # intake chose
    return scope.model_copy(update={"filters": kept})


def _record_window(scope: QuestionAnalysis, found: Found, named_nouns: Sequence[str]) -> QuestionAnalysis:
    """"failures in CHG…'s window": the window of the record named, for a search of another kind."""
    ids = [item for item in scope.entities if item.usable and item.kind in ID_RECORDS
           and RECORDS[ID_RECORDS[item.kind]].window_fields]
    if "window" not in found.cues or scope.record_windows or not ids or not set(named_nouns) - {ID_RECORDS[ids[0].kind]}:
        return scope
    window = RecordWindow(text=ids[0].text, span=ids[0].span, record=ids[0].value, relation="during")
    return scope.model_copy(update={"record_windows": [window]})


def _anaphor(found: Found, before: Reading | None, borrowed: Sequence[EntityMention], extra: list[EntityMention],
             *, names_own: bool, chained: bool) -> str:
    """The ask a pronoun builds on; else the names it borrows (the background, the latest turn). One in an ask
    that names its record points at that; one in a runbook step at what the step before found."""
    if "anaphor" not in found.cues or (names_own and before is None):
        return ""
    if before is not None or chained:
        return before.id if before is not None else PREVIOUS
    found.cues["dangling"] = found.cues["anaphor"]
    extra += [item.model_copy(update={"span": Span(start=0, end=0)}) for item in borrowed]
    found.unread += [] if borrowed else [found.cues["anaphor"]]
    return ""


def _misfits(found: Found, scope: QuestionAnalysis, after: str, records: Sequence[str], *, plural_nouns: bool,
             named_any: bool, ask: Ask) -> list[str]:
    """Cues that do not fit: "no" with nothing before it, "during" without a record's window, "latest" over
    plural records, "opened" without a time, "why" or "when" about nothing named, a second window."""
    order = bool(found.cues.keys() & ORDER or order_said(scope))  # "the most recent incident opened": intake's order
    needs = {"during": bool(after) or "overlap" in found.cues,
             "overlap": "change" in records and bool({"run", "pipeline"} & set(records)),
             "opened": bool(scope.times) or order or bool(after and "during" in found.cues),
             "window": bool(after or scope.record_windows or scope.times or "overlap" in found.cues
                            or any(item.kind in ID_RECORDS for item in scope.entities)),
             **{cue: not plural_nouns for cue in ORDER}}
    unread = [found.cues[cue] for cue, ok in needs.items() if cue in found.cues and not ok]
    unread += [ask.text] if ask.shape in ("why", "when") and not named_any and not order else []
    unread += [item.text for item in scope.record_windows if not item.record]  # "since the change": which one?
    unread += [item.text for item in scope.times[1:]]
    return unread + ([found.ranks[0][1]] if found.ranks and found.rank() is None else [])


def order_said(scope: QuestionAnalysis) -> str:
    """The words of an order intake read ("the most recent", "next up"), else ""."""
    return next((item.text for item in scope.filters
                 if item.field in VOCABULARIES and VOCABULARIES[item.field].role == "order"), "")


def read_ask(analysis: QuestionAnalysis, ask: Ask, lexicon: Lexicon, before: Reading | None,
             borrowed: Sequence[EntityMention] = (), scene_times: Sequence[TimeMention] = (), *,
             chained: bool = False, topic: Reading | None = None) -> Reading:
    """One ask, in the context of the one before it (or the scene before it: ``topic``) and of names borrowed from
    the background or history."""
    scope, found = analysis.in_span(ask.span.start, ask.span.end), read_words(analysis, ask, lexicon)
    extra = [EntityMention(kind=item.name, value=item.value, text=item.value, span=ask.span)  # type: ignore[arg-type]
             for item in found.aliases]
    ids = [ID_RECORDS[item.kind] for item in scope.entities if item.usable and item.kind in ID_RECORDS]
    after = _anaphor(found, before, borrowed, extra, names_own=bool(ids), chained=chained)
    if chained and not after and found.cues.keys() & {"during", "link"} and not scope.entities and not extra:
        after = PREVIOUS  # "Which incidents were opened during that time?" after a change was shown
    said = nouns(analysis, ask, lexicon)
    named_nouns = [kind for kind, _ in said]
    valued = [item.text for item in scope.filters if item.field in VOCABULARIES and VOCABULARIES[item.field].role == "value"]
    singular = not any(plural for _, plural in said) if said else bool(valued) and not any(  # "newest P3?"
        text.lower().endswith("s") for text in valued)
    if singular and (order := order_said(scope)):
        found.cues.setdefault("first", order)  # "the most recent incident": the first row in that order
    settled = _settle(found, scope, list(dict.fromkeys([*named_nouns, *ids])), lexicon, ask.shape)  # an id names its kind
    scope = _record_window(settled, found, named_nouns)
    records, named = _kinds(named_nouns, found, scope, extra)
    if not records and scope.quoted:  # "seen 'Execution Timeout Expired' before?": records whose text a search reads
        records = named = list(dict.fromkeys(spec.record for spec in TOOLS if spec.filters_of("text")
                                             and spec.past == ("past" in found.cues)))
    scope, records, named = _inherit(scope, found, before, after, ask, records, named, scene_times, topic)
    named_any = any(item.usable for item in (*scope.entities, *extra)) or bool(after)
    unread = [*found.unread, *(item.text for item in scope.entities if item.status == "unknown"),
              *([] if records else [ask.text]), *_misfits(found, scope, after, records, named_any=named_any,
                                                           plural_nouns=any(plural for _, plural in said), ask=ask)]
    return Reading(ask=ask, scope=scope, records=tuple(records), named=tuple(named), nouns=tuple(named_nouns),
                   dangling="dangling" in found.cues,
                   values=tuple(dict.fromkeys(found.values)), cues=frozenset(found.cues),
                   cue_words=tuple((cue, words) for cue, words in found.cues.items() if words), rank=found.rank(),
                   unread=tuple(dict.fromkeys(unread)), after=after, extra=tuple(extra))


def _inherit(scope: QuestionAnalysis, found: Found, before: Reading | None, after: str, ask: Ask,
             records: list[str], named: list[str], scene_times: Sequence[TimeMention],
             topic: Reading | None = None) -> tuple[QuestionAnalysis, list, list]:
    """What an ask takes from the one before: its records ("…, and which still need approval?"), its names
    ("Why did X fail? Show its latest run"); and an opening time from the scene set before it."""
    source = before or topic
    if not records and source and ask.shape in WORD_ONLY and not (
            found.values or found.cues.keys() - {"cause"} or scope.filters or found.ranks):
        found.values += source.values  # "last failure of pl_x - when and why?": a question word asks about the topic
        found.cues |= {cue: "" for cue in source.cues if cue not in found.cues}
        before = source
    if not records and before is not None and (found.values or found.cues or scope.filters or found.ranks):
        records, named = list(before.records), list(before.named)
    if before is not None and not after and not scope.entities and set(records) & set(before.records) and (
            ask.shape in ("why", "record", "when") or found.cues.keys() & {"latest", "now"}):
        scope = scope.model_copy(update={"entities": before.scope.entities})
    if "opened" in found.cues and not scope.times and scene_times:
        scope = scope.model_copy(update={"times": list(scene_times)})
    return scope, records, named


def mentions(text: str) -> list[EntityMention]:
    """What ``text`` names itself (ids, names, platforms, regions; no inventory): a runbook step's, a pronoun's."""
    return find_entities(text, InventorySnapshot())


def _asks(analysis: QuestionAnalysis, lexicon: Lexicon) -> list[tuple[Ask, bool]]:
    """The asks, topics joined to the ask after them, each with whether it is a statement setting the scene."""
    asks, found, index = list(analysis.asks), [], 0
    while index < len(asks):
        apart = index + 1 < len(asks) and not ASKING.match(asks[index].text) and bool(
            BREAK.search(analysis.resolved_question[asks[index].span.end:asks[index + 1].span.start]))
        alone = read_ask(analysis, asks[index], lexicon, None) if apart else None
        if alone and alone.ask.shape in ("list", "other") and not (
                alone.values or alone.cues - {"state", "now"} or alone.rank or set(alone.unread) - {alone.ask.text}):
            span = Span(start=asks[index].span.start, end=asks[index + 1].span.end)
            asks[index:index + 2] = [asks[index + 1].model_copy(update={
                "id": asks[index].id, "span": span, "text": analysis.resolved_question[span.start:span.end]})]
            continue
        found.append((asks[index], apart))
        index += 1
    return found


def read_question(analysis: QuestionAnalysis, lexicon: Lexicon, context: str = "") -> list[Reading]:
    """Every ask in order, read once; ``context`` (the latest user message, a task) may say what "it" names."""
    key = (analysis.resolved_question, analysis.now, tuple(item.text for item in analysis.times))
    readings = lexicon.remember((*key, ""), lambda: _read(analysis, lexicon, ""))
    if context and any(reading.dangling for reading in readings):  # "is it down?" after naming Snowflake
        return lexicon.remember((*key, context), lambda: _read(analysis, lexicon, context))
    return readings


def _one_ask(text: str, now: datetime, entities: list[EntityMention], shape: AskShape = "other") -> QuestionAnalysis:
    """``text`` as one ask, with its own names, filters and times."""
    return QuestionAnalysis(question=text, resolved_question=text, now=now, entities=entities,
                            times=list(find_times(text, now)), filters=find_filters(text),
                            record_windows=list(find_record_windows(text)),
                            asks=[Ask(id="p1", text=text, span=Span(start=0, end=len(text)), shape=shape)])


def read_text(text: str, now: datetime, lexicon: Lexicon) -> list[Reading]:
    """A runbook step, read whole as one ask from its own names, filters and times (never a yes or no)."""
    return lexicon.remember(("text", text, now), lambda: _read(_one_ask(text, now, mentions(text)), lexicon, "",
                                                               chained=True))


def read_offer(text: str, named: EntityMention, now: datetime, lexicon: Lexicon) -> list[Reading]:
    """A question offered back about ``named`` (written in ``text`` as its value), read as the user's would be."""
    def read() -> list[Reading]:
        start = text.index(named.value)
        placed = named.model_copy(update={"text": named.value, "span": Span(start=start, end=start + len(named.value))})
        entities = [placed, *(item for item in mentions(text) if not placed.span.start <= item.span.start < placed.span.end)]
        return _read(_one_ask(text, now, entities, shape_of(text)), lexicon, "")
    return lexicon.remember(("offer", text, now), read)  # read once: an option is offered again on every ask-back


def _read(analysis: QuestionAnalysis, lexicon: Lexicon, context: str, *, chained: bool = False) -> list[Reading]:
    asks = _asks(analysis, lexicon)
    scenes = [analysis.in_span(ask.span.start, ask.span.end) for ask, scene in asks if scene]
    first = min((ask.span.start for ask in analysis.asks), default=0)  # "pl_x keeps failing. Any incident for it?"
    borrowed: list[EntityMention] = [item for item in analysis.entities if item.usable and item.span.end <= first]
    borrowed += [item for scope in scenes for item in scope.entities if item.usable]
    if not borrowed and context and not (analysis.follow_up or analysis.references):
        borrowed = mentions(context)
    readings: list[Reading] = []
    for ask, scene in asks:
        before = next((other for other in reversed(readings) if not other.scene), None)
        reading = read_ask(analysis, ask, lexicon, before, borrowed, [item for scope in scenes for item in scope.times],
                           chained=chained, topic=readings[-1] if readings else None)
        readings.append(replace(reading, scene=scene))
    for index, reading in enumerate(readings):  # "which are scheduled next week, and which need approval?"
        near = [other for other in readings[max(0, index - 1):index + 2] if other is not reading and other.scope.times
                and set(other.records) == set(reading.records)]
        if near and not reading.scope.times and not reading.after:
            readings[index] = replace(reading, scope=reading.scope.model_copy(update={"times": near[0].scope.times}))
    return readings
