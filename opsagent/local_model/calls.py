"""Which tools answer a reading, with which arguments — from the catalog's declared filters, not wording.

Each constraint (id, name, platform, filter, status, window) meets a tool's filters: an id its kind's look-up, a
name its inventory filter, a filter or status its vocabulary's parameter, a value the tool always applies
(``fixed``) or a check on the rows. The tool leaving least out and applying most wins; what none applies is
**unapplied**.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from opsagent.intake.asks import EXISTENCE
from opsagent.local_model.reading import ID_RECORDS, Reading
from opsagent.tools.catalog import RECORDS, TOOLS, ToolSpec, tool_spec, tools_for
from opsagent.tools.vocabularies import VOCABULARIES

MAX_CALLS = 6
ROWS = "__rows__"  # marks a call the previous step's rows complete (a search per item, a record's window)
KEYS = {kind.key_field: kind.name for kind in reversed(RECORDS.values())}  # the first kind a key names (pipeline, not run_count)
NESTED = {spec.record: KEYS[item.row_field] for spec in TOOLS for item in spec.filters  # "runs" of "pipelines" are
          if item.kind == "name" and KEYS.get(item.row_field, spec.record) != spec.record}  # one search, by its key
PAST = frozenset({"past", "usual", "slower"})  # cues of an ask about a record's past (knowledge.yaml)
CATALOG = {spec.specialist: {other.name for other in TOOLS if other.specialist == spec.specialist} for spec in TOOLS}


@dataclass(frozen=True)
class Constraint:
    kind: str  # id, name, platform, filter, value, text, time or record_window
    key: str
    value: Any
    text: str


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Choice:
    """The tools one specialist calls for one reading."""

    specialist: str
    calls: tuple[Call, ...]
    checks: tuple[tuple[str, str], ...] = ()  # (vocabulary, value) a status no parameter takes: checked on rows
    deferred: tuple[str, ...] = ()  # kinds looked up from the first rows in a second round ("the change INC… waits for")
    needs_rows: bool = False


@dataclass
class Chosen:
    choices: list[Choice] = field(default_factory=list)
    unapplied: list[str] = field(default_factory=list)


def constraints(reading: Reading) -> list[Constraint]:
    """The ask's ids, names, platforms, filters, values, window and record window (worked out once)."""
    if "constraints" not in reading.memo:
        found = [Constraint("id" if item.kind in ("incident", "change", "run_id") else
                            "platform" if item.kind == "platform" else "name",
                            item.kind, item.value, item.text)
                 for item in [*reading.scope.entities, *reading.extra] if item.usable]
        found += [Constraint("filter", item.field, item, item.text) for item in reading.scope.filters]
        found += [Constraint("value", name, value, value) for name, value in reading.values]
        found += [Constraint("text", "", item.text, item.text) for item in reading.scope.quoted]
        found += [Constraint("time", "", item, item.text) for item in reading.scope.times[:1]]
        found += [Constraint("record_window", "", item, item.text) for item in reading.scope.record_windows[:1]]
        reading.memo["constraints"] = list({(item.kind, item.key, item.text): item for item in found}.values())
    return reading.memo["constraints"]


def parameter(spec: ToolSpec, kind: str, key: str = "") -> str | None:
    return next((item.parameter for item in spec.filters if item.kind == kind
                 and (not key or item.vocabulary == key or item.inventory == key)), None)


def _filter(spec: ToolSpec, item: Constraint) -> tuple[str, dict[str, Any]] | None:
    """A stated filter as parameters; on a looked-up record of its kind, a check of its row."""
    mention = item.value
    if mention.field == "priority" and (priority := parameter(spec, "priority", "priority")):
        match = parameter(spec, "match")
        exact = "or_higher" if mention.match == "or_higher" or len(mention.values) > 1 else "exactly"
        return "arg", {priority: max(int(value) for value in mention.values), **({match: exact} if match else {})}
    taking = spec.taking(mention.field)
    if taking is not None and taking.kind in ("choice", "person", "order", "duration", "group_by"):
        return "arg", {taking.parameter: mention.as_argument()}
    vocab = VOCABULARIES.get(item.key)
    return ("row", {}) if spec.is_lookup and vocab and vocab.record == spec.record and item.key != "priority" else None


