"""Clarify: a friendly question back that says what was understood and offers concrete readings.

Interpretations come from the specialists the question leans towards (their YAML ``examples``;
for platform checks, one per platform using the user's own word, e.g. "down"), else from every
specialist, so the user can send one back as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from opsagent.contracts.role_inputs import ClarifyInput
from opsagent.local_model.detect import Analysis, TypoFixer, analyse
from opsagent.local_model.knowledge import Knowledge, SpecialistHints
from opsagent.local_model.policy import unresolved_kinds
from opsagent.local_model.text import contains_phrase

MAX_INTERPRETATIONS = 4
HEALTH_WORDS = ("down", "degraded", "up", "healthy", "slow", "having problems")
KIND_NOUNS = {"pipeline": "pipeline", "run_id": "pipeline run", "change": "change request", "incident": "incident",
              "any": "system, ticket, pipeline or platform"}


def _leaning(analysis: Analysis, knowledge: Knowledge) -> list[SpecialistHints]:
    names = [name for name in analysis.by_first_mention() if analysis.scores.get(name, 0) > 0]
    return [hints for hints in knowledge.specialists if hints.name in names] or list(knowledge.specialists)


def _target_examples(hints: SpecialistHints, analysis: Analysis) -> list[str]:
    word = next((word for word in HEALTH_WORDS if contains_phrase(analysis.text, word)), "healthy")
    return [f"Is {target.name} {word} right now?" for target in hints.targets]


def interpretations(analysis: Analysis, knowledge: Knowledge) -> list[str]:
    leaning = _leaning(analysis, knowledge)
    found: list[str] = []
    for hints in leaning:
        found += _target_examples(hints, analysis) if hints.targets and len(leaning) == 1 else list(hints.examples)
    if len(found) < 2:
        found += [example for hints in knowledge.specialists for example in hints.examples]
    if len(leaning) > 1:  # one from each before seconds
        firsts = [hints.examples[0] for hints in leaning if hints.examples]
        found = firsts + [item for item in found if item not in firsts]
    return list(dict.fromkeys(found))[:MAX_INTERPRETATIONS]


def _understood(analysis: Analysis, leaning: Sequence[SpecialistHints], knowledge: Knowledge) -> str:
    if len(leaning) == len(knowledge.specialists):
        return "I understand you'd like me to check something in operations"
    topics = " or ".join(hints.topic for hints in leaning)
    return f"I understand you're asking about {topics}"


def clarify_output(role_input: ClarifyInput, knowledge: Knowledge, fixer: TypoFixer) -> dict:
    """``ClarifyOutput`` as a JSON-ready dict; candidates from the data come first."""
    history = role_input.history
    analysis = analyse(role_input.analysis.resolved_question, knowledge, fixer, role_input.analysis.times)
    leaning = _leaning(analysis, knowledge)
    kinds = unresolved_kinds(analysis, knowledge.policy)
    noun = KIND_NOUNS.get(kinds[0], "one") if kinds else "system, ticket, pipeline or platform"
    missing = f"but I can't tell which {noun} you mean" + (" from our conversation" if history else "")
    if role_input.candidates:  # options from the data say more than examples
        label = role_input.candidates_label or "what the data holds now"
        request = f"{_understood(analysis, leaning, knowledge)}, {missing}. Could you name it? {label[0].upper()}{label[1:]}:"
        options = [*role_input.candidates, *interpretations(analysis, knowledge)[:1]]
    else:
        request = (f"{_understood(analysis, leaning, knowledge)}, {missing}. "
                   "Could you name it (and a time window if it matters)? For example:")
        options = interpretations(analysis, knowledge)
    return {"clarification_request": request, "possible_interpretations": list(dict.fromkeys(options))[:MAX_INTERPRETATIONS]}
