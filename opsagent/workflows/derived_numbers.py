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
from itertools import permutations

from opsagent.workflows.claims import sentences
from opsagent.workflows.evidence_index import counted_nouns_in, digits, numbers_in

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
BEYOND = re.compile(r"(?<![\w.])\+(\d+(?:\.\d+)?)|(?<![\w.+-])(\d+(?:\.\d+)?)\s*(?:min(?:utes?)?|h(?:ours?)?|hrs?)?\s+"
                    r"(?:more\s+than|less\s+than|longer\s+than|shorter\s+than|past|over|beyond|earlier|later)\b",
                    re.IGNORECASE)
"""A difference said by its sign or by what it goes past: "+16.5 min", "17 min past its longest run (38 min)",
"6.5 more than the other", "so 5 earlier ones" (8 failures, 3 of them today): two other numbers of the answer,
one of them in the same sentence."""


def _close(value: float, said: str) -> bool:
    """``value`` rounds to ``said`` at the precision it was written with (a whole number: to the nearest one)."""
    places = len(said.split(".")[1]) if "." in said else 0
    return abs(value - float(said)) <= 0.5 * 10 ** -places + 1e-9


def derived_numbers(text: str) -> list[str]:
    """The percentages, ratios and differences ``text`` says that its own numbers give, as written (after
    ``digits``): the number checks leave those words out, and judge every other mention of the same value."""
    text = digits(text)
    if not (PERCENT.search(text) or RATIO.search(text) or DIFFERENCE.search(text) or BEYOND.search(text)):
        return []  # most answers work nothing out: no need to read their numbers
    said = sentences(text)
    everything = set(numbers_in(text))
    counted = counted_nouns_in(text)
    percents = {float(match.group(1)) for match in PERCENT.finditer(text)}
    found: list[str] = []
    for index, sentence in enumerate(said):
        nearby = " ".join(said[max(0, index - 1):index + 1])
        near = set(numbers_in(nearby))
        wholes = {number for number, noun in counted_nouns_in(nearby) if noun in WHOLES}
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
        for match in BEYOND.finditer(sentence):  # one operand in the sentence: what it goes past ("(38 min)")
            said = match.group(1) or match.group(2)
            operands, own = everything - {float(said)}, set(numbers_in(sentence)) - {float(said)}
            if any(_close(first - second, said) for first, second in permutations(operands, 2)
                   if first > second and {first, second} & own):
                found.append(match.group())
    return found
