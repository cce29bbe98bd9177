"""Answers from the tools of the past (``ToolSpec.past``): a pipeline's history and incidents like one.

The ask's cues pick what leads: the last failure or success ("when did pl_x last fail?"), the latest run against
its usual duration ("is it slow?"), earlier failures like one ("failed like this before?"), or past incidents and
what fixed them ("seen this before?"). The rest of the history stays in the facts. Yes or no only where the row
decides it: a duration's place in the usual range, whether earlier failures of that kind or look-alikes exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opsagent.contracts.evidence import ToolEvidence
from opsagent.intake.asks import SHAPES
from opsagent.local_model.reading import Reading
from opsagent.local_model.templates import PartAnswer, clause, first_sentence, label, leads_yes_no, when, yes_no
from opsagent.tools.catalog import tool_spec
from opsagent.tools.rendering import plural
from opsagent.tools.run_history import DurationStats

MAX_SHOWN = 3
YES_NO = dict(SHAPES)["yes_no"]
Row = Mapping[str, Any]


def past_answer(reading: Reading, item: ToolEvidence, *, lead: bool) -> PartAnswer:
    if not item.rows:  # "has pl_x failed with 'X' before?" and no failure holds X: a no
        spec = tool_spec(item.tool)
        searched = spec is not None and any(item.arguments.get(text.parameter) for text in spec.filters_of("text"))
        return PartAnswer(yes_no(False if searched and leads_yes_no(reading, lead) else None,
                                 first_sentence(item.message) if item.message else "Nothing found."))
    if "last_failure" in item.rows[0]:
        return _history(reading, item.rows[0], lead=lead)
    return _similar(reading, item, lead=lead)


def _similar(reading: Reading, item: ToolEvidence, *, lead: bool) -> PartAnswer:
    """"2 past incidents like INC…: INC… (Resolved 2025-01-07 21:00 UTC, same CI): … — fixed: …"."""
    rows = item.rows
    like = next((str(value) for value in item.arguments.values() if value), "it")
    said = "; ".join(f"{row.get('number')} ({row.get('state')}{' ' + when(row['resolved_at']) if row.get('resolved_at') else ''}"
                     f"): {clause(row.get('short_description'), 120)}"
                     f"{' — fixed: ' + clause(row['fix'], 200).rstrip('.') if row.get('fix') else ''}" for row in rows[:MAX_SHOWN])
    sentence = f"{len(rows)} past incident{'s' if len(rows) != 1 else ''} like {like}: {said}."
    facts = [f"{label(row)}{' — ' + '; '.join(row['matched']) if row.get('matched') else ''}" for row in rows]
    return PartAnswer(yes_no(True if leads_yes_no(reading, lead) else None, sentence), facts)


def _run(run: Row | None) -> str:
    if not run:
        return ""
    took = f", took {run['duration_min']} min" if run.get("duration_min") is not None else ""
    error = f", {run['error_code']} in {run.get('failed_activity') or '?'}: {clause(run.get('error_message'), 200)}" \
        if run.get("error_code") else ""
    return f"{when(run.get('start'))} (run {run.get('run_id')}{took}{error})"


def _durations(row: Row) -> tuple[str, str]:
    """(the latest run against the usual, the verdict word: longer, shorter, within or "")."""
    run, stats = row.get("run") or {}, row.get("durations")
    took = f"has been running for {run['running_for_min']} min" if run.get("running_for_min") is not None \
        else f"took {run.get('duration_min')} min"
    sentence = f"The latest run of {row['pipeline_name']} ({run.get('status')}, started {when(run.get('start'))}) {took}"
    if not stats:
        return f"{sentence}; there is no successful run to compare it with.", ""
    minutes = run.get("running_for_min", run.get("duration_min"))
    verdict = DurationStats.from_row(stats).place(minutes) if isinstance(minutes, (int, float)) else ""
    return (f"{sentence}; its successful runs take {stats['median_min']} min (median of {stats['successful_runs']}, "
            f"middle half {stats['p25_min']}-{stats['p75_min']} min): {run.get('compared', '')}.", verdict)


def _like(row: Row) -> Row | None:
    """The failure group the ask points at: the one holding the error words asked about, else the latest run's,
    else the last failure's."""
    groups = row.get("failure_groups") or []
    if row.get("error_text"):
        return groups[0] if groups else None
    failure = row.get("last_failure") or {}
    return next((group for group in groups if group.get("like_the_run")), None) or next(
        (group for group in groups if failure and group.get("last_run_id") == failure.get("run_id")), None)


def _earlier(row: Row) -> tuple[str, bool | None]:
    """Earlier failures like the latest one: (sentence, whether there were any, when that is clear)."""
    group, days = _like(row), f"{row.get('searched_from', '')[:10]} to {row.get('searched_to', '')[:10]}"
    said = f" with {row['error_text']!r}" if row.get("error_text") else ""
    if group is None:
        return f"{row['pipeline_name']} has no failure{said} in the history searched ({days}).", False
    count, what = int(group.get("count", 0)), f"{group.get('error_code')} in {group.get('failed_activity') or '?'}"
    if count <= 1 and not said:  # a "no" only about the latest run's failure: "like this" after a success points at nothing
        return (f"The failure of {row['pipeline_name']} at {when(group.get('last_seen'))} is its only one with {what} "
                f"in the history searched ({days}).", False if group.get("like_the_run") else None)
    earlier = [when(start) for start in (group.get("starts") or [])[1:]]
    first = "" if len(earlier) + 1 >= count else f", the first at {when(group.get('first_seen'))}"
    listed = f"; before it at {', '.join(earlier)}{first}" if earlier else first
    return (f"{row['pipeline_name']} has {count} failures with {what} in the history searched ({days}), the latest at "
            f"{when(group.get('last_seen'))}{listed}.", True)


def _history(reading: Reading, row: Row, *, lead: bool) -> PartAnswer:
    failed = row.get("last_failure")
    statuses = {value for name, value in reading.values if name == "run_status"}
    last_failure = (f"{row['pipeline_name']} last failed at {_run(failed)}." if failed else
                    f"{row['pipeline_name']} has not failed in the history searched.")
    last_success = (f"{row['pipeline_name']} last succeeded at {_run(row['last_success'])}." if row.get("last_success")
                    else f"{row['pipeline_name']} has not succeeded in the history searched.")
    durations, verdict = _durations(row)
    earlier, any_earlier = _earlier(row)
    value: bool | None = None
    if reading.cues & {"usual", "slower"}:  # a yes or no only when the run could be placed
        first = durations
        value = None if not verdict else verdict == "longer" if "slower" in reading.cues else verdict == "within"
    elif "past" in reading.cues:
        first, value = earlier, any_earlier
    elif "Succeeded" in statuses and "Failed" not in statuses:
        first = last_success
    else:
        first = last_failure
    asks_yes_no = leads_yes_no(reading, lead) or lead and bool(YES_NO.match(reading.ask.text))  # "is it slower than…?"
    value = value if asks_yes_no else None
    facts = [sentence for sentence in (last_failure, last_success, durations, earlier) if sentence != first]
    facts += [f"{plural(group.get('count'), 'failure')} with {group.get('error_code')} in {group.get('failed_activity') or '?'} "
              f"(last {when(group.get('last_seen'))}): {clause(group.get('error_message'), 160)}"
              for group in row.get("failure_groups") or []]
    return PartAnswer(yes_no(value, first), facts)
