"""Words the user quoted: text to find in the records as written ("seen 'Execution Timeout Expired' before?").

A quote is the user's own way of saying "these exact words": intake does not read filters or times inside them,
and every model gets them as text to search for. A quote around nothing but a name or a filter
("'pl_ingest_sales'", "'On Hold'") is that name or filter, not text; an apostrophe inside a word ("it's",
"users'") opens no quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from opsagent.contracts.analysis import QuotedText, Span

QUOTE = re.compile(r"[\"“”]\s*([^\"“”\n]{2,120}?)\s*[\"“”]|(?<![\w'])[‘']([^'‘’\n]{2,120}?)[’'](?![\w'])")
MIN_LETTERS = 2


class _Placed(Protocol):
    span: Span


T = TypeVar("T", bound=_Placed)


def find_quoted(text: str, read: Sequence[Span] = ()) -> list[QuotedText]:
    """Quoted words of ``text``; none that are only what was ``read`` as a name or a filter there."""
    found = []
    for match in QUOTE.finditer(text):
        words = (match.group(1) or match.group(2) or "").strip(" .,;:!?")
        rest = "".join(char for index, char in enumerate(text[match.start():match.end()], match.start())
                       if not any(item.start <= index < item.end for item in read))
        if sum(char.isalpha() for char in words) >= MIN_LETTERS and sum(char.isalpha() for char in rest) >= MIN_LETTERS:
            found.append(QuotedText(text=words, span=Span(start=match.start(), end=match.end())))
    return found


def outside(items: Sequence[T], quoted: Sequence[QuotedText]) -> list[T]:
    """``items`` (filters, times) that do not stand inside quoted words."""
    return [item for item in items if not any(item.span.within(quote.span.start, quote.span.end) for quote in quoted)]
