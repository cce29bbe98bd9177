"""The specialist role: real function calls on the first turn, one factual line per call once they return.

A task reads its asks (its ``part``) as the planner did and makes the catalog's calls among its own tools. A later
step completes them from the previous rows (a search per item, a record's window, the platforms or records the rows
name); a record the first rows name takes a second round. A runbook step is read from its own words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from agent_framework import Content, Message

from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.role_inputs import SpecialistInput
from opsagent.intake.vocabulary import PLATFORMS
from opsagent.local_model.calls import CATALOG, MAX_CALLS, Call, Choice, choose, parameter
from opsagent.local_model.knowledge import Lexicon
from opsagent.local_model.planner import action_reading
from opsagent.local_model.reading import Reading, read_question, read_text
from opsagent.tools.catalog import RECORDS, TOOLS, tool_spec, tools_for, tools_of

NO_TOOL = "I have no tool that can answer this task, so I cannot report any data for it."
Rows = Sequence[Mapping[str, Any]]


def _choices(role_input: SpecialistInput, lexicon: Lexicon, names: set[str]) -> list[tuple[Reading, Choice, Reading | None]]:
    """(reading, this specialist's choice for it, the reading it builds on) for the asks the task covers: the
    asks its parts name, the request to act, or a runbook step read from its own words (whole ones only)."""
    analysis, task = role_input.analysis, role_input.task
    every = [action] if (action := action_reading(analysis)) else read_question(analysis, lexicon, task.question)
    mine = [reading for reading in every if action or reading.id in task.part_ids]
    if not mine:
        every = read_text(task.question, analysis.now, lexicon)
        mine = [reading for reading in every if not reading.unread]
    tools = {**CATALOG, role_input.agent: names}
    by_id = {reading.id: reading for reading in every}
    return [(reading, choice, by_id.get(reading.after)) for reading in mine for choice in choose(reading, tools).choices
            if choice.specialist == role_input.agent]


def mentioned_ids(rows: Rows, record: str) -> list[str]:
    """Ids of ``record`` kind the rows name in their text, not the rows' own ("on hold awaiting CHG…")."""
    prefix, own = RECORDS[record].id_prefix.lower(), {str(row.get(RECORDS[record].key_field, "")).lower() for row in rows}
    return list(dict.fromkeys(token.upper() for token in _tokens(rows)
                              if prefix and token.startswith(prefix) and token[len(prefix):].isdigit() and token not in own))


def _tokens(rows: Rows) -> list[str]:
    return [token for row in rows for token in sorted(set(re.split(r"[^a-z0-9]+", json.dumps(row, default=str).lower())))]


def _lookups(record: str, rows: Rows) -> list[Call]:
    spec = next((spec for spec in tools_for(record) if spec.is_lookup), None)
    key = parameter(spec, "lookup") if spec else None
    return [Call(spec.name, {key: value}) for value in mentioned_ids(rows, record)] if spec and key else []


def _windows(rows: Rows, reading: Reading, now: datetime) -> list[str]:
    """Each record's own window, or the one placed relative to it, as the range window filters take."""
    window, found = next(iter(reading.scope.record_windows), None), []
    for row in rows:
        fields = next((kind.window_fields for kind in RECORDS.values() if kind.window_fields
                       and all(row.get(name) for name in kind.window_fields)), None)
        if fields and not (window and window.record and str(row.get("number", "")).upper() != window.record):
            start, end = (datetime.fromisoformat(str(row[name]).replace("Z", "+00:00")) for name in fields)
            first, last = window.window(start, end, now) if window else (start, end)
            found.append(f"{first:%Y-%m-%dT%H:%MZ} to {last:%Y-%m-%dT%H:%MZ}")
    return list(dict.fromkeys(found))


def _per_item(call: Call, rows: Rows, kinds: Sequence[str]) -> list[Call]:
    """A search per item of the earlier rows (the key of the first kind they carry), by its name filter or as text."""
    key = next((key for key in (RECORDS[kind].key_field for kind in [*kinds, *RECORDS] if kind in RECORDS)
                if any(row.get(key) for row in rows)), "")
    values = list(dict.fromkeys(str(row[key]) for row in rows if row.get(key)))
    spec = tool_spec(call.tool)
    inventory = {"pipeline_name": "pipeline", "configuration_item": "configuration_item"}.get(key, "")
    name = spec and ((parameter(spec, "name", inventory) if inventory else None) or parameter(spec, "text"))
    return [Call(call.tool, {**call.arguments, name: value}) for value in values] if name else []


def from_rows(choice: Choice, reading: Reading, rows: Rows, *, kinds: Sequence[str], now: datetime) -> list[Call]:
    """A later step's calls completed from the previous step's rows; none when the rows give nothing."""
    calls: list[Call] = []
    for call in choice.calls:
        spec = tool_spec(call.tool)
        window = spec and parameter(spec, "window")
        if spec and spec.platform:  # the platforms the ask names, else those the rows name
            asked = reading.entities("platform")
            calls += [call] if spec.platform in asked or not asked and set(_tokens(rows)) & set(
                PLATFORMS.get(spec.platform, ())) else []
        elif window and (reading.scope.record_windows or reading.cues & {"during", "window"}) and _windows(rows, reading, now):
            calls += [Call(call.tool, {**call.arguments, window: value}) for value in _windows(rows, reading, now)]
        elif spec and (spec.is_lookup and parameter(spec, "lookup") not in call.arguments or "link" in reading.cues):
            calls += _lookups(spec.record, rows)  # "the change it is waiting for": the one the rows name
        else:
            calls += _per_item(call, rows, kinds)
    return list({call.tool + str(sorted(call.arguments.items())): call for call in calls}.values())[:MAX_CALLS]


def _earlier(role_input: SpecialistInput, part: str) -> list[dict[str, Any]]:
    """The rows of the previous step's tasks for ``part`` (for a runbook step: every task of the step before)."""
    chosen = [result for result in role_input.previous if part in result.part.split(",")] or role_input.previous
    return [row for result in chosen if result.succeeded for item in result.evidence for row in item.rows]


def _calls(role_input: SpecialistInput, lexicon: Lexicon, tools: Mapping[str, Mapping[str, Any]],
           rows: Rows | None = None, made: Collection[str] = ()) -> list[Call]:
    """The first round's calls; with ``rows`` (the first round's), the records they name the task asked about."""
    calls: list[Call] = []
    for reading, choice, before in _choices(role_input, lexicon, set(tools)):
        if rows is not None:
            calls += [call for kind in choice.deferred for call in _lookups(kind, rows)]
        elif not choice.needs_rows:
            calls += choice.calls
        elif earlier := _earlier(role_input, reading.after):
            calls += from_rows(choice, reading, earlier, kinds=before.named if before else (), now=role_input.analysis.now)
    kept, about = {}, {spec.name for spec in TOOLS if spec.platform and f"(about {spec.platform})" in role_input.task.question}
    for call in calls:  # only this specialist's tools and the parameters they declare; each call once
        if call.tool in tools and (not about or call.tool in about):
            arguments = {key: value for key, value in call.arguments.items() if key in tools[call.tool]}
            kept.setdefault(call.tool + str(sorted(arguments.items())), Call(call.tool, arguments))
    return [call for key, call in kept.items() if key not in made][:MAX_CALLS]


def _results(messages: Sequence[Message]) -> tuple[list[ToolEvidence], int]:
    """The calls since the last user message as evidence (as the product reads them), and how many rounds asked."""
    start = max((index for index, message in enumerate(messages) if str(message.role) == "user"), default=-1) + 1
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results, rounds = [], 0
    for message in messages[start:]:
        rounds += any(content.type == "function_call" for content in message.contents)
        for content in message.contents:
            if content.type == "function_call":
                calls[content.call_id or ""] = (content.name or "?", dict(content.parse_arguments() or {}))
            elif content.type == "function_result":
                text = content.result if isinstance(content.result, str) else "".join(
                    getattr(item, "text", "") or "" for item in (content.items or []))
                name, arguments = calls.get(content.call_id or "", ("?", {}))
                results.append(ToolEvidence.from_output(name, arguments, text or str(content.result or "")))
    return results, rounds


def _line(item: ToolEvidence) -> str:
    failed = f"failed ({item.error_kind or 'error'}): " if item.status == "error" else ""
    return f"{item.tool}: {failed}{item.message or 'no matching data.'}"


def specialist_reply(role_input: SpecialistInput, messages: Sequence[Message], tools: Mapping[str, Mapping[str, Any]],
                     lexicon: Lexicon) -> str | list[Content]:
    """Tool calls on the first turn (and one linked round), then one line per call from the tools' messages."""
    results, rounds = _results(messages)
    if results:
        rows = [dict(row) for item in results if item.status == "ok" for row in item.rows]
        made = {item.tool + str(sorted(item.arguments.items())) for item in results}
        calls = _calls(role_input, lexicon, tools, rows, made) if rounds == 1 else []
        if not calls:
            return "\n".join(_line(item) for item in results)
    elif not tools_of(role_input.agent):  # not in the catalog: its first tool
        calls = [Call(name, {}) for name in list(tools)[:1]]
    else:
        calls = _calls(role_input, lexicon, tools)
    if not calls:
        return NO_TOOL
    return [Content.from_function_call(call_id=f"local_{index}", name=call.tool, arguments=call.arguments)
            for index, call in enumerate(calls, start=1)]
