"""QuestionAnalyzer: the intake step, one per runtime (its inventory cache and runbooks are shared).

In order: a short follow-up becomes the whole previous question with the new value; references to
the previous answer become the ids they point at; near-miss names are corrected (with a note);
then ids, names, time windows and filters are read from the final text, and runbooks matched.
Everything is deterministic and costs milliseconds, so real and offline models start from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from opsagent.backends.base import Backends, Clock
from opsagent.contracts.analysis import EntityMention, QuestionAnalysis, Span, Unresolved
from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.requests import MessageData
from opsagent.intake.asks import find_asks
from opsagent.intake.candidates import CandidateFinder, ClarifyCandidates
from opsagent.intake.catalog_filters import catalog_filters
from opsagent.intake.entities import find_entities
from opsagent.intake.filters import find_filters
from opsagent.intake.followups import resolve_references, rewrite_follow_up
from opsagent.intake.intent import find_action, read_intent, unplaced_words
from opsagent.intake.inventory import Inventory, InventorySnapshot
from opsagent.intake.runbooks import Runbook, match_runbooks
from opsagent.intake.quoted import find_quoted, outside
from opsagent.intake.record_windows import find_record_windows
from opsagent.intake.times import find_times
from opsagent.tools.identifiers import TYPED_TICKET, normalised_ticket
from opsagent.tools.timewindow import parse_moment

OUTSIDE = Span(start=0, end=0)
"""Where a time the planner wrote sits in the question: nowhere (it is in the task's words)."""
KIND_WORDS = {"pipeline": "pipeline", "factory": "Data Factory", "configuration_item": "configuration item",
              "assignment_group": "assignment group", "person": "person"}


def _corrected(text: str, entities: Sequence[EntityMention]) -> tuple[str, list[str]]:
    """The text with near-miss names replaced by what exists, and a note for each."""
    notes = []
    for item in sorted((item for item in entities if item.status == "corrected"), key=lambda item: -item.span.start):
        if item.text.lower() != item.value.lower():
            notes.append(f"\"{item.text}\" as {KIND_WORDS.get(item.kind, item.kind)} {item.value}")
        text = text[:item.span.start] + item.value + text[item.span.end:]
    return text, list(reversed(notes))


def _marked_corrected(entities: Sequence[EntityMention], before: Sequence[EntityMention]) -> list[EntityMention]:
    """Names found in the corrected text, with the ones we corrected marked so (and spelt as the user did)."""
    written = {item.value: item.text for item in before if item.status == "corrected"}
    return [item.model_copy(update={"status": "corrected", "text": written[item.value]})
            if item.value in written and item.status == "exact" else item for item in entities]


def _unresolved(entities: Sequence[EntityMention]) -> list[Unresolved]:
    return [Unresolved(text=item.text, reason=f"no {KIND_WORDS.get(item.kind, item.kind)} of that name exists",
                       suggestions=item.suggestions) for item in entities if item.status == "unknown"]


def analyse_question(question: str, history: Sequence[MessageData] = (), *, now: datetime,
                     inventory: InventorySnapshot = InventorySnapshot(), runbooks: Sequence[Runbook] = ()) -> QuestionAnalysis:
    """The analysis of one question against a moment, an inventory snapshot and the runbooks (pure)."""
    own_entities = find_entities(question, inventory)  # a command is never rewritten as a follow-up question
    commands = find_action(question, find_asks(question, own_entities), own_entities) is not None
    follow_up = None if commands else rewrite_follow_up(question, history, now, inventory)
    text = follow_up[0] if follow_up else question
    text, references = resolve_references(text, history, now)
    text = TYPED_TICKET.sub(lambda match: normalised_ticket(match.group(1), match.group(2)), text)  # "CHG 30017"
    found = find_entities(text, inventory)
    text, notes = _corrected(text, found)
    entities = _marked_corrected(find_entities(text, inventory), found)
    relative = list(find_record_windows(text))
    times = [item for item in find_times(text, now)  # "the 2 hours after the change" is not "the last 2 hours"
             if not any(item.span.start >= window.span.start and item.span.end <= window.span.end for window in relative)]
    values = find_filters(text)
    # a catalog filter never reuses a value's words: "priority 1" is a priority, not an order by priority
    extra = [item for item in catalog_filters(text, entities)
             if not any(item.span.start < value.span.end and value.span.start < item.span.end for value in values)]
    filters = sorted([*values, *extra], key=lambda item: item.span.start)
    quoted = find_quoted(text, [item.span for item in (*entities, *filters)])
    times, filters = outside(times, quoted), outside(filters, quoted)  # "'Operation failed'" is no run status
    asks = find_asks(text, entities, [item.span for item in (*times, *relative)])
    intent, action = read_intent(text, asks=asks, entities=entities, has_window=bool(times or relative),
                                 has_filter=bool(filters), has_history=bool(history))
    covered = [item.span for item in (*entities, *times, *relative, *filters, *quoted)]
    analysis = QuestionAnalysis(
        question=question, resolved_question=text, now=now, entities=entities, times=times, record_windows=relative,
        filters=filters, quoted=quoted, references=references, follow_up=follow_up[1] if follow_up else None,
        unresolved=_unresolved(entities), notes=notes, asks=asks, intent=intent, action=action,
        unplaced=unplaced_words(text, covered),
    )
    return analysis.model_copy(update={"runbooks": match_runbooks(runbooks, analysis)})


def task_analysis(analysis: QuestionAnalysis, task_text: str) -> QuestionAnalysis:
    """The analysis a specialist gets for one task: the question's, plus the time expressions the
    planner wrote into the task itself ("… in the last 24 hours"), resolved the same exact way."""
    known = {item.text.lower() for item in analysis.times} | {item.phrase.lower() for item in analysis.times}
    added = [item for item in find_times(task_text, analysis.now)
             if item.text.lower() not in known and item.phrase.lower() not in known]
    if not added:
        return analysis
    return analysis.model_copy(update={"times": [*analysis.times, *(item.model_copy(update={"span": OUTSIDE})
                                                                     for item in added)]})


class QuestionAnalyzer:
    """Analyses questions against the runtime's clock, inventory and runbooks."""

    def __init__(self, *, backends: Backends, clock: Clock, runbooks: Sequence[Runbook] = ()) -> None:
        self._backends = backends
        self._clock = clock
        self._runbooks = tuple(runbooks)
        self.inventory = Inventory(backends, clock)
        self._candidates = CandidateFinder(backends, clock)
        parse_moment("yesterday 6pm", clock())  # the date library loads its data once, now rather than mid-request

    async def analyse(self, question: str, history: Sequence[MessageData] = ()) -> QuestionAnalysis:
        return analyse_question(question, history, now=self._clock(), inventory=await self.inventory.snapshot(),
                                runbooks=self._runbooks)

    def known_names(self) -> frozenset[str]:
        """Inventory names (factories, components, CIs) the grounding check watches for."""
        return self.inventory.cached.names()

    async def example_questions(self) -> ClarifyCandidates:
        """Questions about what the data holds now, for a greeting or "help"."""
        return await self._candidates.examples()

    async def action_records(self, analysis: QuestionAnalysis) -> list[ToolEvidence]:
        """The records a request to act names, looked up."""
        return await self._candidates.action_records(analysis)

    async def clarify_candidates(self, analysis: QuestionAnalysis) -> ClarifyCandidates:
        """Concrete options from the data for what the question leaves open, with the evidence."""
        return await self._candidates.find(analysis)
