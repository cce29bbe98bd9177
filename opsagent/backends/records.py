"""Lenient reading of the loosely typed records the real backends receive.

Sits beside ``backends.http`` (transport) and under the backend clients (``servicenow``,
``servicenow_auth``, ``log_analytics``): ServiceNow sends every value as a string and Log Analytics
rows follow whatever columns a query projected, so one bad record must not fail a whole list.
``parse_records`` skips what cannot be parsed and names it, so the caller can say so in
``Page.warnings``; ``to_float`` reads a number that may be missing or malformed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import ValidationError

RowT = TypeVar("RowT")
ParsedT = TypeVar("ParsedT")
UNREADABLE = (ValidationError, ValueError, TypeError, KeyError)
"""What a parse function raises for a record that does not fit its model."""


def parse_records(
    rows: Iterable[RowT], parse: Callable[[RowT], ParsedT], *, describe: Callable[[RowT], str]
) -> tuple[list[ParsedT], list[str]]:
    """Parse each row, skipping those that raise one of ``UNREADABLE``.

    Args:
        rows: raw records, in order.
        parse: turns one record into a model; raises for a record that does not fit.
        describe: names a record for the user (its number or id), e.g. ``"INC0000009"``.

    Returns:
        The parsed items in order, and one ``"<describe(row)> (<ErrorType>)"`` per skipped row.
    """
    parsed: list[ParsedT] = []
    skipped: list[str] = []
    for row in rows:
        try:
            parsed.append(parse(row))
        except UNREADABLE as error:
            skipped.append(f"{describe(row)} ({type(error).__name__})")
    return parsed, skipped


def to_float(value: Any, *, default: float) -> float:
    """``value`` as a float, or ``default`` when it is missing or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
