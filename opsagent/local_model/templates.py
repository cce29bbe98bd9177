"""Answer templates per kind of evidence and answer shape, each a lead sentence and the facts behind it.

A search says existence ("Yes —" / "No —"), a count, which, the latest or oldest, or the worst by a row field, from
its counted message and rows; a look-up its record (yes or no for a value the row shows); a health check each
platform's status. ``lead`` comes from ``answer.py``; rows are said from their own values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opsagent.contracts.evidence import ToolEvidence
from opsagent.intake.vocabulary import STOPWORDS
from opsagent.local_model.reading import ORDER, Reading, order_said
from opsagent.tools.catalog import RECORDS, tool_spec
from opsagent.tools.identifiers import RUN_ID, TICKET_PREFIXES, TYPED_TICKET
from opsagent.tools.rendering import identity, plural, shorten
from opsagent.tools.vocabularies import VOCABULARIES

MAX_FACTS, MAX_IDS = 8, 20
NOTES = (("description", "Description"), ("close_notes", "Close notes"), ("work_notes", "Work notes"))
"""A ticket's own words, as a look-up returns them."""
IDS = re.compile(rf"{TYPED_TICKET.pattern}|{RUN_ID.pattern}|\bpl_\w+", re.IGNORECASE)
"""Tickets, run ids and pipelines as the user wrote them: never repeated back unless a tool returned them."""

def row_kind(row: Mapping[str, Any]) -> str:
    """incident, change, run_detail, run, pipeline_status, count, component, health_incident or record."""
    if ticket := TICKET_PREFIXES.get(str(row.get("number", ""))[:3].upper()):
        return ticket
    if "runs" in row and "pipeline_name" in row:
        return "pipeline_status"
    if "count" in row and ("pipeline_name" in row or "factory" in row):
        return "count"
    if "run_id" in row:
        return "run_detail" if "activities" in row else "run"
    return {"component": "component", "incident": "health_incident"}.get(str(row.get("kind")), "record")


def when(value: Any) -> str:
    """``2025-01-10T07:34Z`` → ``2025-01-10 07:34 UTC`` (other values as they are)."""
    text = str(value or "")
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 and text[10] == "T" else text


def clause(text: Any, limit: int = 220) -> str:
    """A row's free text (maybe missing) cut as the tools cut theirs, at a clause boundary."""
    return shorten(str(text or ""), limit)


def holds(row: Mapping[str, Any], vocabulary: str, value: str) -> bool | None:
    """Whether the row shows ``value`` ("not x" and groups such as "open" too); ``None`` without such a field."""
    vocab = VOCABULARIES.get(vocabulary)
    field = next((name for name in vocab.row_fields if name in row), None) if vocab else None
    if vocab is None or field is None:
        return None
    shown = {str(row[field]).lower(), *([("any assignee" if row[field] else "unassigned")] if vocabulary == "assignee" else [])}
    return bool(shown & (vocab.selected(value) or {value.lower()}))


def label(row: Mapping[str, Any]) -> str:
    """One line that identifies the row and says what matters about it."""
    kind, get = row_kind(row), row.get
    if kind == "incident":
        return (f"{row['number']} ({get('state')}, P{get('priority')}{', ' + get('assignment_group') if get('assignment_group') else ''}"
                f"{', CI ' + get('configuration_item') if get('configuration_item') else ''}, opened {when(get('opened_at'))}): "
                f"{clause(get('short_description'))}")
    if kind == "change":
        window = f"; planned {when(get('start_date'))} to {when(get('end_date'))}" if get("start_date") else ""
        return f"{row['number']} ({get('type')}, {get('state')}, approval {get('approval')}{window}): {clause(get('short_description'))}"
    if kind in ("run", "run_detail"):
        return (f"{get('pipeline_name')} run {get('run_id')} ({get('status') + ' ' if get('status') else ''}started "
                f"{when(get('start'))}){' with ' + str(get('error_code')) if get('error_code') else ''}"
                f"{' in ' + get('failed_activity') if get('failed_activity') else ''}"
                f"{': ' + clause(get('error_message')) if get('error_message') else ''}")
    if kind == "pipeline_status":
        rate = f", {get('success_rate_pct')} % succeeded" if get("success_rate_pct") is not None else ""
        return (f"{row['pipeline_name']}: {get('failed')} of {get('runs')} runs failed{rate}, last run "
                f"{get('last_status')} at {when(get('last_start'))}")
    if kind == "count":
        return f"{get('pipeline_name') or get('factory')}: {plural(get('count'), 'run')}"
    if kind == "component":
        return (f"{get('region') + ' - ' if get('region') else ''}{get('name')} {get('status')}"
                f"{': ' + clause(get('detail')) if get('detail') else ''}")
    if kind == "health_incident":
        return f"'{get('title')}' ({get('status')}{' since ' + when(get('started_at')) if get('started_at') else ''})"
    return clause(", ".join(f"{key} {value}" for key, value in row.items() if isinstance(value, (str, int, float))))



