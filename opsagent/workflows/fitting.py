"""What a search applied: does it fit an ask's filters, windows and names?

One test shared by coverage (a part is covered only by evidence with its filters applied), the answer
checks (a "none" or a yes/no lead rests only on a search that fits what was asked) and the stated-filter
limitations. A search's own ``query`` says what it applied — resolved sets, priority levels, exact
windows — so the test compares values, not words. The vocabularies and the tools that take them come
from the tool catalog. What a search left open (a group, an assignee, an age it did not filter by) may still be
read from its rows when each row's own fields say it (``row_meets``, ``read_from_rows``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from opsagent.contracts.analysis import EntityMention, FilterMention, QuestionAnalysis, TimeMention
from opsagent.contracts.evidence import ToolEvidence
from opsagent.tools.catalog import BY_NAME, RECORDS, TOOLS, FilterSpec, ToolSpec, tool_spec
from opsagent.tools.timewindow import iso_moment, unit_minutes
from opsagent.tools.vocabularies import ASSIGNEE, VOCABULARIES, Vocabulary

ENTITY_RECORDS: dict[str, tuple[str, ...]] = {
    "incident": ("incident",), "change": ("change",), "run_id": ("run",), "pipeline": ("run", "pipeline"),
    "factory": ("run", "pipeline"), "configuration_item": ("incident", "change"),
    "assignment_group": ("incident", "change"), "platform": ("health",), "component": ("health",),
    "region": ("health", "run", "pipeline"), "azure_service": ("health",), "person": ("incident", "change"),
}
"""The record kinds whose searches can be narrowed by a kind of name."""
NAME_FIELDS: dict[str, str] = {item.inventory: item.row_field for spec in TOOLS for item in spec.filters
                               if item.inventory and item.row_field}
"""The row field that holds a kind of name (an assignment group: ``assignment_group``)."""


@dataclass(frozen=True)
class Qualifier:
    """One thing an ask states that a fitting search must apply, in the user's words."""

    text: str
    kind: str
    """"filter", "window" or "name"."""
    records: tuple[str, ...]
    """Record kinds whose searches can apply it."""
    field: str = ""
    """For a filter: its vocabulary ("assignee", "incident_state")."""


