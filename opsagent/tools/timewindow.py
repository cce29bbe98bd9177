"""Time expressions → exact UTC windows: the one place OpsAgent turns words about time into ranges.

Used by the tools (a model's ``time_window="since yesterday 6pm"``) and by intake (the user's own
words, resolved before planning). Pure: ``now`` is passed in, everything is UTC. Moments such as
"yesterday 6pm", "Monday 14:00", "Jan 9 08:00" or "8am" are read by ``dateparser`` (the well-kept
date library); the window grammar around them is ours:

- rolling: ``last|past|previous N minutes|hours|days|weeks`` (``24h``, ``7d``), ``last hour|day|week``;
  ahead: ``next N <unit>``;
- calendar: ``today``, ``yesterday``, ``tomorrow``, ``this morning|afternoon|evening``, ``tonight``,
  ``last night``/``overnight`` (yesterday 18:00 to today 08:00), ``this week`` (Monday to Monday),
  ``this weekend`` (the coming or current Saturday and Sunday), ``last weekend`` (the latest one that ended), ``this month`` / ``last month``,
  ``this year`` / ``last year``, ``new year`` (this year's 1 January), a weekday or a date (that whole day);
- ``since|after X`` (from X to now), ``from X`` (X's window), ``before X``: from now until X when X is
  still to come, else an open start (``open_start``; searched back a day before a clock time, a week before a day);
  ``from X to Y`` / ``between X and Y`` / ``X to Y``, ``around|at|near X`` (X ± 1 h, with X as the point);
- ISO: ``2025-01-10``, ``2025-01-10T02:00Z``, ranges of either.

A question about what is to come ("changes due before Monday") resolves with ``ahead``: a day named
without "last" is the coming one. Durations ("open longer than 2 days") are read by ``resolve_duration``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from typing import Any, Literal, NamedTuple

import dateparser

ACCEPTED_FORMS = (
    "'last 24 hours', 'past 3 days', 'last week', 'today', 'yesterday', 'last night', 'this week', "
    "'since yesterday 18:00', 'between 06:00 and 09:00', 'around 08:00', 'next 7 days', '2025-01-10', "
    "'2025-01-10T06:00Z to 2025-01-10T09:00Z', 'since 2025-01-10'"
)
AROUND = timedelta(hours=1)
DAY = timedelta(days=1)
WEEK = timedelta(days=7)
_UNIT_MINUTES = (
    (("m", "min", "mins", "minute", "minutes"), 1),
    (("h", "hr", "hrs", "hour", "hours"), 60),
    (("d", "day", "days"), 1440),
    (("w", "wk", "wks", "week", "weeks"), 10080),
    (("mo", "month", "months"), 43200),
)
"""Units of time and their minutes (a month is 30 days): the one table intake, the tools and the checks read."""


UNIT_WORD = "(?:" + "|".join(sorted({name for names, _ in _UNIT_MINUTES for name in names}, key=len, reverse=True)) + r")\b"
"""A unit of time as people write it ("min", "hours", "d"), for patterns that read a length: ``unit_minutes`` says
how long it is."""


def unit_minutes(unit: str) -> int | None:
    """Minutes in one ``unit`` as people write it ("h", "hrs", "days", "week"); ``None`` for another word."""
    word = unit.strip().lower()
    return next((minutes for names, minutes in _UNIT_MINUTES if word in names), None)
_ROLLING = re.compile(r"^(?:(last|past|previous|next)\s+)?(\d+|an?|one)?\s*([a-z]+)$")
_RANGE = re.compile(r"^(?:from\s+|between\s+)?(.+?)\s+(?:to|and|until|till)\s+(.+)$|^(.+?)\s*(?:\.\.|–|—)\s*(.+)$")
_FILLER = re.compile(r"^(?:(?:in|during|over|within|for|of)\s+)?(?:the\s+)?")
_PARTS_OF_DAY = {"this morning": (0, 12), "this afternoon": (12, 18), "this evening": (18, 24), "tonight": (18, 24)}
_HOURS_OF_PART = {"morning": (0, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 32)}
"""The hours of a part of a named day ("Monday morning", "yesterday afternoon"); a night runs to 08:00 the day after."""
_PART_OF_DAY = re.compile(r"^(?P<day>.+?)\s+(?P<part>morning|afternoon|evening|night)$")
_NIGHT_START, _NIGHT_END = time(18, 0), time(8, 0)
_DATEPARSER_SETTINGS = {"TIMEZONE": "UTC", "TO_TIMEZONE": "UTC", "RETURN_AS_TIMEZONE_AWARE": True,
                        "PREFER_DATES_FROM": "past"}
SAME_AS = {"overnight": "last night", "yesterday evening": "last night", "last evening": "last night",
           "this day": "today"}
"""Words for the same window, spelt one way in answers and tool calls."""
_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b")
"""A time of day in the words ("6pm", "18:00", "noon"): otherwise a moment means that whole day."""


class TimeWindow(NamedTuple):
    """A resolved window ``start <= t < end`` (tz-aware UTC), the phrase, and the moment asked about."""

    start: datetime
    end: datetime
    label: str
    point: datetime | None = None
    open_start: bool = False
    """"before X" of the past: the words gave no start; ``start`` is only how far back a search reaches, and a
    filter with no lower bound (when an incident was opened) leaves it out."""


Moment = tuple[datetime, bool]
"""A moment and whether the words gave a time of day (else it is that whole day)."""


def _utc(now: datetime) -> datetime:
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


def _iso_moment(text: str) -> Moment | None:
    compact = text.strip().upper().removesuffix(" UTC").removesuffix("Z")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?", compact):
        return None
    try:
        moment = datetime.fromisoformat(compact).replace(tzinfo=UTC)
    except ValueError:
        return None  # e.g. 2025-02-30
    return moment, len(compact) > 10


def iso_moment(value: Any) -> datetime | None:
    """A time as the tools write it ("2025-01-10T02:15Z"; seconds, a space or a bare date too), in UTC; else
    ``None``: the one reader of the evidence's times."""
    found = _iso_moment(value) if isinstance(value, str) else None
    return found[0] if found else None


