"""Plain-language time windows ("last 24 hours", "yesterday", "2025-01-10 to 2025-01-12") -> UTC ranges.

Sits between the tools and the backends: a tool receives the phrase the model wrote, resolves it
here against the injected clock's "now", and passes absolute datetimes to its backend. Pure: no
clock of its own, no I/O, everything in UTC.

Accepted forms (case-insensitive):

- rolling: ``last|past|previous N minutes|hours|days|weeks`` (also ``24h``, ``30m``, ``7d``, ``2w``),
  ``last hour``, ``last day``, ``last week`` (= the last 7 days, ending now), a bare ``24 hours``;
- ahead: ``next N <unit>``, ``next hour|day|week``;
- calendar days (whole UTC days): ``today``, ``yesterday``, ``tomorrow``, ``this week`` (Monday 00:00 to
  next Monday 00:00), ``last night`` (yesterday 18:00 to today 08:00, ending now if it is earlier);
- dates: ``2025-01-10`` (that whole day), ``2025-01-10T02:00`` (that minute onwards, to now),
  ranges ``2025-01-10 to 2025-01-12`` (both days included; also ``..``, ``from A to B``, ``between A and B``);
- ``since <any form above>``: from the start of that window to now (``since yesterday``, ``since 2025-01-10``).

``resolve_time_point`` turns a phrase into one moment (an ISO date-time, or a window's start).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from typing import NamedTuple

ACCEPTED_FORMS = (
    "'last 24 hours', 'past 3 days', 'last 30 minutes', 'last week', 'today', 'yesterday', "
    "'since yesterday', 'this week', 'last night', 'next 7 days', 'tomorrow', '2025-01-10', "
    "'2025-01-10 to 2025-01-12', 'since 2025-01-10'"
)

_UNIT_MINUTES = (
    (("m", "min", "mins", "minute", "minutes"), 1),
    (("h", "hr", "hrs", "hour", "hours"), 60),
    (("d", "day", "days"), 1440),
    (("w", "wk", "wks", "week", "weeks"), 10080),
)
_ROLLING = re.compile(r"^(?:(last|past|previous|next)\s+)?(\d+|an?|one)?\s*([a-z]+)$")
_RANGE = re.compile(r"^(?:from\s+|between\s+)?(.+?)\s*(?:\bto\b|\band\b|\.\.|–|—)\s*(.+)$")
_FILLER = re.compile(r"^(?:(?:in|during|over|within|for)\s+)?(?:the\s+)?")
_NIGHT_START, _NIGHT_END = time(18, 0), time(8, 0)


class TimeWindow(NamedTuple):
    """A resolved window: ``start <= t < end``, both tz-aware UTC, and the phrase it came from."""

    start: datetime
    end: datetime
    label: str


def resolve_time_window(phrase: str, now: datetime) -> TimeWindow:
    """Turn a plain time phrase into a UTC window relative to ``now``.

    Args:
        phrase: what the user or model wrote, e.g. "last 24 hours" or "2025-01-10 to 2025-01-12".
        now: the current time (naive values are taken as UTC).

    Raises:
        ValueError: the phrase is not one of the accepted forms (the message lists them).
    """
    label = _FILLER.sub("", " ".join(phrase.strip().lower().split()))
    now = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    window = _resolve(label, now)
    if window is None:
        raise ValueError(f"Unrecognised time window {phrase!r}; use one of {ACCEPTED_FORMS}.")
    start, end = window
    if end <= start:
        raise ValueError(f"Time window {phrase!r} ends before it starts; give the earlier date first.")
    return TimeWindow(start, end, label)


def resolve_time_point(phrase: str, now: datetime) -> datetime:
    """Turn a phrase into one UTC moment: an ISO date-time as written (``2025-01-10T08:00Z``), else
    the start of the window the phrase names (``yesterday`` -> yesterday 00:00).

    Raises:
        ValueError: the phrase is neither (the message lists the accepted forms).
    """
    moment = _parse_moment(phrase)
    if moment is not None and not moment[1]:
        return moment[0]  # not through resolve_time_window: a moment after "now" is a fine point
    return resolve_time_window(phrase, now).start


def _resolve(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    if label.startswith("since "):
        since = _resolve(label.removeprefix("since ").strip(), now)
        return None if since is None else (since[0], now)
    return _calendar(label, now) or _rolling(label, now) or _dates(label, now)


def _calendar(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    midnight = datetime.combine(now.date(), time(0), tzinfo=UTC)
    day = timedelta(days=1)
    if label in ("today", "this day"):
        return midnight, midnight + day
    if label == "yesterday":
        return midnight - day, midnight
    if label == "tomorrow":
        return midnight + day, midnight + 2 * day
    if label == "this week":
        monday = midnight - timedelta(days=now.weekday())
        return monday, monday + 7 * day
    if label in ("last night", "overnight"):
        start = datetime.combine(now.date() - day, _NIGHT_START, tzinfo=UTC)
        return start, min(datetime.combine(now.date(), _NIGHT_END, tzinfo=UTC), now)
    return None


def _rolling(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    compact = re.sub(r"(\d)([a-z])", r"\1 \2", label)
    match = _ROLLING.match(compact)
    if match is None:
        return None
    direction, count_text, unit = match.groups()
    if count_text is None and direction is None:
        return None  # a bare word ("hours") is not a window
    unit_minutes = next((minutes for names, minutes in _UNIT_MINUTES if unit in names), None)
    if unit_minutes is None:
        return None
    count = 1 if count_text in (None, "a", "an", "one") else int(count_text)
    span = timedelta(minutes=count * unit_minutes)
    return (now, now + span) if direction == "next" else (now - span, now)


def _dates(label: str, now: datetime) -> tuple[datetime, datetime] | None:
    single = _parse_moment(label)
    if single is not None:
        start, is_day = single
        return (start, start + timedelta(days=1)) if is_day else (start, now)
    match = _RANGE.match(label)
    if match is None:
        return None
    first, last = _parse_moment(match.group(1)), _parse_moment(match.group(2))
    if first is None or last is None:
        return None
    end = last[0] + timedelta(days=1) if last[1] else last[0]
    return first[0], end


def _parse_moment(text: str) -> tuple[datetime, bool] | None:
    """An ISO date (``is_day=True``) or date-time (``False``) as UTC; ``None`` when it is neither."""
    text = text.strip().upper().removesuffix("Z").removesuffix(" UTC")
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return datetime.fromisoformat(text).replace(tzinfo=UTC), True
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?", text):
            return datetime.fromisoformat(text).replace(tzinfo=UTC), False
    except ValueError:
        return None  # e.g. 2025-02-30
    return None
