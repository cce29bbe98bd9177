"""Shared shaping of tool output: the envelope, row caps, messages, and backend-error mapping.

Sits at the bottom of every tool in ``tools/``: a tool parses its arguments, asks its backend, and
hands rows to these helpers, which build the ``ToolResult`` envelope (``envelope.py``). Every
tool body runs inside ``ToolCall.run``, the one place where ``BackendError`` subclasses and bad
arguments become readable results (a tool never raises), and ``ToolCall.rows`` keeps every
result under the size budget.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from opsagent.backends.base import Page, RecordT
from opsagent.errors import (
    BackendAuthError,
    BackendError,
    BackendNotFoundError,
    BackendResponseError,
    BackendUnavailableError,
)
from opsagent.contracts.tool_result import ErrorKind, ToolResult
from opsagent.tools.timewindow import TimeWindow, resolve_time_point, resolve_time_window

logger = logging.getLogger(__name__)

TEXT_CHARS = 300
"""Free-text fields (descriptions, error messages) are cut to about this many characters (at a clause)."""
MAX_OUTPUT_CHARS = 7000
"""Hard budget for one tool's text; rows are dropped from the end to stay under it."""
_HAS_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ArgumentError(ValueError):
    """The model passed an argument the tool cannot use; the message names the accepted values."""


def identity(row: dict[str, Any]) -> str:
    """The id a reader would use for a row: its number, run id, pipeline, title or name."""
    return next((str(row[key]) for key in ("number", "run_id", "pipeline_name", "title", "name") if row.get(key)), "")


def iso_minute(value: datetime | None) -> str | None:
    """``2025-01-10T02:15Z``: UTC, minute precision; ``None`` stays ``None``."""
    return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


_CLAUSE_ENDS = (". ", "; ", ": ", ", ", " - ", " (")


def shorten(text: str, limit: int = TEXT_CHARS) -> str:
    """Collapse whitespace and cut to ``limit`` characters at a sentence or clause boundary.

    Error texts put the cause late ("… the self-hosted integration runtime 'vm-shir-01' is offline");
    cutting mid-word just before it hides exactly what the reader needs, so the cut falls at the last
    clause boundary in the second half of the budget (else the last word), marked with an ellipsis.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    window = flat[: limit - 2]
    boundary = max(window.rfind(mark) + (1 if mark.startswith((".", ";", ":", ",")) else 0) for mark in _CLAUSE_ENDS)
    if boundary < limit // 2:
        boundary = window.rfind(" ")
    return (window[:boundary] if boundary > 0 else window).rstrip(" ,;:-(") + " …"


_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def shorten_sentences(text: str, limit: int = TEXT_CHARS) -> str:
    """Like ``shorten``, but cut after the last whole sentence that fits (when one ends in the last
    two thirds of the budget): notes and descriptions read best as whole sentences."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    ends = [match.end() for match in _SENTENCE_END.finditer(flat[: limit - 2])]
    if ends and ends[-1] >= limit // 3:
        return flat[: ends[-1]] + " …"
    return shorten(flat, limit)


def window_json(window: TimeWindow) -> dict[str, str | None]:
    return {"phrase": window.label, "start": iso_minute(window.start), "end": iso_minute(window.end)}


def window_words(window: TimeWindow) -> str:
    """``"last 24 hours (2025-01-09T09:30Z to 2025-01-10T09:30Z)"``; a phrase made of dates is not repeated."""
    span = f"{iso_minute(window.start)} to {iso_minute(window.end)}"
    return span if _HAS_DATE.search(window.label) else f"{window.label} ({span})"


ANCHORED_LABEL = ("since ", "from ", "between ", "after ", "before ", "until ")


def window_after(preposition: str, window: TimeWindow) -> str:
    """"in last 24 hours (…)", but "since yesterday 6pm (…)": an anchored window brings its own word."""
    words = window_words(window)
    shown = not _HAS_DATE.search(window.label)  # a label made of dates is not shown, so it brings no word
    return words if shown and window.label.lower().startswith(ANCHORED_LABEL) else f"{preposition} {words}"


def parse_window(phrase: str, now: datetime, *, argument: str) -> TimeWindow:
    """``resolve_time_window`` with the failure turned into an ``ArgumentError`` naming the argument."""
    try:
        return resolve_time_window(phrase, now)
    except ValueError as error:
        raise ArgumentError(f"{argument}: {error}") from error


def parse_point(phrase: str, now: datetime, *, argument: str) -> datetime:
    """``resolve_time_point`` with the failure turned into an ``ArgumentError`` naming the argument."""
    try:
        return resolve_time_point(phrase, now)
    except ValueError as error:
        raise ArgumentError(f"{argument}: {error}") from error


def clamp_limit(limit: int | None, max_rows: int, warnings: list[str]) -> int:
    """The number of rows to ask for: ``limit`` if given, never above the configured cap."""
    if limit is None:
        return max_rows
    if limit < 1:
        raise ArgumentError(f"limit: must be 1 or more (got {limit}); the cap is {max_rows}.")
    if limit > max_rows:
        warnings.append(f"limit {limit} reduced to the cap of {max_rows} rows.")
    return min(limit, max_rows)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def count_message(total: int, shown: int, noun: str, *, detail: str = "", order: str = "most recent") -> str:
    """"22 open incidents (priority 2); showing the 20 most recent." / "No failed runs found." """
    if total == 0:
        return f"No {noun}s{detail} found."
    if shown >= total:
        return f"{plural(total, noun)}{detail}."
    return f"{plural(total, noun)}{detail}; showing the {shown} {order}."


