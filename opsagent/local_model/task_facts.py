"""What the intake analysis says about one task: the times, filters and names in its own words.

A task is one part of the question, so only what the task's own ask mentions applies to it: the
"last 24 hours" of "failed pipelines in the last 24 hours and open P1s" is the pipelines' window,
not the incidents'. A step-2 task's text also quotes the step it builds on ("— based on the
previous step: …"); that quote belongs to the earlier step, so a later step never inherits its
window or filters (an open incident opened long ago still counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from opsagent.contracts.analysis import (
    EntityKind, FilterField, FilterMention, QuestionAnalysis, RecordWindow, TimeMention,
)

BASIS_MARKERS = (" — based on the previous step", " — use the results of the previous step")


def own_ask(task_text: str) -> str:
    """The task's own ask, without the quote of the step it builds on."""
    cut = min((index for marker in BASIS_MARKERS if (index := task_text.find(marker)) >= 0), default=len(task_text))
    return task_text[:cut]


@dataclass(frozen=True)
class TaskFacts:
    times: tuple[TimeMention, ...] = ()
    filters: tuple[FilterMention, ...] = ()
    names: dict[EntityKind, str] | None = None
    record_windows: tuple[RecordWindow, ...] = ()
    now: datetime | None = None

    def time_phrase(self) -> str | None:
        return self.times[0].phrase if self.times else None

    def point(self) -> str | None:
        """The moment asked about ("the 8am run"), as ISO, for the tools' ``around`` parameter."""
        point = next((item.point for item in self.times if item.point is not None), None)
        return point.strftime("%Y-%m-%dT%H:%MZ") if point else None

    def filter(self, field: FilterField) -> FilterMention | None:
        return next((item for item in self.filters if item.field == field), None)

    def name(self, kind: EntityKind) -> str | None:
        return (self.names or {}).get(kind)


def facts_for(analysis: QuestionAnalysis, task_text: str) -> TaskFacts:
    """The analysis items written (or carried, for times) in the task's own ask."""
    own = " ".join(own_ask(task_text).lower().split())

    def written(*texts: str) -> bool:
        return any(text and " ".join(text.lower().split()) in own for text in texts)

    names: dict[EntityKind, str] = {}
    for item in analysis.entities:
        if item.usable and written(item.value, item.text):
            names.setdefault(item.kind, item.value)
    return TaskFacts(
        times=tuple(item for item in analysis.times if written(item.text, item.phrase)),
        filters=tuple(item for item in analysis.filters if written(item.text)),
        names=names,
        record_windows=tuple(item for item in analysis.record_windows if written(item.text)),
        now=analysis.now,
    )
