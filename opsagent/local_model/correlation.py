"""A step-2 part answered against what step 1 found: the conclusion across two results.

Three shapes, recognised from the calls themselves, not from the wording:

- per item: one search per value step 1 returned ("open incident for pl_a? for pl_b?…") →
  "3 of the 5 pipelines have one: …; pl_d and pl_e have none";
- inside a window: a search whose time window is a step-1 record's planned window →
  "During CHG…'s window (…): …";
- a reference: a lookup of an id that a step-1 row mentions → "INC… points to CHG…, which is …";
- details of each: lookups of several ids step 1 listed → one sentence per record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.local_model.part_answers import PartAnswer, first_sentence, listing_answer, lower_first, record_answer
from opsagent.local_model.rows import identity, label, row_kind, when
from opsagent.local_model.shapes import Shape

NOUNS = {"pipeline_name": "pipelines", "configuration_item": "configuration items", "number": "tickets",
         "run_id": "runs"}
ASKS_LACK = re.compile(r"\b(?:no|without|lack|lacking|missing|none|not have|don't have|doesn't have|do not have|"
                       r"nobody|no one|not yet|hasn't|haven't|has not|have not|still ha(?:s|ve) no)\b", re.IGNORECASE)
"""A question about the items that lack something ("which of them have no incident?")."""
SEARCH_NOUNS = {"list_incidents": "incident", "list_change_requests": "change", "query_pipeline_status": "run",
                "list_failed_pipelines": "failed run"}


def _producer_values(producers: Sequence[ToolEvidence]) -> dict[str, list[str]]:
    """Field → the distinct values step 1 returned, in row order."""
    values: dict[str, list[str]] = {}
    for item in producers:
        for row in item.rows:
            for key in NOUNS:
                if isinstance(row.get(key), str) and row[key] not in values.setdefault(key, []):
                    values[key].append(row[key])
    return values


def per_item(text: str, shape: Shape, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence]) -> PartAnswer | None:
    """Which of step 1's items the step-2 searches found something for, and which they did not."""
    values = _producer_values(producers)
    for key, found in values.items():
        searched = {str(value): call for call in calls for value in call.arguments.values() if value in found}
        if len(searched) < 1 or len({call.tool for call in calls}) > 1:
            continue
        noun, thing = NOUNS[key], SEARCH_NOUNS.get(calls[0].tool, "result")
        have = [(value, call) for value, call in searched.items() if call.rows]
        lack = [value for value, call in searched.items() if not call.rows and call.answered]
        opened = "an open " if str(calls[0].arguments.get("state", "")).lower() == "open" else "a matching "
        if ASKS_LACK.search(text) and not unsearched_of(found, searched):
            sentence = _lack_first(have, lack, found, noun, opened, thing)
            facts = [f"{value}: {label(row)}" for value, call in have for row in call.rows[:2]]
            return PartAnswer(sentence, facts)
        parts = []
        if have:
            listed = ", ".join(f"{value} ({', '.join(identity(row) for row in call.rows[:3])})" for value, call in have)
            parts.append(f"{len(have)} of the {len(found)} {noun} have {opened}{thing}: {listed}" if len(found) > 1
                         else f"{listed.split(' (')[0]} has {opened}{thing}: {listed.split(' (', 1)[1][:-1]}")
        elif len(found) == 1:
            parts.append(f"{found[0]} has no {opened.split()[-1]} {thing}")
        else:
            parts.append(f"none of the {len(found)} {noun} has {opened}{thing}")
        selects = shape != "yes_no" and WHICH.search(text.lower()) is not None  # "which have one?": those, only
        if lack and have and not selects:
            parts.append(f"{', '.join(lack)} {'has' if len(lack) == 1 else 'have'} none")
        lead = ("Yes — " if have else "No — ") if shape == "yes_no" else ""
        sentence = lead + "; ".join(parts) + "."
        unsearched = [value for value in found if value not in searched]
        facts = [f"{value}: {label(row)}" for value, call in have for row in call.rows[:2]]
        if lack and have and selects:
            facts.append(f"No {opened.split()[-1]} {thing} found for {', '.join(lack)}")
        if unsearched:
            facts.append(f"Not searched (the search cap was reached): {', '.join(unsearched)}")
        return PartAnswer(upper_first(sentence), facts)
    return None