def _with_unreadable_note(message: str | Callable[[int], str], unreadable: int) -> str | Callable[[int], str]:
    """``message`` followed by "2 more matching records could not be read and were skipped." when some were."""
    if not unreadable:
        return message
    verb = "was" if unreadable == 1 else "were"
    note = f" {plural(unreadable, 'more matching record')} could not be read and {verb} skipped."
    return lambda shown: (message(shown) if callable(message) else message) + note


@dataclass
class ToolCall:
    """One invocation of one tool: what it searched, for the envelope and for error messages.

    Built fresh inside each tool call (never shared), so the tool body may fill in ``query`` and
    ``subject`` as it resolves its arguments.
    """

    tool: str
    source: str
    system: str
    """Human name of the backend system for messages: "ServiceNow", "Log Analytics", "Databricks status"."""
    query: dict[str, Any] = field(default_factory=dict)
    subject: str = "matching record"
    """What a not-found result says was missing: "incident INC0099999"."""
    warnings: list[str] = field(default_factory=list)

    def rows(
        self,
        items: Sequence[dict[str, Any]],
        *,
        total: int,
        message: str | Callable[[int], str],
        backend_warnings: Sequence[str] = (),
        budget: int = MAX_OUTPUT_CHARS,
    ) -> ToolResult:
        """An ``ok`` (``no_data`` when empty) envelope for rows already capped by the backend.

        Rows are dropped from the end (and the drop is reported) until the text fits ``budget``;
        ``message`` may be a function of the number of rows finally shown, so it stays true.
        """
        shown = list(items)
        while True:
            dropped = len(items) - len(shown)
            notes = [f"{dropped} more rows left out to keep the answer short; narrow the query."] if dropped else []
            result = ToolResult(
                tool=self.tool,
                status="ok" if shown else "no_data",
                source=self.source,
                query=self.query,
                total=max(total, len(items)),
                shown=len(shown),
                truncated=max(total, len(items)) > len(shown),
                items=shown,
                message=message(len(shown)) if callable(message) else message,
                warnings=[*self.warnings, *backend_warnings, *notes],
            )
            if not shown or len(result.to_text()) <= budget:
                return result
            shown = shown[:-1]

    def page_rows(
        self, page: Page[RecordT], render: Callable[[RecordT], dict[str, Any]], message: str | Callable[[int], str]
    ) -> ToolResult:
        """``rows`` for a backend ``Page``: each record rendered, the page's total and warnings kept.

        Records the backend could not read are said in the message, so the counts add up: an error
        when none could be read (not "4 incidents; showing the 0 most recent"), else a note.
        """
        if page.unreadable and not page.items:
            failed = self.error("bad_response", f"{self.system} returned {plural(page.unreadable, 'matching record')}, "
                                "but none could be read.", detail="; ".join(page.warnings))
            return failed.model_copy(update={"total": page.total, "truncated": True})
        return self.rows([render(item) for item in page.items], total=page.total,
                         message=_with_unreadable_note(message, page.unreadable), backend_warnings=page.warnings)

    def window(self, argument: str, phrase: str, now: datetime) -> TimeWindow:
        """Resolve a time phrase argument and record the resolved window in ``query``."""
        window = parse_window(phrase, now, argument=argument)
        self.query[argument] = window_json(window)
        return window

    def point(self, argument: str, phrase: str, now: datetime) -> datetime:
        """Resolve a time point argument and record the moment in ``query``."""
        moment = parse_point(phrase, now, argument=argument)
        self.query[argument] = {"asked": phrase, "point": iso_minute(moment)}
        return moment

    def error(self, kind: ErrorKind | None, message: str, *, detail: str = "") -> ToolResult:
        warnings = [*self.warnings, detail] if detail and detail not in message else list(self.warnings)
        return ToolResult(
            tool=self.tool,
            status="error",
            source=self.source,
            query=self.query,
            message=message,
            error_kind=kind,
            warnings=warnings,
        )

    def backend_error(self, error: BackendError) -> ToolResult:
        """One readable result per kind of backend failure (each subclass handled on its own)."""
        system = error.backend or self.system
        if isinstance(error, BackendAuthError):
            return self.error("not_authorised", f"Not authorised for {system} (check credentials).", detail=error.message)
        if isinstance(error, BackendNotFoundError):
            return self.error("not_found", f"No {self.subject} found in {system}.")
        if isinstance(error, BackendUnavailableError):
            text = f"{system} is unavailable (retried with backoff, still failing): {error.message}"
            return self.error("unavailable", shorten(text))
        if isinstance(error, BackendResponseError):
            return self.error("bad_response", shorten(f"{system} sent a response that could not be read: {error.message}"))
        return self.error("unavailable", shorten(f"{system} failed: {error.message}"))

    async def run(self, work: Callable[[], Awaitable[ToolResult]]) -> str:
        """Run the tool body and map bad arguments and backend errors to results: never raises."""
        try:
            result = await work()
        except ArgumentError as error:
            result = self.error("bad_arguments", str(error))
        except BackendError as error:
            result = self.backend_error(error)
        except Exception:  # a tool never raises: the model gets a result, the log gets the trace
            logger.exception("tool %s failed unexpectedly", self.tool)
            result = self.error(None, f"{self.tool} failed unexpectedly; the failure was logged.")
        return result.to_text()
