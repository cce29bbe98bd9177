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

from opsagent.tools.timewindow import UNIT_WORD
from opsagent.workflows.claims import sentences
from opsagent.workflows.evidence_index import ELAPSED, counted_nouns_in, digits, numbers_in

WHOLES = frozenset({"runs", "pipelines", "incidents", "tickets", "changes", "components", "failures", "rows",
                    "records", "items"})
"""What a percentage is a share of: a count of records ("280 runs"), not of a status ("249 succeeded")."""
PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent\b)", re.IGNORECASE)
RATIO = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:x|×|times)(?=\s+(?:as\s+|the\s+|more|higher|lower|longer|slower|faster|"
                   r"[a-z]+'s\b|that\s+of))", re.IGNORECASE)
DIFFERENCE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s+(?:(?P<points>(?:percentage\s+)?points?)\s+(?:below|above|higher|lower)|"
                        r"(?:more|fewer|less)\s+(?P<noun>[a-z]+))\b", re.IGNORECASE)
"""A difference of two numbers of the same kind: "217 more runs" (two counts of runs), "27 points below" (two
percentages)."""
BEYOND = re.compile(rf"(?<![\w.])\+(\d+(?:\.\d+)?)|(?<![\w.+-])(\d+(?:\.\d+)?)\s*(?:{UNIT_WORD})?\s+"
                    r"(?:more\s+than|less\s+than|longer(?:\s+than)?|shorter(?:\s+than)?|past|over|beyond|earlier|later)\b",
                    re.IGNORECASE)
"""A difference said by its sign or by what it goes past: "+16.5 min", "17 min past its longest run (38 min)",
"23 min longer" (than the median the sentence gives),
"6.5 more than the other", "so 5 earlier ones" (8 failures, 3 of them today): two other numbers of the answer,
one of them in the same sentence or the one before."""


def _close(value: float, said: str, *, strict: bool = False) -> bool:
    """``value`` rounds to ``said`` at the precision it was written with (a whole number: to the nearest one);
    ``strict``: a half does not round (a difference of 55 and 29.5 is no "25")."""
    places = len(said.split(".")[1]) if "." in said else 0
    gap = abs(value - float(said))
    return gap < 0.5 * 10 ** -places - 1e-9 if strict else gap <= 0.5 * 10 ** -places + 1e-9


OUT_OF = re.compile(r"\b(?:out\s+)?of\s+(?:the\s+|all\s+|its\s+)?(\d+)\b(?!\s*%)", re.IGNORECASE)
"""The whole a share is of: "8 failed runs out of 22", "91.2% of the 341 that finished"."""
SMALL_WHOLE = 10
"""Below this a whole number that equals a sum or difference of its neighbours may be a coincidence, not a sum."""


def _column_sums(lines: Sequence[str]) -> set[float]:
    """The sum of each column of each markdown table (the first number of each cell, rows named "total" left out)."""
    sums: set[float] = set()
    rows = [[numbers_in(cell)[:1] for cell in line.strip().strip("|").split("|")]
            for line in lines if line.startswith("|") and not set(line) <= set("|-: ") and "total" not in line.lower()]
    for column in range(max((len(row) for row in rows), default=0)):
        cells = [row[column][0] for row in rows if column < len(row) and row[column]]
        sums |= {sum(cells)} if len(cells) > 1 else set()
    return sums


TOTAL_SAID = re.compile(r"\b(?:in total|total|together|combined|altogether|overall|in all|all told|sum)\b", re.IGNORECASE)
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
        for at, value in enumerate(own):
            if value < SMALL_WHOLE and value == int(value):
                continue
            others = [] if table_row or not total else [*own[:at], *own[at + 1:]]
            others = [number for number in others if backed is None or backed(number)]
            sums = {sum(others[start:end]) for start in range(len(others))
                    for end in range(start + 2, min(start + 5, len(others)) + 1)}
            shown = _shown(value)
            if any(_close(candidate, shown, strict=True) for candidate in sums | columns):
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
    if not (PERCENT.search(text) or RATIO.search(text) or DIFFERENCE.search(text) or BEYOND.search(text)):
        return found  # most answers work nothing else out: no need to read their numbers again
    everything = set(numbers_in(text)) | _lengths(text)  # "ran for 62 minutes … 9 minutes past its longest (53)"
    counted = counted_nouns_in(text)
    percents = {float(match.group(1)) for match in PERCENT.finditer(text)}
    for at, sentence in enumerate(lines):  # (``at``: "index" is the evidence index everywhere else)
        nearby = " ".join(lines[max(0, at - 1):at + 1])
        near = set(numbers_in(nearby))
        wholes = {number for number, noun in counted_nouns_in(nearby) if noun in WHOLES}
        wholes |= {float(match.group(1)) for match in OUT_OF.finditer(nearby)}  # "8 failed runs out of 22 (36%)"
        wholes |= set(numbers_in(sentence)) if sentence.startswith("|") else set()  # a table row: its own counts
        for match in PERCENT.finditer(sentence):
            parts = near - {float(match.group(1))}
            if any(_close(100 * part / whole, match.group(1)) or _close(100 * (whole - part) / whole, match.group(1))
                   for part in parts for whole in wholes if 0 <= part < whole):
                found.append(match.group())
        for match in RATIO.finditer(sentence):
            operands = everything - {float(match.group(1))}
            if any(_close(first / second, match.group(1)) for first, second in permutations(operands, 2) if second > 0):
                found.append(match.group())
        for match in DIFFERENCE.finditer(sentence):
            noun = (match.group("noun") or "").lower()
            operands = percents if match.group("points") else {number for number, counted_noun in counted
                                                                if counted_noun == noun}
            operands -= {float(match.group(1))}
            if any(_close(first - second, match.group(1)) for first, second in permutations(operands, 2)
                   if first > second):
                found.append(match.group())
        for match in BEYOND.finditer(sentence):  # one operand nearby: what it goes past ("(38 min)")
            number = match.group(1) or match.group(2)
            operands, own = everything - {float(number)}, (near | _lengths(nearby)) - {float(number)}
            if any(_close(first - second, number, strict=True) for first, second in permutations(operands, 2)
                   if first > second and {first, second} & own):
                found.append(match.group())
    return found


FRACTIONS = {"half": 1 / 2, "third": 1 / 3, "quarter": 1 / 4, "fifth": 1 / 5}
FRACTION_OF = re.compile(r"\b(?:(?P<count>a|one|two|three|2|3)\s+)?(?P<part>half|thirds?|quarters?|fifths?)\s+of\s+"
                         r"(?:all\s+|the\s+|its\s+)?(?P<whole>\d+)\b", re.IGNORECASE)
"""A share said as a fraction of a number the answer gives ("8 failed, a third of all 24")."""


def fraction_claims(text: str) -> list[tuple[str, bool, str]]:
    """Each "a third of all 24" beside a count: whether a number of its sentence is that share of the whole
    (within a tenth of the whole, as people round: "about a third") — (words, holds, the share it would be)."""
    found = []
    for sentence in sentences(digits(text)):
        for match in FRACTION_OF.finditer(sentence):
            count = {"a": 1, "one": 1, "two": 2, "2": 2, "three": 3, "3": 3}.get((match.group("count") or "a").lower(), 1)
            whole = float(match.group("whole"))
            share = count * FRACTIONS[match.group("part").lower().rstrip("s")] * whole
            numbers = [number for number in numbers_in(sentence[:match.start()]) if number != whole]
            if numbers:  # the count it is a share of, said before it ("pl_ingest_sales, 8 (a third of all 24)")
                found.append((match.group(), abs(numbers[-1] - share) <= max(1.0, whole / 10), f"{share:g}"))
    return found

