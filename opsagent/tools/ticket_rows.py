"""How incidents and change requests look in the tools' envelopes, and ticket numbers as models write them.

Sits between the ServiceNow tools (``tools/servicenow.py``) and ``rendering.py``: each record of
``ServiceNowBackend`` becomes a compact row (UTC minutes, texts cut at a clause), a lookup's row
carries the long fields too, and a number written loosely ("inc10042") is read as the real one.
"""

from __future__ import annotations

import re
from typing import Any

from opsagent.backends.base import ChangeRequest, Incident
from opsagent.tools.rendering import ArgumentError, iso_minute, shorten, shorten_sentences

DESCRIPTION_CHARS = 500
NOTES_CHARS = 300
FULL_TEXT_CHARS = 3500
"""The complete long texts a look-up keeps beside its shortened fields (the 7 KB envelope holds both)."""
_TICKET = re.compile(r"^\s*([A-Za-z]{3})?[\s-]*(\d{1,7})\s*$")
_TICKET_KINDS = {"INC": ("an incident", "get_incident"), "CHG": ("a change request", "get_change_request")}


def normalise_number(raw: str, prefix: str, warnings: list[str]) -> str:
    """``"inc10042"`` -> ``"INC0010042"`` (noted in ``warnings``); anything ambiguous is an ``ArgumentError``."""
    noun, _ = _TICKET_KINDS[prefix]
    match = _TICKET.match(raw)
    if match is None:
        raise ArgumentError(
            f"number: {raw!r} is not {noun} number; expected {prefix} + 7 digits ({prefix}0000000). "
            "Never guess a number; list first."
        )
    given = (match.group(1) or prefix).upper()
    if given != prefix:
        other = _TICKET_KINDS.get(given)
        hint = f"it is {other[0]} number; use {other[1]}" if other else f"only {prefix} numbers are accepted here"
        raise ArgumentError(f"number: {raw!r} is not {noun} number ({hint}).")
    number = prefix + match.group(2).zfill(7)
    if number != raw.strip():
        warnings.append(f"Read {raw.strip()!r} as {number}.")
    return number


def incident_row(incident: Incident, *, full: bool = False, with_resolved: bool = False) -> dict[str, Any]:
    """A compact row; ``full`` adds the long fields (a lookup), ``with_resolved`` the resolution time."""
    row: dict[str, Any] = {
        "number": incident.number,
        "short_description": shorten(incident.short_description),
        "state": incident.state,
        "priority": incident.priority,
        "assignment_group": incident.assignment_group,
        "assigned_to": incident.assigned_to,
        "configuration_item": incident.configuration_item,
        "opened_at": iso_minute(incident.opened_at),
    }
    if with_resolved:
        row["resolved_at"] = iso_minute(incident.resolved_at)
    if full:
        row |= {
            "description": shorten_sentences(incident.description, DESCRIPTION_CHARS),
            "impact": incident.impact,
            "urgency": incident.urgency,
            "category": incident.category,
            "resolved_at": iso_minute(incident.resolved_at),
            "updated_at": iso_minute(incident.updated_at),
        }
    return row


def change_row(change: ChangeRequest, *, full: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {
        "number": change.number,
        "short_description": shorten(change.short_description),
        "type": change.type,
        "state": change.state,
        "approval": change.approval,
        "risk": change.risk,
        "start_date": iso_minute(change.start_date),
        "end_date": iso_minute(change.end_date),
        "configuration_item": change.configuration_item,
    }
    if full:
        row |= {
            "description": shorten_sentences(change.description, DESCRIPTION_CHARS),
            "assignment_group": change.assignment_group,
            "assigned_to": change.assigned_to,
        }
    return row


def notes(record: Incident | ChangeRequest) -> dict[str, str]:
    """The long texts of a ticket by field: description, close notes, work notes."""
    return {"description": record.description, "close_notes": record.close_notes, "work_notes": record.work_notes}


def with_full_texts(row: dict[str, Any], texts: dict[str, str], warnings: list[str]) -> dict[str, Any]:
    """``row`` with the notes that are present cut at a sentence, and under ``full_text`` the complete
    text of each one that was cut (as much as ``FULL_TEXT_CHARS`` holds; a cut is noted in ``warnings``)."""
    complete: dict[str, str] = {}
    for field, text in texts.items():
        flat = " ".join(text.split())
        if field != "description" and not flat:
            continue  # notes only where present
        row[field] = shorten_sentences(flat, DESCRIPTION_CHARS if field == "description" else NOTES_CHARS)
        if row[field] != flat:
            complete[field] = flat
    room = FULL_TEXT_CHARS
    for field, text in complete.items():
        if len(text) > room:
            warnings.append(f"The full {field} ({len(text)} characters) was cut to keep the answer short.")
            complete[field] = text = shorten_sentences(text, max(room, 200))
        room -= len(text)
    return row | ({"full_text": complete} if complete else {})
