"""Tool arguments from the task: one small extractor per parameter *name*.

Any tool whose parameters use these names gets sensible arguments without new code; a parameter
the table does not know is left to its default. Values are only passed when the tool declares the
parameter (and, where its schema lists allowed values, only an allowed one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from opsagent.contracts.analysis import FilterField
from opsagent.local_model.task_facts import TaskFacts
from opsagent.local_model.text import Entities, contains_phrase, find_phrase

PREVIOUS_RECORD_TIME = ("window", "during it", "during that", "during this", "during them", "while it",
                        "while that", "in that time", "at that time", "during its", "in its")
"""Words that place a later step's search in the time of the record the previous step found."""
ISO_TIME = re.compile(r"\b(20\d\d-\d\d-\d\dT\d\d:\d\dZ?)\b", re.IGNORECASE)
TOPIC = re.compile(r"\b(?:about|mention|mentions|mentioning|regarding|related to|(?:change|change request|incident|ticket)s? (?:for|on))"
                   r"\s+(?:the\s+|an?\s+)?((?:[a-z0-9_\-]+\s*){1,4})")
OPENED_DURING = re.compile(r"\bopened (?:during|in|within) (?:that|the|its|this)\b")
SUBJECT = re.compile(r"\bthe\s+((?:[a-z0-9_\-]+\s+){1,3})(?:outage|incident|issue|problem|change|upgrade|"
                     r"migration|rollout|deployment|maintenance)s?\b")
""""the customer portal outage", "the Snowflake upgrade change": the words that name what it is about."""
TOPIC_END = frozenset("then and or in during which that since from with to is was are were when where who why how "
                      "before after until".split())
"""Words that end a topic: "the change for SQL MI index maintenance *then* …"."""
TOPIC_STOP = frozenset("the a an any them those these it this that any of all open my our me p1 p2 p3 p4 last next "
                       "today yesterday priority team group incidents incident changes change tickets too also "
                       "either as well now failed failing pipeline pipelines run runs most recent latest newest oldest "
                       "first worst biggest current previous single recently opened newly same configuration item ci "
                       "touches touch".split())


@dataclass(frozen=True)
class Context:
    """What a specialist's arguments are drawn from: its task and the previous step's results."""

    text: str
    entities: Entities
    facts: TaskFacts = TaskFacts()
    """What intake found in the task's own words: exact windows, filters with polarity, names."""
    previous_text: str = ""
    previous: Entities = Entities()
    services: Mapping[str, str] | None = None


def _filter(field: FilterField) -> Callable[[Context], str | None]:
    def value(ctx: Context) -> str | None:
        found = ctx.facts.filter(field)
        return found.as_argument() if found else None
    return value


def _priority(ctx: Context) -> int | None:
    found = ctx.facts.filter("priority")
    return max(int(value) for value in found.values) if found else None


def _priority_match(ctx: Context) -> str | None:
    found = ctx.facts.filter("priority")
    return None if found is None else "or_higher" if found.match == "or_higher" or len(found.values) > 1 else "exactly"


def _window(ctx: Context) -> str | None:
    """The task's own time, else a window relative to the record the previous step found ("the 30
    minutes before CHG… started"), else that record's own window."""
    if ctx.facts.time_phrase():
        return ctx.facts.time_phrase()
    relative = record_relative_window(ctx)
    if relative:
        return relative
    during = any(contains_phrase(ctx.text, phrase) for phrase in PREVIOUS_RECORD_TIME)
    windows = windows_of_previous(ctx) if during else ()
    return windows[0] if windows else None


def _opened_within(ctx: Context) -> str | None:
    """The task's own time, else ("opened during that time") the window of the previous step's record.
    A later step searches incidents by when they were opened only when its ask says "opened": the
    time in "yesterday's failed pipelines" is the pipelines' window, and an older open incident counts."""
    if ctx.previous_text and not contains_phrase(ctx.text, "opened"):
        return None
    if ctx.facts.time_phrase():
        return ctx.facts.time_phrase()
    windows = windows_of_previous(ctx) if OPENED_DURING.search(ctx.text) else ()
    return windows[0] if windows else None


def record_relative_window(ctx: Context) -> str | None:
    """The window the task states relative to a record, from that record's times in the previous step.
    "The upgrade window" with two upgrades found: the latest one that has started (a past window is what
    a question about failures means; a future one has no runs yet)."""
    for wanted in ctx.facts.record_windows:
        spans = []
        for line in ctx.previous_text.splitlines():
            times = ISO_TIME.findall(line)
            if len(times) >= 2 and (not wanted.record or wanted.record.lower() in line.lower()):
                spans.append(tuple(datetime.fromisoformat(value.upper().replace("Z", "+00:00")) for value in times[:2]))
        if not spans:
            continue
        now = ctx.facts.now or max(end for _, end in spans)
        started = [span for span in spans if span[0] <= now]
        start, end = max(started) if started and not wanted.record else spans[0]
        first, last = wanted.window(start, end, now)
        return f"{first:%Y-%m-%dT%H:%MZ} to {last:%Y-%m-%dT%H:%MZ}"
    return None