@dataclass
class PartAnswer:
    sentence: str
    facts: list[str] = field(default_factory=list)


def first_sentence(text: str) -> str:
    head = text.split(". ", 1)[0].strip()
    return head if head.endswith((".", "!", "?")) else f"{head}."


def lower_first(text: str) -> str:
    """"The latest …" → "the latest …" after a lead; names ("Databricks", "CHG…") keep their capital."""
    return text[:1].lower() + text[1:] if text.split(" ", 1)[0].lower() in STOPWORDS else text


def leads_yes_no(reading: Reading, lead: bool) -> bool:
    """Existence answers "is there any …", not "did all …" ("every"): that question gets the facts without a lead."""
    return lead and reading.ask.shape == "yes_no" and "every" not in reading.cues


def yes_no(value: bool | None, sentence: str) -> str:
    return sentence if value is None else f"{'Yes' if value else 'No'} — {lower_first(sentence)}"


def _ids(rows: Sequence[dict[str, Any]]) -> str:
    if rows and row_kind(rows[0]) in ("run", "run_detail"):  # failed runs: which pipelines
        return ", ".join(dict.fromkeys(str(row.get("pipeline_name")) for row in rows))
    ids = list(dict.fromkeys(identity(row) for row in rows if identity(row)))
    return ", ".join(ids[:MAX_IDS]) + (", …" if len(ids) > MAX_IDS else "")


def _ordered(reading: Reading, rows: list[dict[str, Any]], *, complete: bool) -> str | None:
    """The worst, the latest or the oldest row (listings come newest first: only the latest survives a cap)."""
    if not complete and not ("latest" in reading.cues and not reading.rank):
        return None
    if reading.rank and (usable := [row for row in rows if isinstance(row.get(reading.rank[0]), (int, float))]):
        key, end = reading.rank
        return f"{label((max if end == 'max' else min)(usable, key=lambda row: row[key]))}."
    time = next((name for kind in RECORDS.values() for name in kind.time_fields if all(row.get(name) for row in rows)), None)
    # "which has been open the longest": rows without durations have lasted since their first time, the oldest
    cues = reading.cues | ({"oldest"} if reading.rank == ("duration_min", "max") else set())
    return next((f"The {cue} is {label(pick(rows, key=lambda row: str(row[time])))}." for cue, pick in
                 (("latest", max), ("oldest", min)) if cue in cues and time), None)


def listing(reading: Reading, item: ToolEvidence, checks: Sequence[tuple[str, str]], *, lead: bool) -> PartAnswer:
    """A search's answer: its counted message (or the rows that pass the checks), and yes or no for existence."""
    rows = [row for row in item.rows if all(any(holds(row, name, value) for name, value in checks if name == vocabulary)
                                            for vocabulary in {name for name, _ in checks})]
    shown = f" among the {len(item.rows)} shown of {item.total}" if item.total > len(item.rows) else ""
    if checks:
        said = f"{len(rows)} of the {len(item.rows)} returned{shown} are {' or '.join(value for _, value in checks)}"
        sentence = f"{said}: {_ids(rows)}." if rows else f"{said}."
    else:
        sentence = first_sentence(item.message) if item.message else f"{item.total} found."
        named = _ids(rows) if rows and row_kind(rows[0]) not in ("component", "health_incident", "count") else ""
        sentence = f"{sentence[:-1]}: {named}." if named and named not in sentence else sentence
    facts = [label(row) for row in rows[:MAX_FACTS]]
    spec = tool_spec(item.tool)  # a search sorted in the order asked holds the first rows of the whole set
    sorted_by_tool = spec is not None and any(item.arguments.get(one.parameter) for one in spec.filters_of("order"))
    if rows and sorted_by_tool and "first" in reading.cues and not checks:
        said, first = order_said(reading.scope), rows[0]  # the record; its own text stays in the facts
        when_ = f", opened {when(first['opened_at'])}" if first.get("opened_at") else \
            f", planned from {when(first['start_date'])}" if first.get("start_date") else ""
        return PartAnswer(f"{said[:1].upper()}{said[1:]}: {identity(first)}{when_}.", facts)
    if rows and (reading.rank or reading.cues & ORDER):
        ordered = _ordered(reading, rows, complete=not shown or sorted_by_tool)
        return PartAnswer(ordered or f"{first_sentence(item.message)} The order asked for needs every row, and only "
                                     f"{len(item.rows)} of {item.total} were returned.", facts)
    # a "no" over a window nobody asked for (the tool's default) would answer "ever" from the last day only
    defaulted = spec is not None and any(one.parameter not in item.arguments and item.query.get(one.parameter)
                                         for one in spec.filters_of("window"))
    exists = bool(rows) if leads_yes_no(reading, lead) and (rows or not defaulted) else None
    return PartAnswer(yes_no(exists, sentence), facts)


