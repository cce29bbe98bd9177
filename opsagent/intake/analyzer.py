"""QuestionAnalyzer: the intake step's entry point, one per runtime."""

from __future__ import annotations

from collections.abc import Sequence

from opsagent.backends.base import Backends, Clock
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.requests import MessageData


class QuestionAnalyzer:
    """Analyses questions against the runtime's clock and inventory."""

    def __init__(self, *, backends: Backends, clock: Clock) -> None:
        self._backends = backends
        self._clock = clock

    async def analyse(self, question: str, history: Sequence[MessageData] = ()) -> QuestionAnalysis:
        return QuestionAnalysis(question=question, resolved_question=question, now=self._clock())

    def known_names(self) -> frozenset[str]:
        """Inventory names (factories, components, CIs) the grounding check watches for."""
        return frozenset()

    async def clarify_candidates(self, analysis: QuestionAnalysis) -> list[str]:
        """Concrete options from the data for what the question leaves open."""
        return []
