"""The one home of each value vocabulary the tools accept and the rows show, with the words people write.

A ``Vocabulary`` is a closed set of values (incident states, priorities, run statuses…): the value a
tool parameter takes, the label a row shows, the synonyms an engineer types, and named groups
("open" = New, In Progress, On Hold). Tool parameters, intake (stated filters), the offline model and
the answer checks (is "On Hold" what the row says?) all read these; nothing else lists them.
Canonical labels come from the backend record types, so a new state is added in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from opsagent.backends.base import (
    Approval,
    ChangeOrder,
    ChangeRisk,
    ChangeState,
    ChangeType,
    HealthStatus,
    IncidentOrder,
    IncidentState,
    RunGrouping,
    RunStatus,
)


class Choice(BaseModel):
    """One value: as the tool takes it, as rows show it, and as people write it."""

    model_config = ConfigDict(frozen=True)

    value: str
    """What a tool parameter takes ("on_hold", "2", "Failed")."""
    label: str
    """What rows show ("On Hold", 2, "Failed"), compared case-insensitively."""
    synonyms: tuple[str, ...] = ()
    """Phrases people write for it (lower case, whole words); the label and value count too."""

    def words(self) -> tuple[str, ...]:
        own = (self.label.lower(), self.value.lower().replace("_", " "))
        # a bare number ("2") is a priority only when written as one ("P2"): the synonyms say how
        return tuple(dict.fromkeys(word for word in (*own, *self.synonyms) if not word.isdigit()))


class Vocabulary(BaseModel):
    """A closed set of values one filter accepts and one row field shows."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The filter's id, as intake and the checks name it ("incident_state")."""
    record: str
    """The record kind whose rows carry it (see ``catalog.RECORDS``)."""
    row_fields: tuple[str, ...]
    """Row fields that show the value ("state"; "status" and "last_status" for runs)."""
    choices: tuple[Choice, ...]
    groups: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Named subsets by value ("open" -> new, in_progress, on_hold) with the words for them."""
    group_synonyms: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    negatable: bool = True
    """"not approved" means every other value."""
    role: Literal["value", "order", "grouping"] = "value"
    """``value``: what a record is (a state, a priority) — the answer checks read these; ``order`` and
    ``grouping``: how a search sorts or groups its rows, never a record's value."""

    def choice(self, value_or_label: str) -> Choice | None:
        key = _key(value_or_label)
        return next((item for item in self.choices if key in (_key(item.value), _key(item.label))), None)

    def labels(self) -> tuple[str, ...]:
        return tuple(item.label for item in self.choices)

    def values(self) -> tuple[str, ...]:
        return tuple(item.value for item in self.choices)

    def selected(self, argument: str) -> set[str] | None:
        """The labels an argument like "open", "not approved" or "new,on_hold" selects (lower case); ``None``
        for a value this vocabulary does not know."""
        text = argument.strip().lower()
        negated = text.startswith("not ")
        chosen: set[str] = set()
        for part in (text[4:] if negated else text).replace(" or ", ",").split(","):
            key = _key(part.strip().replace("-", " "))
            if key in self.groups:
                chosen |= {label.lower() for label in self.group_labels(key)}
            elif (choice := self.choice(key)) is not None:
                chosen.add(choice.label.lower())
            else:
                return None
        every = {label.lower() for label in self.labels()}
        return every - chosen if negated else chosen

    def group_labels(self, group: str) -> tuple[str, ...]:
        members = self.groups.get(group, ())
        return tuple(item.label for item in self.choices if item.value in members)

    @cached_property
    def phrases(self) -> tuple[tuple[str, str], ...]:
        """(phrase, value or group name) for every way of writing a value, longest phrase first."""
        pairs = [(word, item.value) for item in self.choices for word in item.words()]
        pairs += [(word, group) for group, words in self.group_synonyms.items() for word in (group, *words)]
        return tuple(sorted(dict.fromkeys(pairs), key=lambda pair: -len(pair[0])))

    @cached_property
    def text_phrases(self) -> tuple[tuple[str, str], ...]:
        """The phrases that mean a value in a sentence: "all" is an argument ("state all"), not a word that
        means every state when a question says "has it failed at all?"; an order or a grouping only in the
        words written for it."""
        own = {item.value: set(item.synonyms) for item in self.choices}
        return tuple(pair for pair in self.phrases if pair[0] != "all" and (
            # an order or a grouping is said in words ("oldest first", "per pipeline"): its bare value names
            # a field or a record ("priority 1", "the pipeline it mentions"), not an order
            self.role == "value" or pair[0] in own.get(pair[1], {pair[0]})))

    def lookup(self, text: str) -> str | None:
        """The value or group a whole phrase stands for ("nobody" -> "unassigned"), any case; else ``None``."""
        wanted = " ".join(text.strip().lower().replace("_", " ").split())
        return next((value for phrase, value in self.phrases if phrase == wanted), None)

    @cached_property
    def text_patterns(self) -> tuple[tuple[re.Pattern[str], str], ...]:
        """``text_phrases`` compiled once: a vocabulary has more phrases than ``re``'s cache holds for all of them,
        and recompiling them was most of the CPU a question cost."""
        return tuple((re.compile(rf"(?<![\w-]){words}(?:s|es)?(?![\w-])", re.IGNORECASE), value)
                     for phrase, value in self.text_phrases  # "anyone *actually* working":
                     for words in [rf"\s+(?:{FILLER}\s+)?".join(map(re.escape, phrase.split()))])

    def find(self, text: str) -> Iterator[tuple[re.Match[str], str]]:
        """Each phrase of this vocabulary in ``text`` (whole words, case-insensitive), longest first, no overlaps."""
        found: list[tuple[re.Match[str], str]] = []
        for pattern, value in self.text_patterns:
            for match in pattern.finditer(text):
                if not any(match.start() < other.end() and other.start() < match.end() for other, _ in found):
                    found.append((match, value))
        yield from sorted(found, key=lambda pair: pair[0].start())

    def choices_by_key(self) -> dict[str, tuple[str, ...]]:
        """Every way of writing a value or group (lower case, words joined by ``_``) -> the values it stands for,
        as ``filters.parse_set_filter`` takes them."""
        values = {item.value: (item.value,) for item in self.choices} | dict(self.groups)
        return {_key(phrase): values[value] for phrase, value in self.phrases}

    def describe(self) -> str:
        """For tool schemas: the accepted values, the groups, and negation."""
        listed = ", ".join(item.value for item in self.choices)
        groups = "; ".join(f"'{name}' = {', '.join(values)}" for name, values in self.groups.items())
        negation = "; or 'not <value>' for every other value" if self.negatable else ""
        return f"one of {listed}{f' ({groups})' if groups else ''}; a list ('a, b'){negation}"