def _value(spec: ToolSpec, vocabulary: str, value: str) -> str | None:
    """"arg", "fixed", "conflict" (it always applies another value), "row" (checked on its rows), or None."""
    if spec.taking(vocabulary) is not None and vocabulary != "priority":
        return "arg"
    if vocabulary in spec.fixed:  # a tool of the past holds every value it keeps ("resolved": not open)
        return "fixed" if spec.past or spec.fixed[vocabulary].lower() == value.lower() else "conflict"
    if (vocabulary, value) in spec.latest_of:
        return "fixed"
    vocab = VOCABULARIES.get(vocabulary)
    return "row" if vocab and vocab.role == "value" and spec.specialist in {
        other.specialist for other in tools_for(vocab.record)} else None


def apply(spec: ToolSpec, item: Constraint) -> tuple[str, dict[str, Any]] | None:
    """How ``spec`` applies a constraint: ("arg", arguments) or ("row" | "rows" | "fixed" | "select" | "conflict", {})."""
    if item.kind == "id":
        key = parameter(spec, "lookup")
        return ("arg", {key: item.value}) if key and spec.record == ID_RECORDS.get(item.key, "run") else None
    if item.kind == "name":
        if name := parameter(spec, "name", item.key) or parameter(spec, "person", item.key):
            return "arg", {name: item.value}
        return ("fixed", {}) if str(item.value).lower() in spec.purpose.lower() else None  # "Data Factory" pipelines
    if item.kind == "platform":
        return ("select", {}) if spec.platform == item.value else None
    if item.kind == "text":  # quoted words: a search of the records' own text
        return ("arg", {text: item.value}) if (text := parameter(spec, "text")) else None
    if item.kind == "filter":
        return _filter(spec, item)
    if item.kind == "value":
        return (how, {}) if (how := _value(spec, item.key, item.value)) else None
    if item.kind == "time":
        time, point, window = item.value, parameter(spec, "point"), parameter(spec, "window")
        if time.point is not None and point:
            return "arg", {point: time.point.strftime("%Y-%m-%dT%H:%MZ")}
        return ("arg", {window: time.phrase or time.as_range()}) if window else ("arg", {}) if spec.is_lookup else None
    return ("rows", {}) if parameter(spec, "window") else None  # a record's window: from the producer's rows


def _history(reading: Reading) -> bool:
    """"Has pl_x had any cancelled runs?", "pl_x cancelled runs?": a named thing's runs in a state, no time said —
    over all the data there is, not the tool's default day."""
    asked = reading.ask.shape == "yes_no" and bool(EXISTENCE.search(reading.ask.text)) or (
        reading.ask.shape in ("list", "count", "which", "other") and bool(reading.values))
    return asked and not (reading.scope.times or reading.scope.record_windows or reading.after) \
        and any(item.kind == "name" for item in constraints(reading))


def _one_record(reading: Reading) -> bool:
    """About one record: "why did X fail", "its latest run", "the 4am run", "is X still failing", "has X finished"."""
    named = any(item.kind == "name" for item in constraints(reading))
    return reading.ask.shape in ("why", "record", "when") or bool(reading.cues & {"latest", "cause"}) or any(
        item.point is not None for item in reading.scope.times) or ("now" in reading.cues and named) or (
        # "has pl_x finished?", "did pl_x fail?": no time, so its state — the latest run (not its history)
        reading.ask.shape == "yes_no" and named and not reading.scope.times and bool(reading.values)
        and not _history(reading))


def about_past(reading: Reading, spec: ToolSpec) -> bool:
    """The ask is about the past a ``past`` tool keeps: "before", "usual", or the latest record in a state the
    tool keeps the latest of ("when did pl_x last fail?"; "why did the latest run fail?" is about the latest run)."""
    return spec.past and bool(reading.cues & PAST or "latest" in reading.cues and any(
        pair in spec.latest_of and VOCABULARIES[pair[0]].record not in reading.nouns for pair in reading.values))


