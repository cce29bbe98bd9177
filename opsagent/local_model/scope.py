"""Where each part of a question begins and ends: clauses, background sentences, segments.

- **Clauses** split a question into its asks ("…, and which …", "…; is …", "… then …").
- **Background**: a statement before the real ask ("pl_x keeps failing. Is there an incident
  for it?") says what the user already knows; its words do not choose specialists (its entities
  still resolve "it"), and its time phrases do not scope the asks.
- **Segments** split a single clause further at "and" / "," when each side is about a different
  specialist ("failed pipelines today and open P2 incidents"), so each task keeps its own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUESTION_WORDS = ("is", "are", "was", "were", "did", "does", "do", "has", "have", "what", "which", "who", "why",
                  "how", "show", "list", "check", "find", "give", "get", "tell", "whether", "also")
_LEADS = "|".join(QUESTION_WORDS)
CLAUSE_BREAK = re.compile(
    rf"[?;!]\s*|\.\s+|\s\+\s|,?\s+(?:and\s+)?then\s+|,\s+(?:and\s+)?(?=(?:{_LEADS}|any)\b)"
    rf"|\s+and\s+(?=(?:{_LEADS}|the latest)\b)"
)
SEGMENT_BREAK = re.compile(r",\s+(?:and\s+)?|\s+and\s+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ASKING = frozenset(("show", "list", "check", "find", "give", "get", "tell", "can", "could", "please", "pls", "when",
                    "where", "should", "will", "would") + QUESTION_WORDS)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    text: str


def clauses(text: str) -> list[Clause]:
    found, start = [], 0
    for match in CLAUSE_BREAK.finditer(text):
        if match.start() > start:
            found.append(Clause(start, match.start(), text[start:match.start()].strip(" ,")))
        start = match.end()
    if start < len(text):
        found.append(Clause(start, len(text), text[start:].strip(" ,.?")))
    return [clause for clause in found if clause.text] or [Clause(0, len(text), text)]


def segments(clause: Clause) -> list[Clause]:
    """The clause cut at "and" / "," (positions stay relative to the whole text)."""
    found, start = [], 0
    for match in SEGMENT_BREAK.finditer(clause.text):
        found.append(Clause(clause.start + start, clause.start + match.start(), clause.text[start:match.start()]))
        start = match.end()
    found.append(Clause(clause.start + start, clause.end, clause.text[start:]))
    return [part for part in found if part.text.strip()]


def _asks(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or sentence.split(" ", 1)[0].strip(",:").lower() in ASKING


def background_end(text: str) -> int:
    """Where the asks begin: after leading statements that end in "." and precede a question."""
    end, position = 0, 0
    pieces = SENTENCE_END.split(text)
    if len(pieces) < 2 or not _asks(pieces[-1]):
        return 0
    for piece in pieces[:-1]:
        first = piece.split(" ", 1)[0].strip(",:").lower()
        if not piece.rstrip().endswith((".", "!")) or first in ASKING:
            break
        position = text.find(piece, position) + len(piece)
        end = position
    return end
