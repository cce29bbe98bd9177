"""How records are named in text — ticket numbers, run ids, snake or kebab names — for intake, the tools and
the checks alike (one home: the ticket prefixes come from the catalog's record kinds)."""

from __future__ import annotations

import re

from opsagent.tools.catalog import RECORDS

TICKET_PREFIXES: dict[str, str] = {kind.id_prefix: kind.name for kind in RECORDS.values() if kind.id_prefix}
"""``{"INC": "incident", "CHG": "change"}``: the prefix of each ticket kind's number."""
_PREFIX = "|".join(TICKET_PREFIXES)
TICKET = re.compile(rf"\b(?:{_PREFIX})\d{{5,10}}\b", re.IGNORECASE)
"""A ticket number as rows and answers write it (``INC0010052``)."""
TYPED_TICKET = re.compile(rf"\b({_PREFIX})[\s-]?(\d{{5,10}})\b", re.IGNORECASE)
"""A ticket number as people type it (``chg 30017``, ``inc-10052``): prefix and digits as groups."""
LINKED_TICKET = re.compile(rf"\b(?:{_PREFIX}|PRB)\d{{7}}\b")
"""A ticket number one record's text names, problems included (``PRB0040012``)."""
RECORD_NUMBER = re.compile(r"\b[A-Z]{2,5}\d{7}\b")
"""Any ServiceNow record number as written in capitals (INC…, CHG…, PRB…, RITM…, TASK…): one an answer names must
be one the data shows, whatever its kind."""
RUN_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
NAME = re.compile(r"(?<![\w/.@-])[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+(?![\w-])", re.IGNORECASE)
"""Snake or kebab names (``pl_ingest_sales``, ``vm-shir-01``); whether a hyphenated word is a name or English
is the reader's call (a digit or an underscore makes it a name)."""


def normalised_ticket(prefix: str, digits: str) -> str:
    """"chg 30017" → CHG0030017: the prefix in capitals, seven digits."""
    return f"{prefix.upper()}{digits[-7:].zfill(7)}"
