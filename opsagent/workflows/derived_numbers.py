"""Numbers an answer works out from its own numbers: "9 of 49 runs = 18.4%", "280 runs (82% of the total)",
"217 more runs (about 4.4x as many)", "roughly 27 points below".

A percentage is a share of a count of records ("49 runs") by another number the same sentence (or the one
before it) says; a ratio ("4.4x", "five times") is one between two numbers the answer says, a difference one
between two of the same kind ("217 more runs": two counts of runs; "27 points below": two percentages). Each
operand is a number of the answer, which the number checks judge on its own: a wrong operand is caught there,
and a derived number no pair of them gives stays unbacked. Only numbers written with such a marker are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import permutations

from opsagent.tools.timewindow import UNIT_WORD, unit_minutes
from opsagent.workflows.claims import record_keys, sentences
from opsagent.workflows.evidence_index import COMPOUND, ELAPSED, counted_nouns_in, digits, numbers_in

WHOLES = frozenset({"runs", "pipelines", "incidents", "tickets", "changes", "components", "failures", "rows",
                    "records", "items"})
"""What a percentage is a share of: a count of records ("280 runs"), not of a status ("249 succeeded")."""
PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent\b)", re.IGNORECASE)
RATIO = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:x|×|times)(?=\s+(?:as\s+|the\s+|its\s+|their\s+|more|higher|lower|"
                   r"longer|slower|faster|[a-z]+'s\b|that\s+of)|\s*[),;]|\s*$)", re.IGNORECASE)
"""A ratio of two numbers: "4.4x as many", "about 1.7x the median", "1.7× its usual", "(0.2×)"."""
ONE_IN = re.compile(r"(?<![\w.])(?:1|one)\s+(?:in|out of)\s+(?:every\s+)?(\d+)\b(?!\s*%)", re.IGNORECASE)
"""A share said as "one in N" ("roughly 1 in 7 runs failed"): a whole over a part of the answer, rounded."""
DIFFERENCE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s+(?:(?P<points>(?:percentage\s+)?points?)\s+(?:below|above|higher|lower)|"
                        r"(?:more|fewer|less)\s+(?P<noun>[a-z]+))\b", re.IGNORECASE)
"""A difference of two numbers of the same kind: "217 more runs" (two counts of runs), "27 points below" (two
percentages)."""
BEYOND = re.compile(rf"(?<![\w.])(?:\+|(?<![\w.)])[−–](?=\d)|(?<=[\s(|])-(?=\d))(\d+(?:\.\d+)?)|(?<![\w.+-])(\d+(?:\.\d+)?)\s*(?:{UNIT_WORD})?\s+"
                    r"(?:more\s+than|less\s+than|longer(?:\s+than)?|shorter(?:\s+than)?|past|over|beyond|earlier|later)\b",
                    re.IGNORECASE)
"""A difference said by its sign or by what it goes past: "+16.5 min", "−9.5 min", "17 min past its longest run (38 min)",
"23 min longer" (than the median the sentence gives),
"6.5 more than the other", "so 5 earlier ones" (8 failures, 3 of them today): two other numbers of the answer,
one of them in the same sentence or the one before."""


CHANGE_SAID = re.compile(r"\b(?:more|fewer|less|up|down|increase[ds]?|decrease[ds]?|rise|rose|drop(?:ped)?|vs\.?|versus|"
                         r"than)\b", re.IGNORECASE)
"""A comparison of two numbers, whose relative change a percentage may be ("24 vs 21 — 3 more (~14%)")."""
BY_MARGIN = re.compile(rf"\b(?:beat|beats|exceeded|exceeds|overran|overruns|longer|slower|faster|shorter|later|earlier|"
                       rf"over|above|below|under|up|down)\s+(?:[\w()]+\s+){{0,3}}?by\s+(?:about\s+|roughly\s+|~)?"
                       rf"(\d+(?:\.\d+)?)\s*(?:{UNIT_WORD})?", re.IGNORECASE)
"""A difference said as a margin: "this run beat that by 17 minutes", "slower than usual by 23 min"."""


def rounds_to(value: float, said: str, *, strict: bool = False) -> bool:
    """``value`` rounds to ``said`` at the precision it was written with (a whole number: to the nearest one);
    ``strict``: a half does not round (a difference of 55 and 29.5 is no "25")."""
    places = len(said.split(".")[1]) if "." in said else 0
    gap = abs(value - float(said))
    return gap < 0.5 * 10 ** -places - 1e-9 if strict else gap <= 0.5 * 10 ** -places + 1e-9


OWN_SHARE = re.compile(r"(?<![\w.])(\d+)\s+(?:out\s+)?of\s+(?:its|their|the|all)?\s*(\d+)\b(?!\s*%)", re.IGNORECASE)
"""A share a sentence gives with its own part and whole before its percentage ("failed 3 of its 8 runs (37.5%)")."""
OF_THEM = re.compile(r"(?<![\w.])(\d+)\s+(?:out\s+)?of\s+(?:them|those|these)\b", re.IGNORECASE)
"""A part of a count said before it in the sentence ("11 failures, 8 of them …")."""
OUT_OF = re.compile(r"\b(?:out\s+)?of\s+(?:the\s+|all\s+|its\s+)?(\d+)\b(?!\s*%)", re.IGNORECASE)
"""The whole a share is of: "8 failed runs out of 22", "91.2% of the 341 that finished"."""
SMALL_WHOLE = 10
"""Below this a whole number that equals a sum or difference of its neighbours may be a coincidence, not a sum."""


HOW_MANY_ROWS = re.compile(r"\b(?:the\s+)?(?:top|first|biggest|worst|the)\s+(two|three|four|five|[2-9])\b", re.IGNORECASE)
"""How many rows a sum is of ("the top two make up …", "the 3 with an open ticket account for …")."""
_SMALL = {"two": 2, "three": 3, "four": 4, "five": 5}


NAME_PART = re.compile(r"[a-z][a-z0-9]{2,}")
GENERIC_PARTS = frozenset({"ingest", "copy", "transform", "load", "export", "sync", "refresh", "daily", "checks"})
"""Parts of a pipeline's name that say what kind of job it is, not which ("pl_ingest_sales" is "sales")."""


