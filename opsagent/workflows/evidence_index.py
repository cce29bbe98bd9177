"""What the evidence of a run can vouch for: identifiers, numbers, counts, and empty searches.

Built once per grounding check from the task results. Identifiers and numbers are read from the
rows the tools returned (not from the specialists' prose), plus the ids a tool was asked about
and reported missing. Counts are everything a correct answer may count: totals, rows shown, rows
per value, distinct values, calls that found something or nothing, and correlations between two
tools' rows ("3 of the 5 failing pipelines have an incident").
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from datetime import UTC, datetime, timedelta
from typing import Any

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.intake.times import DAY_NAME, MONTH_NAME
from opsagent.tools.catalog import RECORDS, record_of_noun, tool_spec
from opsagent.tools.identifiers import NAME, RECORD_NUMBER, RUN_ID, TICKET
from opsagent.tools.pipeline_rows import status_total
from opsagent.tools.timewindow import iso_moment, unit_minutes
from opsagent.tools.vocabularies import RUN_STATUS

DATE_OR_TIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?Z?)?\b|\b\d{1,2}:\d{2}(?::\d{2})?Z?(?:\s?(?:am|pm))?\b"
    r"|\b\d{1,2}\s?(?:am|pm)\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:half past|quarter past|quarter to)\s+(?:\d{1,2}|[a-z]+)\b"
    r"|\b\d{1,2}\s+o'clock\b"
    r"|\b\d{1,2}(?:\s*[–—-]\s*\d{1,2})?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"  # "3–10 Jan"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}\b"
    rf"|\b{DAY_NAME}\.?\s+\d{{1,2}}\b(?:\s+{MONTH_NAME}\b|(?!\s*(?:[:h%]|am\b|pm\b|[a-z])))",  # "Sat 11 – Sun 12 Jan": the 11th
    # (not "Monday 17 runs failed": a count)
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.])(?<!\w:)\d+(?:\.\d+)?(?!\.?\w)")
"""A quantity; not a port ("crm.example.com:443") nor a part of a name or a decimal."""
LABEL_NUMBER = re.compile(r"\b(?:p|sev|v|step|part|p0)\d+\b|\b(?:release|version|runtime|build|v)\s*\d+(?:\.\d+)+\b|"
                          r"\b\d+(?:\.\d+){2,}\b", re.IGNORECASE)
"""Numbers that are labels, not quantities: P2, sev1, v2, step 2 (as "step2"), part ids, versions ("release 2.14",
"runtime 15.4", "5.44.1")."""


def _text(value: Any) -> str:
    """A value as JSON text, non-ASCII kept ("Tomás", not "Tom\\u00e1s"), for substring tests."""
    return json.dumps(value, default=str, ensure_ascii=False)


def _is_identifier(token: str) -> bool:
    return "_" in token or any(char.isdigit() for char in token)


def identifiers_in(text: str) -> set[str]:
    """Ticket numbers, run ids and snake/kebab names in ``text``, lower-cased."""
    found = {match.group().lower() for pattern in (TICKET, RECORD_NUMBER, RUN_ID) for match in pattern.finditer(text)}
    masked = RUN_ID.sub(" ", text)
    found |= {match.group().lower() for match in NAME.finditer(masked) if _is_identifier(match.group())}
    return found


COUNTED = re.compile(
    r"^\s*(?:(?:more|other|open|new|active|failed|failing|distinct|unique|matching|scheduled|finished|completed)\s+)*"
    r"(?:failed|failures?|runs?|incidents?|changes?|change requests?|pipeline (?:runs?|failures?)|pipelines?|tickets?|"
    r"times|rows|records|components|"
    r"items|results|calls|of\b)",
    re.IGNORECASE,
)
"""What follows a number that counts things ("4 failed", "3 of the 5", "2 open incidents")."""


WINDOW_LABEL = re.compile(
    r"\b(?:last|past|next|previous|within|in|over|for|the|first|final)\s+(?:the\s+)?(?:\d+|\w+)\s*"
    r"(?:min(?:ute)?s?|h(?:ou)?rs?|hours?|h|days?|d|weeks?|wks?|w|months?)\b"
    r"|(?<![\d.])\d+(?:\.\d+)?\s*(?:min(?:ute)?s?|h(?:ou)?rs?|hours?|h|days?|d|weeks?|w)\s+"
    r"(?:ago|before|after|earlier|later|from now)\b"
    r"|\b\d+(?:h|d|w|m)\b"
    r"|\(\s*\d+\s*(?:h|hours?|d|days?|w|weeks?)\s*\)(?=\s*:)",  # a heading's window: "Pipelines (24 h):"
    re.IGNORECASE,
)
"""Windows and ages written with a number ("last 24 hours", "30 minutes before", "24h"): the number is
part of a time, never a count the evidence must vouch for."""
YEAR = re.compile(r"(?<![\w.])(?:19|20)\d\d(?![\w.])(?!\s+(?:failed|failures?|runs?|incidents?|changes?|pipelines?))")
WORD_NUMBERS = {word: index for index, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
WORD_NUMBER = re.compile(rf"(?<!\bevery )(?<!\bevery single )(?<!\beach )(?<!\bany )(?<!\bno )\b(?:{'|'.join(WORD_NUMBERS)})\b(?=\s+(?:of\b|\w+))",
                         re.IGNORECASE)
"""A count in words; "every one of them", "any one", "no one" quantify, they count nothing."""


HALF = re.compile(r"\b(\d+) and a half\b", re.IGNORECASE)


def digits(text: str) -> str:
    """Counts written in words as digits ("three pipelines" → "3 pipelines"); "one of" stays countable."""
    text = WORD_NUMBER.sub(lambda match: str(WORD_NUMBERS[match.group().lower()]), text)
    return HALF.sub(lambda match: f"{match.group(1)}.5", text)  # "two and a half hours" is 2.5 hours


def _cleaned(text: str) -> str:
    cleaned = DATE_OR_TIME.sub(" ", RUN_ID.sub(" ", TICKET.sub(" ", text)))
    cleaned = YEAR.sub(" ", WINDOW_LABEL.sub(" ", digits(cleaned)))  # "ten minutes earlier" as "10 minutes earlier"
    cleaned = NAME.sub(lambda m: " " if _is_identifier(m.group()) else m.group(), cleaned)
    return COMPOUND.sub(" ", digits(LABEL_NUMBER.sub(" ", cleaned)))  # "6 d 10 h" is one length, checked as one


def numbers_in(text: str) -> list[float]:
    """Quantities in ``text``: numbers that are not part of an id, a date, a time or a label."""
    return [float(match.group()) for match in NUMBER.finditer(_cleaned(text))]


COUNTED_RECORDS = {"failed": "run", "failure": "run", "failures": "run", "times": "run", "run": "run", "runs": "run"}


def counted_nouns_in(text: str) -> list[tuple[float, str | None]]:
    """Each quantity with what it counts: the noun after it ("7 *pipelines*"), "" for a generic count
    ("3 of …", "rows"), ``None`` when it counts nothing."""
    cleaned = _cleaned(text)
    found: list[tuple[float, str | None]] = []
    for match in NUMBER.finditer(cleaned):
        counted = COUNTED.match(cleaned[match.end():])
        found.append((float(match.group()), counted.group().split()[-1].lower() if counted else None))
    return found


ELAPSED = re.compile(r"(?<![\w.:])(\d+(?:\.\d+)?)\s*(minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b", re.IGNORECASE)
"""A length of time ("48 minutes ago", "about 7 hours", "for two hours"): a span between two of the evidence's
moments, or between one and now."""
BOUND = re.compile(r"\b(?:more than|over|at least|almost|nearly|under|less than|within|up to)\s*$", re.IGNORECASE)
ISO_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


COMPOUND = re.compile(r"(?<![\w.:])(\d+)\s*(d|days?|h|hrs?|hours?)\s*,?\s*(?:and\s+)?(\d+)\s*(h|hrs?|hours?|m|mins?|minutes?)\b",
                      re.IGNORECASE)
"""A length in two units ("6 d 10 h", "1h 02m", "2 hours 15 minutes"): one length, not two numbers."""


def compound_lengths(text: str) -> list[tuple[str, float, int]]:
    """Each two-unit length in ``text``: (as written, its minutes, the minutes of its smaller unit)."""
    found = []
    for match in COMPOUND.finditer(digits(text)):
        large, small = unit_minutes(match.group(2)) or 1, unit_minutes(match.group(4)) or 1
        if small < large:
            found.append((match.group(), float(int(match.group(1)) * large + int(match.group(3)) * small), small))
    return found


def _content_words(text: str) -> list[str]:
    """Words and numbers apart ("5-10x" and "5–10×" both read 5, 10, x), without the small words."""
    tokens = re.findall(r"\d+|[a-z_]+", text.lower().replace("×", "x"))
    return [token for token in tokens if token.isdigit() or len(token) >= 3 and token not in SMALL_WORDS]


SMALL_WORDS = frozenset("the and for with from that this its was were are has have had been into than then".split())


def _lengths(text: str, followed_by: re.Pattern[str] | None = None) -> list[tuple[re.Match[str], re.Match[str] | None]]:
    """Each length of time in ``text`` (a compound one like "6 d 10 h" left out: it is checked as one); with
    ``followed_by``, only those the pattern follows and that no bound precedes ("more than 24 hours ago")."""
    flat = COMPOUND.sub(lambda match: "#" * len(match.group()), digits(text))
    if followed_by is None:
        return [(match, None) for match in ELAPSED.finditer(flat)]
    return [(match, after) for match in ELAPSED.finditer(flat) if (after := followed_by.match(flat, match.end()))
            and not BOUND.search(flat[:match.start()])]


AGO = re.compile(r"\s+ago\b", re.IGNORECASE)
APART_SAID = re.compile(r"\s+(after|before|earlier|later|into)\b", re.IGNORECASE)


def elapsed_said(text: str, *, ago: bool = False) -> list[tuple[float, int]]:
    """Each length of time in ``text``: (number, minutes per unit); with ``ago``, only "N units ago"."""
    return [(float(match.group(1)), unit_minutes(match.group(2)) or 1)
            for match, _ in _lengths(text, AGO if ago else None)]


AHEAD_AFTER = re.compile(r"\s+(?:away|from\s+now)\b", re.IGNORECASE)
AHEAD_BEFORE = re.compile(r"(?:\(\s*|\b(?:starts?|starting|begins?|opens?|kicks?\s+off|due|planned|scheduled|expires?|"
                          r"lands?|goes\s+(?:ahead|live)|happens?|comes?\s+up)\s+)in\s+$", re.IGNORECASE)
"""A length from now to something ahead: "4 days away", "starts in 2 hours", "(in 4 days)" after a date."""


def elapsed_ahead(text: str) -> list[re.Match[str]]:
    """Each length from now to a moment ahead (groups: number, unit), in ``text`` with its numbers in digits."""
    flat = COMPOUND.sub(lambda match: "#" * len(match.group()), text)
    return [match for match in ELAPSED.finditer(flat)
            if AHEAD_AFTER.match(flat, match.end()) or AHEAD_BEFORE.search(flat[max(0, match.start() - 30):match.start()])]


def elapsed_apart(text: str) -> list[tuple[float, int, str]]:
    """Each length said between two moments ("twelve minutes after CHG… started", "ten minutes earlier"):
    (number, minutes per unit, the word relating them); bounds ("within 2 hours after") are not lengths."""
    return [(float(match.group(1)), unit_minutes(match.group(2)) or 1, apart.group(1).lower())
            for match, apart in _lengths(text, APART_SAID) if apart]


def moments_of(row: dict[str, Any]) -> list[datetime]:
    """The moments a row gives: its ISO times (one, or a list: a failure group's starts), and a run's end (its
    start plus its duration)."""
    values = [part for value in row.values() for part in (value if isinstance(value, list) else [value])]
    found = [parsed for value in values
             if isinstance(value, str) and ISO_MOMENT.match(value) and (parsed := iso_moment(value))]
    start, minutes = iso_moment(row.get("start")), row.get("duration_min")
    if start and isinstance(minutes, (int, float)) and math.isfinite(minutes) \
            and 0 <= minutes < 525_600:  # when a run ended (a year at most: a bad value is not a moment)
        found.append(start + timedelta(minutes=minutes))
    return found


def _spans(items: Sequence[ToolEvidence], now: datetime | None) -> set[float]:
    """Minutes between two moments of one row or a record nested in it (a run's activity), and between each
    moment and now."""
    spans: set[float] = set()
    for item in items:
        for row in item.rows:
            moments = [*moments_of(row), *(moment for value in row.values() if isinstance(value, dict)
                                           for moment in moments_of(value))]  # a history's last failure, its run
            spans |= {abs((now - moment).total_seconds()) / 60 for moment in moments} if now is not None else set()
            for part in (row, *parts_of(row)):  # an activity's own length, not its distance from now
                moments = moments_of(part)
                spans |= {abs((first - second).total_seconds()) / 60 for first in moments for second in moments}
    return spans


def own_parts(rows: Sequence[dict[str, Any]]) -> list[set[str]]:
    """Each row's name parts no other row of the search has ("neu" of adf-prod-neu beside adf-prod-weu; "sales" of
    pl_ingest_sales): how an answer names a row by a part of its name."""
    parts = [{part for key in ("factory", "pipeline_name", "name", "configuration_item") if isinstance(row.get(key), str)
              for part in re.split(r"[-_\s]+", row[key].lower()) if len(part) >= 3 and not part.isdigit()} for row in rows]
    return [mine - set().union(*(other for other in parts if other is not mine)) for mine in parts]


def records_counted(noun: str | None) -> set[str]:
    """The record kinds a counted noun is about ("pipelines": pipelines and their runs); empty = any."""
    record = COUNTED_RECORDS.get(noun or "") or record_of_noun(noun or "")
    runs = {"run", "pipeline", "run_count"}  # a pipeline's runs, listed or counted
    return runs if record in runs else {record} if record else set()


PHRASE_WORD = re.compile(r"[a-z]+")
PHRASE_WORDS = 4


def counts_with_phrases(text: str) -> list[tuple[float, str]]:
    """Each count with the words that follow it ("9" -> "failed pipeline runs in"): what it counts."""
    cleaned = _cleaned(text)
    found = []
    for match in NUMBER.finditer(cleaned):
        rest = cleaned[match.end():]
        if not COUNTED.match(rest):
            continue
        words = PHRASE_WORD.findall(rest.split("\n", 1)[0][:60].lower())[:PHRASE_WORDS]
        if len(words) == PHRASE_WORDS:
            found.append((float(match.group()), " ".join(words)))
    return found


def _leaves(value: Any) -> Iterable[Any]:
    """Every scalar inside nested dicts and lists."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _numbers_of(value: Any) -> set[float]:
    """Numeric fields, and the quantities written inside text fields."""
    found: set[float] = set()
    for leaf in _leaves(value):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, (int, float)):
            found.add(float(leaf))
        elif isinstance(leaf, str):
            found.update(numbers_in(leaf))
    return found


