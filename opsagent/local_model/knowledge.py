"""What the rules model knows: one file, ``knowledge.yaml``, validated when the model is built.

- ``specialists.<name>`` says how to recognise a specialist's questions (vocabulary, entity kinds,
  named targets such as platforms) and how to call its tools (ordered tool rules).
- ``policy`` holds the planner's routing rules: reject vocabulary, references that need history,
  and dependency cues.

Unknown keys are errors (pydantic ``extra="forbid"``). A specialist registered in the product but
missing here is recognised by the words of its description, so a new specialist works offline
without touching this file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opsagent.contracts.analysis import FilterField

KNOWLEDGE_FILE = Path(__file__).with_name("knowledge.yaml")
STRONG, WEAK = 2, 1
"""Points a strong / weak vocabulary word gives its specialist; 2 points select it."""
EntityKindName = Literal["incident", "change", "run_id", "pipeline", "configuration_item", "region", "group", "target",
                         "window"]
"""``window``: the planned window of each record the previous step returned (one call per record)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolRule(_Strict):
    """When to call one tool: per entity of a kind, when words appear (and ``unless`` others do),
    or as the default (a default with ``per`` only when the task names such an entity)."""

    name: str
    per: EntityKindName | None = None
    bind: str | None = None
    when: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    unless_called: tuple[str, ...] = ()
    default: bool = False
    from_previous: bool = False
    unless_record_window: bool = False
    """Not when the task searches a window placed by a record ("did X fail after CHG…?")."""
    needs_time: bool = False
    """Only when the task states a time window of its own ("did X fail in the last day?")."""
    unless_linked: tuple[str, ...] = ()
    """Not when these words point from a ticket the task names to one record it links to ("the
    change that INC… waits for"): that record is looked up from the ticket instead."""


class Vocabulary(_Strict):
    strong: tuple[str, ...] = ()
    weak: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    """Phrases whose words say nothing about this specialist ("when does it *run*": a verb, not a run)."""
    contextual: tuple[str, ...] = ()
    """Words that only count next to the specialist's own nouns, or when no other specialist is
    named ("how *healthy* were our pipelines" is about pipelines, not platform health)."""


class TargetSpec(_Strict):
    words: tuple[str, ...]
    tool: str | None = None


class SpecialistKnowledge(_Strict):
    topic: str
    examples: tuple[str, ...] = ()
    vocabulary: Vocabulary = Vocabulary()
    entities: dict[EntityKindName, Literal["strong", "weak"]] = Field(default_factory=dict)
    groups: tuple[str, ...] = ()
    targets: dict[str, TargetSpec] = Field(default_factory=dict)
    split_by_target: bool = False
    services: dict[str, str] = Field(default_factory=dict)
    filters: tuple[FilterField, ...] = ()
    """Stated filters only this specialist's tools take ("critical" = priority 1 → incidents)."""
    tools: tuple[ToolRule, ...] = ()


class RejectPolicy(_Strict):
    out_of_scope: tuple[str, ...] = ()
    help_desk: tuple[str, ...] = ()
    write_verbs: tuple[str, ...] = ()
    write_leads: tuple[str, ...] = ()
    write_objects: tuple[str, ...] = ()


class ClarifyPolicy(_Strict):
    references: dict[str, Literal["any", "pipeline", "run_id", "change", "incident"]] = Field(default_factory=dict)
    found_by_plan: tuple[str, ...] = ()
    """References the plan finds from the ids the question names ("INC… and *the change* it waits for")."""
    vague: tuple[str, ...] = ()


class DependencyPolicy(_Strict):
    forward: tuple[str, ...] = ()
    backward: tuple[str, ...] = ()
    deeper: tuple[str, ...] = ()
    """Asks that go into what an earlier clause listed ("…, then the error details for each")."""


class PolicyFile(_Strict):
    reject: RejectPolicy = RejectPolicy()
    clarify: ClarifyPolicy = ClarifyPolicy()
    dependency: DependencyPolicy = DependencyPolicy()


class KnowledgeFile(_Strict):
    specialists: dict[str, SpecialistKnowledge]
    policy: PolicyFile


@dataclass(frozen=True)
class Target:
    """A named thing a specialist checks on its own (a platform), with its words and tool."""

    name: str
    words: tuple[str, ...]
    tool: str | None = None