def unsearched_of(found: Sequence[str], searched: dict[str, ToolEvidence]) -> list[str]:
    return [value for value in found if value not in searched]


def _lack_first(have: Sequence[tuple[str, ToolEvidence]], lack: Sequence[str], found: Sequence[str], noun: str,
                opened: str, thing: str) -> str:
    """"Which of them have no incident?": the ones without first, then the ones with."""
    with_it = "; ".join(f"{value} has {', '.join(identity(row) for row in call.rows[:3])}" for value, call in have)
    if not lack:
        every = "the one" if len(found) == 1 else f"all {len(found)}"
        return f"None — {every} {noun[:-1] if len(found) == 1 else noun} {'has' if len(found) == 1 else 'have'} " \
               f"{opened}{thing}: {with_it}."
    lacking = f"{', '.join(lack)} {'has' if len(lack) == 1 else 'have'} no {opened.split()[-1]} {thing}"
    return f"{lacking}; {with_it}." if have else f"{lacking}."


def upper_first(sentence: str) -> str:
    """A capital first letter, unless the sentence starts with an id ("pl_x has …")."""
    first = sentence.split(" ", 1)[0]
    return sentence if ("_" in first or any(char.isdigit() for char in first)) else sentence[:1].upper() + sentence[1:]


def _window_owner(call: ToolEvidence, producers: Sequence[ToolEvidence]) -> tuple[dict, str] | None:
    """The step-1 record whose times placed the window this call searched, and how ("planned window",
    "the 30 minutes before its start")."""
    windows = [value for value in call.query.values() if isinstance(value, dict) and "start" in value]
    for window in windows:
        start, end = window.get("start"), window.get("end")
        for item in producers:
            for row in item.rows:
                begins, ends = row.get("start_date"), row.get("end_date")
                if not begins:
                    continue
                name = identity(row)  # the exact times follow, so the length needs no number of its own
                if start == begins and end == ends:
                    return row, f"{name}'s planned window"
                if end == begins:
                    return row, f"the time before {name}'s start"
                if start == begins:
                    return row, f"the time after {name}'s start"
                if start == ends:
                    return row, f"the time after {name}'s end"
    return None


def _hits(call: ToolEvidence) -> bool:
    """Rows that found something: a status row counting 0 failures ("0 of 1 runs failed") is not a hit."""
    return any(not isinstance(row.get("failed"), int) or row["failed"] > 0 for row in call.rows)


def inside_window(text: str, shape: Shape, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence]) -> PartAnswer | None:
    """Searches inside windows a step-1 record placed: one sentence per window searched."""
    owned = [(call, owner) for call in calls if (owner := _window_owner(call, producers)) is not None]
    if not owned:
        return None
    found, empty, facts = [], [], []
    for call, (_, how) in owned:
        span = next(value for value in call.query.values() if isinstance(value, dict) and "start" in value)
        window = f"{how} ({when(span.get('start'))} to {when(span.get('end'))})"
        future = next((f" {warning}" for warning in call.warnings if "after now" in warning), "")
        if _hits(call):
            answer = listing_answer(text, "list", call)
            found.append(f"during {window}: {lower_first(answer.sentence)}")
            facts += answer.facts
        else:
            empty.append(f"nothing matched during {window}: {lower_first(first_sentence(call.message))}{future}")
    lead = ("Yes — " if found else "No — ") if shape == "yes_no" or not found else ""
    sentence = "; ".join([*found, *empty])
    return PartAnswer(f"{lead}{sentence[0].upper() if not lead else sentence[0]}{sentence[1:]}", facts)


FINISHED_CHANGE_STATES = ("Review", "Closed", "Canceled")


