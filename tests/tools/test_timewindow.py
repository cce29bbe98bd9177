"""The plain-language time window table: every accepted form, and the refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from opsagent.tools.timewindow import TimeWindow, resolve_time_point, resolve_time_window

NOW = datetime(2025, 1, 10, 9, 30, tzinfo=UTC)  # a Friday
MIDNIGHT = datetime(2025, 1, 10, tzinfo=UTC)
H = timedelta(hours=1)
D = timedelta(days=1)

CASES = [
    ("last 24 hours", NOW - 24 * H, NOW),
    ("last 24h", NOW - 24 * H, NOW),
    ("24h", NOW - 24 * H, NOW),
    ("In the last 24 hours", NOW - 24 * H, NOW),
    ("past 3 days", NOW - 3 * D, NOW),
    ("previous 2 weeks", NOW - 14 * D, NOW),
    ("last week", NOW - 7 * D, NOW),
    ("last 7 days", NOW - 7 * D, NOW),
    ("last hour", NOW - H, NOW),
    ("last 30 minutes", NOW - timedelta(minutes=30), NOW),
    ("last 30m", NOW - timedelta(minutes=30), NOW),
    ("today", MIDNIGHT, MIDNIGHT + D),
    ("yesterday", MIDNIGHT - D, MIDNIGHT),
    ("since yesterday", MIDNIGHT - D, NOW),
    ("this week", MIDNIGHT - 4 * D, MIDNIGHT + 3 * D),
    ("last night", MIDNIGHT - 6 * H, MIDNIGHT + 8 * H),
    ("next 7 days", NOW, NOW + 7 * D),
    ("next week", NOW, NOW + 7 * D),
    ("tomorrow", MIDNIGHT + D, MIDNIGHT + 2 * D),
    ("2025-01-08", MIDNIGHT - 2 * D, MIDNIGHT - D),
    ("2025-01-08 to 2025-01-09", MIDNIGHT - 2 * D, MIDNIGHT),
    ("between 2025-01-08 and 2025-01-09", MIDNIGHT - 2 * D, MIDNIGHT),
    ("2025-01-09T17:30Z to 2025-01-09T19:30Z", MIDNIGHT - 6.5 * H, MIDNIGHT - 4.5 * H),
    ("since 2025-01-08", MIDNIGHT - 2 * D, NOW),
    ("since 2025-01-10T02:00", MIDNIGHT + 2 * H, NOW),
    ("this year", MIDNIGHT - 9 * D, datetime(2026, 1, 1, tzinfo=UTC)),  # NOW is Fri 10 Jan 2025
    ("last year", datetime(2024, 1, 1, tzinfo=UTC), MIDNIGHT - 9 * D),
    ("since new year", MIDNIGHT - 9 * D, NOW),
    ("since New Year's Day", MIDNIGHT - 9 * D, NOW),
]


@pytest.mark.parametrize(("phrase", "start", "end"), CASES, ids=[case[0] for case in CASES])
def test_resolve_time_window_accepted_forms(phrase: str, start: datetime, end: datetime) -> None:
    window = resolve_time_window(phrase, NOW)
    assert (window.start, window.end) == (start, end)
    assert window.start.tzinfo is not None and window.end.utcoffset() == timedelta(0)


def test_resolve_time_window_label_is_normalised_phrase() -> None:
    assert resolve_time_window("  Last   24 Hours ", NOW) == TimeWindow(NOW - 24 * H, NOW, "last 24 hours")


def test_resolve_time_window_naive_now_is_utc() -> None:
    assert resolve_time_window("last hour", NOW.replace(tzinfo=None)).end == NOW


def test_resolve_time_window_last_night_ends_now_when_still_night() -> None:
    early = datetime(2025, 1, 10, 3, 0, tzinfo=UTC)
    assert resolve_time_window("last night", early) == TimeWindow(MIDNIGHT - 6 * H, early, "last night")


@pytest.mark.parametrize(
    "phrase",
    ["fortnight", "hours", "last blue moon", "", "2025-02-30", "next tuesday-ish", "2025-01-12 to banana"],
    ids=["unknown-word", "bare-unit", "unknown-unit", "empty", "impossible-date", "junk", "half-range"],
)
def test_resolve_time_window_rejects_with_accepted_forms(phrase: str) -> None:
    with pytest.raises(ValueError, match="use one of 'last 24 hours'"):
        resolve_time_window(phrase, NOW)


def test_resolve_time_window_rejects_reversed_range() -> None:
    with pytest.raises(ValueError, match="ends before it starts"):
        resolve_time_window("2025-01-12 to 2025-01-10", NOW)


@pytest.mark.parametrize(
    ("phrase", "point"),
    [("2025-01-10T08:00Z", MIDNIGHT + 8 * H), ("2025-01-10 08:15", MIDNIGHT + 8.25 * H),
     ("2025-01-10T12:00Z", MIDNIGHT + 12 * H), ("yesterday", MIDNIGHT - D), ("2025-01-08", MIDNIGHT - 2 * D),
     ("last 2 hours", NOW - 2 * H)],
    ids=["iso", "iso-space", "after-now", "phrase-start", "date", "rolling-start"],
)
def test_resolve_time_point(phrase: str, point: datetime) -> None:
    assert resolve_time_point(phrase, NOW) == point


def test_resolve_time_point_rejects_what_is_not_a_time() -> None:
    with pytest.raises(ValueError, match="use one of 'last 24 hours'"):
        resolve_time_point("around breakfast", NOW)


@pytest.mark.parametrize(("now", "saturday"), [
    (datetime(2025, 1, 10, 9, tzinfo=UTC), datetime(2025, 1, 4, tzinfo=UTC)),   # Friday: the one before
    (datetime(2025, 1, 12, 9, tzinfo=UTC), datetime(2025, 1, 4, tzinfo=UTC)),   # Sunday: this one has not ended
    (datetime(2025, 1, 13, 9, tzinfo=UTC), datetime(2025, 1, 11, tzinfo=UTC)),  # Monday: the one just ended
])
def test_last_weekend_is_the_latest_saturday_and_sunday_that_ended(now: datetime, saturday: datetime) -> None:
    window = resolve_time_window("last weekend", now)
    assert (window.start, window.end) == (saturday, saturday + timedelta(days=2))


def test_clock_times_written_as_spoken() -> None:
    assert resolve_time_window("between 1 and 3 am today", NOW)[:2] == (datetime(2025, 1, 10, 1, tzinfo=UTC),
                                                                         datetime(2025, 1, 10, 3, tzinfo=UTC))
    assert resolve_time_window("since 6 this morning", NOW).start == datetime(2025, 1, 10, 6, tzinfo=UTC)


def test_before_a_day_still_to_come_runs_from_now_until_it() -> None:
    tomorrow = resolve_time_window("before tomorrow", NOW)
    assert (tomorrow.start, tomorrow.end, tomorrow.open_start) == (NOW, MIDNIGHT + D, False)
    coming_monday = MIDNIGHT + 3 * D  # NOW is a Friday
    ahead = resolve_time_window("before Monday", NOW, ahead=True)
    assert (ahead.start, ahead.end, ahead.open_start) == (NOW, coming_monday, False)
    # a tool reading the label alone (no "ahead") searches the same window
    assert resolve_time_window(ahead.label, NOW)[:2] == ahead[:2]


def test_before_a_past_moment_has_no_start_and_reaches_back_by_its_size() -> None:
    last_monday = MIDNIGHT - 4 * D
    day = resolve_time_window("before Monday", NOW)
    assert (day.start, day.end, day.open_start, day.label) == (last_monday - 7 * D, last_monday, True, "before monday")
    clock = resolve_time_window("before 08:00", NOW)
    assert (clock.start, clock.end, clock.open_start) == (MIDNIGHT + 8 * H - D, MIDNIGHT + 8 * H, True)


def test_ahead_reads_a_bare_day_as_the_coming_one_and_leaves_named_ones_alone() -> None:
    assert resolve_time_window("monday", NOW, ahead=True)[:2] == (MIDNIGHT + 3 * D, MIDNIGHT + 4 * D)
    assert resolve_time_window("monday", NOW)[:2] == (MIDNIGHT - 4 * D, MIDNIGHT - 3 * D)
    for fixed in ("yesterday", "last 24 hours", "2025-01-08", "since monday"):
        assert resolve_time_window(fixed, NOW, ahead=True) == resolve_time_window(fixed, NOW)


@pytest.mark.parametrize(("phrase", "start", "end"), [
    ("yesterday morning", MIDNIGHT - D, MIDNIGHT - 12 * H),
    ("yesterday afternoon", MIDNIGHT - 12 * H, MIDNIGHT - 6 * H),
    ("since yesterday afternoon", MIDNIGHT - 12 * H, NOW),
    ("monday morning", MIDNIGHT - 4 * D, MIDNIGHT - 4 * D + 12 * H),
    ("since monday evening", MIDNIGHT - 4 * D + 18 * H, NOW),
    ("wednesday night", MIDNIGHT - 2 * D + 18 * H, MIDNIGHT - D + 8 * H),
    ("2025-01-08 afternoon", MIDNIGHT - 2 * D + 12 * H, MIDNIGHT - 2 * D + 18 * H),
])
def test_a_part_of_a_named_day_is_those_hours_of_that_day(phrase: str, start: datetime, end: datetime) -> None:
    # a date parser reads "yesterday afternoon" as the whole of yesterday; the part narrows it
    assert resolve_time_window(phrase, NOW)[:2] == (start, end)


def test_a_part_of_a_moment_with_a_time_is_not_a_part_of_day() -> None:
    with pytest.raises(ValueError):
        resolve_time_window("last 3 hours morning", NOW)
