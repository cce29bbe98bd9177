"""Claims checked against the evidence: values, links, comparisons, placements, causes, counts and ages.

Each check returns ``GroundingCheck``s whose ``detail`` tells the writer what to fix and whose
``public`` text says, in the product's words only, what was left out — never the model's sentence.

- a **value** ("INC… is On Hold", "pl_x is running") must be what the record's own row says; a row
  that says otherwise contradicts it, no row that shows it leaves it unsupported;
- a **link** ("pl_x has INC…") needs one row naming both, or a search for one that returned the other;
- a **comparison** needs both sides fetched (two windows or names searched, or a baseline in a row);
- a **placement** ("failed during CHG…'s window") must agree with the times in the rows;
- counts of records with values are ``count_claims.py``'s;
- yes/no leads are ``lead_claims.py``'s; the rows they read are read here (``rows_read``, ``row_matches``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from opsagent.contracts.analysis import Ask, Span
from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.times import WEEKDAY_NAME
from opsagent.intake.vocabulary import REGIONS
from opsagent.tools.catalog import RECORDS, record_of_noun, same_kind, tool_spec
from opsagent.tools.identifiers import RUN_ID, TICKET, TICKET_PREFIXES
from opsagent.tools.pipeline_rows import statuses_in
from opsagent.tools.vocabularies import RUN_STATUS, Vocabulary
from opsagent.tools.vocabularies import VALUE_VOCABULARIES
from opsagent.workflows.claims import (
    CLOCK_TIME,
    NEGATED_VALUE,
    ComparisonClaim,
    LinkClaim,
    PlacementClaim,
    ValueClaim,
    hh_mm,
    record_keys,
    says,
)
from opsagent.workflows.claims import clauses as read_clauses
from opsagent.tools.timewindow import UNIT_WORD, iso_moment
from opsagent.workflows.evidence_index import COUNT_FIELDS, EvidenceIndex, digits, parts_of, record_of_tool, records_in
from opsagent.workflows.health_claims import OVERALL
from opsagent.workflows.fitting import windows_of
from opsagent.workflows.negative_claims import COMMON_WORDS, words_in

KEY_RECORDS = {"inc": "incident", "chg": "change"}
COUNTED_STATUS = {"failed": "failed", "succeeded": "succeeded", "inprogress": "running", "cancelled": "cancelled"}
"""A run status and the summary field that counts runs in it."""
BASELINE_FIELDS = ("median", "usual", "typical", "baseline", "average", "previous", "p90")


def record_of_key(key: str) -> str:
    if key[:3] in KEY_RECORDS:
        return KEY_RECORDS[key[:3]]
    return "run"  # a run id or a pipeline: run-status values


def _vocabularies_for(record: str) -> set[str]:
    return {name for name, vocabulary in VALUE_VOCABULARIES.items()
            if vocabulary.record == record or record == "run" and vocabulary.record == "pipeline"}


def observed_values(index: EvidenceIndex, key: str, vocabulary: Vocabulary) -> set[str]:
    """What the record's rows say for a vocabulary: field values, statuses implied by the tool
    (every row of a failed-runs search failed) and statuses counted in a summary row."""
    return {value for item, row in index.rows_for(key) for value in row_values(item, row, vocabulary)}


def check_values(claims: Iterable[ValueClaim], index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    claims = list(claims)
    for claim in claims:
        if claim.vocabulary.name not in _vocabularies_for(record_of_key(claim.key)) or index.quotes(claim.item) \
                or claim.key not in index.identifiers or _echoes_title(claim, index) or _retells_text(claim, index):
            continue  # another record's value, quoted text, a key the identifier check already fails, or the
            # record's own words ("CHG… (roles for new finance analysts) is Closed": "new" is its title's)
        seen = observed_values(index, claim.key, claim.vocabulary)
        field = claim.vocabulary.row_fields[0]
        if not seen and any(index.text_says(claim.key, words) for words in (claim.words, *claim.values)):
            continue  # restated from a record's text ("… run was repeated, which worked": "repeated successfully")
        if not seen and any(other.key == claim.key and other is not claim and _overlap(other.words, claim.words)
                            and observed_values(index, other.key, other.vocabulary) & other.values for other in claims):
            continue  # the same words read as another field's value, which the row shows ("awaiting authorisation")
        if not seen:
            checks.append(GroundingCheck.of("value", claim.item, False,
                                 f"no row shows the {field} of {claim.key} (\"{claim.words}\" is not backed)",
                                 f"a statement about a record's {field} that no data showed"))
            continue
        agrees = not (seen & claim.values) if claim.negated else bool(seen & claim.values)
        checks.append(GroundingCheck.of("value", claim.item, agrees,
                             f"{claim.key} has {field} {', '.join(sorted(seen))}, not \"{claim.words}\"",
                             f"a statement about a record's {field} that the data contradicts"))
    return checks


def _echoes_title(claim: ValueClaim, index: EvidenceIndex) -> bool:
    """The value word with the words on both sides of it is a phrase of the evidence's own text."""
    at = claim.item.lower().find(claim.words.lower())
    before, after = claim.item[:at].split()[-1:], claim.item[at + len(claim.words):].split()[:1]
    if at < 0 or not before or not after or not all(re.fullmatch(r"[\w-]+", word) for word in (*before, *after)):
        return False
    return f"{before[0]} {claim.words} {after[0]}".lower() in index.row_text


CONTENT_WORD = re.compile(r"[a-z0-9][\w,.-]*[a-z0-9]", re.IGNORECASE)


def _retells_text(claim: ValueClaim, index: EvidenceIndex) -> bool:
    """The sentence retells one of the record's own texts (or a text about it) — most of its words are that
    text's, the value among them ("… hit its statement or warehouse timeout of 3,600 seconds and was cancelled": the error message says
    "… and was canceled"): the value is the text's word, not the record's field."""
    words = {word.lower() for word in CONTENT_WORD.findall(claim.item) if len(word) > 3} - COMMON_WORDS
    words -= {word.lower() for word in claim.words.split()}
    if len(words) < 5:
        return False
    at = claim.item.lower().find(claim.words.lower())
    if at < 0 or FIELD_BEFORE.search(claim.item[:at]):
        return False  # "… and its run status is Cancelled": the record's field, said outright
    after = _next_word(claim.item[at + len(claim.words):])
    # its own rows, and any record whose text tells of it ("the next pl_x run succeeded", from a ticket's work notes)
    # with every run, time and ordinal the sentence gives ("the next run at 00:10 succeeded" is not the notes' words)
    named = re.compile(rf"(?<![\w-]){re.escape(claim.key)}(?![\w-])", re.IGNORECASE)
    details = {word.lower() for word in PINNED.findall(claim.item)}
    rows = [row for _, row in index.rows_for(claim.key)] + [
        row for row in index.records if any(isinstance(value, str) and named.search(value) for value in row.values())
        and all(detail in text_of(row).lower() for detail in details)]
    for row in rows:
        for text in (value for value in row.values() if isinstance(value, str) and len(value) > 40):
            low = text.lower()
            if sum(word in low for word in words) >= 0.7 * len(words) and any(
                    found.lower() in claim.values and _next_word(text[match.end():]) == after
                    for match, found in claim.vocabulary.find(text)):
                return True  # the value word with what follows it, as the text has it ("was canceled.")
    return False