def _iso(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def _priority_levels(mention: FilterMention) -> set[str]:
    top = max(int(value) for value in mention.values)
    return {str(level) for level in range(1, top + 1)} if mention.match == "or_higher" else {str(top)}


def filter_values(mention: FilterMention) -> set[str] | None:
    """What a stated filter selects, as the labels the tools record (lower case)."""
    vocabulary = VOCABULARIES.get(mention.field)
    if vocabulary is None:
        return None
    if mention.field == "priority":
        return _priority_levels(mention)
    return vocabulary.selected(mention.as_argument())


def _tool_filter(spec: ToolSpec, vocabulary: str) -> FilterSpec | None:
    return next((item for item in spec.filters if item.vocabulary == vocabulary), None)


def searched_values(call: ToolEvidence, spec: FilterSpec) -> set[str] | None:
    """The values a search applied for one of its filters (``None``: it applied none): the resolved set
    the tool recorded, else the argument the model passed, read with the same vocabulary."""
    value = call.query.get(spec.parameter)
    if isinstance(value, dict) and isinstance(value.get("values"), list):
        return {str(item).lower() for item in value["values"]}
    argument = call.arguments.get(spec.parameter)
    vocabulary = spec.vocab()
    if argument in (None, "") or vocabulary is None:
        return None
    if spec.kind == "priority":
        top = int(argument) if str(argument).isdigit() else None
        exact = str(call.arguments.get("priority_match", "or_higher")) == "exactly"
        return None if top is None else {str(level) for level in ([top] if exact else range(1, top + 1))}
    return vocabulary.selected(str(argument))


def _minutes(phrase: str) -> int | None:
    match = re.match(r"\s*(\d+)\s*([a-z]+)", phrase.lower())
    unit = unit_minutes(match.group(2)) if match else None
    return int(match.group(1)) * unit if match and unit else None


def _asked(call: ToolEvidence, parameter: str) -> Any:
    """What a search was asked for one parameter: the value it recorded, else the model's argument."""
    value = call.query.get(parameter, call.arguments.get(parameter))
    return value.get("asked", value) if isinstance(value, dict) else value


def _other_applied(mention: FilterMention, call: ToolEvidence, spec: ToolSpec) -> bool | None:
    """Filters whose values are not a closed set: the assignee (a person, or nobody), the age, the order."""
    tool_filter = spec.taking(mention.field)
    if tool_filter is None:
        return None
    asked = _asked(call, tool_filter.parameter)
    if mention.field == "assignee":
        recorded = call.query.get(tool_filter.parameter)
        if mention.values in (["unassigned"], ["any_assignee"]):  # what the tool made of its argument
            flag = "unassigned" if mention.values == ["unassigned"] else "assigned"
            return isinstance(recorded, dict) and bool(recorded.get(flag)) or \
                ASSIGNEE.lookup(str(asked or "")) == mention.values[0]
        return bool(asked) and str(asked).lower() in mention.values[0].lower()
    if mention.field == "age":
        return asked is not None and _minutes(str(asked)) == _minutes(mention.values[0])
    return str(asked or "").lower() == mention.values[0].lower()


def filter_applied(mention: FilterMention, call: ToolEvidence) -> bool | None:
    """True/False when ``call``'s tool can apply the filter; ``None`` when it cannot (not its concern)."""
    spec = tool_spec(call.tool)
    if spec is None:
        return None
    if mention.field in ("assignee", "age", "incident_order", "change_order"):
        return _other_applied(mention, call, spec)
    fixed = spec.fixed.get(mention.field)
    expected = filter_values(mention)
    if fixed is not None:
        return expected is not None and expected == {fixed.lower()}
    tool_filter = _tool_filter(spec, mention.field)
    if tool_filter is None or expected is None:
        return None
    searched = searched_values(call, tool_filter)
    every = {label.lower() for label in VOCABULARIES[mention.field].labels()}
    if searched is None:
        return expected == every
    return searched == expected


def narrowed_by(call: ToolEvidence) -> set[str]:
    """The vocabularies a search narrowed by: a value set it applied (not everything), or one its tool
    always applies (every row of a failed-runs search failed)."""
    spec = tool_spec(call.tool)
    if spec is None:
        return set()
    found = set(spec.fixed)
    for item in spec.filters:
        if item.narrows_to and call.arguments.get(item.parameter) not in (None, ""):
            found |= {name for name, _ in item.narrows_to}
        vocabulary = item.vocab()
        values = searched_values(call, item) if vocabulary is not None else None
        if values is not None and values != {label.lower() for label in vocabulary.labels()}:
            found.add(vocabulary.name)
    return found


def asked_windows(analysis: QuestionAnalysis | None) -> list[tuple[datetime, datetime]]:
    """The windows a question (or an ask's scope) gives, as (start, end); a point in time is none."""
    return [(time.start, time.end) for time in analysis.times if time.point is None] if analysis else []


def windows_of(call: ToolEvidence) -> list[tuple[str, str]]:
    """Every exact window a search applied, as ISO minutes."""
    spec = tool_spec(call.tool)
    keys = [item.parameter for item in spec.filters_of("window")] if spec else ["time_window", "window"]
    found = []
    for key in keys:
        value = call.query.get(key)
        if isinstance(value, dict) and value.get("start") and value.get("end"):
            found.append((str(value["start"]), str(value["end"])))
    return found


def covers(item: ToolEvidence, windows: Sequence[tuple[datetime, datetime]], now: datetime | None = None) -> bool:
    """The search's window holds every window asked (a search with no window, of a tool that has no default one,
    holds all its records) — up to ``now`` for records of what has happened ("this week" ends on Monday, but no run
    of it has started after now; a change may be planned then)."""
    spec = tool_spec(item.tool)
    if now is not None and (spec.record if spec else "") != "change":
        windows = [(start, min(end, now)) for start, end in windows if start < now]
        if not windows:
            return False  # only what is to come was asked: no search of what happened covers it
    own = spec.filters_of("window") if spec else ()
    if own and not any(each.widest or item.query.get(each.parameter) or item.arguments.get(each.parameter)
                       for each in own):
        return True
    searched = _searched_windows(item)
    return bool(searched) and all(any(first <= start and end <= last for first, last in searched)
                                  for start, end in windows)


def overlaps(item: ToolEvidence, start: datetime, end: datetime) -> bool:
    """The search's window shares time with ``[start, end)``."""
    return any(first < end and start < last for first, last in _searched_windows(item))


def _searched_windows(item: ToolEvidence) -> list[tuple[datetime, datetime]]:
    return [(first, last) for start, end in windows_of(item) if (first := iso_moment(start)) and (last := iso_moment(end))]


def window_applied(mention: TimeMention, call: ToolEvidence, now: datetime | None = None) -> bool | None:
    """The search used the asked window — or the part of it that has happened ("this morning" at 09:00 is
    00:00 to 09:00: nothing can have been opened after now)."""
    if mention.point is not None:
        around = call.query.get("around")
        if isinstance(around, dict):
            return around.get("point") == _iso(mention.point)
    windows = windows_of(call)
    if not windows:
        return None
    asked = {(_iso(mention.start), _iso(mention.end))}
    if now is not None and mention.start < now < mention.end:
        asked.add((_iso(mention.start), _iso(now)))
    return bool(asked & set(windows))


def _arguments_text(call: ToolEvidence) -> str:
    return " ".join(str(value) for value in (*call.arguments.values(), *call.query.values())
                    if isinstance(value, (str, int))).lower()


def name_applied(entity: EntityMention, call: ToolEvidence) -> bool | None:
    spec = tool_spec(call.tool)
    records = ENTITY_RECORDS.get(entity.kind, ())
    if spec is None or spec.record not in records:
        return None
    said = {entity.value.lower(), entity.text.lower()}  # the tool took the name as written ("weu") or its own
    if spec.platform:  # a health tool is about its platform; region names narrow it
        return bool(said & {spec.platform.lower(), *_arguments_text(call).split()}) or \
            entity.kind != "platform" and any(name in _arguments_text(call) for name in said)
    if spec.is_lookup and call.rows and all(  # a run looked up by its id is a run of the pipeline its row names
            str(row.get(NAME_FIELDS.get(entity.kind, ""), "")).lower() in said for row in call.rows):
        return True
    return any(name in _arguments_text(call) for name in said)


def qualifiers(scope: QuestionAnalysis) -> list[tuple[Qualifier, Any]]:
    """What the scope (a whole question, or one ask: ``analysis.in_span``) states that searches must apply."""
    found: list[tuple[Qualifier, Any]] = []
    for mention in scope.filters:
        vocabulary = VOCABULARIES.get(mention.field)
        records = (vocabulary.record,) if vocabulary else ("incident",)
        found.append((Qualifier(mention.text, "filter", records, mention.field), mention))
    for time in scope.times:
        found.append((Qualifier(time.text, "window", ("incident", "change", "run", "pipeline")), time))
    for entity in scope.entities:
        if entity.usable:
            found.append((Qualifier(entity.text, "name", ENTITY_RECORDS.get(entity.kind, ())), entity))
    return found


def applies(qualifier: Qualifier, mention: Any, call: ToolEvidence, now: datetime | None = None) -> bool | None:
    if qualifier.kind == "filter":
        return filter_applied(mention, call)
    if qualifier.kind == "window":
        return window_applied(mention, call, now)
    return name_applied(mention, call)


def unapplied(scope: QuestionAnalysis, searches: Sequence[ToolEvidence]) -> list[Qualifier]:
    """The scope's qualifiers that no answered search able to apply them applied. A qualifier no
    search could apply (no tool of its record kind ran) is left to coverage, not reported here."""
    return [qualifier for qualifier, _ in unapplied_mentions(scope, searches)]


def unapplied_mentions(scope: QuestionAnalysis, searches: Sequence[ToolEvidence]) -> list[tuple[Qualifier, Any]]:
    """``unapplied``, each qualifier with what intake read of it (its values, its name)."""
    missing = []
    for qualifier, mention in qualifiers(scope):
        verdicts = [applies(qualifier, mention, call, scope.now) for call in searches if call.answered]
        judged = [verdict for verdict in verdicts if verdict is not None]
        if judged and not any(judged):
            missing.append((qualifier, mention))
    return missing


def row_meets(qualifier: Qualifier, mention: Any, row: dict[str, Any], record: str,
              now: datetime | None) -> bool | None:
    """Whether one row meets a qualifier its search did not apply, read from the row's own fields ("does Data
    Platform Ops have a P1 open?" over every open P1: each row's group); ``None`` when the row cannot say."""
    if qualifier.kind == "name" and isinstance(mention, EntityMention):
        field = NAME_FIELDS.get(mention.kind)
        if field is not None and field not in row and record == "health":  # a status incident: its title names them
            return mention.value.lower() in " ".join(map(str, row.values())).lower()
        return None if field is None or field not in row else mention.value.lower() in str(row[field] or "").lower()
    if not isinstance(mention, FilterMention):
        return None
    if mention.field == "assignee":
        field = NAME_FIELDS["person"]
        if field not in row:
            return None
        person = str(row[field] or "").strip().lower()
        return not person if mention.values == ["unassigned"] else bool(person) if mention.values == ["any_assignee"] \
            else person == mention.values[0].lower()
    if mention.field == "age":  # open longer than: opened before now minus the age
        kind = RECORDS.get(record)
        opened = iso_moment(row.get(kind.time_fields[0])) if kind and kind.time_fields else None
        minutes = _minutes(mention.values[0])
        return None if opened is None or minutes is None or now is None else opened <= now - timedelta(minutes=minutes)
    vocabulary = VOCABULARIES.get(mention.field)  # a value the row shows: "P2 or above" over a row's priority
    shown = next((row[field] for field in vocabulary.row_fields if field in row), None) if vocabulary else None
    selected = filter_values(mention) if shown is not None else None
    return None if selected is None else str(shown).lower() in selected


def read_from_rows(qualifier: Qualifier, mention: Any, call: ToolEvidence, now: datetime | None) -> bool:
    """The search left this qualifier open (it asked for no value of its own there: a wider search, not another
    one) and each of its rows can say whether it meets it. An empty such search: none does."""
    spec = tool_spec(call.tool)
    if spec is None:
        return False
    if qualifier.kind == "name" and isinstance(mention, EntityMention) and mention.kind in NAME_FIELDS:
        parameters = [item.parameter for item in spec.filters if item.inventory == mention.kind]
    elif qualifier.kind == "filter" and isinstance(mention, FilterMention) and mention.field in ("assignee", "age"):
        parameters = [taken.parameter] if (taken := spec.taking(mention.field)) else []
    elif qualifier.kind == "filter" and isinstance(mention, FilterMention) and mention.field in VOCABULARIES:
        parameters = [taken.parameter] if (taken := _tool_filter(spec, mention.field)) else []
    else:
        return False
    if isinstance(mention, FilterMention) and mention.field == "age":  # "on hold more than 2 days" over tickets
        # opened in the last 2 days: a window on the opening time decides the age, the rows cannot say the rest
        kind = RECORDS.get(spec.record)
        parameters += [item.parameter for item in spec.filters if item.kind == "window" and kind is not None
                       and kind.time_fields and item.row_field == kind.time_fields[0]]
    if any(_asked(call, parameter) not in (None, "", [], {}) for parameter in parameters):
        return False
    return all(row_meets(qualifier, mention, row, spec.record, now) is not None for row in call.rows)


def fits(scope: QuestionAnalysis, call: ToolEvidence) -> bool:
    """Whether one answered search applied every qualifier of the scope that its tool can apply."""
    return call.answered and all(applies(qualifier, mention, call, scope.now) is not False
                                 for qualifier, mention in qualifiers(scope))


def text_searched(call: ToolEvidence) -> str:
    """The words a search's text filters were given (any case), or ""."""
    spec = tool_spec(call.tool)
    keys = [item.parameter for item in spec.filters_of("text")] if spec else ["text"]
    return " ".join(str(call.arguments.get(key) or "") for key in keys).strip().lower()


def text_asked(call: ToolEvidence, question: str) -> bool:
    """The search was narrowed by no words, or by words the question says: an empty search for words nobody asked
    ("quantum flux") settles nothing about the question."""
    words = text_searched(call)
    return not words or words in question.lower()


def text_names_something(call: ToolEvidence, known: Collection[str], analysis: QuestionAnalysis) -> bool:
    """A free-text search backs nothing unless its words name something: an id, an inventory name, a name
    the question itself gave or the words it quoted. "the degraded service" names nothing; "pl_ingest_sales" does."""
    text = text_searched(call)
    if not text:
        return True
    names = {name.lower() for name in known} | {item.value.lower() for item in analysis.entities if item.usable}
    names |= {item.text.lower() for item in analysis.quoted}  # the words the user quoted: searched as asked
    return any(name and (name in text or text in name) for name in names)


def tools_for_records(records: Iterable[str]) -> set[str]:
    wanted = set(records)
    return {name for name, spec in BY_NAME.items() if spec.record in wanted}
