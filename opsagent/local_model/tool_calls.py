"""A specialist's first turn: which tools to call, with which arguments.

The specialist's YAML lists ordered tool rules (``knowledge.ToolRule``): "one call per entity of
a kind" (``per``), "when these words appear" (``when``), "unless another tool was chosen"
(``unless_called``) and defaults. Entities come from the task, then from the previous step's
results when the rule allows it (``from_previous``). Calls are capped so a long list of ids
cannot flood the backends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from opsagent.local_model.arguments import Context, arguments_for, record_relative_window, windows_of_previous
from opsagent.local_model.detect import target_positions
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.role_inputs import SpecialistInput
from opsagent.local_model.knowledge import SpecialistHints, ToolRule
from opsagent.local_model.scope import clauses
from opsagent.local_model.shapes import PER_GROUP
from opsagent.local_model.task_facts import facts_for
from opsagent.local_model.text import contains_phrase, extract, normalise, unique

MAX_CALLS = 6
"""At most this many tool calls in one turn."""
SELECTING = frozenset(("which", "what", "who"))
"""Clause openings that select items ("which …, and which …")."""


@dataclass(frozen=True)
class PlannedCall:
    name: str
    arguments: dict[str, Any]


def _previous_text(task: SpecialistInput) -> str:
    """The previous step's questions and the rows their tools returned (data, not prose)."""
    lines = []
    for result in task.previous:
        lines.append(result.question)
        lines += [json.dumps(row, default=str) for item in result.evidence for row in item.rows]
    return "\n".join(lines)


def build_context(task: SpecialistInput, hints: SpecialistHints) -> Context:
    """Entities of the task and of the previous step's results (targets included)."""
    question = task.task.question
    text = normalise(question)
    previous_text = _previous_text(task)
    facts = facts_for(task.analysis, question)
    own = extract(question, hints.groups, facts.times)
    own = replace(own, targets=unique(name for _, name in target_positions(text, hints)))
    previous = extract(previous_text, hints.groups)
    previous = replace(previous, targets=unique(name for _, name in target_positions(normalise(previous_text), hints)))
    previous_lines = "\n".join(normalise(line) for line in previous_text.splitlines())  # one line per row
    return Context(text, own, facts, previous_lines, previous, hints.services)


def _fires(rule: ToolRule, text: str) -> bool:
    return any(contains_phrase(text, word) for word in rule.when) and not _vetoed(rule, text)


def _vetoed(rule: ToolRule, text: str) -> bool:
    return any(contains_phrase(text, word) for word in rule.unless)


def _per_values(rule: ToolRule, ctx: Context) -> tuple[str, ...]:
    if rule.per == "window":
        return windows_of_previous(ctx) if rule.from_previous else ()
    values = ctx.entities.of_kind(rule.per or "")
    if not values and rule.from_previous:
        values = ctx.previous.of_kind(rule.per or "")
    return values


def _calls_for_rule(rule: ToolRule, ctx: Context, properties: Mapping[str, Any]) -> list[PlannedCall]:
    if (rule.unless_record_window and record_relative_window(ctx)) or (rule.needs_time and not ctx.facts.time_phrase()):
        return []
    if (ctx.entities.incidents or ctx.entities.changes) and any(contains_phrase(ctx.text, w) for w in rule.unless_linked):
        return []
    if rule.per:
        if (rule.when and not _fires(rule, ctx.text)) or _vetoed(rule, ctx.text):
            return []
        values = _per_values(rule, ctx)
        bind = rule.bind or rule.per
        return [PlannedCall(rule.name, arguments_for(rule.name, properties, ctx, {bind: value})) for value in values]
    if _fires(rule, ctx.text):
        return [PlannedCall(rule.name, arguments_for(rule.name, properties, ctx, {}))]
    return []


def plan_calls(task: SpecialistInput, hints: SpecialistHints, tools: Mapping[str, Mapping[str, Any]]) -> list[PlannedCall]:
    """The calls for this task; ``tools`` maps each offered tool's name to its parameter schemas."""
    ctx = build_context(task, hints)
    calls = _by_clause(_apply_rules(hints.tools, ctx, tools), ctx, hints, tools, task.analysis)
    if not calls and ctx.previous_text:  # nothing in the task itself: let the previous results decide
        calls = _apply_rules(hints.tools, replace(ctx, text=ctx.text + "\n" + ctx.previous_text), tools)
    if not calls:
        calls = _defaults(hints.tools, ctx, tools)
    if not calls and tools:  # no hints at all: the first tool, with what the task says
        name = next(iter(tools))
        calls = [PlannedCall(name, arguments_for(name, tools[name], ctx, {}))]
    return _dedupe(calls)[:MAX_CALLS]


def _apply_rules(rules: Sequence[ToolRule], ctx: Context, tools: Mapping[str, Mapping[str, Any]]) -> list[PlannedCall]:
    calls: list[PlannedCall] = []
    for rule in rules:
        if rule.default or rule.name not in tools:
            continue
        if any(call.name in rule.unless_called for call in calls):
            continue
        calls += _calls_for_rule(rule, ctx, tools[rule.name])
    return calls


def _defaults(rules: Sequence[ToolRule], ctx: Context, tools: Mapping[str, Mapping[str, Any]]) -> list[PlannedCall]:
    calls: list[PlannedCall] = []
    for rule in rules:
        if not rule.default or rule.name not in tools or any(call.name in rule.unless_called for call in calls):
            continue
        if rule.per:
            values = _per_values(rule, ctx)
            bind = rule.bind or rule.per
            calls += [PlannedCall(rule.name, arguments_for(rule.name, tools[rule.name], ctx, {bind: value}))
                      for value in values]
        else:
            calls.append(PlannedCall(rule.name, arguments_for(rule.name, tools[rule.name], ctx, {})))
    return calls