FILLER = r"(?:actually|really|even|currently|already|still|yet)"
"""An adverb that may sit between a phrase's words without changing what it says."""


def _key(text: str) -> str:
    return "_".join(str(text).strip().lower().replace("-", " ").split())


def _choices(labels: tuple[str, ...], synonyms: dict[str, tuple[str, ...]], *,
             value_is_label: bool = False) -> tuple[Choice, ...]:
    return tuple(Choice(value=label if value_is_label else _key(label), label=label, synonyms=synonyms.get(label, ()))
                 for label in labels)


INCIDENT_STATE = Vocabulary(
    name="incident_state", record="incident", row_fields=("state",),
    choices=_choices(get_args(IncidentState), {
        "New": ("untriaged",),
        "In Progress": ("being worked on", "wip", "work in progress", "in-progress"),
        "On Hold": ("on-hold", "onhold", "parked", "paused"),
        "Resolved": (),
        "Closed": (),
        "Canceled": ("cancelled", "cancel", "withdrawn"),
    }),
    groups={"open": ("new", "in_progress", "on_hold"), "done": ("resolved", "closed"),
            "all": tuple(_key(s) for s in get_args(IncidentState))},
    group_synonyms={"open": ("active", "unresolved", "outstanding", "still open", "not resolved", "ongoing"),
                    "done": ("closed out", "closed off", "wrapped up", "resolved or closed", "fixed"),  # closed: fixed too
                    "all": ("any state", "all states", "every state")},
)
CHANGE_STATE = Vocabulary(
    name="change_state", record="change", row_fields=("state",),
    choices=_choices(get_args(ChangeState), {
        "Authorize": ("authorise", "authorisation", "authorization"),
        "Implement": ("implementing", "being implemented", "in implementation", "in progress"),
        "Review": ("in review", "post-implementation review"),
        "Canceled": ("cancelled",),
    }),
    groups={"open": tuple(_key(s) for s in get_args(ChangeState) if s not in ("Closed", "Canceled")),
            "all": tuple(_key(s) for s in get_args(ChangeState))},
    group_synonyms={"open": ("active", "in flight", "in-flight", "upcoming", "coming up", "not closed"),
                    "all": ("any state", "all states", "every state")},
)
APPROVAL = Vocabulary(
    name="approval", record="change", row_fields=("approval",),
    choices=_choices(get_args(Approval), {
        "not requested": ("not yet requested", "never requested"),
        "requested": ("awaiting approval", "pending approval", "waiting for approval", "waiting on approval",
                      "awaiting authorisation", "awaiting authorization", "waiting for authorisation",
                      "waiting for authorization", "approval pending", "approval requested", "pending sign-off",
                      "awaiting sign-off"),
        "approved": ("signed off", "authorised", "authorized"),
        "rejected": ("declined", "turned down"),
    }),
    groups={"unapproved": ("not_requested", "requested", "rejected")},
    group_synonyms={"unapproved": ("not approved", "not yet approved", "no approval", "without approval", "need approval",
                                   "needs approval", "needing approval", "need sign-off", "needs sign-off")},
)
CHANGE_TYPE = Vocabulary(
    name="change_type", record="change", row_fields=("type",),
    choices=_choices(get_args(ChangeType), {"emergency": ("ecab", "urgent change", "expedited")}),
)
CHANGE_RISK = Vocabulary(
    name="change_risk", record="change", row_fields=("risk",),
    choices=_choices(get_args(ChangeRisk), {
        "Very High": ("very high risk", "very-high risk"), "High": ("high risk", "high-risk", "risky"),
        "Moderate": ("moderate risk", "medium risk", "medium"), "Low": ("low risk", "low-risk"),
    }),
)
PRIORITY = Vocabulary(
    name="priority", record="incident", row_fields=("priority",), negatable=False,
    # "priority exactly 2" is how list_incidents says the filter it applied (incident_filters.py)
    choices=tuple(Choice(value=str(number), label=str(number), synonyms=(*words, f"priority exactly {number}"))
                  for number, words in (
        (1, ("p1", "p1s", "sev1", "sev 1", "sev-1", "prio 1", "priority 1", "critical", "crit")),
        (2, ("p2", "p2s", "sev2", "sev 2", "sev-2", "prio 2", "priority 2", "high priority", "high-priority")),
        (3, ("p3", "p3s", "sev3", "sev 3", "prio 3", "priority 3", "moderate priority")),
        (4, ("p4", "p4s", "sev4", "sev 4", "prio 4", "priority 4", "low priority")),
        (5, ("p5", "p5s", "sev5", "prio 5", "priority 5", "planning priority")),
    )),
)
RUN_STATUS = Vocabulary(
    name="run_status", record="run", row_fields=("status", "last_status"),
    choices=_choices(get_args(RunStatus), {
        "Failed": ("failed", "failing", "fails", "failure", "failures", "fail", "broken", "broke", "break", "breaks",
                   "errored",
                   "erroring", "red"),
        "Succeeded": ("succeeded", "successful", "success", "succeeds", "passed", "worked", "green", "ran ok",
                      "run ok", "went ok", "ran fine", "went fine", "completed ok", "ran successfully"),
        "InProgress": ("in progress", "running", "executing", "still running", "in-progress"),
        "Queued": ("queued", "waiting to run", "pending"),
        "Cancelled": ("canceled", "cancelled", "aborted", "stopped"),
    }, value_is_label=True),
    groups={"active": ("Queued", "InProgress"), "finished": ("Succeeded", "Failed", "Cancelled"),
            "all": get_args(RunStatus)},
    group_synonyms={"active": ("unfinished", "not finished", "running or queued", "queued or running"),
                    "finished": ("completed", "finish", "ended"),
                    "all": ("any status", "all statuses", "every status")},
)
HEALTH_STATUS = Vocabulary(
    name="health_status", record="health", row_fields=("status",), negatable=False,
    choices=_choices(get_args(HealthStatus), {
        "operational": ("healthy", "up and running", "fine", "green", "all good", "normal", "ok", "okay"),
        "degraded": ("degraded", "slow", "having issues", "impaired", "degradation"),
        "partial_outage": ("partial outage", "partially down"),
        "major_outage": ("major outage", "down", "outage"),
        "maintenance": ("under maintenance", "in maintenance", "maintenance window"),
        "unknown": ("unknown",),
    }),
)