def _named_rows_sums(lines: Sequence[str], sentence: str) -> set[float]:
    """The sum of each column over the table rows whose first cell the sentence names, by a distinctive part of it
    ("Sales and the CRM copy together": pl_ingest_sales and pl_copy_crm_accounts)."""
    words = set(NAME_PART.findall(sentence.lower()))
    rows = [[numbers_in(cell)[:1] for cell in cells[1:]] for line in lines if line.startswith("|")
            and not set(line) <= set("|-: ") and (cells := line.strip().strip("|").split("|"))
            and set(NAME_PART.findall(cells[0].lower().replace("_", " "))) - GENERIC_PARTS - {"pl"} & words]
    if len(rows) < 2:
        return set()
    return {sum(row[column][0] for row in rows) for column in range(min(len(row) for row in rows))
            if all(row[column] for row in rows)}


def _column_sums(lines: Sequence[str], *, leading: bool | int = False) -> set[float]:
    """The sum of each column of each markdown table (the first number of each cell, rows named "total" left out);
    ``leading``: also of its first two, three, … rows ("the top two make up 12 of the 24"), or only of its first
    ``leading`` rows when a number says how many — of a table's columns and of keyed lists' numbers."""
    sums: set[float] = set()
    rows = [[numbers_in(cell)[:1] for cell in line.strip().strip("|").split("|")]
            for line in lines if line.startswith("|") and not set(line) <= set("|-: ") and "total" not in line.lower()]
    columns = [[row[column][0] for row in rows if column < len(row) and row[column]]
               for column in range(max((len(row) for row in rows), default=0))]
    for cells in columns:
        sums |= {sum(cells)} if len(cells) > 1 else set()
    # the first rows of a table, or of a keyed list ("- pl_x — 8"): only where a sentence says how many it sums
    for cells in [*columns, *_bullet_columns(lines)] if leading else []:
        ends = [leading] if leading is not True else range(2, len(cells))
        sums |= {sum(cells[:end]) for end in ends if 2 <= end < len(cells)}
    return sums


KEYED_LINE = re.compile(r"^\W*(?P<head>[^—–:|]{2,80}?)\s*[—–:]\s*\**(?P<number>\d+(?:\.\d+)?)\b(?![:.]\d)")
"""A line that gives records and their number ("- pl_ingest_sales — 8 (a third)"): a row of a one-column table."""


