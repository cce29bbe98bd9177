"""Time expressions in the question, resolved to exact UTC windows before any model sees them.

Locating is ours (which words are about time: "since yesterday 6pm", "between 06:00 and 09:00",
"the 8am run"); reading the moments and building the window is ``tools/timewindow.py``, the same
code the tools use, so the window stated in the plan is the window a tool will search.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta

from opsagent.contracts.analysis import Span, TimeMention
from opsagent.tools.timewindow import TimeWindow, resolve_time_window

_UNIT = r"(?:minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|w)"
_CLOCK = r"(?:\d{1,2}:\d{2}(?:\s*(?:am|pm))?|\d{1,2}\s*(?:am|pm)|noon|midnight)"
WEEKDAY_STEMS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
"""Each weekday's name without its "day", Monday first (``datetime.weekday()`` order)."""
WEEKDAY_NAME = rf"(?:{'|'.join(WEEKDAY_STEMS)})day"
DAY_NAME = rf"(?:{WEEKDAY_NAME}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
"""A weekday written whole or short ("Thursday", "Thu", "Thurs")."""
_WEEKDAY = WEEKDAY_NAME
MONTH_NAME = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
"""A month written whole or short ("Jan", "January")."""
_MONTH = MONTH_NAME
_DAY_NAME = rf"{DAY_NAME},?\s+"
"""A weekday written before its date ("Thu 9 Jan", "Thursday, Jan 9"): the date says the day."""
_DATE = (rf"(?:\d{{4}}-\d{{2}}-\d{{2}}(?:T\d{{2}}:\d{{2}}Z?)?|(?:{_DAY_NAME})?(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|"
         rf"\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}))")
_DAY = (rf"(?:(?:yesterday|last) evening|last night|(?:yesterday|today|(?:last |this )?{_WEEKDAY}|{_DATE})\s+"
        rf"(?:morning|afternoon|evening|night)|this (?:morning|afternoon|evening|weekend|week|month|year)|"
        rf"(?:the |next )?weekend|last (?:month|year)|(?:the )?new year(?:'?s)?(?: day)?|today|yesterday|"
        rf"tomorrow|tonight|overnight|{_DATE}|(?:last |this )?{_WEEKDAY})")
"""Longer phrases first: the regex takes the first alternative that matches ("yesterday evening")."""
_MOMENT = rf"(?:{_DAY}(?:,?\s+(?:at\s+)?{_CLOCK})?|{_CLOCK}(?:\s+(?:on\s+)?{_DAY})?)"
_ROLLING = (rf"(?:(?:in |over |during |for |within )?(?:the )?(?:last|past|previous|next)\s+"
            rf"(?:\d+\s*{_UNIT}|{_UNIT}|hour|day|week|half(?: an)? hour)|\d+\s*(?:h|d)\b)")
EXPRESSION = re.compile(
    rf"\b(?:between\s+\d{{1,2}}\s+and\s+\d{{1,2}}\s*(?:am|pm)(?:\s+(?:today|yesterday))?"
    rf"|(?:since|after|from|at|around)\s+\d{{1,2}}(?::\d\d)?\s+(?:o'clock\s+)?(?:this|in the)\s+(?:morning|afternoon|evening)"
    rf"|between\s+{_MOMENT}\s+and\s+(?:{_MOMENT}|now)"
    rf"|from\s+{_MOMENT}\s+(?:to|until|till)\s+(?:{_MOMENT}|now)"
    rf"|(?:since|after|before|from|around|about|near|at)\s+(?:{_MOMENT}|{_ROLLING})"
    rf"|{_ROLLING}|{_MOMENT})\b",
    re.IGNORECASE,
)
"""The longest time expression at each place: ranges first, then anchored moments, then bare ones."""
RUN_AT = re.compile(rf"\bthe\s+({_CLOCK})\s+(?:[a-z][\w-]*\s+){{0,2}}run\b", re.IGNORECASE)
""""the 8am run": a moment asked about, not a window to search."""