def _candidates(reading: Reading, offered: Collection[str]) -> list[ToolSpec]:
    """Tools of the ask's records; one with a fixed value only when the ask names it ("failed" runs), not for a
    state now; a look-up only for an id, or for a name when one record is asked about; a tool of the past only
    for an ask about the past (whose values it holds)."""
    items = constraints(reading)
    ids, names = ({item.key for item in items if item.kind == kind} for kind in ("id", "name"))
    kinds = {*reading.records, *(NESTED.get(kind) for kind in reading.records)}  # a run's past is its pipeline's
    quoted = any(item.kind == "text" for item in items)
    past = {spec.name for spec in TOOLS if about_past(reading, spec) and spec.record in kinds and (
        any(parameter(spec, "name", name) for name in names) or any(ID_RECORDS.get(kind) == spec.record for kind in ids)
        or quoted and parameter(spec, "text"))}
    found = [spec for spec in TOOLS if spec.name in offered and (spec.name in past or not spec.past and (
        spec.record in reading.records and (spec.record in reading.named or spec.fixed)
        and all((vocabulary, value) in reading.values for vocabulary, value in spec.fixed.items())
        and not (spec.fixed and "now" in reading.cues)
        and (not spec.is_lookup or any(ID_RECORDS.get(kind, "run") == spec.record for kind in ids)
             or _one_record(reading) and any(parameter(spec, "name", name) for name in names))))]
    if not past & {spec.name for spec in found}:
        return found  # the past of a record answers; its present is only looked up by its id
    return [spec for spec in found if spec.past or spec.is_lookup and any(apply(spec, item) for item in items
                                                                           if item.kind == "id")]


def _best(specs: Iterable[ToolSpec], items: Sequence[Constraint], one: bool) -> ToolSpec | None:
    """Fewest constraints left out, a look-up for one record, most applied by parameters, fewest left to checks."""
    scored = []
    for index, spec in enumerate(specs):
        hows = [how[0] if how else None for how in (apply(spec, item) for item in items)]
        if "conflict" not in hows:
            strong = sum(how in ("arg", "fixed", "select", "rows") for how in hows)
            scored.append(((-hows.count(None), int(spec.is_lookup == one), strong, -hows.count("row")), -index, spec))
    return max(scored, key=lambda item: item[:2])[2] if scored else None


def _selected(reading: Reading, specs: Sequence[ToolSpec], items: Sequence[Constraint]) -> list[ToolSpec]:
    """A look-up per id kind; a health check per platform named (all, if none); else the best listing, one
    per kind the ask names when it names several ("incidents and changes on vm-shir-01")."""
    lookups = [spec for spec in specs if spec.is_lookup and any(item.kind == "id" and apply(spec, item) for item in items)]
    if checks := [spec for spec in specs if spec.platform]:
        named = {item.value for item in items if item.kind == "platform"}
        named |= {"Azure"} if any(item.key == "azure_service" for item in items) else set()
        return [spec for spec in checks if spec.platform in named] or checks
    rest = [spec for spec in specs if spec.record not in {other.record for other in lookups}]
    kinds = [kind for kind in reading.named if any(spec.record == kind for spec in rest) and NESTED.get(kind) not in
             reading.named]
    groups = [[spec for spec in rest if kind in (spec.record, NESTED.get(spec.record))] for kind in kinds] \
        if len(kinds) > 1 else [rest]
    return lookups + [best for group in groups if (best := _best(group, items, _one_record(reading)))]


def _calls(spec: ToolSpec, items: Sequence[Constraint], reading: Reading) -> tuple[list[Call], set[int], list]:
    """One tool's calls (one per id for a look-up), the constraints they apply and the checks of their rows."""
    arguments: dict[str, Any] = {ROWS: True} if reading.after else {}
    ids, applied, checks = [], set(), []
    for index, item in enumerate(items):
        if (how := apply(spec, item)) is None:
            continue
        applied.add(index)
        if item.kind == "id":
            ids.append(how[1])
        elif how[0] in ("rows", "row"):
            arguments |= {ROWS: True} if how[0] == "rows" else {}
            checks += [(item.key, item.value.as_argument() if item.kind == "filter" else item.value)] if how[0] == "row" else []
        elif item.kind == "value" and (taking := spec.taking(item.key)) is not None:
            arguments[taking.parameter] = ",".join(filter(None, (arguments.get(taking.parameter), item.value)))
        else:
            arguments |= how[1]
    state = next((item for item in spec.filters if item.kind == "choice" and item.vocab() and "all" in item.vocab().groups),
                 None)
    if "opened" in reading.cues and parameter(spec, "window") in arguments and state and state.parameter not in arguments:
        arguments[state.parameter] = "all"  # "incidents opened over the weekend": whatever their state now
    widest = next((item for item in spec.filters_of("window") if item.widest and item.parameter not in arguments), None)
    if widest and _history(reading):
        arguments[widest.parameter] = widest.widest
    return [Call(spec.name, {**arguments, **each}) for each in ids] or [Call(spec.name, arguments)], applied, checks


