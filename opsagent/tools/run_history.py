"""A pipeline's history in the envelope: how long its runs usually take, how a run compares, and its
earlier failures grouped by error ("has it failed like this before?").

Sits between ``get_pipeline_history`` (``tools/log_analytics.py``) and ``PipelineRunsBackend.
pipeline_history``: the backend returns the runs and the groups; here the durations of recent
successful runs become a median and a spread, the run asked about is placed against them, and
everything becomes one row (with nested parts) and a message that states the history searched.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from opsagent.backends.base import FailureGroup, PipelineHistory, PipelineRun
from opsagent.backends.pipeline_records import squashed
from opsagent.tools.pipeline_rows import split_target
from opsagent.tools.rendering import iso_minute, shorten

MAX_GROUPS = 8
"""At most this many kinds of failure are shown (most frequent first; the one like the run always)."""
_MESSAGE_CHARS = 140


@dataclass(frozen=True)
class DurationStats:
    """Durations in minutes of recent successful runs: median, the middle half (p25-p75), and the extremes."""

    count: int
    median: float
    p25: float
    p75: float
    shortest: float
    longest: float

    @classmethod
    def of(cls, minutes: Sequence[float]) -> DurationStats | None:
        if not minutes:
            return None
        quartiles = statistics.quantiles(minutes, n=4, method="inclusive") if len(minutes) > 1 else [minutes[0]] * 3
        return cls(count=len(minutes), median=round(statistics.median(minutes), 1), p25=round(quartiles[0], 1),
                   p75=round(quartiles[2], 1), shortest=min(minutes), longest=max(minutes))

    def as_row(self) -> dict[str, Any]:
        return {"successful_runs": self.count, "median_min": self.median, "p25_min": self.p25, "p75_min": self.p75,
                "shortest_min": self.shortest, "longest_min": self.longest}

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> DurationStats:
        """Back from ``as_row`` (a history row's ``durations``)."""
        return cls(count=row["successful_runs"], median=row["median_min"], p25=row["p25_min"], p75=row["p75_min"],
                   shortest=row["shortest_min"], longest=row["longest_min"])

    def place(self, minutes: float) -> Literal["longer", "shorter", "within"]:
        """Where a run's minutes fall against the middle half of the successful runs."""
        return "longer" if minutes > self.p75 else "shorter" if minutes < self.p25 else "within"

    def compare(self, minutes: float, *, running: bool = False) -> str:
        """"1.8x the median: longer than any of the 20 recent successful runs"; a run still going has only run
        that long so far: it is not short, and it is "already" long."""
        place = self.place(minutes)
        ratio = f"{minutes / self.median:.1f}x the median" if self.median else "the median is 0 min"
        if running and place != "longer":
            return f"{ratio} so far: still running, not past the usual range yet"
        if minutes > self.longest or minutes < self.shortest:  # beyond the extremes, so beyond the middle half
            where = f"{place} than any of the {self.count} recent successful runs"
        elif place == "longer":
            where = "longer than usual (above the middle half)"
        elif place == "shorter":
            where = "shorter than usual (below the middle half)"
        else:
            where = "within the usual range (the middle half)"
        return f"{ratio}{' so far' if running else ''}: {'already ' if running else ''}{where}"


def run_minutes(run: PipelineRun, now: datetime) -> tuple[float, bool]:
    """How long the run took, or has been running so far; and whether it is still going."""
    if run.duration_minutes is not None:
        return run.duration_minutes, False
    return round(max((now - run.start).total_seconds(), 0) / 60, 1), True


def is_like(group: FailureGroup, run: PipelineRun) -> bool:
    """The run failed with this group's error (code, activity and failure type)."""
    activity, _ = split_target(run.error_message)
    return run.status == "Failed" and (group.error_code, group.failed_activity, group.failure_type) == (
        run.error_code, activity, run.failure_type)


def has_error_text(group: FailureGroup, text: str) -> bool:
    """The group's code, activity, failure type or message holds ``text`` (any case, spacing and punctuation)."""
    return squashed(text) in squashed(" ".join((group.error_code, group.failed_activity, group.failure_type,
                                                   group.error_message)))


def history_row(history: PipelineHistory, run: PipelineRun, *, now: datetime, max_groups: int,
                error_text: str = "") -> dict[str, Any]:
    """The history as one row: the last failure and success, the durations, the run compared, and the most
    frequent failure groups (the one like the run kept), so the row always fits the envelope. With
    ``error_text``, the groups are those whose error holds it, and the row says what was looked for."""
    stats = DurationStats.of([item.duration_minutes for item in history.recent_successes
                              if item.run_id != run.run_id and item.duration_minutes is not None])
    minutes, running = run_minutes(run, now)
    matched = [group for group in history.failure_groups if has_error_text(group, error_text)] if error_text else []
    return {
        "pipeline_name": history.pipeline_name, "factory": history.factory,
        "searched_from": iso_minute(history.searched_from), "searched_to": iso_minute(history.searched_to),
        "runs_searched": history.runs, "last_failure": _failure(history.last_failure),
        "last_success": _brief(history.last_success), "durations": stats.as_row() if stats else None,
        "run": _brief(run) | {"running_for_min" if running else "duration_min": minutes,
                              "compared": stats.compare(minutes, running=running) if stats
                              else "no successful run to compare with"},
        "failure_groups": [_group(group, run) for group in (
            matched[:min(max_groups, MAX_GROUPS)] if error_text else shown_groups(history, run, max_groups))],
    } | ({"error_text": error_text, "failures_with_error_text": sum(group.count for group in matched),
          "kinds_with_error_text": len(matched)} if error_text else {})


def shown_groups(history: PipelineHistory, run: PipelineRun, most: int) -> list[FailureGroup]:
    """The ``most`` most frequent failure groups, the one like ``run`` among them even when it is rarer."""
    most = min(most, MAX_GROUPS)
    shown = history.failure_groups[:most]
    like = next((group for group in history.failure_groups if is_like(group, run)), None)
    if like is not None and like not in shown:
        shown = [*shown[: most - 1], like]
    return shown


def _brief(run: PipelineRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {"run_id": run.run_id, "status": run.status, "start": iso_minute(run.start), "end": iso_minute(run.end),
            "duration_min": run.duration_minutes}


def _failure(run: PipelineRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    activity, error = split_target(run.error_message)
    return _brief(run) | {"error_code": run.error_code, "failed_activity": activity,
                          "error_message": shorten(error, _MESSAGE_CHARS)}


def _group(group: FailureGroup, run: PipelineRun) -> dict[str, Any]:
    _, error = split_target(group.error_message)
    return {"error_code": group.error_code, "failed_activity": group.failed_activity,
            "failure_type": group.failure_type, "count": group.count, "first_seen": iso_minute(group.first_seen),
            "last_seen": iso_minute(group.last_seen), "starts": [iso_minute(start) for start in group.starts],
            "last_run_id": group.last_run_id,
            "error_message": shorten(error, _MESSAGE_CHARS), "like_the_run": is_like(group, run)}


def history_message(history: PipelineHistory, row: dict[str, Any], *, which: str) -> str:
    """What the history says, in three or four sentences, with the history searched first."""
    days = (history.searched_to - history.searched_from).total_seconds() / 86400
    parts = [f"{history.pipeline_name}: {history.runs} runs in the history searched ({row['searched_from']} to "
             f"{row['searched_to']}, {days:g} days)."]
    failure, success = row["last_failure"], row["last_success"]
    parts.append(f"Last failure {failure['start']} ({failure['error_code']} in {failure['failed_activity'] or '?'})."
                 if failure else "No failure in that history.")
    parts.append(f"Last success {success['start']}." if success else "No success in that history.")
    run, durations = row["run"], row["durations"]
    took = (f"running for {run['running_for_min']} min so far" if "running_for_min" in run
            else f"took {run['duration_min']} min")
    usual = (f"; successful runs take {durations['median_min']} min (median of {durations['successful_runs']}, middle "
             f"half {durations['p25_min']}-{durations['p75_min']} min): {run['compared']}" if durations else "")
    parts.append(f"{which} ({run['status']}, started {run['start']}) {took}{usual}.")
    like = next((group for group in row["failure_groups"] if group["like_the_run"]), None)
    if row.get("error_text") and not row["failures_with_error_text"]:  # nothing matched: said first
        parts.insert(0, f"No failure of {history.pipeline_name} whose error holds {row['error_text']!r} in the "
                        f"history searched ({row['searched_from'][:10]} to {row['searched_to'][:10]}).")
    elif row.get("error_text"):
        kinds = row["kinds_with_error_text"]
        parts.append(f"{row['failures_with_error_text']} failures whose error holds {row['error_text']!r} in that "
                     f"history, in {kinds} kind{'s' if kinds != 1 else ''}.")
    elif like:
        parts.append(f"{like['count']} failures with this error ({like['error_code']} in {like['failed_activity']}) "
                     f"in that history, this run included; first {like['first_seen']}.")
    if len(history.failure_groups) > len(row["failure_groups"]) and not row.get("error_text"):
        parts.append(f"{len(history.failure_groups)} kinds of failure; the {len(row['failure_groups'])} most frequent "
                     "are shown.")
    return " ".join(parts)
