"""Filters the question states, with their polarity: "not approved yet", "P2" (exactly), "P2 or higher".

Values are the ones the tools accept (``tools/servicenow_filters.py``). A state asked about as a
question ("is it approved?", "need to know if approved") is not a filter: the user wants the
approval shown, not the list narrowed, so those phrasings are left out on purpose.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from opsagent.contracts.analysis import FilterField, FilterMention, Span
from opsagent.tools.servicenow_filters import CHANGE_STATES, INCIDENT_STATES

NEGATION = r"(?:not(?:\s+(?:yet|been|already))?|un|n't(?:\s+been)?|no\s+longer|still\s+not|without)"
_SUBJECT = r"(?:it|they|this|that|these|those|the \w+|\w+\d{3,})"
ASKED = re.compile(
    rf"\b(?:if|whether)\s+(?:{_SUBJECT}\s+(?:is|are|was|were|has been|have been|got)\s+)?(?:been\s+|already\s+|yet\s+)*$"
    rf"|\b(?:is|are|was|were|has|have)\s+{_SUBJECT}\s+(?:been\s+|already\s+|yet\s+)*$"
)
"""Words just before a state that make it a question about the state ("is it approved?",
"need to know if approved"), not a filter ("changes that are not approved yet")."""

_FINISHED = r"(?:closed|resolved|cancell?ed|finished|completed)"
EVERY_STATE = (rf"\b(?:including|incl\.?|also|even)\s+(?:the\s+)?{_FINISHED}(?:\s*(?:,|or|and|/)\s*{_FINISHED})*(?:\s+ones)?\b|"
               r"\b(?:all|any)\s+states?\b|\bwhatever (?:the )?state\b|\bwhat happened\b")
"""Everything on record, finished ones too ("…, including closed ones", "what happened on vm-x?")."""
OPEN = r"\bopen\b(?!\s+(?:a|an|the|one|up)\b)"
"""The state, not the verb ("did anyone open an incident?", "open up the runbook")."""
# field → ((pattern, values), …); the first pattern that matches a span wins for that span.
PATTERNS: dict[FilterField, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "approval": (
        (r"\b(?:pending|awaiting|waiting for|waiting on)\s+(?:\w+\s+)?"
         r"(?:approval|authori[sz]ation|sign-?off)\b|\bapproval (?:is )?(?:pending|requested)\b", ("requested",)),
        # "still need(s) approval": anything not approved yet, whether or not approval was requested
        (r"\b(?:needs?|needing|requires?|requiring)\s+(?:\w+\s+)?(?:approval|authori[sz]ation|sign-?off)\b",
         ("approved",)),
        (rf"\b{NEGATION}\s*approved\b|\bunapproved\b", ("approved",)),
        (r"\b(?:lacks?|lacking|without|missing|no)\s+(?:an?\s+|any\s+)?approval\b", ("approved",)),
        (r"\bapproved\b", ("approved",)),
        (r"\brejected\b", ("rejected",)),
    ),
    "incident_state": (
        (EVERY_STATE, ("all",)),
        (r"\bon[\s-]hold\b", ("on_hold",)),
        (r"\bin progress\b", ("in_progress",)),
        (rf"(?:\b{NEGATION}|n't(?:\s+(?:yet|been))?)\s*resolved\b|\bunresolved\b|\bstill open\b|{OPEN}", ("open",)),
        (r"\bclosed (?:out|off)\b|\bwrapped up\b|\bresolved or closed\b", ("resolved", "closed")),
        (r"\bresolved\b", ("resolved",)),
        (r"\bclosed\b", ("closed",)),
        (r"\bcancell?ed\b", ("canceled",)),
    ),
    "change_state": (
        (EVERY_STATE, ("all",)),
        (r"\bbeing implemented\b|\bin implementation\b|\bimplementing\b", ("implement",)),
        (r"\bscheduled\b", ("scheduled",)),
        (r"\bin review\b", ("review",)),
        (rf"\bupcoming\b|\bcoming up\b|\bin[\s-]flight\b|{OPEN}", ("open",)),
        (r"\bclosed\b", ("closed",)),
        (r"\bcancell?ed\b", ("canceled",)),
    ),
    "change_type": (
        (r"\bemergency\b", ("emergency",)),
        (r"\bstandard\b", ("standard",)),
    ),
    "change_risk": (
        (r"\bvery[\s-]high[\s-]risk\b", ("very_high",)),
        (r"\bhigh[\s-]risk\b|\brisk (?:is |of )?high\b", ("high",)),
        (r"\b(?:moderate|medium)[\s-]risk\b", ("moderate",)),
        (r"\blow[\s-]risk\b", ("low",)),
    ),
}
PRIORITY_SET = re.compile(r"\bp([1-5])\s*(?:/|,|and|or|&)\s*p([1-5])s?\b", re.IGNORECASE)
PRIORITY_AT_LEAST = re.compile(
    r"\b(?:at least\s+p([1-5])|p([1-5])\s*(?:\+|or (?:higher|above|worse|more urgent)|and (?:above|higher|up)))", re.IGNORECASE)
PRIORITY_ONE = re.compile(r"\b(?:p|sev\s?|prio(?:rity)?\s?)([1-5])s?\b", re.IGNORECASE)
PRIORITY_WORDS = ((re.compile(r"\bcritical\b", re.IGNORECASE), ("1",), "exactly"),
                  (re.compile(r"\bhigh[- ]prio(?:rity)?\b|\burgent\b|\bmajor\b", re.IGNORECASE), ("2",), "or_higher"))
"""Words for priorities: "critical" is P1; "high-priority" / "urgent" mean P2 or more urgent."""
NEGATED_FIELDS = {"approval"}
"""Fields whose negated phrasing becomes "not <value>" (for states the positive set is used instead)."""


NEGATED_BEFORE = re.compile(r"(?:\bnot(?:\s+(?:yet|been|already|in))?|n't(?:\s+been)?|\bno\s+longer|\bwithout)\s+$",
                            re.IGNORECASE)


def _negated(text: str, match: re.Match[str], field: FilterField, values: tuple[str, ...]) -> bool:
    """"not approved" (negation inside the phrase) or "not closed" / "aren't in progress" (just before
    it). "not resolved" is read as the positive set "open" by its own pattern, so it is not negated."""
    if re.match(rf"\s*(?:{NEGATION}|lacks?\b|lacking\b|missing\b|no\b|needs?\b|needing\b|requir\w+)", match.group(),
                re.IGNORECASE) or (
            match.group().lower() == "unapproved"):
        return field in NEGATED_FIELDS
    return values != ("all",) and bool(NEGATED_BEFORE.search(text[max(0, match.start() - 20):match.start()]))


YES_NO_START = re.compile(r"(?:^|[.?!;]\s*)(?:is|are|was|were|has|have)\s+(?P<subject>[^.?!;]*)$", re.IGNORECASE)
ENDS_QUESTION = re.compile(r"\s*(?:yet|already|now|still)?\s*(?:\?|$)", re.IGNORECASE)


def _stated(text: str, start: int, end: int) -> bool:
    """A state the question filters by, not one it asks about ("whether it is approved", "is the
    change that INC… waits for approved?": a yes/no question whose last word is the state)."""
    if ASKED.search(text[max(0, start - 40):start].lower()) is not None:
        return False
    asked = YES_NO_START.search(text[:start])
    subject = asked.group("subject").strip().lower() if asked else ""
    # "are there changes that are approved?" asks for a set: the state filters it
    return not (subject and not subject.startswith(("there", "any")) and ENDS_QUESTION.match(text[end:]))


def state_filters(text: str, asked: set[str]) -> Iterator[FilterMention]:
    """States for the record kinds the question asks about ("incidents and changes, including closed
    ones": both); approval and type are always about changes."""
    for field, rules in PATTERNS.items():
        if field in ("incident_state", "change_state") and field.split("_")[0] not in asked:
            continue
        taken: list[tuple[int, int]] = []
        for pattern, values in rules:
            for match in re.finditer(pattern, text, re.IGNORECASE):
                if any(a <= match.start() < b for a, b in taken) or not _stated(text, match.start(), match.end()):
                    continue
                taken.append((match.start(), match.end()))
                negated = _negated(text, match, field, values)
                before = NEGATED_BEFORE.search(text[max(0, match.start() - 20):match.start()]) if negated else None
                start = match.start() - (len(before.group()) if before else 0)  # "not closed", as written
                yield FilterMention(field=field, values=list(values), negated=negated, text=text[start:match.end()],
                                    span=Span(start=start, end=match.end()))


def priority_filters(text: str) -> Iterator[FilterMention]:
    """"P1/P2" → exactly {1, 2}; "P2 or higher" → 2 or more urgent; "P2" → exactly 2."""
    for pattern, kind in ((PRIORITY_SET, "set"), (PRIORITY_AT_LEAST, "at_least"), (PRIORITY_ONE, "one")):
        match = pattern.search(text)
        if match is None:
            continue
        span = Span(start=match.start(), end=match.end())
        digits = sorted({int(group) for group in match.groups() if group})
        if kind == "set":  # "P1/P2" is everything from P1 up to P2; "P2/P3" is just those two
            from_top = digits[0] == 1 and digits[-1] - digits[0] == len(digits) - 1
            values = [str(digits[-1])] if from_top else [str(digit) for digit in digits]
            yield FilterMention(field="priority", values=values, match="or_higher" if from_top else "exactly",
                                text=match.group(), span=span)
        else:
            yield FilterMention(field="priority", values=[str(digits[0])],
                                match="or_higher" if kind == "at_least" else "exactly", text=match.group(), span=span)
        return
    for pattern, values, how in PRIORITY_WORDS:
        match = pattern.search(text)
        if match is not None:
            yield FilterMention(field="priority", values=list(values), match=how, text=match.group(),
                                span=Span(start=match.start(), end=match.end()))
            return


CHANGE_WORDS = re.compile(r"\bchange|\bchg\s?\d|\bcab\b|\bcrs?\b|\bmaintenance\b|\bdeployment", re.IGNORECASE)
INCIDENT_WORDS = re.compile(r"\bincident|\bticket|\binc\s?\d|\boutage|\bp[1-5]s?\b", re.IGNORECASE)


def find_filters(text: str) -> list[FilterMention]:
    asked = {kind for kind, words in (("change", CHANGE_WORDS), ("incident", INCIDENT_WORDS)) if words.search(text)}
    found = [*state_filters(text, asked or {"incident"}), *priority_filters(text)]
    found = [item for item in found if not _wider_than_another(item, found)]
    if any(item.field == "approval" and item.negated and NEEDS.match(item.text) for item in found) and not any(
            item.field == "change_state" for item in found):  # what still needs approval is still open
        need = next(item for item in found if item.field == "approval")
        found.append(FilterMention(field="change_state", values=["open"], text=need.text, span=need.span))
    return sorted(found, key=lambda item: item.span.start)


NEEDS = re.compile(r"\s*(?:still\s+)?(?:needs?|needing|requires?|requiring)\b", re.IGNORECASE)
def _parts_of_open(choices: dict[str, tuple[str, ...]]) -> set[str]:
    """The state labels that name part of what "open" means (the tools own the vocabulary)."""
    whole = set(choices["open"])
    return {label for label, values in choices.items() if set(values) < whole}


OPEN_STATES = {"incident_state": _parts_of_open(INCIDENT_STATES), "change_state": _parts_of_open(CHANGE_STATES)}


def _wider_than_another(item: FilterMention, found: list[FilterMention]) -> bool:
    """"how many of the open incidents are on hold?": "on hold" narrows "open", so "open" goes."""
    narrower = OPEN_STATES.get(item.field, set())
    return item.values == ["open"] and not item.negated and any(
        other.field == item.field and other is not item and set(other.values) <= narrower and not other.negated
        for other in found)
