"""The question analysis made at intake, before any model runs (product code, deterministic).

It holds what can be extracted reliably: ids and names checked against the inventory, time
expressions resolved to exact UTC windows, stated filters with their polarity, references to the
previous turn, the matching runbooks, and what could not be resolved. Planners get it as a hint;
the answer names what it could not resolve. Spans are character offsets in ``resolved_question``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field

EntityKind = Literal[
    "incident", "change", "run_id", "pipeline", "factory", "platform", "component", "configuration_item",
    "assignment_group", "region", "azure_service", "person",
]
MatchStatus = Literal["exact", "corrected", "unknown", "unverified"]
"""``corrected``: a near miss fixed with a note; ``unknown``: not in the inventory (maybe with
suggestions); ``unverified``: the inventory cannot tell (e.g. ticket numbers of a real ServiceNow)."""
FilterField = Literal["incident_state", "change_state", "approval", "priority", "change_type", "change_risk",
                      "run_status", "assignee", "age", "incident_order", "change_order"]


class Span(BaseModel):
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    def within(self, start: int, end: int) -> bool:
        return start <= self.start and self.end <= end


class EntityMention(BaseModel):
    """A thing the question names, checked against what exists."""

    kind: EntityKind
    value: str
    """The canonical value (as the inventory and the tools spell it)."""
    text: str
    """As the user wrote it."""
    span: Span
    status: MatchStatus = "exact"
    suggestions: list[str] = Field(default_factory=list)

    @property
    def usable(self) -> bool:
        return self.status in ("exact", "corrected", "unverified")


class TimeMention(BaseModel):
    """A time expression resolved to an exact UTC window ``[start, end)``."""

    text: str
    span: Span
    start: datetime
    end: datetime
    point: datetime | None = None
    """The moment asked about, for "the 8am run" / "around 08:00"."""
    label: str
    """The window in words, with exact times: "since 2025-01-09 18:00 UTC"."""
    phrase: str = ""
    """The same window as a phrase every time parameter of the tools takes ("since yesterday 3pm")."""
    open_start: bool = False
    """"before Monday" of the past: no start was said; ``start`` is only how far back a search reaches."""

    def as_range(self) -> str:
        """The window in the form every time-window parameter of the tools accepts."""
        return f"{_iso(self.start)} to {_iso(self.end)}"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


class RecordWindow(BaseModel):
    """A window relative to a record's own times, resolved once the record is fetched:
    "in the 30 minutes before CHG… started", "after INC… was opened", "since the change"."""

    text: str
    span: Span
    record: str = ""
    """The ticket number; empty for "the change" / "the upgrade" (the plan finds the record)."""
    relation: Literal["before", "after", "around", "during"]
    edge: Literal["start", "end"] = "start"
    minutes: int | None = None
    """The stated length ("30 minutes"); ``None``: before = the 24 hours before, after = until now."""

    def window(self, start: datetime, end: datetime, now: datetime) -> tuple[datetime, datetime]:
        """The exact window, given the record's own start and end."""
        span = timedelta(minutes=self.minutes) if self.minutes else None
        edge = end if self.edge == "end" else start
        if self.relation == "before":
            return edge - (span or timedelta(hours=24)), edge
        if self.relation == "after":
            return edge, edge + span if span else max(now, edge)
        if self.relation == "during":
            return start, end
        return start - (span or timedelta(hours=1)), end + (span or timedelta(hours=1))

    def describe(self) -> str:
        """"the 30 minutes before CHG…'s start" (for the answer and the prompt hint)."""
        record = f"{self.record}'s" if self.record else "the record's"
        if self.relation == "during":
            return f"{record} planned window"
        if self.relation == "after" and not self.minutes:
            return f"since {record} {self.edge}"
        length = _length(self.minutes) if self.minutes else {"before": "the 24 hours", "around": "the hour"}[self.relation]
        if self.relation == "around":
            return f"{length} around {record} window"
        return f"{length} {self.relation} {record} {self.edge}"


def _length(minutes: int) -> str:
    if minutes % 1440 == 0:
        return f"the {minutes // 1440} day{'s' if minutes > 1440 else ''}"
    if minutes % 60 == 0:
        return f"the {minutes // 60} hour{'s' if minutes > 60 else ''}"
    return f"the {minutes} minutes"


class FilterMention(BaseModel):
    """A filter the question states, with its polarity ("not approved", "P2 exactly")."""

    field: FilterField
    values: list[str]
    negated: bool = False
    match: Literal["exactly", "or_higher"] | None = None
    """For priorities: "P2" means exactly 2 unless the user said "or higher" / "at least"."""
    text: str
    span: Span

    def as_argument(self) -> str:
        """The value a tool parameter takes: ``"approved"``, ``"not approved"``, ``"new,in_progress"``."""
        joined = ",".join(self.values)
        return f"not {joined}" if self.negated else joined


class ResolvedReference(BaseModel):
    """A reference to the previous answer ("the second one", "that run") and what it points at."""

    text: str
    kind: EntityKind
    value: str
    how: Literal["ordinal", "previous_turn"]