def reference(text: str, shape: Shape, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence]) -> PartAnswer | None:
    """Step 2 looked up the records a step-1 row names ("the change the incident mentions / waits for")."""
    found = []
    for call in calls:
        if not call.tool.startswith("get_") or not call.rows:
            continue
        wanted = str(call.arguments.get("number") or call.arguments.get("run_id") or "")
        source = next((row for item in producers for row in item.rows
                       if wanted and wanted in json.dumps(row) and identity(row) != wanted), None)
        if source is not None:
            found.append((wanted, call, source))
    if not found:
        return None
    waiting = "wait" in text.lower()
    if waiting and len(found) > 1:  # what a record waits for is the one still to happen
        pending = [item for item in found if item[1].rows[0].get("state") not in FINISHED_CHANGE_STATES]
        found = pending or found
    source = found[0][2]
    verb = "waits for" if waiting else "mentions"
    named = " and ".join(wanted for wanted, _, _ in found)
    records = [record_answer(text, shape, call) for _, call, _ in found]
    sentence = " ".join(record.sentence for record in records)
    return PartAnswer(f"{identity(source)} ({source.get('state', '')}) {verb} {named}: {sentence}",
                      [label(source), *(fact for record in records for fact in record.facts)])


def details_of_each(text: str, shape: Shape, calls: Sequence[ToolEvidence],
                    producers: Sequence[ToolEvidence]) -> PartAnswer | None:
    """Step 2 looked up several of the records step 1 listed ("the error details for each failed run")."""
    lookups = [call for call in calls if call.tool.startswith("get_")]
    if len(lookups) < 2 or len(lookups) != len(calls):
        return None
    values = _producer_values(producers)
    key = next((key for key, found in values.items()
                if all(str(call.arguments.get(key)) in found for call in lookups)), None)
    if key is None:
        return None
    listed = len(values[key])
    facts = [record_answer(text, shape, call).sentence for call in lookups]
    missing = listed - len(lookups)
    more = f"; the other {missing} were not looked up (the per-task call cap)" if missing > 0 else ""
    return PartAnswer(f"Details of {len(lookups)} of the {listed} {NOUNS[key]} listed, below{more}.", facts)


WHICH = re.compile(r"\bwhich\b")
OVERLAP_WORDS = re.compile(r"\b(?:overlap\w*|coincide\w*|during|inside|within|while)\b")


def window_overlaps(question: str, results: Sequence[TaskResult]) -> PartAnswer | None:
    """"Did any change window overlap the X failures?" asked of two parallel results: which failed runs
    started inside which change's planned window (compared here, from the rows' own times)."""
    if not OVERLAP_WORDS.search(question.lower()):
        return None
    rows = [row for result in results if result.succeeded for item in result.evidence for row in item.rows]
    windows = [row for row in rows if row_kind(row) == "change" and row.get("start_date") and row.get("end_date")]
    runs = [row for row in rows if row_kind(row) == "run" and row.get("start")]
    if not windows or not runs:
        return None
    hits = [(change, run) for change in windows for run in runs
            if str(change["start_date"]) <= str(run["start"]) < str(change["end_date"])]
    if not hits:
        return PartAnswer(f"No — none of the {len(runs)} failed runs started inside the planned windows of "
                          f"{', '.join(identity(row) for row in windows)}.", concludes=True)
    said = [f"{identity(change)}'s planned window ({when(change['start_date'])} to {when(change['end_date'])}) holds "
            f"the {run.get('pipeline_name')} failure at {when(run['start'])} (run {run.get('run_id')})"
            for change, run in hits]
    return PartAnswer(f"Yes — {'; '.join(said)}.", concludes=True)


def correlate(text: str, shape: Shape, results: Sequence[TaskResult], everything: Sequence[TaskResult]) -> PartAnswer | None:
    """The cross-result conclusion for a part answered in a later step, if its calls show one."""
    step = min(result.step for result in results)
    producers = [item for result in everything if result.step < step and result.succeeded for item in result.evidence]
    calls = [item for result in results for item in result.evidence if item.answered]
    if not producers or not calls:
        return None
    return (inside_window(text, shape, calls, producers) or reference(text, shape, calls, producers)
            or details_of_each(text, shape, calls, producers) or per_item(text, shape, calls, producers))