def _bullet_columns(lines: Sequence[str]) -> list[list[float]]:
    """Each run of consecutive lines that key a number to a record ("pl_x — 8"), as the column of its numbers."""
    columns: list[list[float]] = [[]]
    for line in lines:
        item = KEYED_LINE.match(line)
        if item and record_keys(item.group("head")) and "total" not in line.lower():
            columns[-1].append(float(item.group("number")))
        elif columns[-1]:
            columns.append([])
    return [column for column in columns if len(column) > 1]


TOTAL_SAID = re.compile(r"\b(?:in total|total|together|combined|altogether|overall|in all|all told|sum|between them|"
                        r"make up|makes up|made up|account(?:s|ed)? for)\b", re.IGNORECASE)
"""A sum said as one: "343 runs in total: 311 succeeded, 24 failed, 6 cancelled, 2 running"."""
MAX_NUMBERS = 40
"""Lines with more numbers than this (dumps, long tables) are not searched for sums: it would cost too much."""


def _shown(value: float) -> str:
    """A number as an answer writes it: "341", "16.5" (never "1e+06")."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _worked_out_nearby(lines: Sequence[str], backed: Callable[[float], bool] | None = None) -> list[str]:
    """Totals: a number a line says is a total of ("in total", "together", "combined", or a count that introduces
    its parts with a colon) that is the sum of a run of the line's other numbers, each of them backed by the
    evidence (``backed``); and a markdown table column's sum. Not any sum or difference of neighbours: in "56 runs:
    40 succeeded and 16 failed" every number is the others' sum or difference, so nothing would be checked."""
    found, columns = [], _column_sums(lines)
    for sentence in lines:
        own = numbers_in(sentence)
        if len(own) > MAX_NUMBERS:
            continue
        table_row, total = sentence.startswith("|"), TOTAL_SAID.search(sentence) or ":" in sentence
        rows = HOW_MANY_ROWS.search(sentence)
        # a table's rows summed only where a sentence says it sums: as many first rows as it says ("the top two make
        # up 12"), or the rows it names ("Sales and the CRM copy together account for 12 of the 24")
        summed = (_column_sums(lines, leading=_SMALL.get(rows.group(1).lower()) or int(rows.group(1))) if rows
                  else _named_rows_sums(lines, sentence)) if not table_row and TOTAL_SAID.search(sentence) else set()
        columns_here = columns | summed
        for at, value in enumerate(own):
            if value < SMALL_WHOLE and value == int(value):
                continue
            others = [] if table_row or not total else [*own[:at], *own[at + 1:]]
            others = [number for number in others if backed is None or backed(number)]
            sums = {sum(others[start:end]) for start in range(len(others))
                    for end in range(start + 2, min(start + 5, len(others)) + 1)}
            shown = _shown(value)
            if any(rounds_to(candidate, shown, strict=True) for candidate in sums | columns_here):
                found.append(shown)
    return found


def _lengths(text: str) -> set[float]:
    """Lengths of time the text says ("for 62 minutes"): numbers_in leaves them out as windows, yet a difference
    may be worked out from them."""
    return {float(match.group(1)) for match in ELAPSED.finditer(text)}


