"""Tool arguments from the task: one small extractor per parameter *name*.

Any tool whose parameters use these names gets sensible arguments without new code; a parameter
the table does not know is left to its default. Values are only passed when the tool declares the
parameter (and, where its schema lists allowed values, only an allowed one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from opsagent.local_model.text import Entities, contains_phrase, find_phrase

ISO_TIME = re.compile(r"\b(20\d\d-\d\d-\d\dT\d\d:\d\dZ?)\b", re.IGNORECASE)
TOPIC = re.compile(r"\b(?:about|mentioning|regarding|related to)\s+(?:the\s+|an?\s+)?([a-z0-9_\-]+(?:\s+[a-z0-9_\-]+)?)")
TOPIC_STOP = frozenset("the a an any them those these it this that any of all open my our me p1 p2 p3 p4 last next "
                       "today yesterday priority team group incidents incident changes change tickets too also "
                       "either as well now".split())

FINISHED = ("closed", "resolved", "canceled", "cancelled")
""""…, including closed ones": every state, not only the finished ones."""
INCIDENT_STATES: tuple[tuple[str, str], ...] = (
    ("in progress", "in_progress"), ("on hold", "on_hold"), ("resolved", "resolved"), ("closed", "closed"),
    ("cancelled", "canceled"), ("canceled", "canceled"), ("all incidents", "all"), ("any state", "all"),
    ("new", "new"), ("open", "open"), ("what happened", "all"), *((f"including {word}", "all") for word in FINISHED),
)
CHANGE_STATES: tuple[tuple[str, str], ...] = (
    ("scheduled", "scheduled"), ("implement", "implement"), ("in review", "review"), ("closed", "closed"),
    ("cancelled", "canceled"), ("canceled", "canceled"), ("open", "open"), ("upcoming", "open"),
    ("being implemented", "implement"), ("implementing", "implement"), ("in implementation", "implement"),
    *((f"including {word}", "all") for word in FINISHED),
)
APPROVALS: tuple[tuple[str, str], ...] = (
    ("waiting for approval", "requested"), ("pending approval", "requested"), ("awaiting approval", "requested"),
    ("need approval", "requested"), ("not requested", "not requested"), ("pending", "requested"),
    ("approved", "approved"), ("rejected", "rejected"),
)
CHANGE_TYPES = ("emergency", "standard", "normal")


@dataclass(frozen=True)
class Context:
    """What a specialist's arguments are drawn from: its task and the previous step's results."""

    text: str
    entities: Entities
    previous_text: str = ""
    previous: Entities = Entities()
    services: Mapping[str, str] | None = None


def _first_phrase(text: str, table: tuple[tuple[str, str], ...]) -> str | None:
    hits = [(find_phrase(text, phrase), value) for phrase, value in table if contains_phrase(text, phrase)]
    return min(hits)[1] if hits else None


def _incident_state(ctx: Context) -> str | None:
    return _first_phrase(ctx.text, INCIDENT_STATES)


def _change_state(ctx: Context) -> str | None:
    return _first_phrase(ctx.text, CHANGE_STATES)


def _window(ctx: Context) -> str | None:
    """The task's own time phrase, else the window of a change found in the previous results."""
    if ctx.entities.time_window:
        return ctx.entities.time_window
    times = ISO_TIME.findall(ctx.previous_text)
    if len(times) >= 2 and contains_phrase(ctx.text, "window"):
        return f"{times[0].upper()} to {times[1].upper()}"
    return None


def _topic(ctx: Context) -> str | None:
    entities = ctx.entities
    if entities.pipelines:
        return entities.pipelines[0]
    if entities.targets:
        return entities.targets[0]
    taken = " ".join((*entities.groups, *entities.config_items, *entities.regions)).lower()
    for match in TOPIC.finditer(ctx.text):
        words = [word for word in match.group(1).split() if word not in TOPIC_STOP]
        if words and not words[0][:1].isdigit() and not any(word in taken for word in words):
            return _singular(" ".join(words))
    return None


def _singular(phrase: str) -> str:
    """"password resets" → "password reset": tools match text literally."""
    return phrase[:-1] if phrase.endswith("s") and not phrase.endswith("ss") and len(phrase) > 4 else phrase


def _service(ctx: Context) -> str | None:
    services = ctx.services or {}
    hits = [(find_phrase(ctx.text, word), name) for word, name in services.items() if contains_phrase(ctx.text, word)]
    return min(hits)[1] if hits else None


def _first(values: tuple[str, ...]) -> str | None:
    return values[0] if values else None


EXTRACTORS: dict[str, Callable[[Context], Any]] = {
    "priority": lambda ctx: ctx.entities.priority,
    "assignment_group": lambda ctx: _first(ctx.entities.groups),
    "configuration_item": lambda ctx: _first(ctx.entities.config_items),
    "opened_within": lambda ctx: ctx.entities.time_window,
    "time_window": _window,
    "window": _window,
    "type": lambda ctx: next((word for word in CHANGE_TYPES if contains_phrase(ctx.text, word)), None),
    "approval": lambda ctx: _first_phrase(ctx.text, APPROVALS),
    "pipeline_name": lambda ctx: _first(ctx.entities.pipelines),
    "run_id": lambda ctx: _first(ctx.entities.run_ids),
    "region": lambda ctx: _first(ctx.entities.regions),
    "service": _service,
    "text": _topic,
}
"""Parameter name → how to fill it. ``state`` depends on the tool (see ``STATE_BY_TOOL``)."""

STATE_BY_TOOL: dict[str, Callable[[Context], str | None]] = {
    "list_incidents": _incident_state,
    "list_change_requests": _change_state,
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