def parse_moment(text: str, now: datetime, *, ahead: bool = False) -> Moment | None:
    """One moment in the words ("yesterday 6pm", "Monday", "08:00", "2025-01-10T08:00Z"), or ``None``; with
    ``ahead`` a day or time of day without a date is the coming one, else the latest."""
    text = text.strip()
    iso = _iso_moment(text)
    if iso is not None or not text or text.replace(" ", "").isdigit():
        return iso  # a bare number ("2200", "24") is an error code or a count, not a year
    base = _utc(now).replace(tzinfo=None)
    dated = re.search(r"\d", _CLOCK.sub(" ", text.lower())) is not None  # "Jan 9": the date written is the date
    settings = {**_DATEPARSER_SETTINGS, "RELATIVE_BASE": base,
                **({"PREFER_DATES_FROM": "future"} if ahead and not dated else {})}
    found = dateparser.parse(text, languages=["en"], settings=settings)
    if found is None:
        return None
    moment = found.astimezone(UTC).replace(second=0, microsecond=0)
    if _CLOCK.search(text.lower()):
        return moment, True
    return moment.replace(hour=0, minute=0), False


def resolve_time_window(phrase: str, now: datetime, *, ahead: bool = False) -> TimeWindow:
    """Turn a time phrase into a UTC window relative to ``now`` (``ahead``: the question is about what is to
    come, so "Monday" is the coming one; the label is then the exact range, which any tool reads the same).

    Raises:
        ValueError: the phrase is not a time expression (the message lists the accepted forms).
    """
    label = _spelled_clock(_FILLER.sub("", " ".join(phrase.strip().lower().split())))
    window = _resolve(label, _utc(now), ahead=ahead)
    if window is None:
        raise ValueError(f"Unrecognised time window {phrase!r}; use one of {ACCEPTED_FORMS}.")
    if window.end <= window.start:
        raise ValueError(f"Time window {phrase!r} ends before it starts; give the earlier time first.")
    if ahead and window[:2] != (_resolve(label, _utc(now)) or window)[:2]:
        return window._replace(label=f"{window.start:%Y-%m-%dT%H:%MZ} to {window.end:%Y-%m-%dT%H:%MZ}")
    if label.startswith("from ") and _RANGE.match(label) is None:  # "from X" is X's window
        label = _FILLER.sub("", label.removeprefix("from "))
    return window._replace(label=_plain_rolling(label) or SAME_AS.get(label, label))


_SHARED_MERIDIEM = re.compile(r"\bbetween (\d{1,2}) and (\d{1,2})\s*(am|pm)\b")
_HOUR_OF_PART = re.compile(r"\b(\d{1,2})(?::(\d\d))?\s+(?:o'clock\s+)?(?:this|in the) (morning|afternoon|evening)\b")


_HALF_HOUR = re.compile(r"\bhalf(?: an)? hour\b")


