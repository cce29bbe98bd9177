"""Counts an answer says of records: with values ("22 open P1 incidents", "three changes are waiting on approval"),
shares of the rows just listed ("4 of them unassigned", "5 of them before today"), how many pipelines failed, and
"there is a …".

A count is what the rows having those values count — of one record's rows when the sentence is about one — or
the total of a search that applied exactly them, or a summary's own count field (a sum over one search's
per-name counts too); "the other N" is that less the records the answer names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from opsagent.contracts.analysis import Ask, Span
from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.grounding import GroundingCheck
from opsagent.tools.catalog import RECORDS, record_of_noun, records_named, same_kind, tool_spec
from opsagent.tools.identifiers import RUN_ID
from opsagent.tools.pipeline_rows import STATUS_FIELDS, count_fields_in, status_total
from opsagent.tools.rendering import identity
from opsagent.tools.vocabularies import VALUE_VOCABULARIES
from opsagent.workflows.claim_checks import (
    single_key,
    asked_values,
    row_matches,
    row_values,
    text_of,
)
from opsagent.workflows.claims import CLOCK_TIME
from opsagent.workflows.claims import clauses as read_clauses
from opsagent.workflows.claims import items as read_items
from opsagent.workflows.claims import record_keys
from opsagent.workflows.derived_numbers import derived_numbers
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.evidence_index import (
    COUNT_FIELDS,
    EvidenceIndex,
    counted_nouns_in,
    digits,
    moments_of,
    numbers_in,
    parts_of,
    records_counted,
    records_in,
)
from opsagent.workflows.fitting import covers, narrowed_by, overlaps, searched_values, window_applied

QUALIFIED_COUNT = re.compile(
    r"(?<![\w.:/-])(?P<number>\d+)\s+(?P<words>(?:[\w/-]+\s+){1,3}?)(?P<noun>incidents?|tickets?|changes?|change "
    r"requests?|pipelines?|runs?|failures?)\b", re.IGNORECASE)
"""A count with the values it is said to have ("22 open P1 incidents", "3 failed runs")."""
COUNT_THEN_VALUES = re.compile(
    r"(?<![\w.:/-])(?P<number>\d+)\s+(?P<noun>incidents|tickets|changes|change requests|pipelines|runs)\s+"
    r"(?:(?:are|were|is|still|currently|now)\s+)+(?P<words>(?:[\w/-]+\s*){1,4})", re.IGNORECASE)
"""A count whose values follow the noun ("three changes are waiting on approval")."""
ELIDED_COUNT = re.compile(r"^\W*(?P<number>\d+)\s+(?P<words>(?:(?:are|were|is|still|currently|now)\s+)*)(?P<rest>[^\d.;:(]*)",
                          re.IGNORECASE)
"""A count opening a sentence with its noun left out, values in its place ("3 waiting on approval", "2 still open")."""


def _key_of(record: str, row: dict[str, Any]) -> str:
    return str(row.get(RECORDS[record].key_field) or row.get("run_id") or id(row))


def qualified_counts(index: EvidenceIndex, record: str, values: dict[str, set[str]], key: str | None) -> set[int]:
    """What a count of ``record`` with ``values`` may be — of one record's rows when the sentence is about
    one ("pl_x: 3 failed runs"): the rows of that kind having them (by key), the totals of searches that
    applied exactly them, and the summary's own count fields."""
    items = [item for item in index.items if tool_spec(item.tool) and same_kind(tool_spec(item.tool).record, record)
             and (key is None or key in text_of(item.arguments).lower() or index.rows_for(key))]
    rows = [(item, row) for item in items for top in item.rows for row in records_in(top)
            if key is None or any(str(row.get(field, "")).lower() == key for field in ("number", "run_id", "pipeline_name"))]
    matching = {_key_of(record, row) for item, row in rows if row_matches(item, row, values)}
    counted = {row[field] for _, row in rows for field in COUNT_FIELDS if isinstance(row.get(field), int)}
    counted |= {sum(given) for field in COUNT_FIELDS  # "14 failed runs" over per-pipeline counts of failed runs
                for searched in [None, *items]  # all rows, or one search's (per factory, not also per pipeline)
                if len(given := [row[field] for item, row in rows if isinstance(row.get(field), int)
                                 and searched in (None, item)]) > 1}
    counted |= {value[field] for _, row in rows for value in row.values() if isinstance(value, dict)  # a summary
                for field in COUNT_FIELDS if isinstance(value.get(field), int)}  # inside a row ("durations": 19 runs)
    statuses = [status for status in STATUS_FIELDS if status.lower() in values.get("run_status", set())]
    counted |= {total for _, row in rows if len(statuses) > 1  # "38 finished runs": its succeeded, failed, cancelled
                and (total := status_total(row, statuses)) is not None}
    totals = {item.total for item in items if item.status in ("ok", "no_data")
              and set(values) <= narrowed_by(item) and all(_applied_values(item, name) == wanted
                                                         for name, wanted in values.items())}
    return {len(matching)} | totals | counted


