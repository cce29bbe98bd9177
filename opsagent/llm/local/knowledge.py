"""What the rules model knows, loaded once per client from the agents' YAML ``local:`` sections.

- A specialist's ``local:`` says how to recognise its questions (vocabulary, entity kinds, named
  targets such as platforms) and how to call its tools (ordered tool rules). Adding a specialist
  to the offline model = writing that section; no code change.
- The planner's ``local:`` (``dynamic_triage_agent.yaml``) holds the routing policy: reject
  vocabulary, reference words that need history, and dependency cues. Other roles point at it
  with ``policy_from:``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsagent.agents.config import AgentConfig, load_agent_config
from opsagent.settings import CONFIG_DIR

if TYPE_CHECKING:
    from opsagent.llm.local.detect import TypoFixer

STRONG, WEAK = 2, 1
"""Points a strong / weak vocabulary word gives its specialist; 2 points select it."""

_AGENT_LINE = re.compile(r"^- ([a-z][a-z0-9_]*): (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ToolRule:
    """When to call one tool: per entity of a kind, when words appear (and ``unless`` others do),
    or as the default (a default with ``per`` only when the task names such an entity)."""

    name: str
    per: str | None = None
    bind: str | None = None
    when: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    unless_called: tuple[str, ...] = ()
    default: bool = False
    from_previous: bool = False

    @classmethod
    def from_yaml(cls, data: Mapping[str, Any]) -> ToolRule:
        return cls(
            name=str(data["name"]), per=data.get("per"), bind=data.get("bind"),
            when=tuple(str(word).lower() for word in data.get("when", ())),
            unless=tuple(str(word).lower() for word in data.get("unless", ())),
            unless_called=tuple(data.get("unless_called", ())), default=bool(data.get("default", False)),
            from_previous=bool(data.get("from_previous", False)),
        )


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
    """Phrases whose words say nothing about this specialist ("when does it *run*": a verb, not a run)."""
    contextual: tuple[str, ...] = ()
    """Words that only count next to the specialist's own nouns, or when no other specialist is
    named ("how *healthy* were our pipelines" is about pipelines, not platform health)."""

    @classmethod
    def from_config(cls, config: AgentConfig) -> SpecialistHints:
        local = config.local or {}
        vocabulary = local.get("vocabulary", {})
        weights = {str(word).lower(): STRONG for word in vocabulary.get("strong", ())}
        weights.update({str(word).lower(): WEAK for word in vocabulary.get("weak", ())})
        if not weights:  # no hints: fall back to the description's own words
            weights = {word: WEAK for word in re.findall(r"[a-z]{5,}", config.description.lower())}
        entity_weights = {str(kind): _weight(value) for kind, value in local.get("entities", {}).items()}
        targets = tuple(
            Target(name, tuple(str(word).lower() for word in spec.get("words", ())), spec.get("tool"))
            for name, spec in local.get("targets", {}).items()
        )
        return cls(
            name=config.name, topic=str(local.get("topic", config.description)), vocabulary=weights,
            entity_weights=entity_weights, targets=targets, split_by_target=bool(local.get("split_by_target")),
            groups=tuple(local.get("groups", ())), tools=tuple(ToolRule.from_yaml(rule) for rule in local.get("tools", ())),
            services={str(key).lower(): str(value) for key, value in local.get("services", {}).items()},
            examples=tuple(str(example) for example in local.get("examples", ())),
            ignore=tuple(str(phrase).lower() for phrase in vocabulary.get("ignore", ())),
            contextual=tuple(str(word).lower() for word in vocabulary.get("contextual", ())),
        )


def _weight(value: Any) -> int:
    return STRONG if str(value).lower() == "strong" else WEAK


@dataclass(frozen=True)
class Policy:
    """The planner's routing policy (from ``dynamic_triage_agent.yaml``'s ``local:``)."""

    out_of_scope: tuple[str, ...] = ()
    help_desk: tuple[str, ...] = ()
    write_verbs: tuple[str, ...] = ()
    write_leads: tuple[str, ...] = ()
    write_objects: tuple[str, ...] = ()
    references: Mapping[str, str] = field(default_factory=dict)
    vague: tuple[str, ...] = ()
    found_by_plan: tuple[str, ...] = ()
    """References the plan finds from the ids the question names ("INC… and *the change* it waits for")."""
    forward_cues: tuple[str, ...] = ()
    backward_cues: tuple[str, ...] = ()

    @classmethod
    def from_local(cls, local: Mapping[str, Any]) -> Policy:
        reject, clarify, dependency = (local.get(key, {}) for key in ("reject", "clarify", "dependency"))

        def words(section: Mapping[str, Any], key: str) -> tuple[str, ...]:
            return tuple(str(word).lower() for word in section.get(key, ()))

        return cls(
            out_of_scope=words(reject, "out_of_scope"), help_desk=words(reject, "help_desk"),
            write_verbs=words(reject, "write_verbs"), write_leads=words(reject, "write_leads"),
            write_objects=words(reject, "write_objects"),
            references={str(k).lower(): str(v) for k, v in clarify.get("references", {}).items()},
            vague=words(clarify, "vague"), found_by_plan=words(clarify, "found_by_plan"),
            forward_cues=words(dependency, "forward"), backward_cues=words(dependency, "backward"),
        )


@dataclass(frozen=True)
class Knowledge:
    """Everything a planner-side role needs: the registered specialists and the policy."""

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

    def typo_fixer(self) -> TypoFixer:
        from opsagent.llm.local.detect import TypoFixer

        return TypoFixer(self.vocabulary_words(), self.protected_words())


def registered_names(config: AgentConfig) -> tuple[str, ...]:
    """The specialists a role's prompt lists (``- name: …`` lines), as a real model would read them."""
    texts = [config.instructions or ""] + [mode.instructions for mode in (config.modes or {}).values()]
    return tuple(dict.fromkeys(name for text in texts for name, _ in _AGENT_LINE.findall(text)))


def _specialist_configs(config_dir: Path, names: Iterable[str]) -> list[AgentConfig]:
    from opsagent.agents.specialists import SPECIALISTS

    files = {spec.name: spec.config_file for spec in SPECIALISTS}
    found = []
    for name in names:
        path = config_dir / files.get(name, f"{name}_agent.yaml")
        if path.is_file():
            found.append(load_agent_config(path))
    return found


def load_knowledge(config: AgentConfig, config_dir: Path | None = None,
                   specialists: Sequence[AgentConfig] | None = None) -> Knowledge:
    """Build the knowledge for one role's client: its registry's hints and the routing policy."""
    config_dir = config_dir or CONFIG_DIR
    if specialists is None:
        from opsagent.agents.specialists import specialist_names

        names = registered_names(config) or specialist_names()
        specialists = _specialist_configs(config_dir, names)
    local = config.local or {}
    policy_file = local.get("policy_from")
    if policy_file:
        path = config_dir / str(policy_file)
        local = load_agent_config(path).local if path.is_file() else {}
    return Knowledge(tuple(SpecialistHints.from_config(item) for item in specialists), Policy.from_local(local))