def derived_numbers(text: str, backed: Callable[[float], bool] | None = None) -> list[str]:
    """The percentages, ratios, differences and totals ``text`` says that its own numbers give, as written (after
    ``digits``): the number checks leave those words out, and judge every other mention of the same value. A
    total's parts must be ``backed`` (values the evidence vouches for), when that is given."""
    text = digits(text)
    lines = sentences(text)
    found = _worked_out_nearby(lines, backed)
    if not (PERCENT.search(text) or RATIO.search(text) or DIFFERENCE.search(text) or BEYOND.search(text)
            or ONE_IN.search(text) or BY_MARGIN.search(text)):
        return found  # most answers work nothing else out: no need to read their numbers again
    everything = set(numbers_in(text)) | _lengths(text)  # "ran for 62 minutes … 9 minutes past its longest (53)"
    counted = counted_nouns_in(text)
    all_wholes = {number for number, noun in counted if noun in WHOLES}  # "49 runs in total: … 18% of all runs"
    percents = {float(match.group(1)) for match in PERCENT.finditer(text)}
    for at, sentence in enumerate(lines):  # (``at``: "index" is the evidence index everywhere else)
        nearby = " ".join(lines[max(0, at - 1):at + 1])
        near = set(numbers_in(nearby))
        wholes = {number for number, noun in counted_nouns_in(nearby) if noun in WHOLES} | all_wholes
        wholes |= {float(match.group(1)) for match in OUT_OF.finditer(nearby)}  # "8 failed runs out of 22 (36%)"
        wholes |= set(numbers_in(sentence)) if sentence.startswith("|") else set()  # a table row: its own counts
        since = 0  # each percentage's own pair is the last one said after the percentage before it
        for match in PERCENT.finditer(sentence):
            parts, whole_of = near - {float(match.group(1))}, wholes
            if own_pair := list(OWN_SHARE.finditer(sentence, since, match.start()))[-1:]:
                # "3 of its 8 runs (37.5%)": that part of that whole, not a whole said elsewhere
                parts, whole_of = {float(own_pair[0].group(1))}, {float(own_pair[0].group(2))}
            elif (of_them := list(OF_THEM.finditer(sentence, since, match.start()))[-1:]) and (
                    before := numbers_in(sentence[:of_them[0].start()])):
                # "11 failures, 8 of them file-not-found (73%)": of a count said before it in the sentence
                parts, whole_of = {float(of_them[0].group(1))}, set(before)
            since = match.end()
            if any(rounds_to(100 * part / whole, match.group(1)) or rounds_to(100 * (whole - part) / whole, match.group(1))
                   for part in parts for whole in whole_of if 0 <= part <= whole and whole > 0):  # "9 of 9 succeeded — 100%"
                found.append(match.group())
            elif CHANGE_SAID.search(sentence) and any(  # "24 vs 21 — 3 more (~14%)": a change relative to the smaller
                    rounds_to(100 * (first - second) / second, match.group(1)) for first, second in
                    permutations(set(numbers_in(sentence[:match.start()])), 2) if first > second > 0):
                found.append(match.group())
        for match in ONE_IN.finditer(sentence):
            said = {1.0, float(match.group(1))}  # its own numbers are no operands
            if any(rounds_to(whole / part, match.group(1)) for part in near - said for whole in wholes - said
                   if 0 < part < whole):
                found.append(match.group())
        for match in RATIO.finditer(sentence):
            operands = everything - {float(match.group(1))}
            if any(rounds_to(first / second, match.group(1)) for first, second in permutations(operands, 2) if second > 0):
                found.append(match.group())
        for match in DIFFERENCE.finditer(sentence):
            noun = (match.group("noun") or "").lower()
            operands = percents if match.group("points") else {number for number, counted_noun in counted
                                                                if counted_noun == noun}
            operands -= {float(match.group(1))}
            if any(rounds_to(first - second, match.group(1)) for first, second in permutations(operands, 2)
                   if first > second):
                found.append(match.group())
        for match in [*BEYOND.finditer(sentence), *BY_MARGIN.finditer(sentence)]:  # one operand nearby: what it goes
            number = match.group(1) or match.group(2)  # past ("(38 min)"), what it beat, or a table row it names
            operands = everything - {float(number)}  # ("9 minutes past the longest recent success": "| longest | 53 |")
            own = (near | _lengths(nearby) | _rows_named(lines, sentence[match.end():])) - {float(number)}
            if any(rounds_to(first - second, number, strict=True) for first, second in permutations(operands, 2)
                   if first > second and {first, second} & own):
                found.append(match.group())
    return found


def _rows_named(lines: Sequence[str], words: str) -> set[float]:
    """The numbers of the answer's table rows whose label (first cell) has the first telling word of ``words``
    ("past the longest recent success": the "longest" row, not every row saying "recent")."""
    said = set(re.findall(r"[a-z]{4,}", words.lower())[:1])
    return {number for line in lines if line.startswith("|") and (cells := [cell for cell in line.split("|") if cell.strip()])
            and set(re.findall(r"[a-z]{4,}", cells[0].lower())) & said for number in numbers_in(" ".join(cells[1:]))}


