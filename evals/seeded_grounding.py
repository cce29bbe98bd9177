"""The grounding evaluator against seeded wrong summaries: what share of wrong answers it catches,
and how often it flags a correct one.

The correct summaries are the real answers of the eval run (route execute, every check passed):
the text the grounding step graded, with that run's evidence, parts and question. Each is then
broken in the ways a model gets an answer wrong, one mistake per seed:

- ``wrong_count``: the first number of the direct answer off by one;
- ``invented_id``: the first ticket, run id or pipeline name swapped for one no evidence row has;
- ``false_none``: a sentence saying a thing the evidence has rows for has none ("pl_x has no failed run");
- ``false_none_overall``: the direct answer replaced by "No — none found.";
- ``dropped_part``: every sentence about one part of a multi-part question removed;
- ``unsupported_number``: a total that is neither a value in the evidence nor a count of its rows.

A seed is *caught* when the evaluator scores it below the pass mark (the workflow would rewrite or
block it). The mutations are chosen from the evidence's own text, never by asking the evaluator,
so a miss (a wrong number that happens to be a value somewhere in the evidence) counts as a miss.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, Field

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.contracts.results import Answer
from opsagent.workflows.evidence_index import DATE_OR_TIME, identifiers_in
from opsagent.workflows.grounding_check import Thresholds, evaluate, score, sentences

SEED_KINDS = ("wrong_count", "invented_id", "false_none", "false_none_overall", "dropped_part", "unsupported_number")
COUNT = re.compile(r"(?<![\w.:/,-])\d{1,4}(?= (?:of |[a-z]))")
"""A count in prose: "9 failed runs", "3 of the 5" (not a priority, a time, a version or a quoted code)."""
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\([^)]*\)")
SUBJECT_FIELDS = ("number", "pipeline_name", "run_id")
TICKET = re.compile(r"\b(INC|CHG)(\d{7,})\b")
RUN_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
PIPELINE = re.compile(r"\bpl_[a-z0-9_]+\b")
TOPIC_OF_TOOL = {
    "list_incidents": "open incident", "get_incident": "incident", "list_change_requests": "change request",
    "get_change_request": "change", "list_failed_pipelines": "failed run", "query_pipeline_status": "run",
    "get_pipeline_run_details": "failed activity", "check_databricks_health": "degraded component",
    "check_snowflake_health": "degraded component", "check_azure_service_health": "service issue",
}
PART_WORD = re.compile(r"[a-z][a-z0-9_]{4,}")
STOP_WORDS = frozenset("which where there their these those about since would could should other every".split())


class GradedAnswer(BaseModel):
    """What the grounding step graded: the written answer and everything it was checked against."""

    case_id: str
    text: str
    question: str
    results: list[TaskResult]
    parts: list[QuestionPart] = Field(default_factory=list)
    known_names: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, case_id: str, question: str, answer: Answer, known_names: Iterable[str] = ()) -> GradedAnswer:
        facts = "\n".join(f"- {fact}" for fact in answer.facts)
        return cls(case_id=case_id, text=f"{answer.summary.strip()}\n\n{facts}".strip(), question=question,
                   results=answer.metadata.tasks, parts=answer.metadata.parts, known_names=sorted(known_names))


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


def _evidence(graded: GradedAnswer) -> list[ToolEvidence]:
    return [item for result in graded.results for item in result.evidence]


def _evidence_text(graded: GradedAnswer) -> str:
    return " ".join(f"{item.rows} {item.arguments} {item.message}" for item in _evidence(graded)).lower()


def _direct(text: str) -> str:
    return text.split("\n\n", 1)[0]


def wrong_count(graded: GradedAnswer) -> str | None:
    direct = _direct(graded.text)
    masked = DATE_OR_TIME.sub(lambda match: "#" * len(match.group()), direct)
    masked = QUOTED.sub(lambda match: "#" * len(match.group()), masked)
    match = COUNT.search(masked)
    if match is None:
        return None
    wrong = int(match.group()) + 1
    return graded.text[: match.start()] + str(wrong) + graded.text[match.end():]


def _unused_ticket(prefix: str, digits: str, evidence: str) -> str:
    number = int(digits)
    for step in range(1000, 100_000, 1000):
        candidate = f"{prefix}{number + step:0{len(digits)}d}"
        if candidate.lower() not in evidence:
            return candidate
    return f"{prefix}{'9' * len(digits)}"


def invented_id(graded: GradedAnswer) -> str | None:
    evidence = _evidence_text(graded)
    found = [(m.start(), m.end(), _unused_ticket(m.group(1), m.group(2), evidence)) for m in TICKET.finditer(graded.text)]
    found += [(m.start(), m.end(), m.group()[:-4] + ("0000" if not m.group().endswith("0000") else "ffff"))
              for m in RUN_ID.finditer(graded.text)]
    found += [(m.start(), m.end(), m.group() + "_v2") for m in PIPELINE.finditer(graded.text)]
    found = [item for item in found if item[2].lower() not in evidence]
    if not found:
        return None
    start, end, replacement = min(found)
    return graded.text[:start] + replacement + graded.text[end:]


def false_none(graded: GradedAnswer) -> str | None:
    """A named thing the evidence has rows for, said to have none of what that tool found."""
    for item in _evidence(graded):
        if item.status != "ok" or not item.rows:
            continue
        subject = next((str(item.rows[0][key]) for key in SUBJECT_FIELDS if item.rows[0].get(key)), "")
        if subject:
            return f"{subject} has no {TOPIC_OF_TOOL.get(item.tool, 'result')}.\n{graded.text}"
    return None


def false_none_overall(graded: GradedAnswer) -> str | None:
    if not any(item.status == "ok" and item.rows for item in _evidence(graded)):
        return None
    rest = graded.text.split("\n\n", 1)
    return "No — none found." + (f"\n\n{rest[1]}" if len(rest) > 1 else "")


def dropped_part(graded: GradedAnswer) -> str | None:
    """The answer without the sentences about the last part that has evidence of its own."""
    texts = [part.text.strip().lower() for part in graded.parts]
    with_evidence = [part for part in graded.parts if texts.count(part.text.strip().lower()) == 1
                     and any(part.id in result.part.split(",") and result.answered_evidence for result in graded.results)]
    if len(with_evidence) < 2:
        return None
    part = with_evidence[-1]
    own_ids = {token.lower() for result in graded.results if part.id in result.part.split(",")
               for item in result.evidence for token in identifiers_in(str(item.rows))}
    other_ids = {token.lower() for result in graded.results if part.id not in result.part.split(",")
                 for item in result.evidence for token in identifiers_in(str(item.rows))}
    words = {word for word in PART_WORD.findall(part.text.lower()) if word not in STOP_WORDS}
    markers = (own_ids - other_ids) | words

    def about_part(sentence: str) -> bool:
        low = sentence.lower()
        return any(marker in low for marker in markers)

    kept = [sentence for sentence in sentences(graded.text) if not about_part(sentence)]
    text = " ".join(kept)
    return text if kept and text != " ".join(sentences(graded.text)) else None


def unsupported_number(graded: GradedAnswer) -> str | None:
    total = 17 + sum(map(ord, graded.case_id)) % 60
    return f"{graded.text}\nIn all, the failures cost {total} minutes."


MUTATIONS: dict[str, Callable[[GradedAnswer], str | None]] = {
    "wrong_count": wrong_count, "invented_id": invented_id, "false_none": false_none,
    "false_none_overall": false_none_overall, "dropped_part": dropped_part, "unsupported_number": unsupported_number,
}


def seeds_of(graded: GradedAnswer) -> list[Seed]:
    seeds = []
    for kind, mutate in MUTATIONS.items():
        text = mutate(graded)
        if text is not None and text.strip() != graded.text.strip():
            seeds.append(Seed(case_id=graded.case_id, kind=kind, text=text))
    return seeds


def passes(text: str, graded: GradedAnswer, thresholds: Thresholds) -> bool:
    checks = evaluate(text, graded.results, parts=graded.parts, question=graded.question,
                      known_names=graded.known_names)
    return score(checks) >= thresholds.pass_at


def seeded_report(correct: Sequence[GradedAnswer], thresholds: Thresholds = Thresholds()) -> SeededReport:
    """Catch rate per kind of seeded mistake, and false alarms on the correct summaries themselves."""
    seeded: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    missed: list[Seed] = []
    flagged = [graded.case_id for graded in correct if not passes(graded.text, graded, thresholds)]
    for graded in correct:
        for seed in seeds_of(graded):
            seeded[seed.kind] += 1
            if passes(seed.text, graded, thresholds):
                missed.append(seed)
            else:
                caught[seed.kind] += 1
    return SeededReport(kinds=[SeedOutcome(kind=kind, seeded=seeded[kind], caught=caught[kind]) for kind in SEED_KINDS],
                        correct=len(correct), false_alarms=len(flagged), missed=missed, flagged_correct=flagged)