def choose(reading: Reading, offered: Mapping[str, Collection[str]]) -> Chosen:
    """The tools each specialist (``offered``: → tool names) calls for ``reading``, and what none applies."""
    key = ("choose", tuple((name, tuple(sorted(tools))) for name, tools in offered.items()))
    if key not in reading.memo:
        reading.memo[key] = _choose(reading, offered)
    return reading.memo[key]


def _choose(reading: Reading, offered: Mapping[str, Collection[str]]) -> Chosen:
    items, chosen, applied = constraints(reading), Chosen(), set()
    for specialist, names in offered.items():
        selected = _selected(reading, [spec for spec in _candidates(reading, names) if spec.specialist == specialist],
                             items)
        deferred = tuple(spec.record for spec in selected if not spec.is_lookup) \
            if any(spec.is_lookup for spec in selected) else ()
        calls, checks = [], []
        # a record named with another kind ("CHG…'s incident"): the other is the one the first record's text
        # names, looked up in a second round and checked there
        for spec in [spec for spec in TOOLS if spec.record in deferred and spec.name in names and spec.is_lookup]:
            _, used, found = _calls(spec, items, reading)
            applied, checks = applied | used, checks + found
        for spec in (spec for spec in selected if spec.is_lookup or not deferred):
            made, used, found = _calls(spec, items, reading)
            calls, applied, checks = calls + made, applied | used, checks + ([] if deferred else found)
        for needs_rows in (False, True):
            group = tuple(Call(call.tool, {k: v for k, v in call.arguments.items() if k != ROWS}) for call in calls
                          if (ROWS in call.arguments) == needs_rows)
            if group:
                chosen.choices.append(Choice(specialist, group, tuple(dict.fromkeys(checks)), deferred, needs_rows))
    if "overlap" not in reading.cues:  # an overlap compares two searches; each name belongs to its own side
        _text_fallback(chosen, items, applied)
    chosen.unapplied = [item.text for index, item in enumerate(items) if index not in applied]
    if not any((spec := tool_spec(call.tool)) and spec.past for choice in chosen.choices for call in choice.calls):
        chosen.unapplied += [words for cue, words in reading.cue_words if cue in PAST]  # "is Databricks slower than usual?"
    chosen.unapplied += [reading.ask.text] if _relates(chosen, items, reading) else []
    return chosen


def _relates(chosen: Chosen, items: Sequence[Constraint], reading: Reading) -> bool:
    """One constraint applied by two specialists ("failed pipelines in the last 24h that have an open incident"):
    the clause relates two searches, which this model does not read (an overlap aside)."""
    return "overlap" not in reading.cues and any(  # each tool of the past reads the name's own past: no relation
        len({choice.specialist for choice in chosen.choices if any(
            (spec := tool_spec(call.tool)) and not spec.past and apply(spec, item) for call in choice.calls)}) > 1
        for item in items if item.kind in ("time", "filter", "name", "value"))


def _text_fallback(chosen: Chosen, items: Sequence[Constraint], applied: set[int]) -> None:
    """A name a specialist's tools do not filter by ("incidents for pl_x"): words its records must contain."""
    for index, item in enumerate(items):
        for number, choice in enumerate(chosen.choices if item.kind in ("name", "platform") else ()):
            specs = [tool_spec(call.tool) for call in choice.calls]
            if any(spec and apply(spec, item) for spec in specs):
                continue
            texts = [parameter(spec, "text") if spec else None for spec in specs]
            if any(text and text not in call.arguments for call, text in zip(choice.calls, texts)):
                chosen.choices[number] = replace(choice, calls=tuple(
                    Call(call.tool, {**call.arguments, text: item.value}) if text and text not in call.arguments
                    else call for call, text in zip(choice.calls, texts)))
                applied.add(index)