def record(reading: Reading, item: ToolEvidence, checks: Sequence[tuple[str, str]], *, lead: bool) -> PartAnswer:
    """A look-up's answer: the record in one sentence; yes or no when the ask is about a value the row shows."""
    if not item.rows:
        return PartAnswer(first_sentence(item.message) if item.message else "Not found.")
    row, owner = item.rows[0], "owner" in reading.cues
    kind, get = row_kind(row), row.get
    who = (f"assigned to {get('assigned_to')}" if get("assigned_to") else "not assigned to anyone") + (
        f" in {get('assignment_group')}" if get("assignment_group") else "")
    window = f"planned from {when(get('start_date'))} to {when(get('end_date'))}" if get("start_date") else \
        "without a planned window"
    if kind == "incident":
        sentence = f"{row['number']} is {get('state')} (P{get('priority')}), {who}: {clause(get('short_description'))}."
    elif kind == "change":
        on = f" on {get('configuration_item')}" if get("configuration_item") else ""
        sentence = (f"{row['number']} is a {get('type')} change{on}, {get('state')}, approval {get('approval')}, {window}"
                    f"{', ' + who if owner else ''}: {clause(get('short_description'))}.")
    else:
        sentence = _run(row, item) if kind == "run_detail" else f"{label(row)}."
    activities = ", ".join(f"{step.get('activity_name')} ({step.get('status')})" for step in get("activities") or []
                           if isinstance(step, dict))
    facts = [label(row)] if kind in ("incident", "change") else [f"Activities in order: {activities}"] if activities else []
    if reading.ask.shape in ("why", "how") or reading.cues & {"cause", "text"}:  # "why was it canceled?": its own words
        notes = [f"{name}: {clause(get(key), 300)}" for key, name in NOTES if get(key) and get(key) != get("short_description")]
        sentence = " ".join([sentence, *(note if note.endswith(".") else f"{note}." for note in notes)])
    answers = [holds(row, vocabulary, value) for vocabulary, value in checks]
    value = all(answers) if lead and reading.ask.shape == "yes_no" and answers and None not in answers else None
    return PartAnswer(yes_no(value, sentence), facts)


def _run(row: dict[str, Any], item: ToolEvidence) -> str:
    point = (item.query.get("around") or {}).get("point")
    which = (f"Run {row.get('run_id')} of {row.get('pipeline_name')}" if item.arguments.get("run_id") else
             f"The run of {row.get('pipeline_name')} nearest {when(point)}" if point else
             f"The latest run of {row.get('pipeline_name')}")
    took = f", took {row['duration_min']} min" if row.get("duration_min") is not None else ""
    head = f"{which} (run {row.get('run_id')}, started {when(row.get('start'))}{took}) is {row.get('status')}"
    if row.get("status") != "Failed":
        return f"{head}."
    where = f" in {row['failed_activity']}" if row.get("failed_activity") else ""
    return f"{head}{where} with {row.get('error_code')}: {clause(row.get('error_message'), 300)}"


def health(reading: Reading, items: Sequence[ToolEvidence], *, lead: bool) -> PartAnswer:
    """Each platform's status, what is not operational and since when; yes or no only for a state asked, not a cause."""
    sentences, facts, states = [], [], []
    for item in items:
        platform, _, status = item.message.split(".", 1)[0].partition(":") if item.message else (item.tool, "", "")
        states.append(status := status.strip() or "unknown")
        problems = [label(row) for row in item.rows if row_kind(row) == "component" and row.get("status") != "operational"]
        since = sorted(str(row["started_at"]) for row in item.rows if row_kind(row) == "health_incident" and row.get("started_at"))
        sentences.append(f"{platform} is {status.replace('_', ' ')}" + (f": {problems[0]}" if problems else "")
                         + (f" (since {when(since[0])})" if since and status != "operational" else ""))
        facts += [first_sentence(item.message)] * bool(item.message)
        facts += [f"{platform} incident {label(row)}" for row in item.rows if row_kind(row) == "health_incident"]
    asked = {value for name, value in reading.values if name == "health_status"}
    value = None
    if lead and reading.ask.shape == "yes_no" and asked and "unknown" not in states and "cause" not in reading.cues:
        fine = all(state == "operational" for state in states)
        value = fine if asked == {"operational"} else None if "operational" in asked else False if fine else (
            True if any(state in asked for state in states) else None)
    return PartAnswer(yes_no(value, "; ".join(sentences) + "."), facts)
