"""list_incidents and list_change_requests by assignee, age, resolution time and order, on the demo data.

Every expectation is computed from the demo SQLite file (``demo_sql``) with the same "now" as the tools.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from opsagent.contracts.tool_result import ToolResult
from tests.tools.conftest import DEMO_NOW, DemoSql, RunTool, minutes_from_now

OPEN = "state IN ('New', 'In Progress', 'On Hold')"
NEWEST = "opened_min DESC, number DESC"


def incidents(demo_sql: DemoSql, where: str, *params: object, order: str = NEWEST) -> list[str]:
    return [row[0] for row in demo_sql(f"SELECT number FROM incidents WHERE {where} ORDER BY {order}", *params)]


def listed(result: ToolResult) -> list[str]:
    return [row["number"] for row in result.items]


def assert_all_listed(result: ToolResult, expected: list[str]) -> None:
    assert expected, "a case that matches nothing proves nothing"
    assert (result.status, result.total, listed(result)) == ("ok", len(expected), expected)


@pytest.mark.parametrize(("person", "where"), [
    ("amira", "instr(lower(assigned_to), 'amira') > 0"),
    ("HADDAD", "instr(lower(assigned_to), 'haddad') > 0"),
    ("Priya Raman", "assigned_to = 'Priya Raman'"),
], ids=["first-name", "last-name-any-case", "full-name"])
async def test_incidents_of_a_person_match_the_display_name_in_part(
    run_tool: RunTool, demo_sql: DemoSql, person: str, where: str
) -> None:
    result = await run_tool("list_incidents", assigned_to=person, max_rows=50)
    assert_all_listed(result, incidents(demo_sql, f"{OPEN} AND {where}"))
    assert f"assigned to {person!r}" in result.message


@pytest.mark.parametrize("nobody", ["unassigned", "nobody", "No one", "none"])
async def test_unassigned_incidents(run_tool: RunTool, demo_sql: DemoSql, nobody: str) -> None:
    result = await run_tool("list_incidents", assigned_to=nobody, max_rows=50)
    assert_all_listed(result, incidents(demo_sql, f"{OPEN} AND assigned_to = ''"))
    assert result.query["assigned_to"] == {"asked": nobody, "unassigned": True}
    assert result.message == f"{result.total} open incidents (unassigned)."
    assert all(row["assigned_to"] == "" for row in result.items)


@pytest.mark.parametrize("anyone", ["any assignee", "Any_Assignee", "been picked up"])
async def test_incidents_someone_is_assigned_to(run_tool: RunTool, demo_sql: DemoSql, anyone: str) -> None:
    result = await run_tool("list_incidents", assigned_to=anyone, max_rows=50)
    assert_all_listed(result, incidents(demo_sql, f"{OPEN} AND assigned_to != ''"))
    assert result.query["assigned_to"] == {"asked": anyone, "assigned": True}
    assert result.message == f"{result.total} open incidents (assigned to someone)."


async def test_the_oldest_open_ticket_is_order_oldest_limit_one(run_tool: RunTool, demo_sql: DemoSql) -> None:
    everything = incidents(demo_sql, OPEN, order="opened_min ASC, number ASC")
    result = await run_tool("list_incidents", order="oldest", limit=1)
    assert (listed(result), result.total, result.truncated) == (everything[:1], len(everything), True)
    assert result.message == f"{len(everything)} open incidents; showing the 1 oldest."
    assert result.query["order"] == "oldest"


async def test_order_by_priority_is_most_urgent_first_then_newest(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = incidents(demo_sql, OPEN, order="priority ASC, opened_min DESC, number DESC")
    result = await run_tool("list_incidents", order="priority", limit=5)
    assert listed(result) == expected[:5]
    assert [row["priority"] for row in result.items] == sorted(row["priority"] for row in result.items)
    assert result.message.endswith("showing the 5 most urgent.")


async def test_open_longer_than_a_duration(run_tool: RunTool, demo_sql: DemoSql) -> None:
    cutoff = minutes_from_now(DEMO_NOW - timedelta(days=2))
    result = await run_tool("list_incidents", open_longer_than="2 days", max_rows=50)
    assert_all_listed(result, incidents(demo_sql, f"{OPEN} AND opened_min < ?", cutoff))
    assert result.query["open_longer_than"] == {"asked": "2 days", "opened_before": "2025-01-08T09:30Z"}
    assert "open longer than 2 days (opened before 2025-01-08T09:30Z)" in result.message


async def test_opened_before_and_after_moments_intersect_with_the_window(run_tool: RunTool, demo_sql: DemoSql) -> None:
    after, before = DEMO_NOW - timedelta(days=6), DEMO_NOW - timedelta(days=3)
    result = await run_tool("list_incidents", state="all", opened_after="2025-01-04T09:30Z",
                            opened_before="2025-01-07T09:30Z", opened_within="last 7 days", max_rows=50)
    assert_all_listed(result, incidents(demo_sql, "opened_min >= ? AND opened_min < ?",
                                        minutes_from_now(after), minutes_from_now(before)))
    assert result.query["opened_after"] == {"asked": "2025-01-04T09:30Z", "point": "2025-01-04T09:30Z"}


async def test_opening_filters_that_exclude_each_other_are_a_bad_argument(run_tool: RunTool) -> None:
    result = await run_tool("list_incidents", opened_after="2025-01-09T00:00Z", open_longer_than="3 days")
    assert (result.status, result.error_kind) == ("error", "bad_arguments")
    assert result.message.startswith("the opening-time filters exclude each other")
    bad = await run_tool("list_incidents", open_longer_than="a while")
    assert bad.error_kind == "bad_arguments" and bad.message.startswith("open_longer_than: Unrecognised duration")


async def test_resolved_within_searches_resolved_and_closed_and_shows_when(run_tool: RunTool, demo_sql: DemoSql) -> None:
    start = minutes_from_now(DEMO_NOW - timedelta(days=7))
    result = await run_tool("list_incidents", resolved_within="last 7 days", max_rows=50)
    assert_all_listed(result, incidents(demo_sql, "state IN ('Resolved', 'Closed') AND resolved_min >= ?", start))
    assert result.warnings == ["state 'open' has no resolved incidents; resolved_within searched state "
                               "'resolved' or 'closed'."]
    resolved_at = {row[0]: row[1] for row in demo_sql("SELECT number, resolved_min FROM incidents")}
    for row in result.items:
        assert row["resolved_at"] == (DEMO_NOW + timedelta(minutes=resolved_at[row["number"]])).strftime("%Y-%m-%dT%H:%MZ")
    only_resolved = await run_tool("list_incidents", state="resolved", resolved_within="last 7 days", max_rows=50)
    assert listed(only_resolved) == incidents(demo_sql, "state = 'Resolved' AND resolved_min >= ?", start)
    assert only_resolved.warnings == []


async def test_list_rows_keep_their_fields_unless_a_resolution_window_asks(run_tool: RunTool) -> None:
    plain = await run_tool("list_incidents", limit=1)
    assert list(plain.items[0]) == ["number", "short_description", "state", "priority", "assignment_group",
                                    "assigned_to", "configuration_item", "opened_at"]
    assert set(plain.query) == {"state", "priority", "assignment_group", "configuration_item", "text", "opened_within"}


async def test_changes_by_assignee_and_earliest_first(run_tool: RunTool, demo_sql: DemoSql) -> None:
    expected = [row[0] for row in demo_sql(
        "SELECT number FROM change_requests WHERE instr(lower(assigned_to), 'ortega') > 0 ORDER BY start_min, number")]
    result = await run_tool("list_change_requests", assigned_to="ortega", order="earliest", max_rows=50)
    assert_all_listed(result, expected)
    unassigned = await run_tool("list_change_requests", assigned_to="nobody", limit=1)
    assert unassigned.total == len(demo_sql("SELECT number FROM change_requests WHERE assigned_to = ''"))
    assert unassigned.message.endswith("showing the 1 with the latest planned start.")


async def test_opened_before_a_past_day_applies_no_start(run_tool: RunTool, demo_sql: DemoSql) -> None:
    last_monday = DEMO_NOW.replace(hour=0, minute=0) - timedelta(days=4)  # DEMO_NOW is a Friday
    result = await run_tool("list_incidents", state="all", opened_within="before monday", max_rows=50)
    expected = incidents(demo_sql, "opened_min < ?", minutes_from_now(last_monday))
    assert_all_listed(result, expected)
    assert len(expected) > len(incidents(demo_sql, "opened_min < ? AND opened_min >= ?", minutes_from_now(last_monday),
                                         minutes_from_now(last_monday - timedelta(days=7)))), \
        "the demo data has incidents opened more than a week before Monday, or this proves nothing"
    assert "opened before 2025-01-06T00:00Z" in result.message