def _spelled_clock(label: str) -> str:
    """Clock times written the way people say them: "between 1 and 3 am" → "between 1am and 3am",
    "since 6 this morning" → "since 6am today" (the part of the day says am or pm), "the last half hour"
    → "the last 30 minutes"."""
    label = _HALF_HOUR.sub("30 minutes", _SHARED_MERIDIEM.sub(r"between \1\3 and \2\3", label))

    def hour(match: re.Match[str]) -> str:
        minutes = f":{match.group(2)}" if match.group(2) else ""
        return f"{match.group(1)}{minutes}{'am' if match.group(3) == 'morning' else 'pm'} today"

    return _HOUR_OF_PART.sub(hour, label)


_DURATION = re.compile(r"^(?:(?:more|longer|over|at least)\s+(?:than\s+)?)?(\d+(?:\.\d+)?|an?|one)\s*([a-z]+)$")


def resolve_duration(phrase: str) -> timedelta:
    """A length of time: "2 days", "1 week", "36h", "an hour", "more than 3 days" (never negative).

    Raises:
        ValueError: the phrase is not a duration (the message says the accepted forms).
    """
    match = _DURATION.match(" ".join(phrase.strip().lower().split()))
    minutes_per_unit = unit_minutes(match.group(2)) if match else None
    if match is None or minutes_per_unit is None:
        raise ValueError(f"Unrecognised duration {phrase!r}; use a number and a unit, e.g. '2 days', '1 week', "
                         "'36 hours', '90 minutes'.")
    count = 1.0 if match.group(1) in ("a", "an", "one") else float(match.group(1))
    return timedelta(minutes=count * minutes_per_unit)


def resolve_time_point(phrase: str, now: datetime) -> datetime:
    """One UTC moment: the moment the words name, else the start of the window they name.

    Raises:
        ValueError: the phrase names neither (the message lists the accepted forms).
    """
    moment = parse_moment(phrase, now)
    if moment is not None and moment[1]:
        return moment[0]  # not through resolve_time_window: a moment after "now" is a fine point
    return resolve_time_window(phrase, now).start


def _resolve(label: str, now: datetime, *, ahead: bool = False) -> TimeWindow | None:
    for prefix in ("since ", "after "):
        if label.startswith(prefix):
            start = _edge(label.removeprefix(prefix), now, side="start")
            return None if start is None else TimeWindow(start, now, label)
    if label.startswith("before "):
        return _before(label, now, ahead=ahead)
    for prefix in ("around ", "about ", "near ", "at "):
        if label.startswith(prefix):
            moment = parse_moment(label.removeprefix(prefix), now, ahead=ahead)
            return _around(moment[0], label) if moment else None
    if label.startswith("from ") and _RANGE.match(label) is None:
        return _resolve(_FILLER.sub("", label.removeprefix("from ")), now, ahead=ahead)
    return _single(label, now, ahead=ahead) or _range(label, now, ahead=ahead)


def _before(label: str, now: datetime, *, ahead: bool) -> TimeWindow | None:
    """"before Monday": until then from now when Monday is still to come; else everything before it, searched
    back a day before a time of day and a week before a day."""
    words = label.removeprefix("before ")
    end = _edge(words, now, side="start", ahead=ahead)
    if end is None:
        return None
    if end > now:
        return TimeWindow(now, end, label)
    iso = _iso_moment(words)
    clocked = iso[1] if iso else _CLOCK.search(words) is not None
    return TimeWindow(end - (DAY if clocked else WEEK), end, label, open_start=True)


def _single(label: str, now: datetime, *, ahead: bool = False) -> TimeWindow | None:
    window = _calendar(label, now) or _rolling(label, now) or _part_of_day(label, now, ahead=ahead)
    if window is not None:
        return TimeWindow(*window, label)
    moment = parse_moment(label, now, ahead=ahead)
    if moment is None:
        return None
    start, has_time = moment
    return _around(start, label) if has_time else TimeWindow(start, start + DAY, label)


def _part_of_day(label: str, now: datetime, *, ahead: bool) -> tuple[datetime, datetime] | None:
    """"yesterday afternoon", "Monday morning", "Thu 9 Jan night": those hours of the day named (a date parser
    reads the day and drops the part)."""
    match = _PART_OF_DAY.match(label)
    day = _single(match.group("day"), now, ahead=ahead) if match else None
    if match is None or day is None or day.end - day.start != DAY or day.point is not None:
        return None
    first, last = _HOURS_OF_PART[match.group("part")]
    return day.start + timedelta(hours=first), day.start + timedelta(hours=last)


