"""Windows relative to a record: "in the 30 minutes before CHG… started", "after INC… was opened",
"since the SHIR upgrade change", "around the firewall change", "during the window of CHG…".

Only the shape is read here; the exact window needs the record's own times, so it is resolved by
the step that has them (``RecordWindow.window``). A plain time ("before 6pm") is not a record
window: the record must be named right after the relation word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from opsagent.contracts.analysis import RecordWindow, Span
from opsagent.tools.timewindow import unit_minutes

NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10,
                "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45, "half an": 0.5}
RELATIONS = {"before": "before", "prior to": "before", "ahead of": "before", "leading up to": "before",
             "after": "after", "following": "after", "since": "after", "around": "around"}
_COUNT = r"(?P<count>\d+|half an|forty-five|an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty)"
_UNIT = r"(?P<unit>minutes?|mins?|hours?|hrs?|h|days?)"
WINDOW_NOUN = r"(?:planned\s+|maintenance\s+|change\s+)?window"
"""A record's window as people name it ("the planned window", "that maintenance window")."""
_RELATION = (r"(?P<relation>before|prior to|ahead of|leading up to|after|following|since|around|while"
             rf"|(?:during|in|inside|within)\s+(?:the|its)\s+{WINDOW_NOUN}\s+of|during|inside|within)")
_RECORD = (r"(?:(?P<number>(?:CHG|INC)\d{5,10})"
           r"|the\s+(?:[\w-]+\s+){0,3}(?P<noun>change|incident|upgrade|maintenance|deployment|release|outage)"
           r"(?:\s+(?P<named>(?:CHG|INC)\d{5,10}))?)")
_EDGE = (r"(?:'s)?(?:\s+(?:was\s+|were\s+|got\s+|is\s+)?(?P<edge>started|starts|start|began|begins|kicked off|opened|"
         r"ended|ends|finished|completed|closed|resolved|was done|went live))?")
RECORD_WINDOW = re.compile(
    rf"(?:\b(?:in|within|during|for|over)\s+)?(?:the\s+(?:first\s+|last\s+)?)?"
    rf"(?:{_COUNT}\s*-?\s*{_UNIT}\s+|(?P<bare>hour|day|minute|half hour)\s+)?"
    rf"\b{_RELATION}\s+(?:the\s+(?P<edge_first>start|end)\s+of\s+)?{_RECORD}{_EDGE}",
    re.IGNORECASE,
)
RECORD_OVERLAPS = re.compile(
    r"(?P<number>(?:CHG|INC)\d{5,10})(?:'s window)?\s+(?:is\s+|was\s+)?(?:overlap\w*|coincid\w*)(?:\s+with)?",
    re.IGNORECASE)
""""is CHG… overlapping with any failures?": the record's own window, named before the relation."""
END_WORDS = ("end", "ended", "ends", "finished", "completed", "closed", "resolved", "was done")


def _minutes(count: str | None, unit: str | None) -> int | None:
    if not count or not unit:
        return None
    amount = int(count) if count.isdigit() else NUMBER_WORDS.get(count.lower())
    per = unit_minutes(unit)
    return int(amount * per) if amount and per else None


def find_record_windows(text: str) -> Iterator[RecordWindow]:
    for match in RECORD_OVERLAPS.finditer(text):
        yield RecordWindow(text=match.group().strip(), span=Span(start=match.start(), end=match.end()),
                           record=match.group("number").upper(), relation="during")
    for match in RECORD_WINDOW.finditer(text):
        edge_word = (match.group("edge") or match.group("edge_first") or "").lower()
        yield RecordWindow(
            text=match.group().strip(), span=Span(start=match.start(), end=match.end()),
            record=(match.group("number") or match.group("named") or "").upper(),
            relation=RELATIONS.get(match.group("relation").lower(), "during"),  # type: ignore[arg-type]
            edge="end" if edge_word in END_WORDS else "start",
            minutes=_minutes(match.group("count"), match.group("unit")) or _minutes(
                "half an" if match.group("bare") == "half hour" else "1", match.group("bare") and match.group("bare").split()[-1]),
        )
