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

from opsagent.local_model.detect import Analysis, target_positions
from opsagent.local_model.knowledge import Knowledge
from opsagent.local_model.scope import Clause, clauses, segments
from opsagent.local_model.text import CHANGE, INCIDENT, find_phrase, time_in

REFERENCE_ORDER = ("incident", "change", "run_id", "pipeline", "configuration_item")
FORWARD_REACH = 30
"""A forward cue's producer must be mentioned within this many characters after the cue."""


@dataclass(frozen=True)
class Dependency:
    producer: str
    consumers: tuple[str, ...]


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


def _anchored(analysis: Analysis, chosen: tuple[str, ...]) -> Dependency | None:
    """A window placed by a record ("… before CHG… started"): the record's specialist goes first."""
    owners = [name for name in chosen if any(analysis.in_record_window(p) for p in analysis.positions(name))]
    if not owners or len(owners) == len(chosen):
        return None
    return Dependency(owners[0], tuple(name for name in chosen if name != owners[0]))


def dependency(analysis: Analysis, chosen: tuple[str, ...], knowledge: Knowledge) -> Dependency | None:
    """The producer → consumers relation the text asks for, if it chains its asks."""
    if len(chosen) < 2:
        return None
    return _anchored(analysis, chosen) or _forward(analysis, chosen, knowledge) or _backward(analysis, chosen, knowledge)


def deeper_split(analysis: Analysis, name: str, knowledge: Knowledge) -> tuple[str, str] | None:
    """"List failed pipelines, then the error details for each failed run": the same specialist
    asked before and after a backward cue, the second ask going into what the first listed."""
    policy = knowledge.policy
    for position, _ in _cues(analysis.text, policy.backward_cues):
        before, after = analysis.text[:position], analysis.text[position:]
        asked_before = any(p < position for p in analysis.positions(name))
        asked_after = any(p >= position for p in analysis.positions(name))
        if asked_before and asked_after and any(find_phrase(after, cue) >= 0 for cue in policy.deeper_cues):
            first = re.sub(r"\s*(?:,|;|\band|\bthen)\s*$", "", before.strip(" ,;"))
            then = re.sub(r"^(?:then|and then|and)\s+", "", after.strip(" ,;"))
            return first, then
    return None


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


def _asked_clauses(analysis: Analysis) -> list[Clause]:
    parts = clauses(analysis.text)
    return [part for part in parts if part.start >= analysis.asks_from] or parts


def _own_text(analysis: Analysis, name: str) -> str:
    """The clauses about ``name``; within one shared clause, its own segments ("… and …")."""
    parts = _asked_clauses(analysis)
    others = [other for other in analysis.selected if other != name]
    # a clause no other specialist is named in qualifies this one's ask (", any state")
    own = [part.text for part in parts if _in_clause(analysis, name, part)
           or not any(_in_clause(analysis, other, part) for other in others)]
    if own and len(own) < len(parts):
        return " and ".join(own)
    pieces = [piece for part in parts for piece in segments(part)]
    others = [piece for piece in pieces if any(_in_clause(analysis, other, piece) for other in analysis.selected
                                               if other != name)]
    mine = [piece for piece in pieces if _in_clause(analysis, name, piece)]
    if mine and others and not set(mine) & set(others):
        return " and ".join(piece.text.strip(" ,.?") for piece in pieces if piece not in others)
    return analysis.text if not analysis.asks_from else " ".join(part.text for part in parts)


def _owns_time(analysis: Analysis, name: str) -> bool:
    """Whether the question's time phrase is this specialist's (or everybody's): a phrase inside
    another specialist's part of the question ("failed pipelines *today* and open P2s") is not."""
    for part in _asked_clauses(analysis):
        pieces = segments(part)
        for index, piece in enumerate(pieces):
            if time_in(piece.text, analysis.times):
                tail = piece.text.rstrip(" ?.!,")
                trailing = index == len(pieces) - 1 and any(tail.endswith(item.text.lower()) for item in analysis.times)
                scope = part if trailing else piece  # "pipelines and incidents *in the last 24h*": both
                owners = [other for other in analysis.selected if _in_clause(analysis, other, scope)]
                return not owners or name in owners
    return True


def question_for(analysis: Analysis, name: str, knowledge: Knowledge, *, carry_time: bool = True) -> str:
    """The part of the text that concerns ``name``, with the time window and ids it needs carried."""
    text = _own_text(analysis, name)
    return polish(_carry(text, analysis, name, knowledge, carry_time and _owns_time(analysis, name)))


def _carry(text: str, analysis: Analysis, name: str, knowledge: Knowledge, carry_time: bool) -> str:
    entities = analysis.entities
    extras = []
    if carry_time and entities.time_window and time_in(text, analysis.times) is None:
        extras.append(entities.time_window)
    hints = knowledge.by_name(name)
    kinds = list(hints.entity_weights) if hints else []
    for phrase, kind in knowledge.policy.references.items():  # "an incident for *it*": say what "it" is
        if find_phrase(text, phrase) >= 0:
            kinds += [each for each in (REFERENCE_ORDER if kind == "any" else (kind,))
                      if each not in kinds and entities.of_kind(each)][:1]
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
