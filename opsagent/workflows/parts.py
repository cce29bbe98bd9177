"""The parts of a question come from the question itself; the planner's list is checked against them.

A planner that forgets a part cannot forget to check it. Intake splits the question into its asks
(``intake/asks.py``: each clause, each "and …?", each "then …"). When the planner lists parts of its
own, they stand (a planner may rightly read "of the A, which have B" as one ask), and every ask none of
them carries is added as a part of its own. When it lists none, the asks are the parts and each task is
given to the asks it covers — by the words, names and record kinds it shares with them. A part no task
covers is reported by coverage, the one re-plan is offered for it, and the answer names it if it stays
unanswered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from opsagent.contracts.analysis import Ask, QuestionAnalysis, Span
from opsagent.contracts.plans import PlanStep, QuestionPart
from opsagent.tools.catalog import TOOLS

WORD = re.compile(r"[a-z0-9][a-z0-9_-]+")
SMALL = frozenset("the and any are is was were did does for with that this what which who how from into have has "
                  "there their them they its show list tell give get find check please".split())
SPECIALIST_RECORDS = {spec.specialist: set() for spec in TOOLS}
for _spec in TOOLS:
    SPECIALIST_RECORDS[_spec.specialist].add(_spec.record)


def _words(text: str) -> set[str]:
    """Content words, plural and singular alike ("P1s" is "p1")."""
    return {word[:-1] if word.endswith("s") and len(word) > 2 else word for word in WORD.findall(text.lower())
            if word not in SMALL and (len(word) > 2 or any(char.isdigit() for char in word))}


def asked_parts(analysis: QuestionAnalysis) -> list[QuestionPart]:
    return [QuestionPart(id=ask.id, text=ask.text) for ask in analysis.asks]


def _score(task: PlanStep, ask: Ask) -> int:
    shared = len(_words(task.question) & _words(ask.text))
    records = SPECIALIST_RECORDS.get(task.agent, set())
    kinds = set(ask.records) | ({"run"} if "pipeline" in ask.records else set())
    return shared + (2 if records & kinds else 0)


def _covered(task: PlanStep, asks: Sequence[Ask], planner_parts: dict[str, QuestionPart]) -> list[str]:
    """The asks one task covers: the planner's ids when they are intake's, else the asks it shares most
    with (its question, and the text of the planner's own part for it)."""
    by_ask = {ask.id: ask for ask in asks}
    own = " ".join([task.question, *(planner_parts[part].text for part in task.part_ids if part in planner_parts)])
    carried = [ask.id for ask in asks if _carries(task.question, ask)]  # a task asking several asks covers each
    same = [part for part in task.part_ids if part in by_ask and (
        part not in planner_parts or _words(planner_parts[part].text) & _words(by_ask[part].text))]
    if task.part_ids and len(same) == len(task.part_ids):
        return list(dict.fromkeys([*task.part_ids, *carried]))  # intake's ids, for the asks intake meant by them
    probe = task.model_copy(update={"question": own})
    scores = {ask.id: _score(probe, ask) for ask in asks}
    best = max(scores.values(), default=0)
    chosen = [ask_id for ask_id, value in scores.items() if value == best and value > 0]
    return list(dict.fromkeys([*chosen, *carried])) or [asks[0].id]


def _carries(text: str, ask: Ask) -> bool:
    """Most of an ask's own words are in the task's question."""
    words = _words(ask.text)
    return bool(words) and len(words & _words(text)) * 2 >= len(words)


def asks_of(part: QuestionPart, analysis: QuestionAnalysis) -> list[Ask]:
    """The question's asks a part stands for: its own ask, or the asks its words carry."""
    own = [ask for ask in analysis.asks if ask.text == part.text]
    return own or [ask for ask in analysis.asks if _carries(part.text, ask)]


def onto_parts(plan: Sequence[PlanStep], parts: Sequence[QuestionPart]) -> list[PlanStep]:
    """A re-plan's tasks given to the parts they cover (the parts they name, else by their words)."""
    asks = [Ask(id=part.id, text=part.text, span=Span(start=0, end=0)) for part in parts]
    return [task.model_copy(update={"part": ",".join(_covered(task, asks, {}))}) for task in plan] if asks else list(plan)


def missed_asks(plan: Sequence[PlanStep], planner_parts: Sequence[QuestionPart],
                analysis: QuestionAnalysis) -> list[QuestionPart]:
    """The asks neither a part of the planner's nor a task's question carries, as parts of their own."""
    said = [part.text for part in planner_parts] + [task.question for task in plan]
    taken = {part.id for part in planner_parts}
    # a plan that follows the matched runbook answers the open asks it matched ("anything I should know before
    # my shift?", "what's the situation"): asks that name no record and nothing by name
    runbook = analysis.runbooks[0] if analysis.runbooks else None
    follows = runbook is not None and any(step.ask in said for step in runbook.steps)
    open_ask = lambda ask: follows and not ask.records  # noqa: E731
    # an ask with no word of its own ("which are they?") asks about another one: nothing to miss
    missed = [ask for ask in analysis.asks if _words(ask.text) and not open_ask(ask)
              and not any(_carries(text, ask) for text in said)]
    return [QuestionPart(id=ask.id if ask.id not in taken else f"q{ask.id[1:]}", text=ask.text) for ask in missed]


def map_onto_asks(plan: Sequence[PlanStep], planner_parts: Sequence[QuestionPart],
                  analysis: QuestionAnalysis) -> tuple[list[PlanStep], list[QuestionPart]] | None:
    """Without parts of the planner's: the asks as the parts, each task mapped onto the asks it covers.
    ``None`` when intake found no asks or the planner listed parts (those stand; ``missed_asks`` adds
    what they leave out)."""
    asks = analysis.asks
    if not asks or planner_parts:
        return None
    mapped = [task.model_copy(update={"part": ",".join(_covered(task, asks, {}))}) for task in plan]
    return mapped, asked_parts(analysis)


def concrete_gaps(aspects: Sequence[str], analysis: QuestionAnalysis) -> list[str]:
    """The reviewer's own gaps that name a part of the question (its id, or most of its words); without
    asks, every gap counts."""
    if not analysis.asks:
        return list(aspects)
    return [aspect for aspect in aspects
            if any(re.search(rf"\b{ask.id}\b", aspect) or _carries(aspect, ask) for ask in analysis.asks)]
