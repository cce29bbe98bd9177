"""The grounding evaluator against seeded mistakes: what share of wrong answers it catches, and how often
it flags a right one.

Every executed answer of the eval run (not only the right ones) is broken in each way of
``mutations.WRONG``, one mistake per seed, and graded the way the grounding step grades it (with its
evidence, parts, question analysis and inventory names). A seed is *caught* when the evaluator scores
it below the pass mark: the workflow would rewrite it, drop the sentence or block it — it never reaches
the user unflagged. The right answers, and each of them said differently (``mutations.CORRECT``), must
not be flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from evals.graded import GradedAnswer
from evals.mutations import CORRECT, WRONG
from opsagent.workflows.grounding_check import Thresholds, evaluate, score

SEED_KINDS = tuple(WRONG)


class Seed(BaseModel):
    case_id: str
    kind: str
    text: str


class SeedOutcome(BaseModel):
    kind: str
    seeded: int
    caught: int

    @property
    def rate(self) -> float:
        return self.caught / self.seeded if self.seeded else 1.0


class SeededReport(BaseModel):
    kinds: list[SeedOutcome]
    correct: int
    """Right answers and their correct variants graded."""
    false_alarms: int
    missed: list[Seed] = Field(default_factory=list)
    flagged_correct: list[str] = Field(default_factory=list)

    @property
    def seeded(self) -> int:
        return sum(kind.seeded for kind in self.kinds)

    @property
    def caught(self) -> int:
        return sum(kind.caught for kind in self.kinds)

    @property
    def catch_rate(self) -> float:
        return self.caught / self.seeded if self.seeded else 1.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.correct if self.correct else 0.0


def _graded(graded: GradedAnswer, mutated: str | GradedAnswer) -> GradedAnswer:
    return mutated if isinstance(mutated, GradedAnswer) else graded.model_copy(update={"text": mutated})


def seeds_of(graded: GradedAnswer, kinds: dict = WRONG) -> list[tuple[Seed, GradedAnswer]]:
    seeds = []
    for kind, mutate in kinds.items():
        mutated = mutate(graded)
        if mutated is None:
            continue
        version = _graded(graded, mutated)
        if version.text.strip() != graded.text.strip() or version.results != graded.results:
            seeds.append((Seed(case_id=graded.case_id, kind=kind, text=version.text), version))
    return seeds


def passes(graded: GradedAnswer, thresholds: Thresholds) -> bool:
    checks = evaluate(graded.text, graded.results, parts=graded.parts, question=graded.question,
                      known_names=graded.known_names, analysis=graded.analysis,
                      summary=graded.text.split("\n\n", 1)[0])
    return score(checks) >= thresholds.pass_at


def seeded_report(answers: Sequence[GradedAnswer], thresholds: Thresholds = Thresholds()) -> SeededReport:
    """Catch rate per kind of seeded mistake over every answer; false alarms on the right ones and
    their correct variants."""
    seeded: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    missed: list[Seed] = []
    right = [graded for graded in answers if graded.right]
    variants = [(f"{graded.case_id} ({seed.kind})", version) for graded in right
                for seed, version in seeds_of(graded, CORRECT)]
    correct = [(graded.case_id, graded) for graded in right] + variants
    flagged = [name for name, graded in correct if not passes(graded, thresholds)]
    for graded in answers:
        for seed, version in seeds_of(graded):
            seeded[seed.kind] += 1
            if passes(version, thresholds):
                missed.append(seed)
            else:
                caught[seed.kind] += 1
    return SeededReport(kinds=[SeedOutcome(kind=kind, seeded=seeded[kind], caught=caught[kind]) for kind in SEED_KINDS],
                        correct=len(correct), false_alarms=len(flagged), missed=missed, flagged_correct=flagged)