def windows_of_previous(ctx: Context) -> tuple[str, ...]:
    """Each record's planned window in the previous results, one per row (never the start of one
    record with the end of another)."""
    found = []
    for line in ctx.previous_text.splitlines():
        times = ISO_TIME.findall(line)
        if len(times) >= 2:
            found.append(f"{times[0].upper()} to {times[1].upper()}")
    return tuple(dict.fromkeys(found))


def _topic(ctx: Context) -> str | None:
    entities = ctx.entities
    if entities.pipelines:
        return entities.pipelines[0]
    if ctx.facts.name("platform"):  # "which snowflake changes are open?": tickets that name the platform
        return ctx.facts.name("platform")
    if entities.targets:
        return entities.targets[0]
    taken = " ".join((*entities.groups, *entities.config_items, *entities.regions)).lower()
    for match in [*TOPIC.finditer(ctx.text), *SUBJECT.finditer(ctx.text)]:
        written = match.group(1).split()
        written = written[:next((index for index, word in enumerate(written) if word in TOPIC_END), len(written))]
        words = [word for word in written if word not in TOPIC_STOP]
        if words and not words[0][:1].isdigit() and not any(word in taken for word in words):
            return _singular(" ".join(words))
    return None


def _singular(phrase: str) -> str:
    """"password resets" → "password reset": tools match text literally."""
    return phrase[:-1] if phrase.endswith("s") and not phrase.endswith("ss") and len(phrase) > 4 else phrase


def _service(ctx: Context) -> str | None:
    """The Azure service named; a platform with its own check ("Databricks") is not narrowed to here."""
    services = ctx.services or {}
    own_checks = {target.lower() for target in ctx.entities.targets}
    hits = [(find_phrase(ctx.text, word), name) for word, name in services.items()
            if contains_phrase(ctx.text, word) and word not in own_checks]
    return min(hits)[1] if hits else None


def _first(values: tuple[str, ...]) -> str | None:
    return values[0] if values else None


EXTRACTORS: dict[str, Callable[[Context], Any]] = {
    "priority": _priority,
    "priority_match": _priority_match,
    "assignment_group": lambda ctx: ctx.facts.name("assignment_group") or _first(ctx.entities.groups),
    "configuration_item": lambda ctx: ctx.facts.name("configuration_item") or _first(ctx.entities.config_items),
    "factory": lambda ctx: ctx.facts.name("factory"),
    "opened_within": _opened_within,
    "time_window": _window,
    "window": _window,
    "around": lambda ctx: ctx.facts.point(),
    "type": _filter("change_type"),
    "risk": _filter("change_risk"),
    "approval": _filter("approval"),
    "pipeline_name": lambda ctx: _first(ctx.entities.pipelines),
    "run_id": lambda ctx: _first(ctx.entities.run_ids),
    "region": lambda ctx: ctx.facts.name("region") or _first(ctx.entities.regions),
    "service": _service,
    "text": _topic,
}
"""Parameter name → how to fill it. ``state`` depends on the tool (see ``STATE_BY_TOOL``)."""

def _incident_state(ctx: Context) -> str | None:
    """The stated state; else, for "incidents opened over the weekend", every state: what was opened
    then may be resolved by now, and the question is about when they were opened."""
    stated = _filter("incident_state")(ctx)
    if stated is None and contains_phrase(ctx.text, "opened") and ctx.facts.time_phrase():
        return "all"
    return stated


STATE_BY_TOOL: dict[str, Callable[[Context], str | None]] = {
    "list_incidents": _incident_state,
    "list_change_requests": _filter("change_state"),
}


def allowed(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` fits the parameter's declared type / allowed values."""
    enum = schema.get("enum")
    if enum is not None:
        return value in enum
    types = {schema.get("type")} | {option.get("type") for option in schema.get("anyOf", ())}
    if "integer" in types and not isinstance(value, int):
        return False
    return True


def arguments_for(tool: str, properties: Mapping[str, Any], ctx: Context, bound: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for one call: the bound ones (e.g. a ticket number) plus what the task says."""
    args: dict[str, Any] = {name: value for name, value in bound.items() if name in properties}
    for name, schema in properties.items():
        if name in args or name == "limit":
            continue
        extractor = STATE_BY_TOOL.get(tool) if name == "state" else EXTRACTORS.get(name)
        value = extractor(ctx) if extractor else None
        if value not in (None, "") and allowed(schema, value):
            args[name] = value
    return args
