"""What the Data Factory tools' arguments mean: run ids, pipeline and factory filters, "the run around a time".

Sits between the Log Analytics tools (``tools/log_analytics.py``) and ``PipelineRunsBackend``:
names and ids are checked before any query, a time point becomes the reach searched around it,
and each resolved argument is recorded in the envelope's ``query`` and said in words, so an
answer states what was searched (and what a not-found result was missing).
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from opsagent.backends.base import AROUND_TOLERANCE, PipelineRun
from opsagent.tools.identifiers import TICKET
from opsagent.tools.rendering import ArgumentError, ToolCall, iso_minute, parse_point
from opsagent.tools.timewindow import TimeWindow
from opsagent.backends.pipeline_records import squashed

_FACTORY_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
"""Data Factory names: letters, digits and hyphens, starting and ending with a letter or digit."""
_HOURS = f"{AROUND_TOLERANCE.total_seconds() / 3600:g} h"


def note_future(call: ToolCall, window: TimeWindow, now: datetime) -> None:
    """Runs cannot have happened after now: an empty answer for a future window proves nothing yet."""
    if window.start > now:
        call.warnings.append(f"The whole window is after now ({iso_minute(now)}): these runs have not happened yet.")


def validate_run_id(run_id: str) -> str:
    try:
        return str(uuid.UUID(run_id.strip()))
    except ValueError as error:
        raise ArgumentError(
            f"run_id: {run_id!r} is not a run id (a UUID: 8-4-4-4-12 hexadecimal digits); "
            "never guess one, list first with list_failed_pipelines."
        ) from error


def pipeline_filters(pipeline_name: str | None, factory: str | None) -> tuple[str | None, str | None]:
    """Blank filters are no filters; a factory must look like a Data Factory name; a pipeline name is no ticket
    ("CHG… (firewall)": a model that confused them gets told, not an empty list that reads as "none failed")."""
    name = pipeline_name.strip() if pipeline_name and pipeline_name.strip() else None
    if name and TICKET.search(name):  # a ticket's id is never part of a pipeline's name
        raise ArgumentError(f"pipeline_name: {pipeline_name!r} names a ServiceNow record, not a pipeline; for the runs "
                            "in a change's window, look the change up and pass its window as time_window.")
    factory_name = factory.strip() if factory and factory.strip() else None
    if factory_name and not _FACTORY_NAME.fullmatch(factory_name):
        raise ArgumentError(f"factory: {factory!r} is not a Data Factory name (letters, digits and hyphens); "
                            "give the factory's name, not a region or a description.")
    return name, factory_name


def filter_words(pipeline_name: str | None, factory: str | None, *, matching: str) -> str:
    """`` of pipelines matching 'sales' in factory 'adf-x'`` (``matching``: "of pipelines matching"), or ``""``."""
    words = f" {matching} {pipeline_name!r}" if pipeline_name else ""
    return words + (f" in factory {factory!r}" if factory else "")


def error_words_given(error_text: str | None) -> str | None:
    """The words of an error to filter by, or ``None`` when there are none to match (empty, or only punctuation)."""
    words = (error_text or "").strip()
    return words if squashed(words) else None


def error_words(error_text: str | None) -> str:
    """`` whose error holds 'timeout'``, or ``""``."""
    return f" whose error holds {error_text!r}" if error_text else ""


def around_point(call: ToolCall, around: str | None, *, wanted_id: str | None, now: datetime) -> datetime | None:
    """The time point to search around (recorded in ``call.query``), or ``None``."""
    if not around or not around.strip():
        return None
    if wanted_id:
        call.warnings.append(f"around {around!r} ignored: run_id names the run.")
        return None
    point = parse_point(around, now, argument="around")
    call.query["around"] = {
        "asked": around, "point": iso_minute(point),
        "searched_from": iso_minute(point - AROUND_TOLERANCE), "searched_to": iso_minute(point + AROUND_TOLERANCE),
    }
    return point


def run_subject(wanted_id: str | None, name: str | None, point: datetime | None) -> str:
    """What a not-found result says was missing, with what was searched."""
    if wanted_id:
        return f"pipeline run {wanted_id}"
    if point is None:
        return f"runs of pipeline {name!r}"
    return (f"run of pipeline {name!r} starting between {iso_minute(point - AROUND_TOLERANCE)} and "
            f"{iso_minute(point + AROUND_TOLERANCE)} (within {_HOURS} of {iso_minute(point)})")


def which_run(run: PipelineRun, *, wanted_id: str | None, point: datetime | None) -> str:
    """"Latest run of X", "Run of X", or "Run of X closest to <time>, 12 min after it"."""
    if wanted_id:
        return f"Run of {run.pipeline_name}"
    if point is None:
        return f"Latest run of {run.pipeline_name}"
    minutes = round((run.start - point).total_seconds() / 60)
    if minutes == 0:
        return f"Run of {run.pipeline_name} closest to {iso_minute(point)}, starting at that time"
    side = "after" if minutes > 0 else "before"
    return f"Run of {run.pipeline_name} closest to {iso_minute(point)}, {duration_words(abs(minutes))} {side} it"


def duration_words(minutes: int) -> str:
    """``12 min``, ``2 h``, ``2 h 5 min``."""
    hours, rest = divmod(minutes, 60)
    return " ".join(part for part in (f"{hours} h" if hours else "", f"{rest} min" if rest else "") if part)
