"""The shapes of the tool catalog: record kinds, filters (tool parameters) and tools.

Used by ``catalog.py`` (which gathers the entries of ``catalog_tickets``, ``catalog_runs`` and
``catalog_health``) and by ``toolkit.py``, which writes each tool parameter's description for
models from its ``FilterSpec``: what a model reads about a filter is written once, here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from opsagent.tools.vocabularies import VOCABULARIES, Vocabulary

FilterKind = Literal["choice", "priority", "match", "window", "point", "duration", "person", "order", "group_by",
                     "name", "text", "limit", "lookup"]
"""choice: a vocabulary value / list / "not …"; priority: 1-5 with ``match``; window: a time phrase or
ISO range; point: one moment; duration: a length of time ("2 days"); person: a person's name as the
records write it, or "unassigned"; order: how rows are sorted (a vocabulary); group_by: what counts are
grouped by (a vocabulary); name: an inventory name (``inventory`` says which list); text: words that
must appear; limit: a row cap; lookup: the id of one record."""
InventoryList = Literal["pipeline", "factory", "configuration_item", "assignment_group", "person", "region",
                        "azure_service", "component"]


class RecordKind(BaseModel):
    """What a tool's rows are: incidents, changes, runs…"""

    model_config = ConfigDict(frozen=True)

    name: str
    nouns: tuple[str, ...]
    """Words people use for these records (singular and plural, abbreviations)."""
    key_field: str
    """The row field that names one record ("number", "run_id", "pipeline_name")."""
    id_prefix: str = ""
    """Ticket numbers: "INC", "CHG"."""
    time_fields: tuple[str, ...] = ()
    """Row fields holding times (for placement checks: "failed during CHG…'s window")."""
    window_fields: tuple[str, str] | None = None
    """The start and end fields of a record's own window (a change's planned window)."""
    systems: tuple[str, ...] = ()
    """The products these records live in ("ServiceNow", "Data Factory"): an answer may name where its data came
    from, and where to act on it, without any row naming them."""


class FilterSpec(BaseModel):
    """One tool parameter, as a filter."""

    model_config = ConfigDict(frozen=True)

    parameter: str
    kind: FilterKind
    vocabulary: str = ""
    """For ``choice``, ``priority``, ``person``, ``order`` and ``group_by``: the vocabulary's name."""
    inventory: InventoryList | None = None
    """For ``name`` and ``person``: which inventory list the value comes from."""
    row_field: str = ""
    """The row field the filter narrows (for ``name`` filters: where the value shows)."""
    about: str = ""
    """What the filter means, in a few words ("opening time", "planned window overlaps")."""
    widest: str = ""
    """For ``window``: the longest window there is data for ("last 30 days"): what a question about a record's
    whole history ("has pl_x had any cancelled runs?") searches instead of the default."""
    narrows_to: tuple[tuple[str, str], ...] = ()
    """(vocabulary, value) pairs every row has when the filter is given: the kinds of failure of a history looked up
    by words of an error are failures."""
    help: str = ""
    """The parameter's description for models: accepted forms and placeholder examples, never a real
    name or id (small models copy examples as arguments). ``{max_rows}`` stands for the row cap."""

    def vocab(self) -> Vocabulary | None:
        return VOCABULARIES.get(self.vocabulary)

    def describe(self, *, max_rows: int) -> str:
        """The description a tool schema carries for this parameter."""
        return self.help.replace("{max_rows}", str(max_rows))


class ToolSpec(BaseModel):
    """One tool: name, specialist, records, filters, and filters it always applies."""

    model_config = ConfigDict(frozen=True)

    name: str
    specialist: str
    record: str
    purpose: str
    filters: tuple[FilterSpec, ...] = ()
    fixed: dict[str, str] = {}
    """Filters the tool always applies, by vocabulary: list_failed_pipelines is {"run_status": "Failed"}."""
    platform: str = ""
    """Health tools: the platform they report on."""
    past: bool = False
    """Reads a record's past over all the history kept (earlier failures, usual durations, incidents like it):
    the tool for "before", "last time", "usual", never for what is going on now."""
    latest_of: tuple[tuple[str, str], ...] = ()
    """(vocabulary, value) pairs whose latest record the tool returns whenever it happened: the last failure and
    the last success of a pipeline."""

    def filter(self, parameter: str) -> FilterSpec | None:
        return next((item for item in self.filters if item.parameter == parameter), None)

    def filters_of(self, kind: FilterKind) -> tuple[FilterSpec, ...]:
        return tuple(item for item in self.filters if item.kind == kind)

    def taking(self, field: str) -> FilterSpec | None:
        """The parameter that applies an intake filter (a ``FilterMention.field``): the one of its vocabulary,
        or for an age bound ("older than two days") the tool's ``duration``."""
        if field == "age":
            return next(iter(self.filters_of("duration")), None)
        return next((item for item in self.filters if item.vocabulary == field), None)

    @property
    def is_lookup(self) -> bool:
        """Fetches one record by its id (``get_…``)."""
        return any(item.kind == "lookup" for item in self.filters)


def limit_filter(noun: str = "rows") -> FilterSpec:
    """The row cap every listing takes."""
    return FilterSpec(parameter="limit", kind="limit", about=f"maximum {noun}",
                      help=f"Maximum {noun} (capped at {{max_rows}})")
