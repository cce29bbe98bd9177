"""Shared envelope helpers: caps, messages, the size budget and the BackendError mapping."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from opsagent.errors import (
    BackendAuthError,
    BackendError,
    BackendNotFoundError,
    BackendResponseError,
    BackendUnavailableError,
)
from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.rendering import (
    ArgumentError,
    ToolCall,
    clamp_limit,
    count_message,
    iso_minute,
    shorten,
    window_words,
)
from opsagent.tools.timewindow import resolve_time_window


def test_iso_minute_is_utc_minute_precision() -> None:
    cet = timezone(timedelta(hours=1))
    assert iso_minute(datetime(2025, 1, 10, 3, 15, 59, tzinfo=cet)) == "2025-01-10T02:15Z"
    assert iso_minute(None) is None


def test_shorten_collapses_whitespace_and_marks_the_cut() -> None:
    assert shorten("a  b\n c") == "a b c"
    cut = shorten("x" * 300, 200)
    assert len(cut) <= 200 and cut.endswith("…")


def test_shorten_cuts_at_a_clause_not_mid_cause() -> None:
    text = ("Failure happened on the source side, the copy activity could not connect; "
            "the self-hosted integration runtime 'vm-shir-01' is offline since the upgrade window began")
    cut = shorten(text, 120)
    assert cut == "Failure happened on the source side, the copy activity could not connect …"
    assert shorten(text, len(text)) == text


def test_clamp_limit_caps_and_warns() -> None:
    warnings: list[str] = []
    assert clamp_limit(None, 20, warnings) == 20
    assert clamp_limit(5, 20, warnings) == 5
    assert warnings == []
    assert clamp_limit(50, 20, warnings) == 20
    assert warnings == ["limit 50 reduced to the cap of 20 rows."]
    with pytest.raises(ArgumentError, match="must be 1 or more"):
        clamp_limit(0, 20, warnings)


def test_window_words_state_the_resolved_window() -> None:
    now = datetime(2025, 1, 10, 9, 30, tzinfo=timezone.utc)
    assert window_words(resolve_time_window("last 24 hours", now)) == (
        "last 24 hours (2025-01-09T09:30Z to 2025-01-10T09:30Z)")
    assert window_words(resolve_time_window("since 2025-01-09T18:00Z", now)) == "2025-01-09T18:00Z to 2025-01-10T09:30Z"


@pytest.mark.parametrize(
    ("total", "shown", "expected"),
    [
        (0, 0, "No open incidents (p1) found."),
        (1, 1, "1 open incident (p1)."),
        (3, 3, "3 open incidents (p1)."),
        (22, 20, "22 open incidents (p1); showing the 20 most recent."),
    ],
    ids=["none", "one", "all-shown", "truncated"],
)
def test_count_message(total: int, shown: int, expected: str) -> None:
    assert count_message(total, shown, "open incident", detail=" (p1)") == expected


@pytest.mark.parametrize(
    ("error", "kind", "fragment"),
    [
        (BackendAuthError("401", backend="ServiceNow"), "not_authorised", "Not authorised for ServiceNow (check credentials)."),
        (BackendNotFoundError("404", backend="ServiceNow"), "not_found", "No incident INC0099999 found in ServiceNow."),
        (BackendUnavailableError("HTTP 503", backend="ServiceNow"), "unavailable", "retried"),
        (BackendResponseError("not JSON", backend="ServiceNow"), "bad_response", "could not be read: not JSON"),
        (BackendError("odd", backend="ServiceNow"), "unavailable", "ServiceNow failed: odd"),
    ],
    ids=["auth", "not-found", "unavailable", "bad-response", "base-class"],
)
async def test_tool_call_run_maps_each_backend_error(error: BackendError, kind: str, fragment: str) -> None:
    call = ToolCall("get_incident", "real", "ServiceNow", query={"number": "INC0099999"}, subject="incident INC0099999")

    async def work() -> ToolResult:
        raise error

    result = ToolResult.from_text(await call.run(work))
    assert result is not None
    assert (result.status, result.error_kind) == ("error", kind)
    assert fragment in result.message
    assert result.query == {"number": "INC0099999"}


async def test_tool_call_run_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    call = ToolCall("list_incidents", "demo", "ServiceNow")

    async def work() -> ToolResult:
        raise RuntimeError("secret detail")

    result = ToolResult.from_text(await call.run(work))
    assert result is not None and result.status == "error"
    assert "secret detail" not in result.message
    assert "failed unexpectedly" in caplog.text


async def test_tool_call_run_reports_bad_arguments() -> None:
    call = ToolCall("list_incidents", "demo", "ServiceNow")

    async def work() -> ToolResult:
        raise ArgumentError("state: unknown value 'x'")

    result = ToolResult.from_text(await call.run(work))
    assert result is not None
    assert (result.error_kind, result.message) == ("bad_arguments", "state: unknown value 'x'")


def test_rows_drop_trailing_rows_to_fit_the_budget_and_keep_the_message_true() -> None:
    call = ToolCall("list_incidents", "demo", "ServiceNow")
    items = [{"n": index, "text": "x" * 200} for index in range(20)]
    result = call.rows(items, total=30, message=lambda shown: f"showing {shown}", budget=2000)
    assert len(result.to_text()) <= 2000
    assert 0 < result.shown < 20 and result.items == items[: result.shown]
    assert result.truncated and result.total == 30
    assert result.message == f"showing {result.shown}"
    assert any("left out" in warning for warning in result.warnings)


def test_rows_empty_is_no_data() -> None:
    result = ToolCall("list_incidents", "demo", "ServiceNow").rows([], total=0, message="No incidents found.")
    assert (result.status, result.shown, result.truncated) == ("no_data", 0, False)