PINNED = re.compile(rf"{RUN_ID.pattern}|\b[0-9a-f]{{8}}\b|\b\d{{1,2}}:\d{{2}}\b|\b(?:first|second|third|fourth|last)\b",
                    re.IGNORECASE)
"""What pins a sentence to one run: its id (or the id's first part), a clock time, an ordinal."""
FIELD_BEFORE = re.compile(r"\b(?:status|state|priority|risk|approval)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)


def _next_word(text: str) -> str:
    """The word after a value ("" at a sentence's end or before punctuation): "new certificate" is not "New,"."""
    found = re.match(r"\s+([a-z]+)", text.lower())
    return found.group(1) if found else ""


def _overlap(first: str, second: str) -> bool:
    return first.lower() in second.lower() or second.lower() in first.lower()


RUN_COUNT = re.compile(r"(?<![\w.:/-])(\d+)(?=\s+(?:of\s+(?:the\s+)?\d+\s+)?(?:failed|failures?|runs?|times?)\b)",
                       re.IGNORECASE)
"""A count of a pipeline's runs in prose: "3 failed runs", "8 of 56 runs", "failed 3 times"."""


BARE_COUNT = (r"(?:\s+(?:is|was|has|had)\s+(?:the\s+)?[\w-]+)?\s*(?:[:(–—-]|\bwith\b|[x×])\s*(\d{1,3})\b"
              r"(?!\s*(?:%|[.:/,–-]\s*\d|[a-z]))")
"""After a pipeline's name, a count without its noun: "pl_x – 3 (Copy_Sales …)", "pl_x is the worst with 4", "pl_x
(2)", "pl_x x2" (not a code, "(2200)", nor a length, "– 3 min")."""


def key_counts(index: EvidenceIndex, key: str) -> set[int]:
    """Every count the evidence gives for one pipeline: its rows, its summary's count fields, and the
    totals of searches made for it."""
    rows = index.rows_for(key)
    # its rows counted only when no listing holding them was cut short: 6 of the 18 rows a capped listing of 24 showed
    # is no count of the pipeline's runs (it had 8)
    found = {len([row for _, row in rows if row.get("run_id")])} if not any(
        item.truncated or item.total > len(item.rows) for item, row in rows if row.get("run_id")) else set()
    found |= {value for _, row in rows for name, value in row.items() if name in COUNT_FIELDS and isinstance(value, int)}
    found |= {item.total for item in index.items if key in str(item.arguments).lower()}
    return found


def check_key_counts(units: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """A count said about one pipeline ("pl_x: 9 failed runs") must be one of that pipeline's counts."""
    checks = []
    for unit in units:
        keys = [key for key in record_keys(unit) if key.startswith("pl_")]
        if len(keys) != 1 or len(record_keys(unit)) != 1 or not index.rows_for(keys[0]):
            continue
        counts = key_counts(index, keys[0])
        for match in RUN_COUNT.finditer(unit):
            checks.append(GroundingCheck.of("number", unit, int(match.group(1)) in counts,
                                 f"{keys[0]} has no count of {match.group(1)} in the evidence ({sorted(counts)})",
                                 "a count about a pipeline that the data contradicts"))
    return checks


def check_bare_key_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """A count right after a pipeline's name, without its noun ("pl_x – 3 (Copy_Sales …)"), is one of its counts."""
    checks = []
    for sentence in sentences:
        for key in {key for key in record_keys(sentence) if key.startswith("pl_") and index.rows_for(key)}:
            counts = key_counts(index, key)
            if not counts:
                continue  # its rows give no count of it (7 of 24 runs shown): nothing to hold the number to
            for match in re.finditer(rf"(?<![\w-]){re.escape(key)}(?![\w-])[*_`]*{BARE_COUNT}", sentence, re.IGNORECASE):
                checks.append(GroundingCheck.of("number", match.group(), int(match.group(1)) in counts,
                                                f"{key} has no count of {match.group(1)} in the evidence ({sorted(counts)})",
                                                "a count about a pipeline that the data contradicts"))
    return checks


def _kind(name: str) -> str:
    keys = record_keys(name)
    return keys and (name[:3] if name[:3] in KEY_RECORDS else "pl" if name.startswith("pl_") else "run") or "name"


ADVICE = re.compile(r"\b(?:you|someone|a [\w-]+ lead)\s+(?:\([^)]*\)\s+)?(?:can|could|should|may|might|need to|"
                    r"want to)\s+(?!confirm|see|tell|say|check that)|(?:^\W*(?:(?:then|on|in|for)\s+[\w-]+,?\s+)?|"
                    r"[(;]\s*(?:or|and|then)\s+)(?:(?:ask|set|assign|page|ping|call|message|reassign|move|add|attach|put|"
                    r"hand|escalate|link)\b|(?:open|raise|file|log|create|update)\s+(?:a|an|one|the|it)\b)(?!\s*:)|"
                    r"(?:^\W*|\b(?:I|I['’]d|we|we['’]d)\s+(?:would\s+)?)(?:suggest|recommend|propose)\b",
                    re.IGNORECASE)
"""What the reader could do ("you (or a DBA lead) can set Assigned to = Sofia on INC…", "Open an incident for the load
(or add the run to INC…)", "Suggest Service Desk links INC… to INC…"), not what the data says."""
ASSERTS_LINK = re.compile(r"\b(?:which|that|it|this|—)\s+(?:\w+\s+){0,2}?(?:already\s+)?(?:tracks|covers|holds|is linked|"
                          r"links|is about|mentions|names|references|was raised for)\b|\b(?:since|because|as)\s+\S+\s+"
                          r"(?:fixes|fixed|caused|causes|tracks|covers|is linked)\b", re.IGNORECASE)
"""Advice that also states a link ("add it to INC… — that ticket already tracks this run", "I'd suggest pinging CAB
since CHG… fixes INC…"): the link is checked."""


def check_links(claims: Iterable[LinkClaim], index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for claim in claims:
        shown = all(name in index.identifiers or name in index.text for name in (claim.first, claim.second))
        if _kind(claim.first) == _kind(claim.second) or index.quotes(claim.item) or not shown \
                or ADVICE.search(claim.item) and not ASSERTS_LINK.search(claim.item):
            continue  # a list of runs or tickets asserts no link; a name no data shows fails as an identifier;
            # "you can set Assigned to = Sofia on INC…": advice, not a link the data has
        ok = index.linked(claim.first, claim.second)
        checks.append(GroundingCheck.of("link", claim.item, ok, f"no row links {claim.first} and {claim.second}",
                             "a link between two records that no data showed"))
    return checks


RESULTING = re.compile(r"\b(?:as a result|because of (?:it|this|that|the (?:change|upgrade|update|deployment))|"
                       r"caused by|led to|broke|triggered|due to (?:the|that|this) (?:change|upgrade|update))\b",
                       re.IGNORECASE)
"""A sentence that says one record caused another ("CHG… upgraded the SHIR, and pl_x started failing as a result")."""


def check_causal_links(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """A cause said between a change and a pipeline or ticket needs a row linking them (not only nearby words)."""
    checks = []
    for sentence in sentences:
        said = RESULTING.search(sentence)
        if said is None or HEDGED.search(sentence[max(0, said.start() - 25):said.start()]):
            continue
        around = re.findall(r"[\w-]+", sentence[:said.start()])[-3:] + re.findall(r"[\w-]+", sentence[said.start():])[:4]
        if f" {' '.join(around).lower()} " in index.row_words:
            continue  # a record's own title told again ("… access policy change broke ADF linked services")
        keys = record_keys(sentence)
        changes = [key for key in keys if key.startswith("chg")]
        others = [key for key in keys if not key.startswith("chg")] or [
            key for key in [index.sole_record()] if key and not key.startswith("chg") and IT_WAS.match(sentence)]
        # "caused by CHG…": the change right after it is the one said to be the cause ("…, not by CHG…" is denied)
        first = TICKET.search(sentence, said.end(), said.end() + 60)
        blamed = {first.group().lower()} if first and not re.search(r"\bnot\b", sentence[said.end():first.start()],
                                                                       re.IGNORECASE) else set()
        for change in changes:
            for other in others:
                causes = {str(link.get("number", "")).lower() for _, row in index.rows_for(other)
                          for link in row.get("links") or [] if isinstance(link, dict) and "caused_by" in (link.get("via") or [])}
                if causes and CAUSED_BY.search(said.group()) and change not in blamed:
                    continue  # another change the sentence names beside the cause ("the fix is CHG…")
                ok = change in causes if causes and CAUSED_BY.search(said.group()) else index.linked(change, other)
                checks.append(GroundingCheck.of("link", sentence, ok,
                                                f"{other}'s cause is {', '.join(sorted(causes))}, not {change}" if causes else
                                                f"no row links {change} and {other}, which the sentence says caused it",
                                                "a cause between two records that no data showed"))
    return checks


IT_WAS = re.compile(r"^\W*(?:it|this|that|the (?:incident|ticket|failure|outage|issue|problem))\s+(?:was|is|got|has been)\b",
                    re.IGNORECASE)
"""A sentence about the record the answer is about ("It was caused by CHG…")."""
CAUSED_BY = re.compile(r"\bcaused by\b", re.IGNORECASE)


def _windows_searched(items: Sequence[ToolEvidence]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for item in items:
        if item.answered:
            signature = repr(sorted((key, str(value)) for key, value in item.query.items() if key != "limit"))
            found.setdefault(item.tool, set()).add(signature)
    return found


TEMPORAL = re.compile(r"\b(?:week|weeks|day|days|yesterday|before|usual|usually|normal|typical|average|previous|"
                      r"earlier|last|ago|month|hours?)\b", re.IGNORECASE)
"""A comparison with another time ("more than last week", "slower than usual") needs another window."""


def _windows_per_tool(items: Sequence[ToolEvidence]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for item in items:
        if item.answered:
            found.setdefault(item.tool, set()).update(f"{start}/{end}" for start, end in windows_of(item))
    return found


def has_baseline(item: ToolEvidence) -> bool:
    """A row holds the other side of a comparison with the usual (a median of recent runs)."""
    return any(any(word in key.lower() for word in BASELINE_FIELDS)
               for top in item.rows for row in records_in(top) for key in row)


SAME_FIELDS = {"error": ("error_code", "error_message"), "code": ("error_code",), "cause": ("error_code", "error_message"),
               "activity": ("failed_activity",), "step": ("failed_activity",), "ci": ("configuration_item",),
               "team": ("assignment_group",), "group": ("assignment_group",)}
SAME = re.compile(rf"\bsame\s+(?:\w+\s+)?({'|'.join(SAME_FIELDS)})\b", re.IGNORECASE)
"""A sameness compared field by field ("the same error as …"): two records of the evidence share it."""


def _shared(index: EvidenceIndex, fields: Sequence[str]) -> bool:
    """Two records of the evidence (runs of one search too) have the same non-empty value of one of ``fields``."""
    for field in fields:  # a record shown twice (a run in two searches) is one record
        seen = {str(row.get("run_id") or row.get("number") or id(row)): str(row[field])
                for row in index.records if row.get(field)}
        if len(seen) > len(set(seen.values())):
            return True
    return False


def check_comparisons(claims: Iterable[ComparisonClaim], index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    sides = _windows_searched(index.items)
    windows = _windows_per_tool(index.items)
    baseline = any(has_baseline(item) for item in index.items)
    for claim in claims:
        keys = record_keys(claim.clause)
        aside = next((found.group(1) for found in re.finditer(r"\(([^()]*)\)", claim.clause) if claim.words in found.group(1)),
                     None)  # "INC… is P3 (analysts seeing queries 5-10x slower than usual)": the ticket's words told again
        if baseline or index.echoes(claim.clause) or aside and index.echoes(aside):  # the other side is the usual (a
            ok = True  # median the rows hold), or the comparison is a record's own ("… longer than usual" in its text)
        elif (same := SAME.search(claim.words)) is not None:  # "the same error as those two": both sides are rows
            ok = _shared(index, SAME_FIELDS[same.group(1).lower()])
        elif TEMPORAL.search(claim.clause):  # the other side is another time: another window
            ok = any(len(found) >= 2 for found in windows.values())
        else:
            ok = (len(keys) >= 2 and all(index.rows_for(key) for key in keys)) or any(
                len(signatures) >= 2 for signatures in sides.values())
        checks.append(GroundingCheck.of("comparison", claim.clause, ok,
                             f"\"{claim.words}\" compares with something no search fetched (fetch both sides)",
                             "a comparison whose other side was not fetched"))
    return checks


def record_window(index: EvidenceIndex, record: str) -> tuple[datetime, datetime] | None:
    fields = RECORDS["change"].window_fields or ("start_date", "end_date")
    for _, row in index.rows_for(record):
        start, end = iso_moment(row.get(fields[0])), iso_moment(row.get(fields[1]))
        if start and end:
            return start, end
    return None


def check_placements(claims: Iterable[PlacementClaim], index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for claim in claims:
        if index.restates(claim.clause):
            continue  # a record's own words ("failed twice during and after the CHG… window"), not the writer's
        window = record_window(index, claim.record)
        starts = [moment for item in index.items if (spec := tool_spec(item.tool)) and spec.record == "run"
                  for row in item.rows if (not claim.pipelines or str(row.get("pipeline_name", "")).lower()
                                           in claim.pipelines) and (moment := iso_moment(row.get("start")))]
        clocks = hh_mm(CLOCK_TIME, claim.clause)
        starts = [moment for moment in starts if f"{moment:%H:%M}" in clocks] or starts  # "the 00:10 failure …"
        if window is None:
            ok, why = False, f"{claim.record}'s planned window was not fetched"
        elif claim.at_end:  # "right as the window closed": within the hour after its end (a run of the status said)
            statuses = statuses_in(claim.clause)  # (a row that shows no status may have it)
            of_status = [moment for item in index.items if (spec := tool_spec(item.tool)) and spec.record == "run"
                         for row in item.rows if (moment := iso_moment(row.get("start"))) in starts
                         and (not statuses or "status" not in row or row["status"] in statuses)]
            after = [moment for moment in of_status if timedelta(minutes=-5) <= moment - window[1] <= timedelta(hours=1)]
            ok = not after if claim.negated else bool(after)
            why = f"no run shown started within the hour after {claim.record}'s window ended ({window[1]:%a %d %b %H:%M})"
        else:
            inside = [moment for moment in starts if window[0] <= moment < window[1]]
            ok = not inside if claim.negated else len(inside) == len(starts) > 0 if claim.every else bool(inside)
            why = (f"{len(inside)} of the {len(starts)} runs shown started inside {claim.record}'s window"
                   if claim.negated or claim.every and inside else f"no run shown started inside {claim.record}'s window")
        checks.append(GroundingCheck.of("placement", claim.clause, ok, why,
                             "a statement about what happened during a change's window that the times in the data "
                             "do not support"))
    return checks


# ------------------------------------------------------------------------------------ leads


def asked_values(ask: Ask) -> dict[str, set[str]]:
    """The values an ask asks about, whatever intake made of them ("is INC… still open?": open)."""
    found: dict[str, set[str]] = {}
    for name, vocabulary in VALUE_VOCABULARIES.items():
        for _, value in vocabulary.find(ask.text):
            labels = vocabulary.group_labels(value) if value in vocabulary.groups else (
                [choice.label] if (choice := vocabulary.choice(value)) else [])
            found.setdefault(name, set()).update(label.lower() for label in labels)
    return found


def row_values(item: ToolEvidence, row: dict[str, Any], vocabulary: Vocabulary) -> set[str]:
    """What one row shows for a vocabulary: its fields, the tool's fixed value, counted statuses."""
    spec = tool_spec(item.tool)
    fixed = spec.fixed.get(vocabulary.name) if spec else None
    shown = {str(row[field]).lower() for field in vocabulary.row_fields if row.get(field) not in (None, "")}
    if vocabulary.name == "assignee":  # an empty assignee in a row that has the field: nobody has it; else someone
        shown |= {"any assignee" if row[field] else "unassigned" for field in vocabulary.row_fields if field in row}
    if fixed:
        shown.add(fixed.lower())
    if vocabulary is RUN_STATUS:
        shown |= {status for status, field in COUNTED_STATUS.items() if isinstance(row.get(field), int) and row[field] > 0}
        if isinstance(row.get("failure_groups"), list):  # a history: the statuses of the runs it holds
            shown |= {status for status, held in (("failed", row["failure_groups"] or row.get("last_failure")),
                                                  ("succeeded", row.get("last_success"))) if held}
            latest = row.get("run") if isinstance(row.get("run"), dict) else {}
            shown |= {str(latest["status"]).lower()} if latest.get("status") else set()
    return shown


def row_matches(item: ToolEvidence, row: dict[str, Any], asked: dict[str, set[str]],
                 windows: Sequence[tuple[datetime, datetime]] = ()) -> bool:
    """The row has every asked value it can show (a value of another record kind, or one it cannot show,
    does not count against it) and, when the ask is placed in windows (its own, or a record's), happened inside
    one."""
    record = record_of_tool(item.tool)
    for name, values in asked.items():
        if not same_kind(VALUE_VOCABULARIES[name].record, record):
            continue
        shown = row_values(item, row, VALUE_VOCABULARIES[name])
        if shown and not shown & values:
            return False
    moments = row_moments(record, row)
    return not windows or not moments or any(first <= moment < last for moment in moments for first, last in windows)


def row_moments(record: str, row: dict[str, Any]) -> list[datetime]:
    """When a row's record happened: each time field of its kind it has (opened, resolved; a run's start, end)."""
    kind = RECORDS.get(record)
    fields = kind.time_fields if kind else ("start",)
    return [moment for field in fields if (moment := iso_moment(row.get(field))) is not None]


EXCLUDED = re.compile(r"\b(?:besides|except(?: for)?|other than|apart from|aside from|excluding|not counting)\s+"
                      r"(?:the\s+)?(?P<name>[\w.-]{3,})", re.IGNORECASE)
"""A name an ask leaves out ("anything unhealthy besides Databricks?"): rows naming it do not answer it."""


def rows_read(item: ToolEvidence, asked: str = "") -> list[dict[str, Any]]:
    """The rows a yes/no is read from. A health report is one row, its overall status (for the region or
    service it was asked about), plus one "degraded" row per active incident: "is X healthy?" holds only
    when all of X is, and an unfiltered report lists only what is not operational. A component the ask
    names ("is Key Vault ok?") is its own rows."""
    spec = tool_spec(item.tool)
    overall = OVERALL.match(item.message) if spec is not None and spec.platform else None
    left_out = EXCLUDED.search(asked)
    if left_out is not None:  # "any Azure service unhealthy besides Databricks?": the rows that do not name it
        word = left_out.group("name").lower()
        kept = [row for row in item.rows if word not in text_of(row).lower()]
        return kept if overall is None else _health_rows(kept)
    if overall is None:
        return list(item.rows)
    named = [row for row in item.rows if row.get("kind") == "component" and row.get("name")
             and says(asked, str(row["name"]))]
    if named:
        return named
    if item.rows and len(item.rows) < item.shown and all(row.get("kind") == "component" for row in item.rows):
        return list(item.rows)  # the report's rows already narrowed to the component asked ("adf" in "weu")
    region = None if item.query.get("region") else region_said(asked)
    if region is not None:  # a whole-platform report read for one region: what it lists there, else that it is fine
        return _health_rows([row for row in item.rows if _in_region(row, region)])
    incidents = [{"status": "degraded"} for row in item.rows if row.get("kind") == "incident"]
    return [{"status": overall.group(1).lower()}, *incidents]


def _health_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Part of a health report as yes/no rows: each component's status, each active incident degraded; a part
    with nothing listed is operational."""
    return [{"status": "degraded"} if row.get("kind") == "incident" else row for row in rows
            if row.get("kind") in ("incident", "component")] or [{"status": "operational"}]


def region_said(text: str) -> str | None:
    """The region a text names ("is Snowflake in North Europe hit?"), by intake's region words."""
    return next((name for name, words in REGIONS.items() if any(says(text, word) for word in words)), None)


def _in_region(row: dict[str, Any], region: str) -> bool:
    where = f"{row.get('region') or ''} {' '.join(map(str, row.get('components') or []))}"
    return any(says(where, word) for word in REGIONS[region])


def found_in(items: Sequence[ToolEvidence], asked: dict[str, set[str]],
           windows: Sequence[tuple[datetime, datetime]] = (), text: str = "") -> bool:
    return any(row_matches(item, row, asked, windows) for item in items for row in rows_read(item, text))


# ----------------------------------------------------------------- codes, times and causes of one record

CODE = re.compile(r"\b(?:error|code|error code)\s*[:=#]?\s*(\d{3,5})\b|(?<![\w.:-])(\d{4})\s+(?:[a-z-]+\s+){0,3}error\b"
                  r"|\b(?:hit|threw|returned|raised|got|failed with|failing with)\s+(?:an?\s+)?(\d{4})\b(?![\s,]*(?:[a-z]+\s+)?"
                  r"(?:runs?|rows?|records?|ms|min|minutes|seconds?|%|times))"
                  r"|(?<![\w.:-])(\d{4})\s+in\s+`?[A-Z][A-Za-z0-9]*_[A-Za-z0-9_]+", re.IGNORECASE)
"""An error code said: "error 3200", "code: 2108", "the 3200 cluster launch error", "hit 2402", "2200 in Copy_Sales"."""
EVENT_FIELDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:opened|raised|created|logged|reported)\b", re.IGNORECASE), ("opened_at",)),
    (re.compile(r"\b(?:resolved|closed|fixed)\b", re.IGNORECASE), ("resolved_at",)),
    (re.compile(r"\b(?:started|ran|failed|succeeded|kicked off)\b", re.IGNORECASE), ("start", "start_date", "last_start")),
    (re.compile(r"\b(?:planned|scheduled|due|starts|runs)\b", re.IGNORECASE), ("start_date",)),  # a change's window
    (re.compile(r"\b(?:ended|finished|completed)\b", re.IGNORECASE), ("end", "end_date")),
)
"""Which of a record's times a verb speaks of ("opened yesterday evening": its opening time)."""
CAUSE = re.compile(r"\b(?:because(?: of)?|due to(?!\s+(?:start|begin|run|finish|complete|end|be|land|arrive|expire|go|kick|"
                   r"open|close|resume|restart|roll)\b)|caused by|owing to|as a result of|the fix was(?: to)?|"
                   r"attribut(?:ed|es|e|ing) (?:it |this |that )?to|blam(?:ed|es|e|ing) (?:it |this |that )?on|traced (?:back )?to|"
                   r"put(?:s|ting)? (?:it|this|that) down to|"
                   r"(?:fixed|resolved|solved|sorted(?: out)?|mitigated|remediated|addressed|worked around)"
                   r"(?:\s+(?:it|this|that|them|the (?:issue|problem|incident)))?\s+by|"
                   r"(?:on hold|parked|paused|blocked|held)\b[^.;]{0,20}?\b(?:waiting (?:for|on)|awaiting|until|pending))"
                   r"\b\s+(?P<cause>(?:(?!\s[—–-]\s|,\s+(?:so|and|but|while|whereas)\s)[^.;])+)", re.IGNORECASE)
"""A cause or a fix said of a record, or what holds it ("on hold waiting for …"): it must be in that record's own
rows ("due to start" is a schedule). The cause ends at a dash that closes an aside, at a consequence ("fixed by that
change, so it stays on hold") or at a clause joined after a comma ("because its source file is missing, and its first
failure came before …")."""
LABELLED_CAUSE = re.compile(r"\b(?:fix|fixed|resolution|root cause|cause|workaround)(?: last time| then| used| applied)?"
                            r"\s*:\s+(?P<cause>[^.;]+)|\bfailed\b(?:[^.;:]|\d:\d){0,80}?\bwith\s+(?:error\s+|code\s+)?\d{4}\s*:\s+"
                            r"(?P<error>[^.;]+)", re.IGNORECASE)
"""The same as a label ("Fix last time: …", "Root cause: …", "failed … with 3200: an ImportError on …")."""
HEDGED = re.compile(r"\b(?:not|n't|never|could|can|should|might|may|would|if)\b", re.IGNORECASE)
"""Before a cause: advice or a negation ("it could be mitigated by …", "not resolved by …"), not a claim."""
AGE_GIVEN = re.compile(rf"\s*(?:it['’]s|it has|it is|that['’]s)?\s*been\s+(?:about\s+|over\s+|nearly\s+)?\d+\s*{UNIT_WORD}",
                       re.IGNORECASE)
CAUSE_WORD = re.compile(r"[a-z][a-z0-9]{3,}", re.IGNORECASE)
SMALL = frozenset(("that this with from were was been have has the and for into their there which when then least earliest "
                   "done over finished complete completed").split())
"""Words of no substance in a cause; "until then", "until it's done" point at a time or an event already said."""


def single_key(unit: str) -> str | None:
    keys = record_keys(unit)
    return keys[0] if len(keys) == 1 else None


ANOTHER = re.compile(r"\b(?:a|an|one)\s+(?:different|other|earlier|older|previous|separate)\s+(?:failure|error|run|kind)\b"
                     r"|\banother\s+(?:failure|error|run)\b", re.IGNORECASE)
"""A sentence about another record than the answer's one ("A different failure (2402 in …) on Sun 5 Jan")."""


def check_codes(units: Iterable[str], index: EvidenceIndex, only: str | None = None) -> list[GroundingCheck]:
    """"pl_x failed with error 3200": an error code said of one record is one of its rows' codes (a sentence
    that names no record: of ``only``, the one record the answer is about)."""
    checks = []
    for unit in units:
        named = single_key(unit)
        key = named or (only if not record_keys(unit) and not ANOTHER.search(unit) else None)
        codes = {str(row.get("error_code")) for _, row in index.rows_for(key) if row.get("error_code")} if key else set()
        own = " ".join(text_of(row) for _, row in index.rows_for(key)) if codes else ""
        for match in CODE.finditer(unit):
            code = next(group for group in match.groups() if group)
            if not named and _quoted_by_other(unit, code, index):
                continue  # a sentence about a platform whose status text quotes the code ("the Databricks incident …")
            if codes:  # its code, or one its own error text quotes ("ODBC error 57014")
                checks.append(GroundingCheck.of("value", unit, code in codes or re.search(rf"\b{code}\b", own) is not None,
                                     f"{key}'s rows show error code {', '.join(sorted(codes))}, not {code}",
                                     "an error code the data contradicts"))
    return checks


FAILED_IN = re.compile(r"\b(?:failed|failing|fails|failure|error\s+\d+)\b[^.;]{0,40}?\bin\s+(?:the\s+)?`?"
                       r"(?P<activity>[A-Z][A-Za-z0-9]*_[A-Za-z0-9_]+)`?(?:\s+(?:step|activity))?\b")
"""Where a run failed: "failed with 2108 in Web_Upload_Audiences" (an activity of the run)."""


def check_failed_activities(units: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """The activity a run is said to have failed in is one the rows show failing (an activity that ran and
    succeeded is not where it failed)."""
    records = [part for row in index.records for part in (row, *parts_of(row))]  # a run's activities are parts of it
    failing = {str(row.get("failed_activity")).lower() for row in records if row.get("failed_activity")}
    failing |= {str(row.get("activity_name")).lower() for row in records
                if row.get("activity_name") and str(row.get("status", "")).lower() == "failed"}
    known = failing | {str(row.get("activity_name")).lower() for row in records if row.get("activity_name")}
    checks = []
    for unit in units:
        for match in FAILED_IN.finditer(unit):
            activity = match.group("activity").lower()
            if activity in known:  # an activity the rows name: it must be one that failed
                checks.append(GroundingCheck.of("value", unit, activity in failing,
                                                f"{match.group('activity')} did not fail in the rows shown "
                                                f"(failed: {', '.join(sorted(failing)) or 'none'})",
                                                "where a run failed, which the data contradicts"))
    return checks


def check_named_counts(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """"Data Platform Ops 3, Cloud Infrastructure 2": a count said right after a name the rows give (a group, a
    CI, a factory) is that name's count — its grouped row's count, or how many rows of a complete search have it."""
    records = index.records
    complete = all(item.total == len(item.rows) for item in index.items if item.rows)
    names = {value for row in records for field, value in row.items()
             if isinstance(value, str) and field in NAMED_FIELDS and len(value) >= 4}
    checks = []
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])[ \t]*(?::|\(|—|-|has|have|with)?[ \t]*(\d+)\b"
                                 rf"(?!\s*(?:%|min|h\b|:|\.\d|x\b|×|of\s|out\s+of\s))", digits(text), re.IGNORECASE):  # ("9 of its
            # 40 runs": a share of the count, which the share checks read)
            grouped = {row["count"] for row in records if isinstance(row.get("count"), int) and name in row.values()}
            counted = {len([row for row in records if name in row.values() and "count" not in row])} if complete else set()
            if complete and (values := _sentence_values(digits(text), match.start())):  # "the unassigned ones sit in DBA (1)"
                counted.add(sum(1 for item in index.items for row in item.rows if name in row.values() and all(
                    row_values(item, row, VALUE_VOCABULARIES[vocabulary]) & wanted for vocabulary, wanted in values.items())))
            allowed = grouped or counted
            if allowed:
                said = match.group() if match.group() in text else next(  # as written ("DPO three"), for the repair
                    (sentence for sentence in text.split("\n") if name.lower() in sentence.lower()), text)
                checks.append(GroundingCheck.of("number", said, int(match.group(1)) in allowed,
                                                f"{name} has {', '.join(map(str, sorted(allowed)))} in the evidence, "
                                                f"not {match.group(1)}", "a count per name the data contradicts"))
    return checks


def _sentence_values(text: str, at: int) -> dict[str, set[str]]:
    """The values the sentence holding position ``at`` says its rows have ("the unassigned ones …")."""
    start = max(text.rfind(mark, 0, at) for mark in (". ", "\n", "! ", "? ")) + 1
    ends = [end for mark in (". ", "\n") if (end := text.find(mark, at)) >= 0]
    sentence = text[start:min(ends) if ends else len(text)]
    values = asked_values(Ask(id="", text=sentence, span=Span(start=0, end=0)))
    return {name: {label.lower() for label in wanted} for name, wanted in values.items()}


NAMED_FIELDS = frozenset({"assignment_group", "configuration_item", "factory", "assigned_to"})
"""Names a count may follow (a pipeline's counts are its runs', read by ``check_key_counts``)."""
SPREAD_FIELDS = {"ci": "configuration_item", "configuration item": "configuration_item", "team": "assignment_group",
                 "group": "assignment_group", "factory": "factory", "factorie": "factory", "pipeline": "pipeline_name",
                 "person": "assigned_to", "people": "assigned_to", "assignee": "assigned_to", "owner": "assigned_to"}
SPREAD = re.compile(r"\b(?:across|over|on|in|from|spanning|between|among)\s+(?:the\s+)?(?P<number>\d+)\s+"
                    r"(?:different\s+|distinct\s+|separate\s+)?(?P<noun>configuration items?|cis?|teams?|groups?|"
                    r"factories|factory|pipelines?|people|person|assignees?|owners?)\b", re.IGNORECASE)
""""Four incidents across three CIs": how many different values of a field the rows have."""


def check_spread(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """A count of different CIs, teams, factories, pipelines or people is the number of distinct values the rows
    of the complete searches that show the field have (the searches of the kind the sentence counts, if any)."""
    checks = []
    for sentence in sentences:
        for match in SPREAD.finditer(digits(sentence)):
            noun = match.group("noun").lower()
            field = SPREAD_FIELDS.get(noun) or SPREAD_FIELDS.get(noun.removesuffix("s"))
            kinds = {record for word in re.findall(r"[a-z]+", sentence.lower()) if (record := record_of_noun(word))}
            items = [item for item in index.items if item.rows and any(field in row for row in item.rows)]
            items = [item for item in items if any(same_kind(record_of_tool(item.tool), kind) for kind in kinds)] or items
            if not field or not items or any(item.total > len(item.rows) for item in items):
                continue
            rows = [row for item in items for row in item.rows if row.get(field)]
            within = _named_values(sentence, index, field, rows)  # "adf-prod-weu: 23 failed runs across 7 pipelines"
            if within:  # counted within one factory, team or CI: only rows that show it can say how many
                rows = [row for row in rows if any(str(row.get(name) or "").lower() in within for name in NAMED_FIELDS)]
                if not rows:
                    continue
            values = {str(row[field]).lower() for row in rows}
            said = match.group() if match.group() in sentence else sentence  # as written, for the answer's repair
            checks.append(GroundingCheck.of("number", said, int(match.group("number")) == len(values),
                                            f"the rows have {len(values)} different {noun}, not {match.group('number')}",
                                            "a count of different names the data contradicts"))
    return checks


def _named_values(sentence: str, index: EvidenceIndex, counted: str, rows: Sequence[dict[str, Any]]) -> set[str]:
    """The factories, teams, CIs or people a sentence names, of a naming field the counted rows have (a team named
    beside a count of pipelines narrows nothing: run rows have no team)."""
    low, columns = sentence.lower(), {name for row in rows for name in NAMED_FIELDS if name in row and name != counted}
    return {value for item in index.items for row in item.rows for name in columns
            if (value := str(row.get(name) or "").lower()) and words_in(low, [value])}


ASSIGNED = re.compile(r"\b(?:(?:assigned to|owned by|handled by|picked up by|being worked by)\s+"
                      r"(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)|(?:is|'s|sits|now|currently)\s+with\s+"
                      r"(?P<person>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+))")
"""A person (or team) a record is said to be with, by name ("is with" only before a full name: "the cause is with
Databricks" says where the fault lies)."""


def check_assignees(units: Iterable[tuple[str, str]], index: EvidenceIndex) -> list[GroundingCheck]:
    """"INC… is assigned to Leila": the record's row names that person (or team) as its assignee or group; a row
    that shows no assignee contradicts it. ``units``: (the unit, the text read with its pronoun resolved)."""
    checks = []
    for unit, said in units:
        keys = record_keys(said)
        match = ASSIGNED.search(said)
        if match is None or len(keys) != 1 or NEGATED_VALUE.search(said[:match.start()]):
            continue
        rows = [row for _, row in index.rows_for(keys[0]) if "assigned_to" in row]
        if not rows:
            continue
        name = (match.group("name") or match.group("person")).lower()
        holders = {str(row.get(field) or "").lower() for row in rows for field in ("assigned_to", "assignment_group")}
        ok = any(name.split()[0] in holder.split() or holder.startswith(name) for holder in holders if holder)
        shown = ", ".join(sorted({str(row.get("assigned_to") or "no one") for row in rows}))
        checks.append(GroundingCheck.of("value", unit, ok, f"{keys[0]} is assigned to {shown}, not {match.group('name') or match.group('person')}",
                                        "a statement about who has a record that the data contradicts"))
    return checks


def _quoted_by_other(unit: str, code: str, index: EvidenceIndex) -> bool:
    """The unit names a platform whose report's text gives "error <code>" (a status update quoting it)."""
    return any(spec.platform and re.search(rf"\b{re.escape(spec.platform)}\b", unit, re.IGNORECASE)
               and re.search(rf"\berror\W+{code}\b", text_of(row), re.IGNORECASE)
               for item in index.items if (spec := tool_spec(item.tool)) for top in item.rows for row in records_in(top))


WEEKDAY = re.compile(rf"^(?:on\s+)?{WEEKDAY_NAME}$", re.IGNORECASE)
DAY_WORDS = re.compile(r"^(?:on\s+)?(?:yesterday|today|tonight|last night|overnight|this (?:morning|afternoon|evening)|"
                       rf"{WEEKDAY_NAME})\b", re.IGNORECASE)
"""The times a claim about an event is checked for: days and parts of days ("opened yesterday evening",
"failed on Monday") — not clock times or window bounds, which answers quote in many formats."""


def check_times(units: Iterable[str], index: EvidenceIndex, now: datetime | None) -> list[GroundingCheck]:
    """"INC… was opened on Monday": a day said of one record's event holds for that record's own time."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    checks = []
    for unit in (unit for unit in units if now is not None):
        key = single_key(unit)
        verb, fields = next(((found, fields) for pattern, fields in EVENT_FIELDS if (found := pattern.search(unit))),
                            (None, ()))
        moments = [moment for _, row in (index.rows_for(key) if key else []) for field in fields
                   if (moment := iso_moment(row.get(field)))]
        mentions = [said for said in find_times(unit, now) if DAY_WORDS.match(said.text) and verb is not None
                    and 0 <= said.span.start - verb.end() <= 12] if moments else []
        for said in mentions:
            ok = any(said.start <= moment < said.end for moment in moments) or WEEKDAY.match(said.text) is not None \
                and any(moment.weekday() == said.start.weekday() and abs(moment - now) < timedelta(days=7)
                        for moment in moments)  # "planned for Saturday": the coming one as well as the last
            checks.append(GroundingCheck.of("placement", unit, ok,
                                 f"{key}'s own time is not in \"{said.text}\" ({said.label})",
                                 "a time the data contradicts"))
    return checks


ACTIONS = (("reduc", "lower", "cut", "decreas", "drop", "shrink", "limit", "throttl"),
           ("increas", "rais", "bump", "grow", "expand", "extend"),
           ("restart", "reboot", "recycl", "bounc"), ("rerun", "re-run", "retr", "repeat", "resubmit"))
"""Ways of saying one fix action: "fixed by cutting parallelism" tells "parallelism reduced" again; its direction
(cut, not raised) is the record's."""


def _same_action(verb: str) -> tuple[str, ...]:
    """The stems a record's text may use for the action ``verb`` names (its own first letters otherwise)."""
    return next((group for group in ACTIONS if any(verb.startswith(stem) for stem in group)), (verb[:5],))


BROKE = re.compile(r"(?:^|[—–:;]\s*|\s-\s)(?P<cause>(?:an?|the)\s(?:(?!\b(?:most|probably|possibly|likely|maybe|perhaps|"
                   r"presumably|apparently|what|which)\b)[^.;:—–]){4,100}?)\s+(?:broke|took down|brought down)\b", re.IGNORECASE)
"""A cause said as the subject of what it did ("— a library version conflict on the cluster broke the notebook"); not
a guess ("the timeout most likely …") nor "that's what broke last time"."""


def check_causes(units: Iterable[str], index: EvidenceIndex, only: str | None = None) -> list[GroundingCheck]:
    """"pl_x failed because the source file was missing", "it was fixed by …": the cause or fix is in that
    record's own rows (its error, its description, its close notes), not a plausible guess. A sentence that
    names no record is about ``only``, the one record the whole answer names, if there is one."""
    checks = []
    for unit in units:
        fetched = [key for key in record_keys(unit) if index.rows_for(key)]  # a pipeline a fix mentions is no record
        at_clock = _run_at_clock(unit, index) if len(fetched) <= 1 else None  # "the 00:10 run failed because …"
        key = at_clock or (fetched[0] if len(fetched) == 1 else only if not fetched else None)
        match = CAUSE.search(unit) or LABELLED_CAUSE.search(unit) or BROKE.search(unit)
        said_at = match.start(match.lastgroup) if match and match.lastgroup else match.end() if match else 0
        if match and (HEDGED.search(unit[:match.start()]) or AGE_GIVEN.match(unit, said_at)):
            continue  # advice or a negation; "because it's been 6 days": an age, checked as one
        if match is None or key is not None and not index.rows_for(key) or key is None and fetched:
            continue
        cause = match.groupdict().get("cause") or match.groupdict().get("error") or ""
        words = {word.lower()[:5] for word in CAUSE_WORD.findall(cause)} - {word[:5] for word in SMALL}
        # about no one record ("Fix last time: …" under several): in some record's own text
        own = (" ".join(text_of(row) for _, row in index.rows_for(key)) if key else index.row_text).lower()
        if key and not fetched:  # about no record it names: a platform named before the cause may be what it is of
            # ("today's two fall inside the Databricks incident — Jobs degraded because of a VM capacity shortage")
            own += " " + " ".join(text_of(row) for item in index.items if (spec := tool_spec(item.tool)) and
                                  spec.platform and re.search(rf"\b{re.escape(spec.platform)}\b", unit[:match.start()], re.IGNORECASE)
                                  for row in item.rows).lower()
        if key and key in cause.lower():  # "the fix was … rerunning pl_x": pl_x is what was fixed,
            own += " " + " ".join(text_of(row) for row in index.records if key in text_of(row).lower()).lower()  # by
            # a record about it
        action = re.match(r"([a-z]+)ing\b", cause.lower())  # "fixed it by raising …": what was done
        pointers = {word.lower()[:5] for word in CAUSE_WORD.findall(cause) if (kind := record_of_noun(word))
                    and (prefix := RECORDS[kind].id_prefix) and re.search(rf"\b{prefix}\d", own, re.IGNORECASE)}
        # "fixed by that change": a kind of record the text names by its number ("fixed by CHG0030021") — only as a
        # pointer: what else the cause says of it must be the record's ("the firewall change" is not)
        rest = words - pointers
        ok = (not rest or len({word for word in rest if word in own}) * 2 >= len(rest)) \
            and (action is None or any(re.search(rf"\b{stem}", own) for stem in _same_action(action.group(1))))
        checks.append(GroundingCheck.of("link", unit, ok, f"the cause given is not in {key or 'any record'}'s own rows",
                             "a cause the record's own data does not give"))
    return checks


CLOCK_RUN = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?:\s*UTC)?\s+(?:run|one|load|attempt|failure)\b", re.IGNORECASE)
"""A run named by when it started ("the 00:10 run", "the 18:12 one")."""


LATEST_RUN = re.compile(r"\bthe (?:latest|last|most recent) (?:run|one|attempt)\b", re.IGNORECASE)


def _run_at_clock(unit: str, index: EvidenceIndex) -> str | None:
    """The one run of the evidence the sentence names by the clock time it started ("the 00:10 run") or as the
    latest run of the one pipeline the rows are about."""
    said = {f"{int(hour):02d}:{minute}" for hour, minute in CLOCK_RUN.findall(unit)}
    runs = {str(row["run_id"]).lower() for row in index.records
            if row.get("run_id") and str(row.get("start") or "")[11:16] in said}
    if not said and LATEST_RUN.search(unit):
        started = {str(row["run_id"]).lower(): str(row.get("start") or "") for row in index.records if row.get("run_id")}
        pipelines = {str(row.get("pipeline_name")) for row in index.records if row.get("run_id")}
        runs = {max(started, key=started.__getitem__)} if started and len(pipelines) == 1 else set()
    return next(iter(runs)) if len(said) <= 1 and len(runs) == 1 else None


def text_of(row: dict[str, Any]) -> str:
    return " ".join(str(value) for value in row.values() if isinstance(value, str))


# --------------------------------------------------------------------------- ages

AGE_DENIED = re.compile(r"\b(?:no|none|not|never|nobody|nothing|neither)\b|n't\b", re.IGNORECASE)
"""Before an age: the sentence says the records are not that old ("so none has waited more than a week")."""


def _clause_of(sentence: str, at: int) -> str:
    return next((clause for clause in read_clauses(sentence) if sentence.find(clause) <= at < sentence.find(clause)
                 + len(clause)), sentence)


OPEN_FOR = re.compile(r"\b(?:been\s+)?(?:open|sitting(?:\s+there)?)\s+(?:for\s+)?(?P<bound>about\s+|around\s+|roughly\s+|"
                      r"nearly\s+|almost\s+|just\s+over\s+|just\s+under\s+|over\s+|under\s+|more than\s+|less than\s+)?"
                      r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>hours?|days?|weeks?)\b", re.IGNORECASE)
"""How long a ticket has been open ("it's been open about two days", "sitting there for over a week")."""


def check_open_for(sentences: Iterable[str], index: EvidenceIndex, now: datetime | None) -> list[GroundingCheck]:
    """The age said of the one ticket a sentence is about (or the one looked up) is its age from its opening."""
    checks = []
    for sentence in sentences if now is not None else ():
        for match in OPEN_FOR.finditer(digits(sentence)):
            key = index.subject([key for key in record_keys(sentence) if key[:3].upper() in TICKET_PREFIXES])
            opened = [moment for _, row in index.rows_for(key) if (moment := iso_moment(row.get("opened_at")))] \
                if key else []
            if not opened:
                continue
            unit = {"h": 60, "d": 1440, "w": 10080}[match.group("unit")[0].lower()]
            age, said = (now - opened[0]).total_seconds() / 60 / unit, float(match.group("number"))
            bound = " ".join((match.group("bound") or "").split())
            ok = age > said if bound.endswith(("over", "more than")) else age < said if bound.endswith(
                ("under", "less than")) else abs(age - said) < 1  # "about two days": as people round
            checks.append(GroundingCheck.of("value", sentence, ok, f"{key} was opened {opened[0]:%Y-%m-%d %H:%M}, "
                                            f"{age:.1f} {match.group('unit')} ago", "an age the data contradicts"))
    return checks


def check_ages(units: Iterable[str], index: EvidenceIndex, now: datetime | None) -> list[GroundingCheck]:
    """"INC…, INC… have been on hold for more than two days": each record named is that old."""
    from opsagent.intake.catalog_filters import AGE, duration_minutes  # intake reads ages the same way

    checks = []
    for unit in (unit for unit in units if now is not None):
        for match in AGE.finditer(unit):
            limit = now - timedelta(minutes=duration_minutes(match))
            younger = AGE_DENIED.search(unit[max(0, match.start() - 30):match.start()]) is not None  # "none is …"
            listed = unit[match.end():]  # "… for over two days: INC…, INC…" lists the records it is said of
            keys = record_keys(listed if listed.lstrip().startswith(":") else _clause_of(unit, match.start()))
            for key in (key for key in keys if key[:3] == "inc"):
                opened = [moment for _, row in index.rows_for(key) if (moment := iso_moment(row.get("opened_at")))]
                if opened:
                    checks.append(GroundingCheck.of("value", unit, all((moment > limit) if younger else (moment <= limit)
                                                                       for moment in opened),
                                         f"{key} was opened {opened[0]:%Y-%m-%d %H:%M}: "
                                         f"{'it is' if younger else 'not'} {match.group()}",
                                         "an age the data contradicts"))
    return checks