def _applied_values(item: ToolEvidence, vocabulary: str) -> set[str]:
    spec = tool_spec(item.tool)
    fixed = spec.fixed.get(vocabulary) if spec else None
    if fixed:
        return {fixed.lower()}
    tool_filter = next((entry for entry in spec.filters if entry.vocabulary == vocabulary), None) if spec else None
    return (searched_values(item, tool_filter) or set()) if tool_filter else set()


POSSESSING = re.compile(r"\b(?:have|has|had|with|without|got)\b", re.IGNORECASE)
OTHER = re.compile(r"\b(?:other|remaining|rest of the|further)\s+$", re.IGNORECASE)
NONE_OF_BEFORE = re.compile(r"\b(?:none|neither|not one|not any)\s+of\s+(?:the\s+|these\s+|those\s+)?$", re.IGNORECASE)


OTHER_AFTER = re.compile(r"^(?:other|remaining|further)\b", re.IGNORECASE)
"""The rest, said after the number ("three other open tickets"): the count less the ones named."""
LABEL = re.compile(r"^\W*(?P<key>[\w-]+)\s*:\s")
"""A sentence that starts with a record and a colon ("pl_x: 3 failed runs …") is about that record throughout."""


def check_qualified_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    sentences, units = list(sentences), []
    worked_out = {number for piece in derived_numbers("\n".join(sentences), index.vouches_for_number) for number in numbers_in(piece)}
    named = len(record_keys(" ".join(sentences)))  # "the other three": the count less the ones named
    for sentence in sentences:
        label = LABEL.match(sentence)
        subject = label.group("key").lower() if label and record_keys(label.group("key")) else None
        for clause in read_clauses(sentence):
            pieces = [clause] if single_key(clause) else read_items(clause)
            units += [(piece, single_key(piece) or subject) for piece in pieces]
    checks = []
    # counts written in words are counts too ("three open incidents")
    for (unit, key), match in ((pair, match) for pair in units for pattern in (QUALIFIED_COUNT, COUNT_THEN_VALUES)
                               for match in pattern.finditer(digits(pair[0]))):
        if POSSESSING.search(match.group("words")) or float(match.group("number")) in worked_out \
                or NONE_OF_BEFORE.search(digits(unit)[:match.start()]):
            continue  # "three have an open ticket": a count of what has one, not of tickets; "none of the three is
            # an emergency change": the three are the set, and none of them has the value (the negative check's)
        values = asked_values(Ask(id="", text=match.group("words"), span=Span(start=0, end=0)))
        record = record_of_noun(match.group("noun").lower()) or "run"
        values = {name: wanted for name, wanted in values.items() if same_kind(VALUE_VOCABULARIES[name].record, record)}
        if not values:
            continue
        one_run = key is not None and RUN_ID.fullmatch(key) is not None and int(match.group("number")) > 1
        allowed = qualified_counts(index, record, values, None if one_run else key)  # "19 successful runs" in a line
        # about one run count its pipeline's runs, not that run
        if OTHER.search(digits(unit)[:match.start()]) or OTHER_AFTER.match(match.group("words")):
            allowed |= {count - less for count in allowed for less in range(1, named + 1)}
        said = match.group() if match.group() in unit else unit  # the words as written, for the answer's repair
        checks.append(GroundingCheck.of("number", said, int(match.group("number")) in allowed,
                             f"{match.group()}: the evidence has {', '.join(map(str, sorted(allowed)))} such",
                             "a count the data contradicts"))
    return checks + _shares_with_values(sentences, index) + _elided_counts(sentences, index)


