"""Reject and clarify rules: out of scope, help desk, write requests, unresolved references.

A write request is a write verb used as a command ("restart pl_x", "can you close INC…",
"approve all pending changes"), not a state ("which changes were approved"): the verb must start
the sentence or follow a lead such as "please" / "can you", and be followed by an object word.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from opsagent.local_model.detect import Analysis
from opsagent.local_model.knowledge import Policy
from opsagent.local_model.text import contains_phrase, words

SENTENCE_BREAKS = frozenset({".", "?", "!", ";", ","})


@dataclass(frozen=True)
class Refusal:
    reason: str


def _follows_lead(tokens: list[str], index: int, leads: tuple[str, ...]) -> bool:
    if index == 0:
        return True
    for lead in leads:
        size = len(lead.split())
        if index >= size and " ".join(tokens[index - size:index]) == lead:
            return True
    return False


def _has_object(tokens: list[str], index: int, size: int, objects: tuple[str, ...]) -> bool:
    if index + size >= len(tokens):  # a bare "approve" at the end still asks for an action,
        return index == 0 or tokens[index - 1] != "to"  # but "clusters take ages to start" does not
    following = tokens[index + size]
    return any(following == word or _is_id_of(following, word) for word in objects)


def _is_id_of(token: str, prefix: str) -> bool:
    """``pl_`` matches any pipeline name; ``inc`` / ``chg`` only a ticket number (``inc0010049``)."""
    if not token.startswith(prefix):
        return False
    rest = token[len(prefix):]
    return prefix.endswith("_") or rest[:1].isdigit()


def write_verb(text: str, policy: Policy) -> str | None:
    """The write verb ``text`` commands ("restart"), or ``None`` when it only asks to read."""
    by_first_word: dict[str, list[str]] = {}
    for verb in policy.write_verbs:
        by_first_word.setdefault(verb.split()[0], []).append(verb)
    for clause in _clauses(text):
        tokens = words(clause)
        for index, token in enumerate(tokens):
            for verb in by_first_word.get(token, ()):
                size = len(verb.split())
                if " ".join(tokens[index:index + size]) != verb:
                    continue
                if _follows_lead(tokens, index, policy.write_leads) and _has_object(
                    tokens, index, size, policy.write_objects
                ):
                    return verb
    return None


def _clauses(text: str) -> list[str]:
    parts, current = [], []
    for char in text:
        if char in SENTENCE_BREAKS:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


def refusal(analysis: Analysis, policy: Policy) -> Refusal | None:
    """Why this request should be refused, or ``None`` when it is an answerable read request."""
    text = analysis.text
    has_ids = bool(analysis.entities.ids())
    topic = next((word for word in policy.out_of_scope if contains_phrase(text, word)), None)
    if topic and not has_ids:
        return Refusal(
            f"Sorry, {topic_phrase(topic)} is outside what OpsAgent does: I answer questions about incidents, "
            "changes, Data Factory pipelines and platform health."
        )
    if not analysis.selected and any(contains_phrase(text, word) for word in policy.help_desk):
        return Refusal(
            "That sounds like a general IT help-desk request; please contact the service desk. "
            "I can look up incidents, changes, pipeline runs and platform health."
        )
    verb = write_verb(text, policy)
    if verb:
        return Refusal(
            f"I can't {verb} anything: OpsAgent's tools are read-only. I can show you the current "
            "state (incidents, changes, pipeline runs, platform health) so you can act in the right tool."
        )
    return None


def topic_phrase(topic: str) -> str:
    return f"a request about {topic}" if " " not in topic else f"a question about {topic}"


COMPOUND_NOUNS = frozenset("calendar queue list board log process freeze management manager team schedule overview "
                           "summary report dashboard backlog history".split())
""""the change *calendar*", "the incident *queue*": the phrase names a thing of its own, not a record."""


def _names_a_thing(text: str, phrase: str) -> bool:
    found = re.search(rf"(?<![\w-]){re.escape(phrase)}\s+(\w+)", text)
    return found is not None and found.group(1) in COMPOUND_NOUNS


def unresolved_kinds(analysis: Analysis, policy: Policy, *, demonstrative_only: bool = False) -> tuple[str, ...]:
    """Entity kinds the text points at ("it", "that pipeline") without naming them itself.

    ``demonstrative_only``: only "that …" / "this …", which point back at the conversation even in
    a chained question (where "it" and "the …" are answered by an earlier step of the plan)."""
    entities = analysis.entities
    names_something = bool(entities.ids() or entities.config_items)
    kinds = []
    for phrase, kind in policy.references.items():
        if not contains_phrase(analysis.text, phrase) or _names_a_thing(analysis.text, phrase):
            continue
        if demonstrative_only and not phrase.startswith(("that ", "this ")):
            continue
        if names_something and phrase in policy.found_by_plan:  # "INC… and *the change* it waits for"
            continue
        named = entities.of_kind(kind) if kind != "any" else (entities.ids() + entities.targets + entities.config_items)
        if not named:
            kinds.append(kind)
    return tuple(dict.fromkeys(kinds))


def is_vague_ops(analysis: Analysis, policy: Policy) -> bool:
    """Ops-flavoured but names nothing: "status?", "is it down?", "check it"."""
    return any(contains_phrase(analysis.text, word) for word in policy.vague) or any(
        contains_phrase(analysis.text, phrase) for phrase in policy.references
    )
