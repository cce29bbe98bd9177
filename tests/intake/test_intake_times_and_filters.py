"""Intake's reading of time expressions and stated filters: exact windows, polarity, priorities."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from opsagent.intake.analyzer import analyse_question
from opsagent.intake.filters import find_filters
from opsagent.intake.record_windows import find_record_windows
from opsagent.intake.times import find_times
from opsagent.tools.timewindow import resolve_time_window

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)  # a Friday
TODAY = datetime(2025, 1, 10, tzinfo=UTC)


def at(day_offset: int, hour: int, minute: int = 0) -> datetime:
    return TODAY + timedelta(days=day_offset, hours=hour, minutes=minute)


@pytest.mark.parametrize(("question", "text", "start", "end"), [
    ("what failed since yesterday 6pm?", "since yesterday 6pm", at(-1, 18), NOW),
    ("runs between 06:00 and 08:30 today", "between 06:00 and 08:30 today", at(0, 6), at(0, 8, 30)),
    ("what failed from last night until now?", "from last night until now", at(-1, 18), NOW),
    ("incidents opened after 3pm yesterday", "after 3pm yesterday", at(-1, 15), NOW),
    ("failures in the last 24h", "in the last 24h", NOW - timedelta(hours=24), NOW),
    ("anything break overnight?", "overnight", at(-1, 18), at(0, 8)),
    ("changes planned for the next 7 days", "for the next 7 days", NOW, NOW + timedelta(days=7)),
    ("what ran on Wednesday", "Wednesday", at(-2, 0), at(-1, 0)),
    ("failed runs from 2025-01-09T22:00Z to 2025-01-10T01:00Z", "from 2025-01-09T22:00Z to 2025-01-10T01:00Z",
     at(-1, 22), at(0, 1)),
    ("has anything failed since new year?", "since new year", at(-(NOW.day - 1), 0), NOW),
    # a weekday written before its date: one expression, the date's ("since Thu 9 Jan 05:20", not "9 Jan 05:20")
    ("nothing logged since Thu 9 Jan 05:20?", "since Thu 9 Jan 05:20", at(-1, 5, 20), NOW),
    ("what failed on Thursday, Jan 9?", "Thursday, Jan 9", at(-1, 0), at(0, 0)),
    ("the thursday 9am run", "thursday 9am", at(-1, 8), at(-1, 10)),
    ("is CHG planned for Monday 13 January?", "Monday 13 January", at(3, 0), at(4, 0)),  # the 13th that is a Monday
    # a part of a named day is those hours, not the whole day
    ("anything fail since yesterday afternoon?", "since yesterday afternoon", at(-1, 12), NOW),
    ("what broke yesterday morning", "yesterday morning", at(-1, 0), at(-1, 12)),
    ("tickets opened tuesday night", "tuesday night", at(-3, 18), at(-2, 8)),
])
def test_time_expressions_resolve_to_exact_windows(question: str, text: str, start: datetime, end: datetime) -> None:
    [found] = find_times(question, NOW)
    assert (found.text, found.start, found.end) == (text, start, end)
    window = resolve_time_window(found.phrase, NOW)  # the phrase the tools get means the same window
    assert (window.start, window.end) == (start, end)


def test_a_run_at_a_time_is_a_point_not_a_window() -> None:
    [found] = find_times("why did the 8am run of pl_ingest_sales fail?", NOW)
    assert found.text == "the 8am run" and found.point == at(0, 8)
    assert found.start < found.point < found.end


@pytest.mark.parametrize("question", ["show INC0010049", "which pipelines are failing?", "priority 2 incidents",
                                      "error 2200 at Copy_Sales"])
def test_no_time_is_invented(question: str) -> None:
    assert list(find_times(question, NOW)) == []


def test_rolling_windows_are_spelt_one_way() -> None:
    assert [item.phrase for item in find_times("in the last 24h, and over the past 48 hrs", NOW)] == [
        "last 24 hours", "past 48 hours"]


@pytest.mark.parametrize(("question", "expected"), [
    ("changes this week that are not approved yet", [("approval", "not approved")]),
    ("which changes haven't been approved?", [("approval", "not approved")]),
    ("unapproved changes", [("approval", "not approved")]),
    ("changes awaiting approval", [("approval", "requested")]),
    ("approved changes for tomorrow", [("approval", "approved")]),
    ("incidents that are not resolved", [("incident_state", "open")]),
    ("incidents that are not closed", [("incident_state", "not closed")]),
    ("changes that aren't scheduled", [("change_state", "not scheduled")]),
    ("every incident on vm-shir-01, including closed ones", [("incident_state", "all")]),
    ("incidents and changes on vm-shir-01, including closed or canceled ones",
     [("incident_state", "all"), ("change_state", "all")]),
    ("emergency changes being implemented", [("change_type", "emergency"), ("change_state", "implement")]),
])
def test_state_filters_keep_their_polarity(question: str, expected: list[tuple[str, str]]) -> None:
    assert sorted((item.field, item.as_argument()) for item in find_filters(question)) == sorted(expected)


@pytest.mark.parametrize("question", ["is CHG0030021 approved?", "I need to know if it was approved",
                                      "can you tell me whether the change is approved"])
def test_a_state_asked_about_is_not_a_filter(question: str) -> None:
    assert [item for item in find_filters(question) if item.field == "approval"] == []


@pytest.mark.parametrize(("question", "values", "match"), [
    ("open P2 incidents", ["2"], "exactly"),
    ("P2 or higher incidents", ["2"], "or_higher"),
    ("at least P3", ["3"], "or_higher"),
    ("P1/P2 incidents", ["2"], "or_higher"),
    ("P2 and P3 incidents", ["2", "3"], "exactly"),
    ("critical incidents", ["1"], "exactly"),
    ("high-priority incidents", ["2"], "or_higher"),
    ("sev1 outages", ["1"], "exactly"),
])
def test_priorities_say_exactly_or_or_higher(question: str, values: list[str], match: str) -> None:
    [found] = [item for item in find_filters(question) if item.field == "priority"]
    assert (found.values, found.match) == (values, match)


@pytest.mark.parametrize(("question", "record", "relation", "edge", "minutes"), [
    ("did anything fail in the 30 minutes before CHG0030015 started?", "CHG0030015", "before", "start", 30),
    ("any failures in the two hours after the firewall change CHG0030015 began?", "CHG0030015", "after", "start", 120),
    ("failures within 1h after the end of CHG0030017", "CHG0030017", "after", "end", 60),
    ("did pl_copy_crm_accounts fail after CHG0030017?", "CHG0030017", "after", "start", None),
    ("incidents opened since the change ended", "", "after", "end", None),
    ("Did anything fail during the window of CHG0030017?", "CHG0030017", "during", "start", None),
    ("did anything break while INC0010046 was open", "INC0010046", "during", "start", None),
    ("is the firewall change CHG0030015 overlapping with any pipeline failures?", "CHG0030015", "during", "start", None),
])
def test_windows_relative_to_a_record_are_read_with_their_edge_and_length(
        question: str, record: str, relation: str, edge: str, minutes: int | None) -> None:
    [found] = find_record_windows(question)
    assert (found.record, found.relation, found.edge, found.minutes) == (record, relation, edge, minutes)


def test_a_record_window_resolves_from_the_records_own_times_and_is_not_a_plain_time() -> None:
    start, end = at(0, 8), at(0, 11)
    [before] = find_record_windows("what failed in the 30 minutes before CHG0030015 started")
    assert before.window(start, end, NOW) == (at(0, 7, 30), start)
    [after] = find_record_windows("what failed after CHG0030015")
    assert after.window(start, end, NOW) == (start, NOW)  # "after" with no length: until now
    [around] = find_record_windows("anything break around the firewall change?")
    assert around.window(start, end, NOW) == (at(0, 7), at(0, 12))
    assert list(find_record_windows("what failed after 6pm yesterday")) == []
    analysis = analyse_question("did anything fail in the 2 hours after CHG0030015 began?", now=NOW)
    assert analysis.times == [] and [w.minutes for w in analysis.record_windows] == [120]


@pytest.mark.parametrize(("question", "expected"), [
    ("is the change that INC0010048 waits for approved?", []),  # asks about its state: no filter
    ("is CHG0030022 approved yet?", []),
    ("are there changes that are approved?", [("approval", ["approved"], False)]),  # a set, filtered
    ("which changes next week still lack approval?", [("approval", ["approved"], True)]),
    ("any emergency changes waiting for authorisation?", [("change_type", ["emergency"], False),
                                                          ("approval", ["requested"], False)]),
])
def test_a_yes_no_question_about_a_records_state_is_not_a_filter(question: str, expected: list) -> None:
    assert [(item.field, item.values, item.negated) for item in find_filters(question)] == expected


def test_the_weekend_in_the_past_tense_is_the_one_that_ended() -> None:
    [past] = find_times("incidents opened over the weekend", NOW)
    [coming] = find_times("changes planned for the weekend", NOW)
    assert (past.start, past.end) == (at(-6, 0), at(-4, 0))
    assert (coming.start, coming.end) == (at(1, 0), at(3, 0))


def test_a_stated_risk_is_a_change_filter() -> None:
    assert [(item.field, item.values) for item in find_filters("how many high risk changes are open?")] == [
        ("change_risk", ["high"]), ("change_state", ["open"])]


def test_an_age_keeps_the_state_word_its_phrase_starts_with() -> None:
    """"open for more than a day": "open" is the state, "more than a day" the age; both are read."""
    from datetime import UTC, datetime

    from opsagent.intake.analyzer import analyse_question

    analysis = analyse_question("any P1 that's been sitting open for more than a day?",
                                now=datetime(2025, 1, 10, 9, tzinfo=UTC))
    assert {(item.field, tuple(item.values)) for item in analysis.filters} >= {
        ("incident_state", ("open",)), ("age", ("1 day",)), ("priority", ("1",))}


@pytest.mark.parametrize("question", ["any p1/p2 sitting there without an owner?", "open tickets with no one assigned",
                                      "which incidents are ownerless?"])
def test_nobody_holding_a_ticket_is_the_unassigned_filter(question: str) -> None:
    from opsagent.intake.analyzer import analyse_question

    analysis = analyse_question(question, now=NOW)
    assert ("assignee", ["unassigned"]) in [(item.field, item.values) for item in analysis.filters]


@pytest.mark.parametrize("question", [
    "which changes are due to start before monday?",
    "anything scheduled before Monday",
    "what will go out before monday",
])
def test_before_a_weekday_in_a_question_about_what_is_to_come_is_until_the_coming_one(question: str) -> None:
    [until] = find_times(question, NOW)  # NOW is a Friday: the coming Monday is 3 days on
    assert (until.start, until.end, until.open_start) == (NOW, at(3, 0), False)


@pytest.mark.parametrize("question", ["incidents opened before monday that are still open",
                                      "what failed before monday?"])
def test_before_a_weekday_in_the_past_tense_has_no_start(question: str) -> None:
    [before] = find_times(question, NOW)
    assert (before.end, before.open_start) == (at(-4, 0), True)


@pytest.mark.parametrize("question", ["show me runs starting before 08:00", "which changes are due before Jan 9?",
                                      "are the jobs that begin around 07:00 healthy?"])
def test_a_written_date_or_a_run_starting_is_not_read_as_to_come(question: str) -> None:
    [found] = find_times(question, NOW)  # NOW is Fri 10 Jan 2025 09:00
    assert found.end <= NOW, found  # not tomorrow's 08:00, not 9 Jan next year


def test_a_window_read_as_to_come_still_must_end_after_it_starts() -> None:
    with pytest.raises(ValueError, match="ends before it starts"):
        resolve_time_window("from wednesday to 08:00", NOW, ahead=True)


def test_a_date_and_a_clock_apart_by_a_comma_are_one_moment() -> None:
    now = datetime(2025, 1, 10, 9, tzinfo=UTC)
    [mention] = [item for item in find_times("the one failure: Fri 3 Jan, 16:32 UTC, ran 4 min", now)]
    assert mention.point == datetime(2025, 1, 3, 16, 32, tzinfo=UTC)