ASSIGNEE = Vocabulary(
    name="assignee", record="incident", row_fields=("assigned_to",), negatable=False,
    choices=(Choice(value="unassigned", label="unassigned", synonyms=(
        "nobody", "no one", "noone", "not assigned", "unowned", "ownerless", "no assignee", "without an assignee",
        "without assignee", "no owner", "without an owner", "without owner", "without any owner", "no one assigned",
        "nobody assigned", "nobody has picked up", "no one has picked up", "nobody picked up", "not picked up",
        "nobody owns", "nobody on it", "no one on it")),
        Choice(value="any_assignee", label="any assignee", synonyms=(  # never a bare "anyone": "did anyone open …"
            "anyone working", "anybody working", "someone working", "somebody working", "anyone on it",
            "anybody on it", "someone on it", "anyone assigned", "anybody assigned", "someone assigned",
            "anyone handling", "anybody handling", "someone handling", "anyone looking at", "anybody looking at",
            "someone looking at", "anyone picked up", "anybody picked up", "someone picked up",
            "somebody picked up", "has picked up", "been picked up", "picked it up", "being worked", "being worked on", "being handled", "has an owner",
            "has an assignee", "assigned to someone", "assigned to anyone", "owned by someone"))),
)
"""A person filter's two fixed values: assigned to no one (rows show an empty ``assigned_to``), or to someone
(any name). Any other value is a person's name as the records write it."""
INCIDENT_ORDER = Vocabulary(
    name="incident_order", record="incident", row_fields=("opened_at", "priority"), negatable=False, role="order",
    choices=_choices(get_args(IncidentOrder), {
        "newest": ("newest first", "latest", "most recent", "newest", "recent"),
        "oldest": ("oldest first", "oldest", "longest open", "open the longest", "earliest", "first opened"),
        "priority": ("most urgent", "most urgent first", "by priority", "most critical", "highest priority"),
    }, value_is_label=True),
)
CHANGE_ORDER = Vocabulary(
    name="change_order", record="change", row_fields=("start_date",), negatable=False, role="order",
    choices=_choices(get_args(ChangeOrder), {
        "latest": ("latest planned", "furthest out", "last planned"),
        "earliest": ("earliest", "first planned", "earliest planned"),
        "next": ("next up", "up next", "soonest", "coming next", "next planned", "what's next", "whats next"),
    }, value_is_label=True),
)

RUN_GROUPING = Vocabulary(
    name="run_grouping", record="run", row_fields=("pipeline_name", "factory"), negatable=False, role="grouping",
    choices=_choices(get_args(RunGrouping), {
        "pipeline": ("per pipeline", "by pipeline", "each pipeline", "for each pipeline"),
        "factory": ("per factory", "by factory", "each factory", "for each factory"),
    }, value_is_label=True),
)

VOCABULARIES: dict[str, Vocabulary] = {
    item.name: item for item in (INCIDENT_STATE, CHANGE_STATE, APPROVAL, CHANGE_TYPE, CHANGE_RISK, PRIORITY,
                                 RUN_STATUS, HEALTH_STATUS, ASSIGNEE, INCIDENT_ORDER, CHANGE_ORDER, RUN_GROUPING)
}
"""Every vocabulary by filter id."""
VALUE_VOCABULARIES: dict[str, Vocabulary] = {name: item for name, item in VOCABULARIES.items() if item.role == "value"}
"""The vocabularies of what records are (states, priorities, statuses, assignees): the answer checks read these."""