class FollowUp(BaseModel):
    """A short follow-up that re-asks the previous question with something changed."""

    previous_question: str
    changed: list[str] = Field(default_factory=list)
    """What changed, in words: "time window: last 7 days"."""


class RunbookStepHint(BaseModel):
    """One step of a matched runbook, with the question's names filled in."""

    step: int = Field(ge=1)
    specialist: str
    ask: str


class RunbookMatch(BaseModel):
    """A recurring investigation the question matches; its steps are planning hints."""

    name: str
    title: str
    intent: str
    steps: list[RunbookStepHint]
    score: float = Field(ge=0.0, le=1.0)


class QuotedText(BaseModel):
    """Words the user put in quotes ("seen 'Execution Timeout Expired' before?"): text to find in the records as
    written, not words to read."""

    text: str
    """The words inside the quotes."""
    span: Span
    """Where the quoted words stand, quotes included."""


class Unresolved(BaseModel):
    """A part of the question that could not be resolved; the answer names it."""

    text: str
    reason: str
    suggestions: list[str] = Field(default_factory=list)


AskShape = Literal["yes_no", "count", "which", "list", "record", "why", "who", "when", "how", "compare", "other"]
"""What kind of answer an ask wants: "is there…?" a yes or no, "how many" a count, "why" a cause…"""


class RecordRelation(BaseModel):
    """Two kinds of record one ask relates ("failed pipelines that have an open incident"): answered only by
    searching both and pairing their rows (``intake/relations``)."""

    head: str
    """The search family asked for: incident, change or pipeline (a pipeline's runs are the pipeline's)."""
    other: str
    """The family its rows are related to."""
    words: str
    """The relation as the user wrote it ("have an open incident")."""
    negated: bool = False
    """"without a ticket", "that don't have a change"."""
    span: Span


class Ask(BaseModel):
    """One thing the user asked, found in their own words (a clause, an "and …?", a "then …", a "who/why")."""

    id: str
    """"p1", "p2"… in the order asked; the plan's parts are checked against these."""
    text: str
    span: Span
    shape: AskShape = "other"
    records: list[str] = Field(default_factory=list)
    """Record kinds the ask names (the catalog's: incident, change, run, pipeline, health)."""
    relation: RecordRelation | None = None
    """Two kinds of record the ask relates, if it does."""


Intent = Literal["question", "greeting", "help", "thanks", "action", "off_topic", "unrecognised", "vague"]
"""What the message is, read by product code for every model: a question to answer; a greeting, a
request for help or thanks (answered without tools); a request to act (answered as one: what OpsAgent
cannot do, what to do instead, the records); a request for something else or a subject outside
operations (declined by product code); no word that intake knows (a hint: a word list cannot know every
in-scope word, the model decides); or about operations but naming nothing to look at ("is it fixed?"
without an earlier turn)."""


class ActionRequest(BaseModel):
    """A request to change something ("ack INC…", "rerun pl_x", "scale up the warehouse")."""

    action: str
    """The operation, canonical ("acknowledge", "rerun", "resize")."""
    verb: str
    """As the user wrote it ("ack")."""
    text: str
    """The clause that asks for it."""
    targets: list[str] = Field(default_factory=list)
    """The ids and names it is about, validated like every entity."""


class QuestionAnalysis(BaseModel):
    """Everything intake understood about the question, before planning."""

    question: str
    """As the user asked it."""
    resolved_question: str
    """What to plan for: the question with follow-ups expanded and references named."""
    now: datetime
    entities: list[EntityMention] = Field(default_factory=list)
    times: list[TimeMention] = Field(default_factory=list)
    record_windows: list[RecordWindow] = Field(default_factory=list)
    filters: list[FilterMention] = Field(default_factory=list)
    quoted: list[QuotedText] = Field(default_factory=list)
    references: list[ResolvedReference] = Field(default_factory=list)
    follow_up: FollowUp | None = None
    runbooks: list[RunbookMatch] = Field(default_factory=list)
    unresolved: list[Unresolved] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """Corrections made ("read pl_load_finanse_dwh as pl_load_finance_dwh")."""
    asks: list[Ask] = Field(default_factory=list)
    """The separate things asked, in order; coverage and the answer checks read them."""
    intent: Intent = "question"
    action: ActionRequest | None = None
    unplaced: list[str] = Field(default_factory=list)
    """Content words that name nothing intake knows (no record, value, entity, time or question word)."""

    def values(self, kind: EntityKind) -> list[str]:
        """The usable values of one kind, in order of mention, without duplicates."""
        return list(dict.fromkeys(item.value for item in self.entities if item.kind == kind and item.usable))

    def in_span(self, start: int, end: int) -> QuestionAnalysis:
        """Only what lies inside ``[start, end)`` of ``resolved_question`` (one part of the question)."""
        return self.model_copy(update={
            "entities": [item for item in self.entities if item.span.within(start, end)],
            "times": [item for item in self.times if item.span.within(start, end)],
            "record_windows": [item for item in self.record_windows if item.span.within(start, end)],
            "filters": [item for item in self.filters if item.span.within(start, end)],
            "quoted": [item for item in self.quoted if item.span.within(start, end)],
        })