def _elided_counts(sentences: Sequence[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"3 waiting on approval" opening a sentence, a value where the noun would be: a count of the one kind of
    record the question asks about, with that value."""
    asked = [kind for kind in records_named(index.question) if kind in ("incident", "change", "run", "pipeline")] or \
        sorted({spec.record for item in index.items if item.answered and (spec := tool_spec(item.tool)) and spec.record
                in ("incident", "change", "run", "pipeline")})  # ("what came in overnight?": the records searched)
    if len(asked) != 1:
        return []
    checks = []
    for sentence in sentences:
        match = ELIDED_COUNT.match(digits(sentence))
        if not match or records_named(" ".join(match.group("rest").split()[:4])):
            continue  # "3 changes are …", "2 failed runs of …": the noun is said (the counts above)
        # the value starts right after the number: "3 waiting on approval", not "3 of them are open"
        said = " ".join(phrase.group() for vocabulary in VALUE_VOCABULARIES.values()
                        if same_kind(vocabulary.record, asked[0])
                        for phrase, _ in vocabulary.find(match.group("rest")) if phrase.start() == 0)
        values = {name: wanted for name, wanted in asked_values(Ask(id="", text=said, span=Span(start=0, end=0))).items()
                  if same_kind(VALUE_VOCABULARIES[name].record, asked[0])} if said else {}
        if not values:
            continue
        allowed = qualified_counts(index, asked[0], values, None)
        checks.append(GroundingCheck.of("number", match.group().strip(), int(match.group("number")) in allowed,
                                        f"{match.group().strip()}: the evidence has "
                                        f"{', '.join(map(str, sorted(allowed)))} such", "a count the data contradicts"))
    return checks


SHARE_WITH_VALUE = re.compile(r"(?<![\w.])(?P<number>\d+)\s+of\s+(?:(?:them|those|these)\s+(?:(?:are|were|is|was|still)\s+)*|"
                              r"(?:the|all)\s+(?P<whole>\d+)\s+(?:(?:are|were|is|was)\s+)(?:still\s+)?)"
                              r"(?P<words>(?:[\w-]+\s*){1,3})", re.IGNORECASE)
"""A share of the rows just listed with a value ("8 opened today, 4 of them unassigned", "2 of those still open",
"3 of the 4 are In Progress")."""


SET_WITH_VALUE = re.compile(r"(?<![\w.])(?P<number>\d+)\s+(?:are|were|is|remain|stay)\s+(?:still\s+|now\s+)?"
                            r"(?P<words>(?:[\w-]+\s*){1,3}?)(?=\s*(?:,|and\b|;|—|$))", re.IGNORECASE)
"""A set of the rows counted with a value ("6 are still open"), which "N of those …" right after is a share of."""
THOSE = re.compile(r"\d+\s+of\s+(?:those|these|them)\b", re.IGNORECASE)
NEW_SINCE = re.compile(r"new\s+(?:since|today|overnight|this|last|in|from|after)\b", re.IGNORECASE)
LABELLED_COUNT = re.compile(r"(?:^|[,;|(]\s*|\s[-–—·]\s*)(?P<words>[A-Za-z][A-Za-z ]{1,20}?)\s*:\s*\**(?P<number>\d+)\b"
                            r"(?![:.]\d|\s*%|\s*(?:of|out of|/)\b)")
"""A count under its value's label ("open: 4, on hold: 2"): the label is a value's own word, nothing more ("failure
rate: 9%" is no count of failures)."""


def _value_label(words: str) -> bool:
    label = " ".join(words.lower().split())
    return any(label == phrase for vocabulary in VALUE_VOCABULARIES.values() for phrase, _ in vocabulary.text_phrases)


def _shares_with_values(sentences: Sequence[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"N of them <value>" and "<value>: N" over complete searches: how many of one search's rows show the value."""
    checks = []
    for sentence in sentences:
        for match in [*SHARE_WITH_VALUE.finditer(digits(sentence)),
                      *(found for found in LABELLED_COUNT.finditer(digits(sentence)) if _value_label(found.group("words")))]:
            if NEW_SINCE.match(match.group("words") or ""):
                continue  # "3 of them new since midnight": opened lately (a share placed in time), not in state New
            asked = {name: {label.lower() for label in wanted} for name, wanted in asked_values(
                Ask(id="", text=match.group("words"), span=Span(start=0, end=0))).items()}
            allowed = set()
            whole = int(match.groupdict().get("whole") or 0)  # "3 of the 4 are …": the search of those 4
            searches = [item for item in index.items if item.rows and item.total == len(item.rows)
                        and whole in (0, len(item.rows))]
            named = [item for item in searches if any(isinstance(value, str) and len(value) > 3
                                                      and value.lower() in sentence.lower() for value in item.arguments.values())]
            # "6 are still open and 2 of those have nobody on them": of the rows with the value said just before
            before = SET_WITH_VALUE.search(digits(sentence)[:match.start()]) if THOSE.match(match.group()) else None
            subset = {name: {label.lower() for label in wanted} for name, wanted in asked_values(
                Ask(id="", text=before.group("words"), span=Span(start=0, end=0))).items()} if before else {}
            for item in named or searches:  # "Analytics Engineering: 3 of the 4 …": that team's search
                spec = tool_spec(item.tool)  # "open": a ticket's states, read in ticket searches
                values = {name: wanted for name, wanted in asked.items()
                          if spec and same_kind(VALUE_VOCABULARIES[name].record, spec.record)}
                rows = [row for row in item.rows if all(row_values(item, row, VALUE_VOCABULARIES[name]) & wanted
                                                        for name, wanted in subset.items()
                                                        if spec and same_kind(VALUE_VOCABULARIES[name].record, spec.record))]
                if subset and before and len(rows) != int(before.group("number")):
                    rows = item.rows  # the set said before is not these rows': the share is of all of them
                if values and all(any(row_values(item, row, VALUE_VOCABULARIES[name]) for row in item.rows)
                                  for name in values):
                    allowed.add(sum(1 for row in rows if all(row_values(item, row, VALUE_VOCABULARIES[name]) & wanted
                                                             for name, wanted in values.items())))
            if not allowed:
                continue
            checks.append(GroundingCheck.of("number", match.group(), int(match.group("number")) in allowed,
                                            f"{match.group().strip()}: the rows have {', '.join(map(str, sorted(allowed)))} such",
                                            "a count the data contradicts"))
    return checks


FAILED_PIPELINES = re.compile(r"(?<![\w.])(?P<number>\d+)\s+(?:of\s+(?:the\s+|its\s+)?\d+\s+|(?:distinct|different)\s+)?"
                              r"pipelines?\s+(?:(?:have|has|had)\s+)?(?:failed\b(?!\s+(?:once|twice|\d+\s+times|more than|at least|again|repeatedly|every|all|each))|(?:had|have|has|with|saw)\s+(?:at least 1\s+|"
                              r"a\s+|any\s+|1 or more\s+)?(?:failed runs?|failures?|failure)\b)", re.IGNORECASE)
"""How many pipelines failed ("8 of the 15 pipelines had at least one failed run", "seven pipelines failed")."""


def check_failed_pipeline_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """As many pipelines as a search shows failing: rows counting a failure, or the distinct pipelines of failed runs."""
    shown, listings = set(), []
    for item in (item for item in index.items if item.answered and item.rows and item.total == len(item.rows)):
        if all("failed" in row and "pipeline_name" in row for row in item.rows):
            shown.add(sum(bool(row["failed"]) for row in item.rows))
        elif all((row.get("status") or fixed_status(item)) == "Failed" and row.get("pipeline_name") for row in item.rows):
            listings.append({row["pipeline_name"] for row in item.rows})
            shown.add(len(listings[-1]))
    checks = []
    for sentence in sentences if shown else ():
        # "failed both yesterday and today": the pipelines in every listing of failed runs
        allowed = {len(set.intersection(*listings))} if BOTH.search(sentence) and len(listings) > 1 else shown
        checks += [GroundingCheck.of("number", match.group(), int(match.group("number")) in allowed,
                                     f"the searches show {' or '.join(map(str, sorted(allowed)))} pipelines failing",
                                     "a count of failed pipelines the data contradicts")
                   for match in FAILED_PIPELINES.finditer(digits(sentence))]
    return checks


def fixed_status(item: ToolEvidence) -> str:
    """The run status a tool always applies (``list_failed_pipelines``: Failed), whose rows need not say it."""
    spec = tool_spec(item.tool)
    return str(spec.fixed.get("run_status") or "") if spec else ""


BOTH = re.compile(r"\b(?:both|each (?:day|time)|every day)\b", re.IGNORECASE)
"""In every listing searched ("failed both yesterday and today")."""


EXISTENTIAL = re.compile(r"\bthere(?:'s| is| was)\s+(?:an?|one|at least one)\s+(?P<words>(?:[\w-]+\s+){1,3}?)"
                         r"(?P<noun>incident|ticket|change request|change|pipeline run|run|failure)\b", re.IGNORECASE)
"""One record with the values said ("there is an approved emergency change", "there was a cancelled run")."""


def check_existential_claims(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"There is a …" needs one row of that kind showing every value said (read like a count's qualifiers); it
    fails when the searches of that kind returned rows and none does."""
    checks = []
    for match in (match for sentence in sentences for match in EXISTENTIAL.finditer(sentence)):
        record = record_of_noun(match.group("noun").split()[-1].lower()) or "run"
        asked = {name: wanted for name, wanted in asked_values(Ask(id="", text=match.group("words"),
                                                                    span=Span(start=0, end=0))).items()
                 if same_kind(VALUE_VOCABULARIES[name].record, record)}
        rows = [(item, row) for item in index.items if item.answered and (spec := tool_spec(item.tool))
                and same_kind(spec.record, record) for row in item.rows]
        if asked and rows and not any(row_matches(item, row, asked) for item, row in rows):
            checks.append(GroundingCheck.of("value", match.group(), False,
                                            f"\"{match.group()}\": none of the {len(rows)} {record} rows shows "
                                            f"{' and '.join(sorted(asked))} as said", "a record the data does not show"))
    return checks


STATUS_COUNT = re.compile(r"(?<![\w.:/-])(?<!of )(?<!of the )(?<!of its )(?P<number>\d+)\s+(?:runs?\s+)?"
                          r"(?P<status>[a-z]+)\b(?!\s+(?:pipelines?|tickets?|incidents?|changes?|factories)\b)",
                          re.IGNORECASE)
"""A count of runs by status ("38 succeeded", "2 runs failed", "all 9 succeeded"); not the whole of a share ("9 of
the 40 runs failed") nor a count of another kind ("5 failed pipelines")."""


def check_named_status_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"adf-prod-weu: 40 runs — 38 succeeded, 2 failed": counts by status in a line about one grouped count row
    (a factory, a pipeline) are that row's own per-status counts, not a count of anything else the rows show."""
    grouped = [row for row in index.records if isinstance(row.get("count"), int)
               and any(field in row for field in STATUS_FIELDS.values())]
    names: dict[str, list[dict]] = {}  # (a name may have a row in each of several counts: this week's, last week's)
    for row in grouped:
        for value in {str(value).lower() for value in row.values() if isinstance(value, str) and len(value) >= 4}:
            names.setdefault(value, []).append(row)
    checks = []
    for sentence in sentences:
        said = digits(sentence)
        named = [rows for name, rows in names.items() if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", said.lower())]
        own = {str(value).lower() for rows in named for row in rows for value in row.values() if isinstance(value, str)}
        if len(named) != 1 or set(record_keys(said)) - own:
            continue  # about none of the rows, or several ("weu 38, neu 9 succeeded"), or a record within one
        after = min(found.end() for name in own if (found := re.search(re.escape(name), said.lower())))
        for match in STATUS_COUNT.finditer(said, after):  # (what the line says after the name)
            fields = count_fields_in(match.group("status"))
            if len(fields) != 1:
                continue  # no status right after the number ("40 runs"), or a group of them ("2 running or queued")
            shown = sorted({row[fields[0]] for row in named[0] if isinstance(row.get(fields[0]), int)})
            checks.append(GroundingCheck.of("number", match.group(), int(match.group("number")) in shown,
                                            f"its row counts {' or '.join(map(str, shown))} {fields[0]}, not "
                                            f"{match.group('number')}",
                                            "a count by status the data contradicts"))
    return checks


TIMED_SHARE = re.compile(
    # (not the whole of a share said, nor the rest of one: "the other three are from this morning")
    r"(?<![\w.:])(?<!of those )(?<!of these )(?<!of the )(?<!of all )(?<!out of )(?<!other )(?<!remaining )"
    r"(?P<number>\d+)\s+(?:of\s+(?:them|(?:those|these)(?:\s+(?P<whole2>\d+))?|the\s+(?P<whole>\d+)(?:\s+[\w-]+){0,2}?)\s+"
    r"(?:(?:happened|were|was|came|ran|started|failed|occurred|opened|fell|are|is|have been|had been|been|got|"
    r"came in|raised|logged|created|new)\s+){0,2}"
    r"|(?:happened|were|came|ran|started|failed|occurred|opened|fell|are)\s+(?:(?:opened|raised|logged|created)\s+)?)"
    r"(?:(?P<relation>before|after|since)\s+(?P<when>[^,.;:()\n]{3,40})|(?:(?:on|from|in)\s+)?"
    r"(?P<day>(?:today|yesterday|(?:this|last)\s+(?:morning|night|evening)|overnight)(?:'s)?\b))", re.IGNORECASE)
"""A share of the rows just counted placed in time ("8 of the 9 failures happened after midnight", "5 of them
before today", "two of the four are today", "Two are today"): how many of one complete search's moments fall on that side of the
moment said, or inside the day said."""


DAYS_COUNT = re.compile(r"\b(?P<day>today|yesterday)['’]s\s+(?P<number>\d+)\b(?!\s*(?:%|:\d|min|h\b|hours?))",
                        re.IGNORECASE)
"""How many of the moments just counted fall on a day, said as the day's own ("4 failures, today's two included")."""


def timed_shares(text: str, index: EvidenceIndex) -> list[tuple[re.Match[str], set[int]]]:
    """Each time-placed share with the counts the evidence allows (none read: not a claim this reads)."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    found, sets, text = [], None, digits(text)
    for match in [*TIMED_SHARE.finditer(text), *DAYS_COUNT.finditer(text)] if index.now is not None else ():
        said = next(find_times(match.groupdict().get("when") or re.sub(r"['’]s$", "", match.group("day")), index.now), None)
        if said is None:
            continue
        relation = (match.groupdict().get("relation") or "during").lower()
        day = said.end - said.start >= timedelta(days=1) and said.point is None
        bound = said.point or (said.end if relation == "after" and day else said.start)
        whole, allowed = int(match.groupdict().get("whole") or match.groupdict().get("whole2") or 0), set()
        sets = moment_sets(index) if sets is None else sets
        shared = " of " in match.group().lower()  # "5 of them …", "2 of the 4 …": of the list just said
        if not shared:  # "2 failed today", "today's 2": of the record the sentence names, else of the one record shown
            start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
            named = record_keys(text[start:match.end()]) or [key for key in [index.sole_record()] if key] or \
                index.sole_history()
            if not named:
                continue
        for moments, total in (sets if shared else moment_sets(index, named)):
            if relation == "during":  # inside the day said: of a list of the latest, only when it reaches back that far
                if whole in (0, total) and (total == len(moments) or said.start >= min(moments)):
                    allowed.add(sum(1 for moment in moments if said.start <= moment < said.end))
                continue
            later = sum(1 for moment in moments if moment >= bound)
            if whole in (0, total) and (total == len(moments) or bound >= min(moments)):  # a list of the latest:
                allowed.add(total - later if relation == "before" else later)  # every one after the bound is in it
        if allowed:
            found.append((match, allowed))
    return found


def moment_sets(index: EvidenceIndex, keys: Sequence[str] = ()) -> list[tuple[list[datetime], int]]:
    """The moments a share may be of, each with how many there are: each complete search's rows (by their first
    moments), and each list of moments inside one row (a failure group's latest starts, of its ``count``); with
    ``keys``, only the rows of those records."""
    sets = []
    for item in index.items:
        rows = [row for row in item.rows if not keys or any(str(row.get(field, "")).lower() in keys
                                                            for field in ("pipeline_name", "number", "run_id"))]
        if rows and item.total == len(item.rows):
            firsts = [min(moments) for row in rows if (moments := moments_of(row))]
            sets += [(firsts, len(firsts))] if len(firsts) == len(rows) else []
        for row in rows:
            for part in (row, *parts_of(row)):
                total = part.get("count") if isinstance(part.get("count"), int) else 0
                sets += [(moments, max(total, len(moments))) for value in part.values()
                         if isinstance(value, list) and len(value) > 1 and len(moments := [
                             moment for each in value if isinstance(each, str) and (moment := iso_moment(each))]) == len(value)]
    return sets


def check_windowed_counts(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"9 failed runs yesterday" over a search of the last 24 hours: a count said of the one window its sentence
    names, when no search applied that window but some listed those records over part of it, is counted from the
    rows placed in it (by when each started or was opened) in searches that cover it and show every row — or
    nothing backs it."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    now = index.now
    if now is None:
        return []
    timed = [item for item in index.items if item.answered and (spec := tool_spec(item.tool)) and spec.filters_of("window")]
    checks = []
    for sentence in sentences:
        if PART_OF_WHOLE.search(digits(sentence)):
            continue  # "8 of the 9 failures happened after midnight": the part is placed (``timed_shares``), not the whole
        counts = [(number, noun) for number, noun in counted_nouns_in(digits(sentence))
                  if noun and number == int(number) and records_counted(noun) & RECORDS_IN_TIME]
        times = list(find_times(sentence, now)) if counts and not CLOCK_TIME.search(sentence) else []
        # one window, said alone ("between 18:00 yesterday and 08:00" is a range its clock times make)
        if len(times) != 1 or times[0].point is not None or times[0].start >= now or \
                times[0].end - times[0].start > LOOSE_WINDOW or any(
                window_applied(times[0], item, now) for item in timed):
            continue  # no one window said, a week said loosely ("this week" for the last 7 days), or a search
            # applied it: the counts of its rows judge the number
        start, end = times[0].start, min(times[0].end, now)
        for number, noun in counts:
            kinds = records_counted(noun)
            # searches of those records over part of the window, whose rows say when each happened
            near = [item for item in timed if tool_spec(item.tool).record in kinds and overlaps(item, start, end)
                    and item.rows and all(moments_of(row) for row in item.rows)]
            if not near:
                continue  # nothing here could place a row: other checks judge the number
            named = [key for key in record_keys(sentence) if key.startswith("pl_")]  # "pl_x failed 3 times today": its rows
            placed = [row for item in near if item.total == len(item.rows) and covers(item, [(start, end)])
                      for row in item.rows if start <= min(moments_of(row)) < end
                      and (not named or str(row.get("pipeline_name", "")).lower() in named)]
            allowed = {len({identity(row) for row in placed})} | (
                {len({row["pipeline_name"] for row in placed if row.get("pipeline_name")})} if "pipeline" in kinds else set())
            checks.append(GroundingCheck.of(
                "number", f"{number:g} {noun}", int(number) in allowed,
                f"{number:g} {noun} {times[0].text}: no search applied that window, and the rows placed in it count "
                f"{', '.join(map(str, sorted(allowed)))}", "a count the data contradicts"))
    return checks


PART_OF_WHOLE = re.compile(r"(?<![\w.])\d+\s+(?:out\s+)?of\s+(?:(?:the\s+|its\s+|all\s+|these\s+|those\s+)?\d+\b|"
                           r"(?:them|those|these)\b)", re.IGNORECASE)
LOOSE_WINDOW = timedelta(days=2)
"""Longer windows are said loosely ("this week" for the last seven days): only days and hours are judged here."""
RECORDS_IN_TIME = frozenset({"run", "pipeline", "incident", "change"})
"""Records that happen at a moment a window can hold (a run's start, an incident's opening, a change's window)."""
