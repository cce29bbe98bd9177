"""What an evidence row is (an incident, a change, a failed run…) and how to say it in one line.

Kinds are recognised by the fields a row carries, so any tool that returns the same fields is
understood without code changes. Labels only use the row's own values (the grounding check
accepts nothing else); times are shown as ``2025-01-10 07:34 UTC``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

RowKind = Literal["incident", "change", "run_detail", "run", "pipeline_status", "component", "health_incident", "record"]
OPEN_INCIDENT_STATES = frozenset({"New", "In Progress", "On Hold"})
CLOSED_CHANGE_STATES = frozenset({"Closed", "Canceled"})
CAUSE_CHARS = 220


def row_kind(row: Mapping[str, Any]) -> RowKind:
    number = str(row.get("number", "")).upper()
    if number.startswith("INC"):
        return "incident"
    if number.startswith("CHG"):
        return "change"
    if "runs" in row and "pipeline_name" in row:
        return "pipeline_status"
    if "run_id" in row and "activities" in row:
        return "run_detail"
    if "run_id" in row:
        return "run"
    if row.get("kind") == "component":
        return "component"
    if row.get("kind") == "incident":
        return "health_incident"
    return "record"


def when(value: Any) -> str:
    """``2025-01-10T07:34Z`` → ``2025-01-10 07:34 UTC`` (other values as they are)."""
    text = str(value or "")
    if len(text) >= 16 and text[10] == "T":
        return f"{text[:10]} {text[11:16]} UTC"
    return text


def clause(text: Any, limit: int = CAUSE_CHARS) -> str:
    """A long text cut at its last clause boundary before ``limit`` (never mid-word)."""
    flat = " ".join(str(text or "").split())
    if len(flat) <= limit:
        return flat
    window = flat[:limit]
    cut = max(window.rfind(mark) for mark in (". ", "; ", ", ", ": "))
    if cut < limit // 2:
        cut = window.rfind(" ")
    return window[:cut].rstrip(" ,;:.") + " …"


def is_open(row: Mapping[str, Any]) -> bool:
    kind = row_kind(row)
    if kind == "incident":
        return row.get("state") in OPEN_INCIDENT_STATES
    if kind == "change":
        return row.get("state") not in CLOSED_CHANGE_STATES
    return False


def label(row: Mapping[str, Any]) -> str:
    """One line that identifies the row and says what matters about it."""
    kind = row_kind(row)
    match kind:
        case "incident":
            group = f", {row['assignment_group']}" if row.get("assignment_group") else ""
            ci = f", CI {row['configuration_item']}" if row.get("configuration_item") else ""
            return (f"{row['number']} ({row.get('state')}, P{row.get('priority')}{group}{ci}, opened "
                    f"{when(row.get('opened_at'))}): {clause(row.get('short_description'))}")
        case "change":
            window = f"; planned {when(row.get('start_date'))} to {when(row.get('end_date'))}" if row.get("start_date") else ""
            return (f"{row['number']} ({row.get('type')}, {row.get('state')}, approval {row.get('approval')}{window}): "
                    f"{clause(row.get('short_description'))}")
        case "run" | "run_detail":
            where = f" in {row['failed_activity']}" if row.get("failed_activity") else ""
            code = f" with {row['error_code']}" if row.get("error_code") else ""
            status = f"{row['status']} " if row.get("status") and kind == "run_detail" else ""
            cause = f": {clause(row.get('error_message'))}" if row.get("error_message") else ""
            return f"{row.get('pipeline_name')} run {row.get('run_id')} ({status}started {when(row.get('start'))}){code}{where}{cause}"
        case "pipeline_status":
            rate = f", {row['success_rate_pct']} % succeeded" if row.get("success_rate_pct") is not None else ""
            return (f"{row['pipeline_name']}: {row.get('failed')} of {row.get('runs')} runs failed{rate}, "
                    f"last run {row.get('last_status')} at {when(row.get('last_start'))}")
        case "component":
            region = f"{row['region']} - " if row.get("region") else ""
            detail = f": {clause(row['detail'])}" if row.get("detail") else ""
            return f"{region}{row.get('name')} {row.get('status')}{detail}"
        case "health_incident":
            since = f" since {when(row.get('started_at'))}" if row.get("started_at") else ""
            update = f": {clause(row['latest_update'])}" if row.get("latest_update") else ""
            return f"'{row.get('title')}' ({row.get('status')}{since}){update}"
    shown = ", ".join(f"{key} {value}" for key, value in row.items() if isinstance(value, (str, int, float)))
    return clause(shown)


def identity(row: Mapping[str, Any]) -> str:
    """The id a reader would use for the row: its number, run id, pipeline or title."""
    for key in ("number", "run_id", "pipeline_name", "title", "name"):
        if row.get(key):
            return str(row[key])
    return ""


def activities_line(row: Mapping[str, Any]) -> str:
    """A run's activities in order with their status: "Lookup_Config (Succeeded), Copy_Facts (Failed)"."""
    activities = [item for item in row.get("activities") or [] if isinstance(item, dict)]
    return ", ".join(f"{item.get('activity_name')} ({item.get('status')})" for item in activities)
