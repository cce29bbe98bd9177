"""What kind of answer a part of the question wants: yes/no, a count, a list, the most, the latest…

Cue words on the user's own text; the first matching rule wins. Used only to choose the lead of
the local model's summary ("Yes — …", "3 …", "The latest …"); the facts come from the evidence.
"""

from __future__ import annotations

import re
from typing import Literal

Shape = Literal["count", "next", "superlative", "latest", "who", "why", "when", "yes_no", "list"]

RULES: tuple[tuple[Shape, re.Pattern[str]], ...] = (
    ("count", re.compile(r"\bhow (?:many|often)\b|\bnumber of\b|\bcount\b")),
    ("next", re.compile(r"\bnext up\b|\bup next\b|\bnext in line\b|\bcoming next\b|\bwhat'?s next\b|\bnext one\b")),
    ("latest", re.compile(r"\b(?:latest|most recent\w*|newest|last run|last time)\b"
                          r"|\bthe last (?!\d|hours?\b|days?\b|weeks?\b|months?\b|night\b|few\b|couple\b)[a-z]+")),
    ("superlative", re.compile(r"\b(?:most|worst|least|lowest|highest|biggest|top|best)\b")),
    ("who", re.compile(r"\bwho\b|\bassigned\b|\bassignee\b|\bowner\b|\bwhich (?:teams?|groups?)\b")),
    ("why", re.compile(r"\bwhy\b|\bwhat (?:went wrong|happened|was the error|killed|broke)\b|\bcause\b|\breason\b|\berror\b")),
    ("when", re.compile(r"\bwhen\b|\bwhat time\b|\bscheduled for\b|\beta\b")),
    ("yes_no", re.compile(r"(?:^|[-–—;:,.]\s+)(?:is|are|was|were|did|does|do|has|have|had|can|could)\b"
                          r"|\b(?:any|anything|whether)\b")),
)

POLAR_STATES: dict[str, tuple[str, ...]] = {
    "open": ("open", "still open", "active", "unresolved"),
    "approved": ("approved",),
    "degraded": ("degraded", "down", "outage", "having problems", "having issues", "impacted", "affected", "wrong",
                 "problem", "problems", "issue", "issues"),
    "healthy": ("healthy", "operational", "up", "ok", "fine"),
    "failed": ("fail", "failed", "failing", "broken"),
    "succeeded": ("succeed", "succeeded", "successful", "work", "worked"),
    "finished": ("finish", "finished", "complete", "completed", "done"),
    "closed": ("closed", "resolved"),
}
"""Words of a yes/no question → the state they ask about."""


PER_GROUP = re.compile(r"\b(?:each|per|by|which|what)\s+(?:team|group|assignment group)s?\b")
"""Counts per assignment group ("how many open incidents does each team have?", "which team has the most")."""


def shape_of(text: str) -> Shape:
    low = " ".join(text.lower().split())
    return next((shape for shape, pattern in RULES if pattern.search(low)), "list")


def asked_state(text: str, among: tuple[str, ...] = tuple(POLAR_STATES)) -> str | None:
    """The state a yes/no question asks about ("is it still open?" → "open"), if any of ``among``."""
    low = f" {' '.join(text.lower().replace('?', ' ').replace(',', ' ').split())} "
    hits = [(low.find(f" {word} "), state) for state in among for word in POLAR_STATES[state] if f" {word} " in low]
    return min(hits)[1] if hits else None