def leading_sum_claims(text: str) -> list[tuple[str, bool, str]]:
    """Each "the top two make up 12" under a table: whether the number said is the sum of that many first rows of one
    of the table's columns — (words, holds, the sums it could be)."""
    lines = sentences(digits(text))
    found = []
    for sentence in (line for line in lines if not line.startswith("|")):
        rows, total = HOW_MANY_ROWS.search(sentence), TOTAL_SAID.search(sentence)
        number = re.compile(r"(?<![\w.])\d+(?:\.\d+)?").search(sentence, total.end()) \
            if rows and total and total.start() > rows.start() else None
        count = (_SMALL.get(rows.group(1).lower()) or int(rows.group(1))) if rows else 0
        sums = _column_sums(lines, leading=count) - _column_sums(lines) if number else set()
        if number and sums:
            holds = any(rounds_to(value, number.group(), strict=True) for value in sums)
            found.append((sentence[rows.start():number.end()], holds, ", ".join(sorted(_shown(value) for value in sums))))
    return found


FRACTIONS = {"half": 1 / 2, "third": 1 / 3, "quarter": 1 / 4, "fifth": 1 / 5}
FRACTION_OF = re.compile(r"\b(?:(?P<count>a|one|two|three|2|3)\s+)?(?P<part>half|thirds?|quarters?|fifths?)\s+of\s+"
                         r"(?:all\s+|the\s+|its\s+)?(?P<whole>\d+)\b", re.IGNORECASE)
"""A share said as a fraction of a number the answer gives ("8 failed, a third of all 24")."""


FRACTION_OF_NOUN = re.compile(r"\b(?:(?P<count>a|one|two|three|2|3)\s+)?(?P<part>half|thirds?|quarters?|fifths?)\s+of\s+"
                              r"(?:all\s+|the\s+|its\s+)*(?P<noun>(?:[a-z]+\s+)?(?:runs|failures|incidents|tickets|"
                              r"pipelines|changes))\b", re.IGNORECASE)
"""A share said as a fraction of a kind the answer counts elsewhere ("8 — half of all failed runs", with "24 failed
runs" said before)."""


FAILURE_COUNT = re.compile(r"(?<![\w.])(\d+)\s+(?:failed\s+(?:pipeline\s+)?runs?|failures|failed\b(?!\s+(?:in|on|at|with)\b))",
                           re.IGNORECASE)
"""A count of failures ("24 failed runs", "9 failures", "8 failed"), not of what failed in or at something."""


def fraction_claims(text: str) -> list[tuple[str, bool, str]]:
    """Each "a third of all 24" beside a count: whether a number of its sentence is that share of the whole
    (within a tenth of the whole, as people round: "about a third") — (words, holds, the share it would be). A
    fraction of a kind ("a third of all failed runs") is of any count of that kind the answer says."""
    found = []
    text = digits(text)
    counted = counted_nouns_in(text)
    for sentence in sentences(text):
        for match, wholes in [*((match, [float(match.group("whole"))]) for match in FRACTION_OF.finditer(sentence)),
                              *((match, _counts_of(match.group("noun"), counted, text.replace(sentence, " ")))
                                for match in FRACTION_OF_NOUN.finditer(sentence))]:
            count = {"a": 1, "one": 1, "two": 2, "2": 2, "three": 3, "3": 3}.get((match.group("count") or "a").lower(), 1)
            fraction = count * FRACTIONS[match.group("part").lower().rstrip("s")]
            before = sentence[:match.start()]
            numbers = [number for number in numbers_in(before) if number not in wholes]
            if numbers and wholes:  # the count it is a share of, said before it: "pl_ingest_sales, 8 (a third of all
                # 24)"; "2 of its 4 runs — half of all failed runs": the 2; "8 failed of its 56 runs (85.7% success) —
                # a third of all failures": the 8 failed (a kind's whole is counted outside the sentence)
                pairs, failing = list(OWN_SHARE.finditer(before)), list(FAILURE_COUNT.finditer(before))
                parts = [float(pairs[-1].group(1))] if pairs else [float(failing[-1].group(1))] \
                    if failing and match.re is FRACTION_OF_NOUN else numbers[-1:]
                holds = any(abs(part - fraction * whole) <= max(1.0, whole / 10) for whole in wholes for part in parts)
                found.append((match.group(), holds, f"{fraction * wholes[0]:g}"))
    return found


