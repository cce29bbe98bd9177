"""Review: the answer written from the evidence, part by part, each part read as the planner did.

"Yes —" / "No —" leads only when the calls that ran applied the ask's whole predicate (every call the catalog
chooses, with its arguments) and nothing was unread. A later step's part is first a conclusion across results
(which of A have B, in a record's window, the record another names, windows against failures), else an answer per
family of evidence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.contracts.role_inputs import ReviewInput
from opsagent.intake.asks import ASKING
from opsagent.local_model.calls import CATALOG, Chosen, choose
from opsagent.local_model.knowledge import Lexicon
from opsagent.local_model.past import past_answer
from opsagent.local_model.planner import action_reading
from opsagent.local_model.reading import Reading, read_question, read_text
from opsagent.local_model.templates import IDS, PartAnswer, health, holds, label, listing, lower_first, record
from opsagent.local_model.templates import leads_yes_no, row_kind, when, yes_no
from opsagent.tools.catalog import RECORDS, tool_spec
from opsagent.tools.rendering import identity
from opsagent.tools.vocabularies import VOCABULARIES

MAX_FACTS = 10
QUOTED = re.compile(rf"{IDS.pattern}|\b\w*\d[\w.:]*\b", re.IGNORECASE)  # ids and figures a user wrote
NOUNS = {"pipeline_name": "pipelines", "configuration_item": "configuration items", "number": "records", "run_id": "runs"}


def _whole(reading: Reading, chosen: Chosen, results: Sequence[TaskResult]) -> bool:
    """Every call the catalog chooses for the ask ran, with at least its arguments, and nothing was unread."""
    made = [item for result in results for item in result.evidence if item.answered]
    return not reading.unread and not chosen.unapplied and all(
        any(item.tool == call.tool and all(str(item.arguments.get(key)).lower() == str(value).lower()
                                           for key, value in call.arguments.items()) for item in made)
        for choice in chosen.choices for call in choice.calls)


def per_item(reading: Reading, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence], *,
             lead: bool) -> PartAnswer | None:
    """"1 of the 5 pipelines has an open incident: pl_a (INC…); pl_b, pl_c have none"."""
    for key in NOUNS if len({call.tool for call in calls}) == 1 else ():  # the earlier rows' items, one search each
        items = list(dict.fromkeys(row[key] for item in producers for row in item.rows if isinstance(row.get(key), str)))
        searched = {str(value): call for call in calls for value in call.arguments.values() if value in items}
        if not searched:
            continue
        spec = tool_spec(calls[0].tool)
        state = str(calls[0].arguments.get("state") or "").lower().replace("_", " ")
        said_state = " or ".join(sorted(label for name, value in (spec.fixed.items() if spec else ())
                                        for label in VOCABULARIES[name].selected(value) or ())) \
            or (state if state != "all" else "")
        # "an open incident", "a resolved or closed incident": what the search looked for, never "a matching"
        thing = f"{'an' if said_state[:1] in tuple('aeiou') else 'a'} {said_state or 'matching'} " \
                f"{spec.record if spec else 'record'}"
        have = [(value, call) for value, call in searched.items() if call.rows]
        lack = [value for value, call in searched.items() if not call.rows]
        named = "; ".join(f"{value} ({', '.join(identity(row) for row in call.rows[:3])})" for value, call in have)
        said = f"{len(have)} of the {len(searched)} {NOUNS[key]} {'has' if len(have) == 1 else 'have'} {thing}" + (
            f": {named}" if named else "")
        said += f"; {', '.join(lack)} {'has' if len(lack) == 1 else 'have'} none" \
            if lack and have and reading.ask.shape in ("yes_no", "count") else ""
        facts = [f"{value}: {label(row)}" for value, call in have for row in call.rows[:2]]
        facts += [f"No {thing.split(' ', 1)[1]} found for {', '.join(lack)}"] if lack and reading.ask.shape != "yes_no" else []
        facts += [f"Not searched (the call cap was reached): {', '.join(v for v in items if v not in searched)}"] \
            if len(searched) < len(items) else []
        exists = bool(have) if leads_yes_no(reading, lead) else None
        return PartAnswer(yes_no(exists, said[:1].upper() + said[1:] + "."), facts)
    return None


def inside_window(reading: Reading, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence], *,
                  lead: bool) -> PartAnswer | None:
    """Searches in windows an earlier record placed: "During CHG…'s planned window (…): …"."""
    records = [row for item in producers for row in item.rows
               if any(kind.window_fields and row.get(kind.window_fields[0]) for kind in RECORDS.values())]
    spans = [(call, value) for call in calls for value in call.query.values() if isinstance(value, dict)
             and value.get("start")]
    if not records or not spans or any(call.tool.startswith("check_") for call in calls):
        return None
    owner = next(iter(reading.scope.record_windows), None)
    window = owner.describe() if owner else f"{identity(records[0])}'s planned window"
    answers = [(span, listing(reading, call, (), lead=False)) for call, span in spans]
    sentence = "; ".join(f"during {window} ({when(span['start'])} to {when(span['end'])}): "
                         f"{lower_first(answer.sentence)}" for span, answer in answers)
    found = any(call.rows for call, _ in spans) if leads_yes_no(reading, lead) else None
    return PartAnswer(yes_no(found, sentence[:1].upper() + sentence[1:]),
                      [fact for _, answer in answers for fact in answer.facts])


def link(reading: Reading, calls: Sequence[ToolEvidence], producers: Sequence[ToolEvidence],
         checks: Sequence[tuple[str, str]], *, lead: bool) -> PartAnswer | None:
    """Look-ups of ids an earlier row names: "INC… names CHG…: CHG… is …" (several: no yes or no)."""
    linked = [call for call in calls if (spec := tool_spec(call.tool)) and spec.is_lookup and call.rows]
    found = []
    for call in linked:
        wanted = next((str(value) for value in call.arguments.values()), "")
        source = next((row for row in (row for item in producers for row in item.rows)
                       if wanted and wanted in json.dumps(row) and identity(row) != wanted), None)
        if source is not None:
            found.append((source, wanted, record(reading, call, checks, lead=lead and len(linked) == 1)))
    if not found:
        return None
    body = " ".join(answer.sentence for _, _, answer in found)
    said = body[:body.find(" — ") + 3] if len(found) == 1 and body.startswith(("Yes — ", "No — ")) else ""
    names = ", ".join(dict.fromkeys(wanted for _, wanted, _ in found))
    return PartAnswer(f"{said}{identity(found[0][0])} names {names}: {body[len(said):]}",
                      [label(found[0][0]), *(fact for _, _, answer in found for fact in answer.facts)])


def overlap(reading: Reading, evidence: Sequence[ToolEvidence], *, lead: bool) -> PartAnswer | None:
    """Change windows and failed runs fetched side by side: which run started inside which window."""
    rows: list[dict[str, Any]] = [row for item in evidence for row in item.rows]
    windows = [row for row in rows if row_kind(row) == "change" and row.get("start_date") and row.get("end_date")]
    runs = [row for row in rows if row_kind(row) == "run" and row.get("start")]
    if "overlap" not in reading.cues or not runs:
        return None
    lead = lead and not any(item.total > len(item.rows) for item in evidence)
    hits = [(change, run) for change in windows for run in runs
            if str(change["start_date"]) <= str(run["start"]) < str(change["end_date"])]
    if not hits:
        names = ", ".join(identity(row) for row in windows) or "no change"
        return PartAnswer(yes_no(False if lead else None, f"None of the {len(runs)} failed runs started inside "
                                                          f"the planned windows of {names}."))
    said = [f"{identity(change)}'s planned window ({when(change['start_date'])} to {when(change['end_date'])}) holds "
            f"the {run.get('pipeline_name')} failure at {when(run['start'])} (run {run.get('run_id')})"
            for change, run in hits]
    return PartAnswer(yes_no(True if lead else None, "; ".join(said) + "."), [label(change) for change, _ in hits])


def _by_family(reading: Reading, evidence: Sequence[ToolEvidence], checks: Sequence[tuple[str, str]], *,
               lead: bool) -> PartAnswer:
    """Health checks together; each look-up as its record; each search as a listing (unknown tools too)."""
    platforms = [item for item in evidence if (spec := tool_spec(item.tool)) and spec.platform]
    answers = [health(reading, platforms, lead=lead)] if platforms else []
    for item in (item for item in evidence if item not in platforms):
        spec = tool_spec(item.tool)
        mine = tuple(check for check in checks if any(holds(row, *check) is not None for row in item.rows))
        answers.append(past_answer(reading, item, lead=lead) if spec and spec.past
                       else record(reading, item, checks, lead=lead) if spec and spec.is_lookup
                       else listing(reading, item, mine if spec else (), lead=lead and spec is not None))
    answers.sort(key=lambda answer: not answer.sentence.startswith(("Yes —", "No —")))
    return PartAnswer(" ".join(dict.fromkeys(answer.sentence for answer in answers)),
                      [fact for answer in answers for fact in answer.facts])


def answer_part(reading: Reading, results: Sequence[TaskResult], everything: Sequence[TaskResult]) -> PartAnswer | None:
    done = [result for result in results if result.succeeded]
    if not done:
        return None
    chosen = choose(reading, CATALOG)
    lead = _whole(reading, chosen, done)
    evidence = list({(item.tool, str(sorted(item.arguments.items()))): item for result in done
                     for item in result.evidence if item.answered and not item.repeated}.values())
    step = min(result.step for result in done)
    producers = [item for result in everything if result.step < step and result.succeeded for item in result.evidence]
    checks = tuple(check for choice in chosen.choices for check in choice.checks)
    found = overlap(reading, evidence, lead=lead)
    if found is None and producers:
        found = (inside_window(reading, evidence, producers, lead=lead)
                 or link(reading, evidence, producers, checks, lead=lead) or per_item(reading, evidence, producers, lead=lead))
    if found is None and any(choice.deferred for choice in chosen.choices):  # a second round inside the task
        asked = {call.tool for choice in chosen.choices for call in choice.calls}
        sources = [item for item in evidence if item.tool in asked]
        found = link(reading, [item for item in evidence if item not in sources], sources, checks, lead=lead)
    return found or _by_family(reading, evidence, checks, lead=lead)


def _readings(review: ReviewInput, lexicon: Lexicon) -> dict[str, Reading]:
    action = action_reading(review.analysis)
    readings = {reading.id: reading for reading in ([action] if action else
                                                     read_question(review.analysis, lexicon, review.question))}
    for part in review.parts:  # a runbook step: read from its own words
        if part.id not in readings:
            readings |= {part.id: reading for reading in read_text(part.text, review.analysis.now, lexicon)[:1]}
    return readings


def _asked(parts: Sequence[QuestionPart], readings: dict[str, Reading]) -> list[QuestionPart]:
    """Not a scene, nor a clause that only feeds the next ("of the pipelines that failed, which …?"), if others remain."""
    feeding = {reading.after for reading in readings.values()}
    asked = [part for part in parts if not (reading := readings.get(part.id)) or not (
        reading.scene or (part.id in feeding and not ASKING.match(reading.ask.text)))]
    return asked or list(parts)


def write_summary(review: ReviewInput, lexicon: Lexicon) -> tuple[str, list[str]]:
    """(summary, key facts) for the question, from the tasks' evidence."""
    parts = review.parts or [QuestionPart(id="p1", text=review.question)]
    readings = _readings(review, lexicon)
    answers = []
    for part in _asked(parts, readings):
        results = [result for result in review.results if part.id in result.part.split(",")]
        answer = answer_part(readings[part.id], results, review.results) if part.id in readings else None
        answers.append(answer or _unchecked(part, results))
    ended = (sentence if sentence.endswith((".", "!", "?", "…")) else f"{sentence}."
             for sentence in (answer.sentence.rstrip() for answer in answers if answer.sentence))
    summary = " ".join(dict.fromkeys(ended))
    return summary, list(dict.fromkeys(fact for answer in answers for fact in answer.facts))[:MAX_FACTS]


def _unchecked(part: QuestionPart, results: Sequence[TaskResult]) -> PartAnswer:
    """What could not be checked and why; the part's ids and figures only where a call was made with them."""
    failed = next((result for result in reversed(results) if result.error and result.status != "unsupported"), None)
    reason = failed.error if failed else "its tools were not called" if results else "it was not planned"
    asked = json.dumps([item.arguments for result in results for item in result.evidence]).lower()
    quoted = QUOTED.sub(lambda match: match.group() if match.group().lower() in asked else "…", part.text.rstrip("?. "))
    return PartAnswer(f"I could not check \"{quoted}\" ({reason}).")


def review_output(review: ReviewInput, lexicon: Lexicon) -> dict:
    """``ReviewOutput`` as a JSON-ready dict: complete unless a gap is one a retry can fill."""
    summary, facts = write_summary(review, lexicon)
    retryable = [gap for gap in review.gaps if gap.retryable]
    return {"is_complete": not retryable, "summary": summary, "key_facts": facts, "missing_aspects": [
        gap.describe() for gap in retryable], "confidence": 0.6 if retryable else 0.8 if not review.gaps else 0.5,
            "suggested_approach": "Ask again for: " + "; ".join(gap.part for gap in retryable) if retryable else ""}