def _around(moment: datetime, label: str) -> TimeWindow:
    return TimeWindow(moment - AROUND, moment + AROUND, label, point=moment)


def _edge(text: str, now: datetime, *, side: Literal["start", "end"], ahead: bool = False) -> datetime | None:
    """Where "since X" begins / "… to Y" ends: the moment itself when it has a time, else the
    start (or end) of its day-sized window."""
    if text.strip() in ("now", "right now", "the present"):
        return now
    moment = parse_moment(text, now, ahead=ahead)
    if moment is not None and moment[1]:
        return moment[0]
    window = _single(text, now, ahead=ahead)
    return None if window is None else getattr(window, side)


def _range(label: str, now: datetime, *, ahead: bool = False) -> TimeWindow | None:
    match = _RANGE.match(label)
    if match is None:
        return None
    first, last = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    start, end = _edge(first, now, side="start", ahead=ahead), _edge(last, now, side="end", ahead=ahead)
    return None if start is None or end is None else TimeWindow(start, end, label)


def _calendar(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    midnight = datetime.combine(now.date(), time(0), tzinfo=UTC)
    if label in ("today", "this day"):
        return midnight, midnight + DAY
    if label == "yesterday":
        return midnight - DAY, midnight
    if label == "tomorrow":
        return midnight + DAY, midnight + 2 * DAY
    if label in _PARTS_OF_DAY:
        first, last = _PARTS_OF_DAY[label]
        return midnight + timedelta(hours=first), midnight + timedelta(hours=last)
    if label == "this week":
        monday = midnight - timedelta(days=now.weekday())
        return monday, monday + 7 * DAY
    if label in ("this weekend", "the weekend", "weekend", "next weekend"):  # the coming (or current) Sat-Sun
        saturday = midnight + timedelta(days=(5 - now.weekday()) % 7 if now.weekday() < 5 else -(now.weekday() - 5))
        saturday += 7 * DAY if label == "next weekend" and now.weekday() < 5 else timedelta(0)
        return saturday, saturday + 2 * DAY
    if label in ("last weekend", "past weekend", "previous weekend"):  # the latest Sat-Sun that has ended
        saturday = midnight - timedelta(days=(now.weekday() - 5) % 7 + (7 if now.weekday() >= 5 else 0))
        return saturday, saturday + 2 * DAY
    if label in ("this month", "last month"):
        first = midnight.replace(day=1)
        following = (first + 32 * DAY).replace(day=1)
        return ((first - DAY).replace(day=1), first) if label == "last month" else (first, following)
    if label in ("this year", "last year"):
        first = midnight.replace(month=1, day=1)
        return (first.replace(year=first.year - 1), first) if label == "last year" else (first, first.replace(year=first.year + 1))
    if label in ("new year", "new year's", "new years", "new year's day", "new years day", "the new year"):
        first = midnight.replace(month=1, day=1)  # the latest one: this year's 1 January
        return first, first + DAY
    if label in ("last night", "overnight", "yesterday evening", "last evening"):
        start = datetime.combine(now.date() - DAY, _NIGHT_START, tzinfo=UTC)
        return start, min(datetime.combine(now.date(), _NIGHT_END, tzinfo=UTC), now)
    return None


def _plain_rolling(label: str) -> str | None:
    """"24h" / "last 24 hrs" → "last 24 hours": the one spelling answers and tool calls use."""
    match = _ROLLING.match(re.sub(r"(\d)([a-z])", r"\1 \2", label))
    if match is None or match.group(2) is None or not match.group(2).isdigit():
        return None
    direction, count, unit = match.groups()
    name = next((names[-1] for names, _ in _UNIT_MINUTES if unit in names), None)
    if name is None:
        return None
    return f"{direction or 'last'} {count} {name if count != '1' else name.removesuffix('s')}"


def _rolling(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    compact = re.sub(r"(\d)([a-z])", r"\1 \2", label)
    match = _ROLLING.match(compact)
    if match is None:
        return None
    direction, count_text, unit = match.groups()
    if count_text is None and direction is None:
        return None  # a bare word ("hours") is not a window
    minutes_per_unit = unit_minutes(unit)
    if minutes_per_unit is None:
        return None
    count = 1 if count_text in (None, "a", "an", "one") else int(count_text)
    span = timedelta(minutes=count * minutes_per_unit)
    return (now, now + span) if direction == "next" else (now - span, now)