def _counts_of(noun: str, counted: Sequence[tuple[float, str | None]], text: str) -> list[float]:
    """The numbers the answer counts ``noun`` with ("failed runs": "24 failed runs", "24 failures")."""
    if "fail" in noun.lower():  # "half of all failed runs": of a count of failures ("24 failed runs", "24 failures"),
        return [float(found.group(1)) for found in FAILURE_COUNT.finditer(text)]  # not of a pipeline's runs
    last = noun.lower().split()[-1]
    return [number for number, said in counted if said == last and number > 1]



LONGER = re.compile(r"(?<![\w.+-])(?P<number>\d+(?:\.\d+)?)\s*(?:min|mins|minutes)\s+(?:longer|shorter|slower|faster)\b",
                    re.IGNORECASE)
MINUTES_SAID = re.compile(r"(?<![\w.+-])(\d+(?:\.\d+)?)\s*-?\s*(?:min|mins|minutes)\b", re.IGNORECASE)


def margin_claims(text: str) -> list[tuple[str, bool, str]]:
    """"55 min vs a usual 32 min — about 23 minutes longer": a margin in minutes beside two or more lengths in minutes
    in its own sentence is the difference of two of them (to the precision it is written with; "about": within a
    minute or 5 %)."""
    found = []
    for sentence in sentences(COMPOUND.sub(_in_minutes, digits(text))):
        for match in LONGER.finditer(sentence):
            said = float(match.group("number"))
            here = {float(length.group(1)) for length in MINUTES_SAID.finditer(sentence)  # (not other margins: "and
                    if not MARGIN_AFTER.match(sentence, length.end())} - {said}  # 17 min more than the longest")
            if len(here) < 2:
                continue  # one side said elsewhere: the nearby-operand reading (``derived_numbers``) judges it
            gaps = sorted({round(first - second, 1) for first, second in permutations(here, 2) if first > second})
            loose = APPROXIMATELY.search(sentence[max(0, match.start() - 12):match.start()]) is not None
            holds = any(rounds_to(gap, match.group("number")) or loose and abs(gap - said) <= max(1.0, 0.05 * said)
                        for gap in gaps)
            found.append((match.group(), holds, ", ".join(f"{gap:g}" for gap in gaps)))
    return found


def _in_minutes(length: re.Match[str]) -> str:
    """A length in hours and minutes ("1 h 5 min", a ``COMPOUND``) as one length in minutes ("65 min"), not 5."""
    hours, minutes = length.group(2), length.group(4)
    if unit_minutes(hours) != 60 or not minutes.lower().startswith("min"):
        return length.group()
    return f"{60 * int(length.group(1)) + int(length.group(3))} min"
MARGIN_AFTER = re.compile(r"\s+(?:longer|shorter|slower|faster|more|less|over|past|under|beyond)\b", re.IGNORECASE)
APPROXIMATELY = re.compile(r"\b(?:about|around|roughly|approximately|nearly|almost|some)\s*$|~\s*$", re.IGNORECASE)


BARE_MORE = re.compile(r"(?<![\w.])(?P<number>\d+(?:\.\d+)?)\s+(?:more|fewer|less)\b(?=\s*(?:[.;,)!(—–]|-\s|$))",
                       re.IGNORECASE)
"""A difference said bare after its two sides ("24 failed runs vs 21 the week before — 3 more")."""


COMPARED = re.compile(r"\b(?:vs\.?|versus|than|compared (?:with|to)|against|from\s+\d+(?:\.\d+)?\s+to)\b", re.IGNORECASE)
"""Two sides set against each other before a bare difference ("24 vs 21 — 3 more")."""
ANOTHER_FEW = re.compile(r"\b(?:and|for|plus|with|another)\s*$", re.IGNORECASE)


def bare_difference_claims(text: str) -> list[tuple[str, bool, str]]:
    """"… 24 vs 21 — 3 more": beside two or more other numbers in its sentence, the difference of two of them."""
    found = []
    for sentence in sentences(digits(text)):
        for match in BARE_MORE.finditer(sentence):
            before = sentence[:match.start()]
            sides = numbers_in(before)
            if len(sides) < 2 or not COMPARED.search(before) or ANOTHER_FEW.search(before):
                continue  # a side said in another sentence, no two sides compared, or "and 2 more": more items
            gaps = sorted({round(first - second, 2) for first, second in permutations(sides, 2) if first > second})
            found.append((match.group().strip(), any(rounds_to(gap, match.group("number")) for gap in gaps),
                          ", ".join(f"{gap:g}" for gap in gaps)))
    return found