def _label(start: datetime, end: datetime) -> str:
    return f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} UTC"


def find_times(text: str, now: datetime) -> Iterator[TimeMention]:
    """Every time expression in ``text`` with its exact window (and its point, for "around 8am")."""
    taken: list[tuple[int, int]] = []
    for match in RUN_AT.finditer(text):
        window = resolve_time_window(f"around {match.group(1)}", now)
        taken.append((match.start(), match.end()))
        yield TimeMention(text=match.group(), span=Span(start=match.start(), end=match.end()), start=window.start,
                          end=window.end, point=window.point, label=f"the run nearest {window.point:%Y-%m-%d %H:%M} UTC",
                          phrase=window.label)
    past = PAST_TENSE.search(text) is not None
    ahead = not past and AHEAD.search(text) is not None
    for match in EXPRESSION.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        words = "last weekend" if past and BARE_WEEKEND.match(match.group()) else match.group()
        named = DAY_NAME_BEFORE_DATE.search(words)
        words = DAY_NAME_BEFORE_DATE.sub("", words)  # "since Thu 9 Jan 05:20": the resolver reads the date
        found = _resolved(words, now, ahead=ahead)
        if found is None:
            continue  # words that look like time but name none ("at 99") are left to the planner
        window, skipped = found
        window = _on_weekday(window, named.group(), now) if named else window
        start = match.start() + skipped
        yield TimeMention(text=match.group()[skipped:], span=Span(start=start, end=match.end()), start=window.start,
                          end=window.end, point=window.point, label=_label(window.start, window.end),
                          phrase=window.label, open_start=window.open_start)


DAY_NAME_BEFORE_DATE = re.compile(rf"\b{_DAY_NAME}(?=\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b|{_MONTH}\s+\d)", re.IGNORECASE)


PAST_TENSE = re.compile(r"\b(?:was|were|did|had|happened|opened|failed|broke|ran|went|raised|closed|resolved)\b",
                        re.IGNORECASE)
AHEAD = re.compile(r"\b(?:will|due|scheduled|planned|upcoming|coming up|going (?:out|live|ahead)|ahead|lined up|booked)\b",
                   re.IGNORECASE)
"""Words of what is to come ("changes due to start before Monday", "what's scheduled for Monday"): without a past
tense, a day named without "last" is the coming one ("runs starting before 08:00" is about the past: no such word)."""
BARE_WEEKEND = re.compile(r"^(?:(?:over|during|on|at|in)\s+)?the weekend$", re.IGNORECASE)
""""incidents opened over the weekend": in the past tense the weekend is the one that ended."""


def _on_weekday(window: TimeWindow, day_name: str, now: datetime) -> TimeWindow:
    """"Monday 13 January" said on Fri 10 Jan: the 13th that is a Monday (next week), not last year's."""
    weekday = [stem[:3] for stem in WEEKDAY_STEMS].index(day_name.strip()[:3].lower())
    if window.start.weekday() == weekday or window.end - window.start > timedelta(days=2):
        return window
    for years in (1, -1):
        try:
            moved = [moment.replace(year=moment.year + years) if moment else None
                     for moment in (window.start, window.end, window.point)]
        except ValueError:  # 29 February
            continue
        if moved[0] and moved[0].weekday() == weekday and abs(moved[0] - now) < abs(window.start - now):
            label = f"{moved[0]:%Y-%m-%dT%H:%MZ} to {moved[1]:%Y-%m-%dT%H:%MZ}"  # a phrase every tool reads
            return window._replace(start=moved[0], end=moved[1], point=moved[2], label=label)
    return window


def _resolved(words: str, now: datetime, *, ahead: bool = False) -> tuple[TimeWindow, int] | None:
    """The window of ``words``, else of ``words`` without its first word ("at the last 24 hours"),
    with how many characters were skipped."""
    for skipped in (0, len(words.split(" ", 1)[0]) + 1):
        try:
            return resolve_time_window(words[skipped:], now, ahead=ahead), skipped
        except ValueError:
            continue
    return None