def _by_clause(calls: list[PlannedCall], ctx: Context, hints: SpecialistHints,
               tools: Mapping[str, Mapping[str, Any]], analysis: QuestionAnalysis) -> list[PlannedCall]:
    """"Which changes are scheduled …, and which still need approval?": two selections of the same
    items, one call each; a single call would combine both filters into one that matches neither."""
    parts = [part for part in clauses(ctx.text) if part.text.split(" ", 1)[0] in SELECTING]
    if len(parts) < 2 or len(parts) < len(clauses(ctx.text)):
        return calls
    own = [_apply_rules(hints.tools, _clause_context(ctx, part.text, hints, analysis), tools) for part in parts]
    for name in dict.fromkeys(call.name for call in calls):
        variants = [call for found in own for call in found if call.name == name]
        if sum(1 for found in own if any(call.name == name for call in found)) >= 2 and len(
                {str(sorted(call.arguments.items())) for call in variants}) >= 2:
            calls = [call for call in calls if call.name != name] + variants
    return calls


def _clause_context(ctx: Context, text: str, hints: SpecialistHints, analysis: QuestionAnalysis) -> Context:
    """One clause's own filters; a window written once ("… next week, and which …") holds for both."""
    facts = facts_for(analysis, text)
    facts = replace(facts, times=facts.times or ctx.facts.times)
    entities = extract(text, hints.groups, facts.times)
    return replace(ctx, text=text, facts=facts, entities=replace(entities, targets=unique(
        name for _, name in target_positions(text, hints))))


LINKED_KINDS = ("incident", "change")
LATEST_FAILURE = ("latest failed run", "last failed run", "latest failure", "last failure", "most recent failure",
                  "most recent failed run")
"""Asks whose first round lists a pipeline's failures (newest first); the second looks at the newest one."""
CUED_LINK = (r"(?:await\w*|waiting (?:for|on)|waits (?:for|on)|blocked (?:by|on)|depends on|pending|mitigation for|"
             r"fix(?:es)? for|resolves)\s+{}")
"""A row that names a record after one of these ("on hold awaiting CHG…") names the one the task means."""


def linked_record_calls(task: SpecialistInput, hints: SpecialistHints, tools: Mapping[str, Mapping[str, Any]],
                        rows: Sequence[Mapping[str, Any]], done: Sequence[PlannedCall]) -> list[PlannedCall]:
    """A second round within one task: "is the change that INC… waits for approved?", "is the
    incident that CHG… is meant to fix still open?" — the record the first lookup's rows name."""
    lines = [normalise(json.dumps(row, default=str)) for row in rows]
    ctx = build_context(task, hints)
    own = {kind for kind in LINKED_KINDS if ctx.entities.of_kind(kind)}
    wanted = [kind for kind in LINKED_KINDS if kind not in own]  # from an incident to its change, and back
    ctx = replace(ctx, previous_text="\n".join(lines), previous=extract("\n".join(lines), hints.groups),
                  entities=replace(ctx.entities, incidents=(), changes=()))  # one's own ids were looked up already
    fetched = {str(value).lower() for call in done for value in call.arguments.values()}
    fetched |= {str(row["number"]).lower() for row in rows if row.get("number")}  # the rows' own records: seen
    calls: list[PlannedCall] = []
    for rule in hints.tools:
        if not (rule.from_previous and rule.per in (*wanted, "configuration_item") and rule.name in tools):
            continue
        bound = rule.bind or rule.per or ""
        found = [call for call in _calls_for_rule(rule, ctx, tools[rule.name])
                 if str(call.arguments.get(bound, "")).lower() not in fetched]
        cued = [call for call in found if any(re.search(CUED_LINK.format(re.escape(str(call.arguments.get(bound)).lower())),
                                                        line) for line in lines)]
        calls += cued or found
    latest_failed = next((row.get("run_id") for row in rows
                          if row.get("run_id") and (row.get("status") == "Failed" or row.get("error_code"))), None)
    if latest_failed and "get_pipeline_run_details" in tools and any(contains_phrase(ctx.text, phrase)
                                                                      for phrase in LATEST_FAILURE):
        if str(latest_failed).lower() not in fetched:  # its activities and the whole error, not the list's excerpt
            calls.append(PlannedCall("get_pipeline_run_details", {"run_id": latest_failed}))
    return _dedupe(calls)[:MAX_CALLS]


def per_group_calls(task: SpecialistInput, hints: SpecialistHints, done: Sequence[PlannedCall],
                    capped: bool) -> list[PlannedCall]:
    """"How many open incidents does each team have?" when the listing was capped: the same search once
    per group, whose totals are exact (counting the rows shown would undercount)."""
    if not capped or not hints.groups or PER_GROUP.search(normalise(task.task.question)) is None:
        return []
    listing = next((call for call in done if call.name == "list_incidents" and "assignment_group" not in call.arguments),
                   None)
    if listing is None:
        return []
    return [PlannedCall("list_incidents", {**listing.arguments, "assignment_group": group}) for group in hints.groups]


def _dedupe(calls: list[PlannedCall]) -> list[PlannedCall]:
    seen: dict[str, PlannedCall] = {}
    for call in calls:
        seen.setdefault(f"{call.name}:{sorted(call.arguments.items())}", call)
    return list(seen.values())