@dataclass(frozen=True)
class SpecialistHints:
    """One specialist as the rules model sees it."""

    name: str
    topic: str
    vocabulary: Mapping[str, int]
    entity_weights: Mapping[str, int] = field(default_factory=dict)
    targets: tuple[Target, ...] = ()
    split_by_target: bool = False
    groups: tuple[str, ...] = ()
    tools: tuple[ToolRule, ...] = ()
    services: Mapping[str, str] = field(default_factory=dict)
    examples: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    contextual: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()

    @classmethod
    def from_knowledge(cls, name: str, known: SpecialistKnowledge) -> SpecialistHints:
        words = known.vocabulary
        weights = {word.lower(): STRONG for word in words.strong} | {word.lower(): WEAK for word in words.weak}
        return cls(
            name=name, topic=known.topic, vocabulary=weights,
            entity_weights={kind: STRONG if value == "strong" else WEAK for kind, value in known.entities.items()},
            targets=tuple(Target(target, tuple(w.lower() for w in spec.words), spec.tool)
                          for target, spec in known.targets.items()),
            split_by_target=known.split_by_target, groups=known.groups, tools=known.tools,
            services={key.lower(): value for key, value in known.services.items()}, examples=known.examples,
            ignore=tuple(phrase.lower() for phrase in words.ignore),
            contextual=tuple(word.lower() for word in words.contextual), filters=known.filters,
        )

    @classmethod
    def from_description(cls, name: str, description: str) -> SpecialistHints:
        """A specialist the knowledge file does not know: its description's own words select it."""
        return cls(name=name, topic=description, vocabulary={word: WEAK for word in re.findall(r"[a-z]{5,}", description.lower())})


@dataclass(frozen=True)
class Policy:
    """The planner's routing policy."""

    out_of_scope: tuple[str, ...] = ()
    help_desk: tuple[str, ...] = ()
    write_verbs: tuple[str, ...] = ()
    write_leads: tuple[str, ...] = ()
    write_objects: tuple[str, ...] = ()
    references: Mapping[str, str] = field(default_factory=dict)
    vague: tuple[str, ...] = ()
    found_by_plan: tuple[str, ...] = ()
    forward_cues: tuple[str, ...] = ()
    backward_cues: tuple[str, ...] = ()
    deeper_cues: tuple[str, ...] = ()

    @classmethod
    def from_file(cls, policy: PolicyFile) -> Policy:
        reject, clarify, dependency = policy.reject, policy.clarify, policy.dependency
        return cls(
            out_of_scope=reject.out_of_scope, help_desk=reject.help_desk, write_verbs=reject.write_verbs,
            write_leads=reject.write_leads, write_objects=reject.write_objects, references=dict(clarify.references),
            vague=clarify.vague, found_by_plan=clarify.found_by_plan, forward_cues=dependency.forward,
            backward_cues=dependency.backward, deeper_cues=dependency.deeper,
        )


@dataclass(frozen=True)
class Knowledge:
    """Everything the rules know about the registered specialists, plus the routing policy."""

    specialists: tuple[SpecialistHints, ...]
    policy: Policy

    def by_name(self, name: str) -> SpecialistHints | None:
        return next((hints for hints in self.specialists if hints.name == name), None)

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(group for hints in self.specialists for group in hints.groups)

    def vocabulary_words(self) -> set[str]:
        """Every domain word the rules know, for typo repair (policy words are left out on purpose:
        repairing "whether" into "weather" would reject a good question)."""
        known: set[str] = set()
        for hints in self.specialists:
            known.update(word for phrase in hints.vocabulary for word in phrase.split())
            known.update(word for target in hints.targets for phrase in target.words for word in phrase.split())
        return known

    def protected_words(self) -> set[str]:
        """Policy words typo repair must leave alone ("approve" is not a typo of "approved")."""
        policy = self.policy
        phrases = (*policy.out_of_scope, *policy.help_desk, *policy.write_verbs, *policy.vague, *policy.references)
        return {word for phrase in phrases for word in phrase.split()}


def load_knowledge_file(path: Path = KNOWLEDGE_FILE) -> KnowledgeFile:
    """Read and validate the knowledge file; a bad key is a ``ValueError`` naming the file and the key."""
    try:
        return KnowledgeFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{path}: {where}: {first['msg']}") from None


def knowledge_for(known: KnowledgeFile, registry: Sequence[tuple[str, str]]) -> Knowledge:
    """The knowledge for a registry of (name, description) pairs, in the registry's order."""
    hints = tuple(
        SpecialistHints.from_knowledge(name, known.specialists[name]) if name in known.specialists
        else SpecialistHints.from_description(name, description)
        for name, description in registry
    )
    return Knowledge(hints, Policy.from_file(known.policy))
