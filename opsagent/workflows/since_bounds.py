"""The bound a "none" gives itself with "since": "nothing has failed since 06:00", "no good run since last night", "no
failures since the 3 Jan run", and a bare "since" after a moment just said ("the latest failure was about 33 hours
ago and nothing has failed since")."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

from opsagent.tools.timewindow import UNIT_WORD, unit_minutes
from opsagent.workflows.evidence_index import WORD_NUMBERS


def since_bound(sentence: str, now: datetime | None, before: str = "") -> tuple[datetime, datetime, str] | None:
    """The bound a sentence gives itself: "since 06:00" (from then), "since the 3 Jan run" (after the last row
    of that day: the record it points at), "since Wednesday" (after that day's last row, else from the day) —
    the window and what it points at ("record", "day" or ""); ``None`` without one."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    if now is None or not re.search(r"\bsince\b", sentence, re.IGNORECASE):
        return None
    for mention in find_times(sentence, now):
        if mention.text.lower().startswith("since"):
            period = next(find_times(mention.text[5:].strip(), now), None) if not CLOCK.search(mention.text) else None
            if period is not None and period.end is not None:
                # "no failures since Wednesday", "no good run since last night": since that period's last record
                return period.start, min(period.end, now), "day"
            if mention.start.time() == time(0) and not CLOCK.search(mention.text):
                return mention.start, mention.start + timedelta(days=1), "day"
            return mention.start, now, ""
        if mention.end and re.search(rf"\bsince\s+the\s+{re.escape(mention.text)}\s+[a-z]+", sentence, re.IGNORECASE):
            return mention.start, mention.end, "record"
    if BARE_SINCE.search(sentence) and before:  # "no failures since, out of 28 runs": since the moment just said
        said = [(mention.span.start, moment, moment + timedelta(minutes=1))
                for mention in find_times(before, now) if mention.end - mention.start < timedelta(days=1)
                and (moment := mention.point or mention.start)]
        for ago in SAID_AGO.finditer(before):  # "the latest failure was about 33 hours ago and none since": the
            if unit := unit_minutes(ago.group("unit")):  # record that far back, as people round it (one unit)
                said_number = ago.group("number").lower()
                moment = now - timedelta(minutes=float(WORD_NUMBERS.get(said_number, said_number)) * unit)
                said.append((ago.start(), moment - timedelta(minutes=unit), moment + timedelta(minutes=unit)))
        if said:  # the last one said before it
            _, start, end = max(said, key=lambda found: found[0])
            return start, end, "record"
    return None


SAID_AGO = re.compile(rf"(?<![\w.])(?P<number>\d+(?:\.\d+)?|{'|'.join(WORD_NUMBERS)})\s*(?P<unit>{UNIT_WORD})\s+ago\b",
                      re.IGNORECASE)
"""A moment said as how long ago ("about 33 hours ago", "nine hours ago")."""


CLOCK = re.compile(r"\d:\d\d|\d\s*(?:am|pm)\b|\bnoon\b|\bmidnight\b", re.IGNORECASE)
BARE_SINCE = re.compile(r"\bsince\s*(?:[,.;:()]|$|then\b)", re.IGNORECASE)
""""Since" that points back ("there have been no failures since, out of …", "none since then")."""
