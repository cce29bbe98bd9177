"""The records a ticket links to: by its reference fields, and by the ticket numbers its own text names.

Sits under the ServiceNow look-ups (``get_incident``, ``get_change_request`` in
``tools/servicenow.py``): an incident's ``rfc`` (the change raised for it), ``caused_by``,
``parent_incident`` and ``problem_id``, then every INC/CHG/PRB number in its description and
notes, each read once (at most ``MAX_LINKS``) so the row says what that record is and where it
stands. A link that cannot be read says so; it never fails the look-up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from opsagent.backends.base import ServiceNowBackend
from opsagent.errors import BackendError, BackendNotFoundError
from opsagent.tools.identifiers import LINKED_TICKET
from opsagent.tools.rendering import iso_minute, shorten

MAX_LINKS = 5
"""At most this many linked records are read for one look-up."""
_KINDS = {"INC": "incident", "CHG": "change", "PRB": "problem"}


def linked_numbers(own: str, references: Mapping[str, str], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Number -> how it is linked (``"rfc"``, ``"named in description"``…): references first, then text order."""
    found: dict[str, list[str]] = {}
    for field, number in references.items():
        found.setdefault(number.strip().upper(), []).append(field)
    for field, text in texts.items():
        for number in LINKED_TICKET.findall(text or ""):
            via = found.setdefault(number, [])
            if f"named in {field}" not in via:
                via.append(f"named in {field}")
    found.pop(own.upper(), None)
    return found


async def link_rows(
    backend: ServiceNowBackend, own: str, references: Mapping[str, str], texts: Mapping[str, str],
    warnings: list[str],
) -> list[dict[str, Any]]:
    """One row per linked record (number, kind, via, and what it is), the count cut noted in ``warnings``."""
    linked = linked_numbers(own, references, texts)
    if len(linked) > MAX_LINKS:
        warnings.append(f"{own} links {len(linked)} records; the first {MAX_LINKS} were read.")
    return [await _link_row(backend, number, via) for number, via in list(linked.items())[:MAX_LINKS]]


async def _link_row(backend: ServiceNowBackend, number: str, via: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {"number": number, "kind": _KINDS.get(number[:3], "record"), "via": via}
    try:
        if number.startswith("INC"):
            incident = await backend.get_incident(number)
            return row | {"short_description": shorten(incident.short_description, 120), "state": incident.state,
                          "priority": incident.priority}
        if number.startswith("CHG"):
            change = await backend.get_change_request(number)
            return row | {"short_description": shorten(change.short_description, 120), "state": change.state,
                          "start_date": iso_minute(change.start_date), "end_date": iso_minute(change.end_date)}
    except BackendNotFoundError:
        return row | {"found": False}
    except BackendError as error:
        return row | {"found": None, "note": f"could not be read ({type(error).__name__})"}
    return row  # problems are named, not read: the backends read incidents and changes only
