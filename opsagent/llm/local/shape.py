"""Plan shape: which asks depend on which, and a specific question for every task.

Independent asks share step 1 (they run in parallel). A dependency cue makes one specialist the
*producer* (step 1) and another the *consumer* (step 2, which receives step 1's results):
- forward cues name the producer right after them: "incidents for the failed pipelines",
  "pipelines mentioned in the open incidents", "during the window of CHG…";
- backward cues point at an earlier clause: "…, then check…", "any of them", "the pipeline it mentions".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opsagent.llm.local.detect import Analysis, target_positions
from opsagent.llm.local.knowledge import Knowledge
from opsagent.llm.local.text import CHANGE, INCIDENT, find_phrase

FORWARD_REACH = 30
"""A forward cue's producer must be mentioned within this many characters after the cue."""
CLAUSE_BREAK = re.compile(
    r"[?;!]\s*|\.\s+|\s\+\s|,?\s+(?:and\s+)?then\s+|,\s+(?:and\s+)?(?=(?:is|are|was|were|did|does|do|has|have|what|"
    r"which|who|why|how|show|list|check|find|give|get|tell|any|whether|also)\b)|\s+and\s+(?=(?:is|are|was|were|did|"
    r"does|do|has|have|what|which|who|why|how|show|list|check|find|give|get|tell|whether|the latest|also)\b)"
)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Dependency:
    producer: str
    consumers: tuple[str, ...]


def clauses(text: str) -> list[Clause]:
    found, start = [], 0
    for match in CLAUSE_BREAK.finditer(text):
        if match.start() > start:
            found.append(Clause(start, match.start(), text[start:match.start()].strip(" ,")))
        start = match.end()
    if start < len(text):
        found.append(Clause(start, len(text), text[start:].strip(" ,.?")))
    return [clause for clause in found if clause.text] or [Clause(0, len(text), text)]


def _clause_index(parts: list[Clause], position: int) -> int:
    return next((index for index, part in enumerate(parts) if position < part.end), len(parts) - 1)


def _in_clause(analysis: Analysis, name: str, clause: Clause) -> bool:
    return any(clause.start <= position < clause.end for position in analysis.positions(name))


def _cues(text: str, cues: tuple[str, ...]) -> list[tuple[int, str]]:
    return sorted((find_phrase(text, cue), cue) for cue in cues if find_phrase(text, cue) >= 0)


def _forward(analysis: Analysis, chosen: tuple[str, ...], knowledge: Knowledge) -> Dependency | None:
    for position, cue in _cues(analysis.text, knowledge.policy.forward_cues):
        after = position + len(cue)
        near = [(min(p for p in analysis.positions(name) if p >= position), name) for name in chosen
                if any(position <= p <= after + FORWARD_REACH for p in analysis.positions(name))]
        if near:
            producer = min(near)[1]
            return Dependency(producer, tuple(name for name in chosen if name != producer))
    return None


def _backward(analysis: Analysis, chosen: tuple[str, ...], knowledge: Knowledge) -> Dependency | None:
    parts = clauses(analysis.text)
    cues = _cues(analysis.text, knowledge.policy.backward_cues)
    for position, _ in cues:
        index = _clause_index(parts, position)
        earlier = [name for name in chosen if any(_in_clause(analysis, name, part) for part in parts[:index])]
        here = [name for name in chosen if _in_clause(analysis, name, parts[index]) and name not in earlier]
        if earlier and here:
            return Dependency(earlier[0], tuple(here))
    if cues:  # one clause holding every ask: the first-mentioned one produces
        return Dependency(chosen[0], chosen[1:])
    return None


def dependency(analysis: Analysis, chosen: tuple[str, ...], knowledge: Knowledge) -> Dependency | None:
    """The producer → consumers relation the text asks for, if it chains its asks."""
    if len(chosen) < 2:
        return None
    return _forward(analysis, chosen, knowledge) or _backward(analysis, chosen, knowledge)


def has_dependency_cue(text: str, knowledge: Knowledge) -> bool:
    policy = knowledge.policy
    return bool(_cues(text, policy.forward_cues) or _cues(text, policy.backward_cues))


def polish(text: str) -> str:
    """Readable task text: ticket numbers in upper case, a capital letter, an end mark."""
    text = INCIDENT.sub(lambda match: match.group().upper(), text.strip(" ,"))
    text = CHANGE.sub(lambda match: match.group().upper(), text)
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else f"{text}?" if _is_question(text) else f"{text}."


def _is_question(text: str) -> bool:
    first = text.split(" ", 1)[0].lower()
    return first in {"is", "are", "was", "were", "did", "does", "do", "has", "have", "what", "which", "who",
                     "why", "how", "any", "whether", "can", "could", "when", "where"}


def question_for(analysis: Analysis, name: str, knowledge: Knowledge, *, carry_time: bool = True) -> str:
    """The part of the text that concerns ``name``, with the time window and ids it needs carried."""
    parts = clauses(analysis.text)
    own = [part.text for part in parts if _in_clause(analysis, name, part)]
    text = " and ".join(own) if own and len(own) < len(parts) else analysis.text
    return polish(_carry(text, analysis, name, knowledge, carry_time))


def _carry(text: str, analysis: Analysis, name: str, knowledge: Knowledge, carry_time: bool) -> str:
    entities = analysis.entities
    extras = []
    if carry_time and entities.time_window and entities.time_window not in text:
        extras.append(entities.time_window)
    hints = knowledge.by_name(name)
    kinds = tuple(hints.entity_weights) if hints else ()
    for kind in kinds:
        extras += [value for value in entities.of_kind(kind) if value.lower() not in text.lower()]
    for region in entities.regions:
        if region.lower() not in text.lower():
            extras.append(region)
    return f"{text.rstrip(' ?.')} ({', '.join(extras)})" if extras else text


def target_questions(analysis: Analysis, name: str, knowledge: Knowledge) -> list[str]:
    """One question per named target (platform) when the specialist checks targets separately."""
    hints = knowledge.by_name(name)
    if hints is None or not hints.split_by_target:
        return []
    targets = [target for _, target in target_positions(analysis.text, hints)]
    if len(targets) < 2:
        return []
    region = f" in {analysis.entities.regions[0]}" if analysis.entities.regions else ""
    return [f"Is {target} healthy right now{region}? Report its status, degraded components and active incidents."
            for target in targets]


def consumer_question(analysis: Analysis, consumer: str, producer: str, knowledge: Knowledge) -> str:
    """A step-2 question: its own ask, saying which earlier results it builds on."""
    own = question_for(analysis, consumer, knowledge, carry_time=False).rstrip(".?")
    basis = question_for(analysis, producer, knowledge).rstrip(".?")
    if own.lower() == basis.lower():
        return polish(f"{own} — use the results of the previous step")
    return polish(f"{own} — based on the previous step: {basis}")
