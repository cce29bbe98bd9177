"""Runbooks: the investigations people repeat, as planning hints (``runbooks/*.yaml``, one per file).

A runbook says when it applies (words the question must use, entities it must name) and its
steps in plain language, grouped into steps like a plan (same step = parallel). Intake matches
the question against every runbook and hands the best match, with the question's names filled
in, to the planner. Files are validated when the runtime is built: an unknown key, a step for a
specialist that is not registered, or a placeholder that is not an entity kind fails start-up.

MAF 1.23's ``SkillsProvider`` was considered and not used: it exposes skills to the model through
a ``load_skill`` tool and cannot inject a runbook our matcher chose into a tool-less planner.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from string import Formatter

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from opsagent.contracts.analysis import EntityKind, QuestionAnalysis, RunbookMatch, RunbookStepHint
from opsagent.errors import ConfigError

PLACEHOLDER_KINDS: dict[str, EntityKind] = {
    "pipeline": "pipeline", "change": "change", "incident": "incident", "platform": "platform",
    "factory": "factory", "run_id": "run_id", "configuration_item": "configuration_item", "where": "region",
}
"""Placeholders a step may use. ``{where}`` is " in <region>" when the question names one, else nothing:
"Is {platform}{where} degraded?" keeps the region the question asked about."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunbookTrigger(_Strict):
    all_of: list[list[str]] = Field(default_factory=list)
    """Each group needs one of its words in the question."""
    any_of: list[str] = Field(default_factory=list)
    """At least one of these words (when given)."""


class RunbookStep(_Strict):
    step: int = Field(ge=1)
    specialist: str
    ask: str = Field(min_length=1)


class Runbook(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    intent: str
    when: RunbookTrigger
    needs: list[EntityKind] = Field(default_factory=list)
    steps: list[RunbookStep] = Field(min_length=1)

    @model_validator(mode="after")
    def _placeholders_are_entity_kinds(self) -> Runbook:
        for item in self.steps:
            for _, field_name, _, _ in Formatter().parse(item.ask):
                if field_name and field_name not in PLACEHOLDER_KINDS:
                    raise ValueError(f"step {item.step}: unknown placeholder {{{field_name}}}; "
                                     f"known: {', '.join(sorted(PLACEHOLDER_KINDS))}")
        return self


def load_runbooks(directory: Path, *, specialists: Collection[str]) -> tuple[Runbook, ...]:
    """Every ``*.yaml`` runbook in ``directory``, validated; a problem is a ``ConfigError`` naming the file."""
    runbooks = []
    for path in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        try:
            runbook = Runbook.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (ValidationError, yaml.YAMLError) as error:
            details = error.errors()[:3] if isinstance(error, ValidationError) else [{"loc": (), "msg": str(error)}]
            said = "; ".join(f"{'.'.join(str(part) for part in item['loc']) or '(file)'}: {item['msg']}"
                             for item in details)
            raise ConfigError(f"{path}: {said}") from None
        unknown = sorted({item.specialist for item in runbook.steps} - set(specialists))
        if unknown:
            raise ConfigError(f"{path}: steps: unknown specialist(s) {', '.join(unknown)}; "
                              f"registered: {', '.join(sorted(specialists))}")
        if runbook.name != path.stem:
            raise ConfigError(f"{path}: name: {runbook.name!r} must match the file name {path.stem!r}")
        runbooks.append(runbook)
    return tuple(runbooks)


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}", text) is not None


def _score(runbook: Runbook, text: str, analysis: QuestionAnalysis) -> float:
    if any(not analysis.values(kind) for kind in runbook.needs):
        return 0.0
    if not all(any(_has(text, word) for word in group) for group in runbook.when.all_of):
        return 0.0
    hits = [word for word in runbook.when.any_of if _has(text, word)]
    if runbook.when.any_of and not hits:
        return 0.0
    return min(1.0, 0.6 + 0.2 * len(hits))


def match_runbooks(runbooks: Sequence[Runbook], analysis: QuestionAnalysis) -> list[RunbookMatch]:
    """The runbooks the question matches, best first, with its names filled into the steps."""
    text = analysis.resolved_question.lower()
    matches = []
    for runbook in runbooks:
        score = _score(runbook, text, analysis)
        if score <= 0:
            continue
        values = {placeholder: (analysis.values(kind) or [f"the {placeholder}"])[0]
                  for placeholder, kind in PLACEHOLDER_KINDS.items()}
        values["where"] = f" in {analysis.values('region')[0]}" if analysis.values("region") else ""
        steps = [RunbookStepHint(step=item.step, specialist=item.specialist, ask=item.ask.format(**values))
                 for item in runbook.steps]
        matches.append(RunbookMatch(name=runbook.name, title=runbook.title, intent=runbook.intent, steps=steps,
                                    score=score))
    return sorted(matches, key=lambda item: -item.score)[:1]