MEASURED = re.compile(r"(?:_at|_date|_min|_pct|start|end|_success|description|message|notes|text|detail|update)$")
"""Fields that measure or describe rather than name (times, durations, rates, texts): how many distinct
values they take counts nothing a user asks about."""


def _row_values(rows: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Field -> the value of each row that has it (as text), for counting: fields that name or classify
    (a pipeline, a state, a group), not ones that measure."""
    values: dict[str, list[str]] = {}
    for row in rows:
        for key, value in row.items():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "" \
                    and not MEASURED.search(key):
                values.setdefault(key, []).append(str(value).lower())
    return values


ATTRIBUTED = re.compile(r"^.*?\b(?:states?|says?|reads?|notes?|mentions?|according to)\b(?:\s+that)?[\s,:]*",
                        re.IGNORECASE)
"""What introduces a record's own words ("the description states that …")."""


@dataclass
class EvidenceIndex:
    """Everything the evidence vouches for, ready for fast membership checks."""

    identifiers: set[str] = field(default_factory=set)
    numbers: set[float] = field(default_factory=set)
    counts: set[int] = field(default_factory=set)
    text: str = ""
    """All row values and messages, lower-cased: for names the inventory knows."""
    row_text: str = ""
    """The rows' values alone, lower-cased: what the records themselves say (not the question, not a summary)."""
    question: str = ""
    """The question (and what a follow-up resolved it to), lower-cased: the names the user asked about."""
    phrased_counts: dict[str, set[float]] = field(default_factory=dict)
    """What the tools' own summary lines count: "failed pipeline runs in" -> {9}."""
    record_counts: dict[str, set[int]] = field(default_factory=dict)
    """The counts each record kind's searches give (incidents, changes, runs…): "7 pipelines" must be one of
    the run searches' counts, not a count of incidents."""
    cross_counts: set[int] = field(default_factory=set)
    pipeline_counts: set[int] = field(default_factory=set)
    """How many distinct pipelines the rows hold, in all or in a group: "5 pipelines failed" over nine failed runs
    (never the number of distinct errors or activities among them)."""
    items: list[ToolEvidence] = field(default_factory=list)
    spans: set[float] = field(default_factory=set)
    """Minutes between moments of one row, and from each to now: the lengths of time an answer may say."""
    spans_from_now: bool = False
    """Whether ``spans`` include the spans to now (the check knows when now is)."""
    now: datetime | None = None
    group_counts: set[int] = field(default_factory=set)
    """Counts of a run status group ("38 finished runs"): back only a count said with its group's word."""

    @classmethod
    def build(cls, results: Sequence[TaskResult], *, question: str = "", now: datetime | None = None) -> EvidenceIndex:
        index = cls(items=[item for result in results for item in result.evidence])
        now = now if now is None or now.tzinfo else now.replace(tzinfo=UTC)  # a naive now is UTC
        index.spans, index.spans_from_now, index.now = _spans(index.items, now), now is not None, now
        texts = [question]
        for item in index.items:
            row_text = _text(item.rows)
            texts += [row_text, item.message]
            index.identifiers |= identifiers_in(row_text)
            if item.status in ("no_data", "not_found"):  # asked about and reported missing
                index.identifiers |= identifiers_in(_text([item.arguments, item.query]))
            index.numbers |= _numbers_of(item.rows)
            message_numbers = set(numbers_in(item.message))  # the tool's own counts ("9 failed runs")
            index.numbers |= message_numbers
            index.counts |= {int(number) for number in message_numbers if number.is_integer()}
            for number, phrase in counts_with_phrases(item.message):
                index.phrased_counts.setdefault(phrase, set()).add(number)
            own = _item_counts(item) | {int(number) for number in message_numbers if number.is_integer()}
            index.counts |= own
            index.record_counts.setdefault(record_of_tool(item.tool), set()).update(own)
            index.group_counts |= _status_group_counts(item)
        index.identifiers |= identifiers_in(question)
        index.numbers |= set(numbers_in(question))
        index.cross_counts = _cross_counts(index.items)
        index.counts |= index.cross_counts
        index.pipeline_counts = _distinct_counts(index.items, "pipeline_name")
        index.text, index.question = "\n".join(texts).lower(), question.lower()
        index.row_text = "\n".join(_text(item.rows) for item in index.items).lower()
        return index

    def vouches_for_count(self, number: float, records: set[str], *, pipelines: bool = False) -> bool:
        """A count of a kind of record ("7 runs") is a count its own searches give (or a count across
        searches: "3 of the 5 pipelines have an incident"); a count of pipelines, one of distinct pipelines."""
        if not records or not number.is_integer():
            return self.vouches_for_number(number, is_count=True)
        if pipelines and self.pipeline_counts:
            return int(number) in self.pipeline_counts
        allowed = self.cross_counts.union(*(self.record_counts.get(record, set()) for record in records))
        return int(number) in allowed

    def vouches_for_elapsed(self, number: float, unit_minutes: int) -> bool:
        """"48 minutes ago", "about seven hours": a span of the evidence, as people round it (within one unit)."""
        return any(abs(span / unit_minutes - number) < 1 for span in self.spans)

    def vouches_for_ahead(self, number: float, unit_minutes: int) -> bool:
        """"Starts in 4 days": a moment of the evidence after now, that far ahead as people round it (within one
        unit)."""
        now = self.now
        return now is not None and any(abs((moment - now).total_seconds() / 60 / unit_minutes - number) < 1
                                       for moment in self.all_moments if moment > now)

    def vouches_for_apart(self, number: float, unit_minutes: int, clocks: Iterable[str], *,
                          approximate: bool = False, later: bool = False) -> bool:
        """"From 01:50, ten minutes earlier", "08:12, twelve minutes after CHG… started at 08:00": a moment of the
        evidence at a clock time the sentence says and another one that far from it, as people round it (within
        one unit; "about 50 minutes": to the nearest five minutes); ``later``: the time said is the later one
        ("18:12, 72 minutes into the window")."""
        wanted = set(clocks)
        # a moment a search was asked about ("the run closest to 04:00 started at 03:21, 39 min before") is one
        # end; the other is always the data's
        said = [moment for moment in self.all_moments if f"{moment:%H:%M}" in wanted]
        asked = [moment for moment in self.asked_moments if f"{moment:%H:%M}" in wanted]  # both clocks said
        within = 2.5 if approximate and unit_minutes == 1 and number % 5 == 0 else 1.0
        return any(abs(abs((first - second).total_seconds()) / 60 / unit_minutes - number) < within
                   and (not later or first > second) for first in said for second in [*self.all_moments, *asked])

    def vouches_for_between(self, number: float, unit_minutes: int, clocks: Iterable[str]) -> bool:
        """"~18 hours (12:26 → 06:25)": two moments of the evidence at clock times the sentence says, that far
        apart as people round it (within one unit)."""
        wanted = set(clocks)
        said = [moment for moment in self.all_moments if f"{moment:%H:%M}" in wanted]
        return any(abs((later - earlier).total_seconds() / 60 / unit_minutes - number) < 1
                   for earlier in said for later in said if later > earlier)

    def vouches_for_gap(self, minutes: float, unit_minutes: int) -> bool:
        """"5 h 10 min after the window closed": two moments of the evidence that far apart (within the smaller unit
        said: a length to the minute is not matched by chance among a few dozen moments)."""
        moments = sorted(self.all_moments)
        return any(abs((later - earlier).total_seconds() / 60 - minutes) < unit_minutes
                   for index, earlier in enumerate(moments) for later in moments[index + 1:])

    @cached_property
    def asked_moments(self) -> frozenset[datetime]:
        """The moments the calls asked about (a run "around" 04:00)."""
        return frozenset(moment for item in self.items for moment in moments_of(item.arguments))

    @cached_property
    def all_moments(self) -> frozenset[datetime]:
        """Every moment of the records and of what is nested in them (a run's activities)."""
        return frozenset(moment for row in self.records for part in (row, *parts_of(row)) for moment in moments_of(part))

    def vouches_for_number(self, number: float, *, is_count: bool = False) -> bool:
        """A count must be a count of evidence rows; any other quantity may also be a value in a row,
        rounded as people round ("about 62 minutes" for 61.7, "3 min" for 3.0) — to the places it is written with
        ("27.5" is no rounding of 28)."""
        counted = number.is_integer() and int(number) in self.counts
        if is_count:
            return counted
        written = f"{number:g}"
        places = len(written.partition(".")[2])
        return counted or number in self.numbers or any(abs(value - number) <= 0.5 * 10 ** -places + 1e-9
                                                        for value in self.numbers if value >= 1) or \
            bool(places) and re.search(rf"(?<![\d.]){re.escape(written)}(?![\d.]\d)", self.row_text) is not None
        # (a record's own words: "release 2.14" in its text, "roll back 2.14" in the answer)

    @cached_property
    def rows_with_own_parts(self) -> list[tuple[dict[str, Any], set[str]]]:
        """Every row beside the name parts no other row of its search has (``own_parts``), worked out once."""
        return [pair for item in self.items for pair in zip(item.rows, own_parts(item.rows))]

    def named_rows(self, sentence: str) -> list[dict[str, Any]]:
        """The rows ``sentence`` names, by a value or by a part of its name only they have ("neu had none")."""
        lowered = sentence.lower()
        words = set(re.findall(r"[a-z0-9]+", lowered))
        return [row for row, parts in self.rows_with_own_parts if parts & words or any(
            isinstance(value, str) and len(value) > 3 and value.lower() in lowered for value in row.values())]

    def shares_of_named_rows(self, sentence: str) -> list[float]:
        """Percentages one row's own counts give (``100 * part / whole`` of two of its whole numbers), for the rows
        ``sentence`` names ("weu had 40 runs; 22.5% of them failed")."""
        found = []
        for row in self.named_rows(sentence):
            counts = [value for value in row.values() if isinstance(value, int) and not isinstance(value, bool)
                      and value >= 0]
            found += [100 * part / whole for part in counts for whole in counts if 0 <= part <= whole and whole > 0]
        return found

    def shares_of_totals(self, sentence: str) -> list[float]:
        """Percentages a row's count gives of its whole search's ("weu carries 96 % of the failures": 23 of the 24
        counted over both factories) — of the rows the sentence names, else of every row of a search showing all
        its rows."""
        named = {id(row) for row in self.named_rows(sentence)}
        found = []
        for item in self.items:
            if len(item.rows) < 2 or item.total != len(item.rows):
                continue
            for name in COUNT_FIELDS:
                counts = [(row, row[name]) for row in item.rows if isinstance(row.get(name), int)
                          and not isinstance(row[name], bool) and row[name] >= 0]
                whole = sum(count for _, count in counts)
                found += [100 * count / whole for row, count in counts
                          if whole and len(counts) == len(item.rows) and (not named or id(row) in named)]
        return found

    def empty_searches(self) -> list[ToolEvidence]:
        return [item for item in self.items if item.status in ("no_data", "not_found")]

    def searched_for(self, identifier: str) -> list[ToolEvidence]:
        """Calls whose arguments name ``identifier``."""
        needle = identifier.lower()
        return [item for item in self.items if needle in _text(item.arguments).lower()]

    def rows_mentioning(self, identifier: str, tools: Collection[str] = ()) -> list[ToolEvidence]:
        """Calls (of ``tools``, or any) whose rows mention ``identifier``."""
        needle = identifier.lower()
        return [item for item in self.items if item.rows and (not tools or item.tool in tools)
                and needle in _text(item.rows).lower()]

    def quotes(self, text: str) -> bool:
        """The text is copied from the evidence (a record's own description), not a claim of the writer's."""
        flat = " ".join(text.lower().strip(" .…:;,-—").split())
        return len(flat) >= 12 and flat in self.text

    def restates(self, text: str) -> bool:
        """The text repeats, word for word (punctuation aside), six or more words of a record's own text: "the
        description states that Copy_X failed during and after the CHG… window" is the record's claim."""
        words = re.findall(r"[\w-]+", ATTRIBUTED.sub("", text.lower()))
        words = words[1:] if words[:1] in (["the"], ["a"], ["an"]) else words
        return len(words) >= 6 and " ".join(words) in self.row_words

    def echoes(self, text: str) -> bool:
        """Five or more of the text's content words, nearly all (4 in 5) found in one row's own text: a record's
        words told again ("Finance analysts report WH_FINANCE queries taking 5–10× longer than usual" for its
        description), whose numbers and comparisons are the record's, not the writer's."""
        words = set(_content_words(digits(ATTRIBUTED.sub("", text))))
        numbers = {word for word in words if word.isdigit()}
        if len(words) < 5:
            return False
        # its numbers are the record's own: "HTTP 504" does not tell a title with "HTTP 503" again
        return any(len(words & said) >= 0.8 * len(words) and numbers <= said for said in self._row_words)

    @cached_property
    def _row_words(self) -> list[set[str]]:
        """Each record's content words (read once per answer: every sentence is compared with them)."""
        return [set(_content_words(digits(" ".join(str(value) for value in row.values() if isinstance(value, str)))))
                for row in self.records]

    @cached_property
    def records(self) -> list[dict[str, Any]]:
        """Every row and the records nested in it (``records_in``), in order."""
        return [row for item in self.items for top in item.rows for row in records_in(top)]

    @cached_property
    def row_words(self) -> str:
        """The rows' text as its words, space-separated and padded (punctuation aside): for phrases said again."""
        return " " + " ".join(re.findall(r"[\w-]+", self.row_text)) + " "

    def text_says(self, key: str, words: str) -> bool:
        """A record's text says ``words`` of ``key`` ("pl_x failed: warehouse suspended" in a past incident's
        title): a claim that restates it is the record's, not the writer's."""
        near = r"\W+(?:[\w-]+\W+){0,2}"
        flat = " ".join(words.lower().split())
        key = re.escape(key.lower())
        said = re.escape(flat[:4]) + r"\w*" if " " not in flat and len(flat) > 4 else re.escape(flat)  # "failing"
        return re.search(rf"\b{key}{near}{said}\b|\b{said}{near}{key}\b", self.row_text) is not None

    def rows_for(self, key: str) -> list[tuple[ToolEvidence, dict[str, Any]]]:
        """The rows that are about one record: its own row by key field (a ticket's number, a run's id, a
        pipeline's name — its runs, its status summary and the records its history holds too)."""
        needle = key.lower()
        return [(item, row) for item in self.items for top in item.rows for row in records_in(top)
                if any(str(row.get(field, "")).lower() == needle for field in KEY_FIELDS)]

    def opened_at(self, key: str | None) -> datetime | None:
        """When a ticket was opened, by its rows (``None`` for a record that is not opened, or not shown)."""
        field = RECORDS["incident"].time_fields[0]  # opened_at
        return min((moment for _, row in (self.rows_for(key) if key else []) if (moment := iso_moment(row.get(field)))),
                   default=None)

    def sole_history(self) -> list[str]:
        """The pipeline whose history the evidence holds, when it holds one: what a sentence about the past that
        names no pipeline is about."""
        names = {str(row.get("pipeline_name")).lower() for row in self.records if isinstance(row.get("failure_groups"), list)}
        return sorted(names) if len(names) == 1 else []

    def sole_pipeline(self) -> str | None:
        """The one pipeline every answered row with a pipeline is about (a listing of its runs), else ``None``."""
        names = {str(row["pipeline_name"]).lower() for item in self.items if item.answered for row in item.rows
                 if row.get("pipeline_name")}
        return names.pop() if len(names) == 1 else None

    def sole_record(self) -> str | None:
        """The one record every answered row is about (a single run looked up), else ``None``: what an answer
        that names no record speaks of."""
        keys = {str(next(row[field] for field in KEY_FIELDS if row.get(field))).lower()
                for item in self.items if item.answered for row in item.rows if any(row.get(f) for f in KEY_FIELDS)}
        return keys.pop() if len(keys) == 1 else None

    def subject(self, named: Sequence[str]) -> str | None:
        """The record a sentence is about: the one it names, else (naming none) the one every row is about."""
        return named[0] if len(named) == 1 else None if named else self.sole_record()

    def linked(self, first: str, second: str) -> bool:
        """One row names both, or a search for one returned a row naming the other."""
        a, b = first.lower(), second.lower()
        for item in self.items:
            asked = _text([item.arguments, item.query]).lower()
            for row in item.rows:
                text = _text(row).lower()
                if (a in text or a in asked) and (b in text or b in asked):
                    return True
        return False

    def complete_listings_without(self, identifier: str) -> list[ToolEvidence]:
        """Untruncated listings that came back with rows, none of which mention ``identifier``."""
        needle = identifier.lower()
        return [item for item in self.items if item.status == "ok" and not item.truncated and item.rows
                and needle not in _text(item.rows).lower()]


KEY_FIELDS = ("number", "run_id", "pipeline_name", "last_run_id")
"""Row fields that name the record a row is about."""
COUNT_FIELDS = frozenset({"runs", "succeeded", "failed", "cancelled", "running", "queued", "count", "total",
                          "failures", "incidents", "changes", "components", "successful_runs", "runs_searched"})
"""Row fields that are counts already (a status summary's "runs: 18, failed: 3"), and their sums."""


def record_of_tool(tool: str) -> str:
    """The record kind a tool's rows are ("" for a tool the catalog does not know)."""
    spec = tool_spec(tool)
    return spec.record if spec else ""


def parts_of(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The records a row holds directly: objects among its values, or in its lists."""
    return [part for value in row.values() for part in (value if isinstance(value, list) else [value])
            if isinstance(part, dict)]


def records_in(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The row and the runs nested in it (a history's last failure, latest run, failure groups, durations), each
    carrying the naming fields of the row it sits in: "pl_x last failed at …" is about pl_x's row. A run's
    activities are parts of it, not runs: an activity that succeeded says nothing of the run's status. Records a
    row links (a ticket's change, with its number and state) are rows of their own."""
    naming = {field: row[field] for field in (*KEY_FIELDS, "factory") if field in row and field != "run_id"}
    nested = parts_of(row)
    own = [{**naming, **part} for part in nested if "run_id" in part or part.keys() & COUNT_FIELDS]
    linked = [part for part in nested if "run_id" not in part and part.get("number")]  # a ticket's linked change
    return [row, *own, *linked]


def _item_counts(item: ToolEvidence) -> set[int]:
    counts = {item.total, item.shown, len(item.rows)}
    for values in _row_values(item.rows).values():
        counts |= set(Counter(values).values()) | {len(set(values))}
    for name in COUNT_FIELDS:
        given = [row[name] for row in item.rows if isinstance(row.get(name), int) and not isinstance(row[name], bool)]
        counts |= set(given) | ({sum(given)} if given else set())
        if given:  # "6 of the 15 pipelines had failures": rows counting some, rows counting none
            counts |= {sum(1 for value in given if value > 0), sum(1 for value in given if value == 0)}
        # a row's own groups ("failure_groups": [{"count": 5}, …]): what one record's history counts, each and in all
        for group in (value for row in item.rows for value in row.values() if isinstance(value, list)):
            parts = [part[name] for part in group if isinstance(part, dict) and isinstance(part.get(name), int)
                     and not isinstance(part[name], bool)]
            counts |= set(parts) | ({sum(parts)} if parts else set())
    return counts


def _status_group_counts(item: ToolEvidence) -> set[int]:
    """"38 finished runs": a run count row's succeeded, failed and cancelled together (each status group's fields
    summed), per row and over all rows — counts of runs only, never a number of another kind."""
    counts: set[int] = set()
    for members in RUN_STATUS.groups.values():
        sums = [total for row in item.rows if (total := status_total(row, members)) is not None]
        counts |= set(sums) | ({sum(sums)} if sums else set())
    return counts


def _cross_counts(items: Sequence[ToolEvidence]) -> set[int]:
    """Counts across calls: per tool, how many calls found something / nothing, summed totals and
    distinct values; and per pair of tools, how many values of one the other's rows mention."""
    counts: set[int] = {len(items)}
    by_tool: dict[str, list[ToolEvidence]] = {}
    for item in items:
        by_tool.setdefault(item.tool, []).append(item)
    row_text = {tool: _text([row for item in calls for row in item.rows]).lower()
                for tool, calls in by_tool.items()}
    for tool, calls in by_tool.items():
        found = sum(1 for item in calls if item.rows)
        counts |= {len(calls), found, len(calls) - found, sum(item.total for item in calls)}
        for field_name, values in _row_values([row for item in calls for row in item.rows]).items():
            distinct = set(values)
            counts.add(len(distinct))
            for other, text in row_text.items():
                if other == tool or not _looks_like_names(distinct):
                    continue
                mentioned = {value for value in distinct if value in text}
                counts |= {len(mentioned), len(distinct - mentioned),
                           sum(1 for value in values if value in mentioned), sum(1 for value in values if value not in mentioned)}
    return counts


def _distinct_counts(items: Sequence[ToolEvidence], key: str) -> set[int]:
    """How many distinct ``key`` values the rows hold: across every call, in each call, among the rows sharing
    a value of another field ("3 pipelines failed with 2200"), with as many rows each ("two failed twice"), among rows a count field counts some or none of
    ("6 of the 15 pipelines had failures"), and among those another call's rows mention or do not (the pipelines
    with an incident). A search of that kind itself also counts by its totals. Empty when no row has ``key``."""
    keyed = [(item, [row for row in item.rows if row.get(key)]) for item in items]
    keyed = [(item, rows) for item, rows in keyed if rows]
    every = {str(row[key]).lower() for _, rows in keyed for row in rows}
    counts = {len(every)} if every else set()
    for item, rows in keyed:
        groups: dict[tuple[str, str], set[str]] = {}
        for row in rows:
            for name, value in row.items():
                if name in COUNT_FIELDS and isinstance(value, int):
                    groups.setdefault((name, str(value > 0)), set()).add(str(row[key]))
                elif name != key and isinstance(value, (str, int, float)) and not MEASURED.search(name):
                    groups.setdefault((name, str(value).lower()), set()).add(str(row[key]))
        counts |= {len({str(row[key]) for row in rows})} | {len(names) for names in groups.values()}
        counts |= set(Counter(Counter(str(row[key]) for row in rows).values()).values())  # "two failed twice"
        spec = tool_spec(item.tool)
        counts |= {item.total, item.shown} if spec and RECORDS[spec.record].key_field == key else set()
    for text in {_text(item.rows).lower() for item in items}:
        mentioned = {name for name in every if name in text}
        counts |= {len(mentioned), len(every - mentioned)}
    return counts


def _looks_like_names(values: set[str]) -> bool:
    """Only name-like values (ids, pipeline names) are worth correlating across tools."""
    return bool(values) and all(identifiers_in(value) for value in values)
