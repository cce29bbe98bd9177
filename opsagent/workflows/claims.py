"""The claims of a written answer, read from any model's prose (deterministic, no model call).

An answer is split into sentences, clauses ("…, but …", "…: …", "— …") and items (the top-level
comma pieces of a clause: "pl_a (INC…), pl_b (INC…)"). Each item is read for what it asserts:

- **values**: a record named by its key (a ticket, a run id, a pipeline) with a value of one of the
  tools' vocabularies ("INC… is On Hold", "pl_x is currently running", "CHG… is approved"), negated
  when "not / isn't / never" stands just before the value;
- **links**: two records or names in one item ("pl_x has INC…", "CHG… touches dbx-prod-weu");
- **comparisons**: "more than", "slower than usual", "the same error as before";
- **placements**: runs or failures "during / inside / within" a change's window.

Yes/no leads, "none" and counts are read by ``grounding_check.py``; the claims are checked against
the evidence by ``claim_checks.py``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from opsagent.intake.times import DAY_NAME, MONTH_NAME
from opsagent.tools.identifiers import RUN_ID, TICKET
from opsagent.tools.vocabularies import VALUE_VOCABULARIES, Vocabulary
from opsagent.workflows.evidence_index import identifiers_in

SENTENCE = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bincl\.)(?<!\bapprox\.)"
                      r"(?:(?<=[.!?])|(?<=[.!?][)'\"]))\s+(?=[A-Za-z0-9*`_'\"(-])|\n+")
"""Sentence ends; a sentence may start in lower case ("… INC0010042. pl_transform_customer360: 3 failed") or in
parentheses ("… not assigned yet. (The only other ticket, INC…, is Closed.)")."""
PIPELINE = re.compile(r"\bpl_[a-z0-9_]+\b", re.IGNORECASE)
CLAUSE = re.compile(r",?\s+(?:but|while|whereas|although|though)\s+(?=\S)|,\s+so\s+(?=\S)|"
                    rf",\s+and\s+(?=(?:the|a|an)\s|{TICKET.pattern}|{PIPELINE.pattern})|[:;]\s+|\s+[-–—]\s+",
                    re.IGNORECASE)
"""Where a sentence starts a new statement: "…, but …", "…, so sales didn't fail" (a consequence, often of another
subject), "…, and the change CHG… is …", "…, and CHG… runs …" (a new subject), ":" …"""
IT = r"(?:it|it's|its)(?![\w'-])"
PRONOUN = re.compile(rf"(?<![\w'-]){IT}", re.IGNORECASE)
OPENS_WITH_IT = re.compile(rf"^\W*{IT}", re.IGNORECASE)
"""A sentence that goes on about the one record the sentence before was about ("It's planned for Saturday")."""
THE_RECORD = re.compile(r"\bthe\s+(ticket|incident|change|record|run)\b(?!s)", re.IGNORECASE)
"""A record pointed back at by its kind ("so the ticket is On Hold", "the ticket links no change"): the one named
just before, when of that kind."""
CLOCK_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
"""A 24-hour clock time ("17:40"), not part of a longer time or number; patterns that read one in context embed it."""
NO_SIGN = r"\s+(?:sign|evidence|indication|trace)\s+of\s+(?:it|that|this)\b"
LEAD_WORDS = {"yes": "yes", "yeah": "yes", "yep": "yes", "yup": "yes", "no": "no", "nope": "no", "nah": "no"}
"""How a yes/no lead is written, chat shorthand too ("yep still broken", "nope —"), and what it says."""
_SAID_ALONE = "|".join(sorted(set(LEAD_WORDS) - {"no"}))  # never a determiner, unlike "no open incidents"
LEAD = re.compile(rf"^\W*(?:(no)[*_]*(?:\s*[—–\-,:;.!]+|{NO_SIGN})|({_SAID_ALONE})\b)", re.IGNORECASE)
"""A yes/no lead: "Yes —", "No," "No sign of it.", "yep still broken" … — not the determiner of "No open incidents
found" (only "no" is ever one)."""
LEAD_WORD = re.compile(rf"^\W*(?:no[*_]*\s*[—–\-,:;.!]+\s*|(?:{_SAID_ALONE})[*_]*(?:\s*[—–\-,:;.!]+\s*|\s+|$))",
                       re.IGNORECASE)
"""A yes/no lead's own words, to cut from its sentence ("yep still broken" → "still broken")."""
BARE_NO = re.compile(rf"^\W*no{NO_SIGN}\W*$", re.IGNORECASE)
"""A whole "no" said as "No sign of it.": the lead, checked as one."""
NEGATED_VALUE = re.compile(
    r"(?:\bnot|n't|\bnever|\bno longer|\brather than|\binstead of|\bnobody|\bno one)\s+(?:\w+\s+){0,2}$|\bno\s+$"  # "no resolved incident for INC…"
    # "no pl_x run is queued or in progress": what no record is
    r"|\b(?:no|none of)\s+(?:[\w-]+\s+){0,5}?(?:is|are|was|were)\s+(?:[\w-]+(?:\s+[\w-]+)?\s+(?:or|nor|and)\s+)*$",
    re.IGNORECASE)
COMPARISON = re.compile(
    r"\b(?:(?:more|fewer|less|higher|lower|slower|faster|longer|shorter|worse|better|bigger|smaller)"
    r"(?:\s+(?!than\b)[\w:-]+){0,6}\s+than"
    r"|(?:the\s+)?same\s+(?:\w+\s+){0,2}as|as\s+(?:many|much|often)\s+as|compared\s+(?:to|with)|up\s+from|down\s+from"
    r"|than\s+(?:usual|normal|typical|average|before))\b(?!\s+(?:\d|a\b|an\b|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|a few|a couple|half))",
    re.IGNORECASE,
)
"""A comparison with another side ("slower than usual"); "more than 3 days", "more than two days" (a
quantity after it) is a bound, not a comparison."""
PLACEMENT = re.compile(
    r"\b(?:during|inside|within|overlap(?:s|ped|ping)?|in the (?:planned )?window of|holds?|held|contains?|covers?|"
    r"coincid(?:e|es|ed|ing)|f[ae]ll(?:s)?\s+(?:in|into|inside|within)|lin(?:e|es|ed|ing)\s+up\s+with)\b", re.IGNORECASE)
OTHER_STATE = re.compile(r"\b(?:offline|down|unavailable|unreachable|stopped|paused|disabled|locked|suspended)\b",
                         re.IGNORECASE)
"""A state of something other than a run (a runtime, a warehouse) placed in a window."""
RUN_WORDS = re.compile(r"\b(?:fail\w*|runs?|pipelines?|succeed\w*|error\w*|broke\w*)\b", re.IGNORECASE)


def hh_mm(pattern: re.Pattern[str], text: str) -> set[str]:
    """The clock times ``pattern`` finds in ``text`` (its groups: hour, minute), as "HH:MM"."""
    return {f"{int(hour):02d}:{minute}" for hour, minute in pattern.findall(text)}


def sentences(text: str) -> list[str]:
    return [part.strip(" -*•") for part in SENTENCE.split(text) if part.strip(" -*•")]


LABEL_WORDS = (r"(?:state|status|priority|approval|risk|type|assignee|assigned to|owner|group|team|error(?: code)?|"
               r"(?:failed )?activity|impact|urgency)")
FIELD_LABEL = re.compile(rf"(?:^|[^\w\s])\s*{LABEL_WORDS}\W*$", re.IGNORECASE)
"""A field's label before its value ("**Priority:** P3", "· State: In Progress"): the colon after it joins, it
does not start a new statement."""


TABLE_CLAUSE = re.compile(CLAUSE.pattern.replace("[:;]\\s+|", ":\\s+|"), re.IGNORECASE)
"""In a table row a ";" is inside a cell ("| INC… | clusters slow; pl_x notebook failing | In Progress |"): the row
goes on about its record."""


def clauses(sentence: str) -> list[str]:
    return split_outside(TABLE_CLAUSE if sentence.lstrip().startswith("|") else CLAUSE, sentence, labelled=True)


def split_outside(pattern: re.Pattern[str], text: str, *, labelled: bool = False) -> list[str]:
    """``text`` cut where ``pattern`` matches outside parentheses ("INC… (P2 - slow clusters) and INC… (P3 - …)"
    is one list, not two clauses); ``labelled``: not at the colon after a field's label."""
    found, start = [], 0
    for match in pattern.finditer(text):
        before = text[:match.start()]
        if labelled and match.group().startswith(":") and FIELD_LABEL.search(before[start:]):
            continue
        if before.count("(") <= before.count(")") and match.end() > match.start():
            found.append(text[start:match.start()])
            start = match.end()
    return [part.strip() for part in [*found, text[start:]] if part.strip()]


def items(clause: str) -> list[str]:
    """The clause cut at commas, " and " and " or " outside parentheses ("pl_a (INC…, P2), pl_b" → two items; "no
    change on INC… (pl_x …) or INC… (…)" → two)."""
    found, depth, start = [], 0, 0
    for index, char in enumerate(clause):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        joint = next((joint for joint in (", ", " and ", " or ") if clause.startswith(joint, index)), None)
        if depth == 0 and joint:
            found.append(clause[start:index])
            start = index + len(joint)
    found.append(clause[start:])
    return [item.strip() for item in found if item.strip()]


def lead_of(text: str) -> str | None:
    """"yes" / "no" when the direct answer starts with it."""
    return lead_said(LEAD.match(text.strip()))


def lead_said(match: re.Match[str] | None) -> str | None:
    """"yes" or "no": what a ``LEAD`` match says."""
    return LEAD_WORDS[(match.group(1) or match.group(2)).lower()] if match else None


BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
FIELD_LINE = re.compile(r"^\**[A-Za-z][\w /]{1,24}?\**\s*:\**\s")
"""A bullet that states one field of a record ("- Risk: Moderate", "- **Owner:** Elif")."""


KEY_LED = re.compile(r"^[*_`\s]*([\w-]+)[*_`]*\s*(?:[—–]|\s-)\s+")
"""A bullet that starts with its record and a dash ("- **INC…** — P2, In Progress"); after a colon the rest is often
a count of its runs ("pl_x: 0 of 14 runs failed"), not its values."""


def _key_kind(key: str) -> str:
    return "pipeline" if PIPELINE.fullmatch(key) else key[:3] if TICKET.fullmatch(key) else "run"


def carry_subjects(text: str) -> str:
    """Bullets under a line about one record, written about it: a field bullet ("- Risk: Moderate" under
    "CHG… is in Authorize") and, under a line that introduces a list (":"), a bullet naming records of another
    kind ("- `<run id>` — 07:20" under "Two failed runs of pl_x:") — each rewritten as one statement about the
    record ("CHG… Risk Moderate"), so that its values and links are checked like any other. A bullet led by its
    record and a dash ("- INC… — P2, Closed") is one statement about it too."""
    lines, subject, introduces = [], None, False
    for line in text.split("\n"):
        bullet = BULLET.match(line)
        body = line[bullet.end():] if bullet else line.strip()
        keys = record_keys(unquoted(body))
        field = not keys and FIELD_LINE.match(body) is not None
        # a plain field line right under its record ("Risk: Moderate") is one of its fields, as a bullet is
        if not bullet and not (field and subject and lines and lines[-1].strip()):
            if line.strip():
                subject = keys[0] if len(keys) == 1 else None
                introduces = line.strip().rstrip("*_ ").endswith(":")
            led = KEY_LED.match(body) if len(keys) == 1 and TICKET.fullmatch(keys[0]) else None
            # a paragraph led by a ticket and a dash ("CHG… — upgrade …. Risk: Moderate. Owner: …"): its fields and
            # what "it" does are that ticket's (other sentences may be of another record)
            lines.append(_each_about(keys[0], body[led.end():], fields_only=True)
                         if led and led.group(1).lower() == keys[0] else line)
            continue
        carried = subject is not None and (
            field or keys and introduces and all(_key_kind(key) != _key_kind(subject) for key in keys))
        led = KEY_LED.match(body) if len(keys) == 1 and not carried else None
        if carried:
            lines.append(f"- {subject} " + re.sub(r"\s*[:;]\s+|\s+[-–—]\s+", " ", body))
        elif led and led.group(1).lower() == keys[0]:  # "- INC… — P2, Closed": the line is about INC…, each of
            # its sentences ("… edition. Normal, Moderate risk, still in Authorize."), and so are the field bullets
            # under it ("- Risk: Moderate")
            lines.append(f"- {_each_about(keys[0], body[led.end():])}")
            subject, introduces = keys[0], False
        else:
            lines.append(line)
    return "\n".join(lines)


LATER_SENTENCE = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")
"""Where a sentence after the first begins, inside one line."""


NAMED_FIELD = re.compile(rf"(?<![\w:])(\**{LABEL_WORDS}\**)\s*:\**\s", re.IGNORECASE)
"""A record's field by its label and a colon ("Risk: Moderate", "**Priority:** P3")."""


def _each_about(key: str, text: str, *, fields_only: bool = False) -> str:
    """Each sentence of ``text`` as a statement about ``key``, its fields without their colons ("… edition. Risk:
    Moderate." → "chg… edition. chg… Risk Moderate."; "last 24 h: 3 failed" is no field and keeps its colon);
    ``fields_only``: after the first, only a sentence opening with a field or "it" is about it."""
    first, *later = LATER_SENTENCE.split(text)
    said = [part if fields_only and not (NAMED_FIELD.match(part) or OPENS_WITH_IT.match(part)) else f"{key} {part}"
            for part in later]
    return " ".join(NAMED_FIELD.sub(lambda found: found.group(1).strip("*") + " ", part)
                    for part in [f"{key} {first}", *said])


def record_keys(text: str) -> list[str]:
    """The records an item names by key, in order: tickets, run ids, pipelines (lower case)."""
    found = [(match.start(), match.group().lower()) for pattern in (TICKET, RUN_ID, PIPELINE)
             for match in pattern.finditer(text)]
    return list(dict.fromkeys(key for _, key in sorted(found)))


@dataclass(frozen=True)
class ValueClaim:
    item: str
    key: str
    """The record it is about (a ticket, run id or pipeline, lower case)."""
    vocabulary: Vocabulary
    values: frozenset[str]
    """The labels the words stand for (lower case); a group ("open") stands for all its members."""
    negated: bool
    words: str


@dataclass(frozen=True)
class LinkClaim:
    item: str
    first: str
    second: str


@dataclass(frozen=True)
class ComparisonClaim:
    clause: str
    words: str


@dataclass(frozen=True)
class PlacementClaim:
    clause: str
    record: str
    """The record whose window it is (a change number, lower case)."""
    pipelines: tuple[str, ...]
    negated: bool
    every: bool = False
    """Said of all the runs ("all three failures fall inside …"), not of some."""
    at_end: bool = False
    """Placed at the window's end ("started right as the change window closed"), not inside it."""


def _labels(vocabulary: Vocabulary, value: str) -> frozenset[str]:
    if value in vocabulary.groups:
        return frozenset(label.lower() for label in vocabulary.group_labels(value))
    choice = vocabulary.choice(value)
    return frozenset({choice.label.lower()}) if choice else frozenset()


QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']{3,}'(?!\w)")


def unquoted(text: str) -> str:
    """The text without what it quotes ("I could not check \"why did pl_x fail\""): a quote is not a claim."""
    return QUOTED.sub(" ", text)


NOT_SINCE = re.compile(r"\b(?:hasn['’]t|haven['’]t|hadn['’]t|has not|have not|had not)\s+(?:been\s+)?"
                       r"(?:failed|failing|succeeded|succeeding|run|running|errored|erroring|broken)\s+since\b",
                       re.IGNORECASE)
"""A run history after a moment, said of a pipeline ("it hasn't failed since 31 Dec"): none of it since then, which
the checks of a "none since" judge — not a status."""


def value_claims(item: str) -> Iterator[ValueClaim]:
    """Values stated about the one record an item names ("INC… (On Hold, P3)", "pl_x is running")."""
    item = unquoted(item)
    keys = record_keys(item)
    if len(keys) != 1:
        return  # no subject, or several: the values cannot be pinned on one record
    # "it was canceled because it fell inside CHG…'s window", "on hold awaiting CHG…": a record named after a value
    # only as an owner (KEY's) or an object is not that value's subject
    owner = re.search(rf"(?<![\w-]){re.escape(keys[0])}['’]s\b", item, re.IGNORECASE) or re.search(
        rf"\b(?:awaiting|waiting (?:for|on)|pending|blocked by|until|after|before|during|for|by|of|with|about|from|"
        rf"to|via|behind)\s+(?:the\s+)?(?:\w+\s+){{0,2}}?{re.escape(keys[0])}\b", item, re.IGNORECASE)
    for vocabulary in VALUE_VOCABULARIES.values():
        for match, value in vocabulary.find(item):
            labels = _labels(vocabulary, value)
            if owner and match.end() <= owner.start() or LATE.match(item, match.end()) \
                    or match.group() == "new" and (ATTRIBUTIVE.search(item[:match.start()]) or BEFORE_NOUN.match(
                        item, match.end()) and not COPULA.search(item[:match.start()])) \
                    or WHEN.search(item[:match.start()]) or OF_A_WINDOW.search(item[:match.start()]) \
                    or PURPOSE.search(item[:match.start()]) or SET_SUBJECT.search(item[:match.start()]) \
                    or IMPERATIVE.match(item) and re.search(r"\bso(?:\s+that)?\s+it\s+$", item[:match.start()]) \
                    or PROSPECTIVE.search(item[:match.start()]) or _conditional(item[:match.start()], keys[0]) \
                    or _advised_target(item[:match.start()]) or COMPARED_WITH.search(item[:match.start()]) \
                    or match.group().lower() in VERB_FORMS and AS_A_VERB.match(item, match.end()) \
                    or match.group().lower().startswith("need"):
                continue  # "the new analytics subnet": the English adjective; "after it closed": a moment;
                # "will be fixed by that change": what is to come, not its state; "if CAB doesn't authorise it":
                # a condition, not its state; "move it to In Progress": where advice would put it; "it needs
                # sign-off": what has to happen (a count of those that need it is the count checks')
            if labels and EVENT_MOMENT.match(item, match.end()) and match.group().lower().endswith("ed") \
                    and not COPULA_BEFORE.search(item[:match.start()]):  # "resolved 11:00 UTC": the event, and what
                labels = _since_then(vocabulary, value) or labels  # follows it in a ticket's life ("is scheduled
                # 08:00–11:00" and "moved to In Progress on Thu" are states)
            if labels and not identifiers_in(match.group()):
                negated = NEGATED_VALUE.search(item[:match.start()]) is not None
                if negated and vocabulary.name == "run_status" and any(
                        found.start() <= match.start() < found.end() for found in NOT_SINCE.finditer(item)):
                    continue  # "it hasn't failed since 31 Dec": its history after a moment, not its status
                yield ValueClaim(item, keys[0], vocabulary, labels, negated, match.group())


EVENT_MOMENT = re.compile(rf"\s+(?:at\s+|on\s+)?(?:\d{{1,2}}:\d{{2}}|\d{{1,2}}\s+{MONTH_NAME}\b|{DAY_NAME}\b|\d{{4}}-\d\d-\d\d)",
                          re.IGNORECASE)
"""After a state word, when it happened ("resolved 11:00 UTC", "closed on 3 Jan"): an event of its life, which a
later state of the same group keeps true ("Closed … resolved 11:00")."""
PURPOSE = re.compile(r"\bso(?:\s+that)?\s+(?:(?:it|they|the\s+[\w-]+|[\w-]+)\s+)?(?:gets?|can be|will be|would be|ends up)\s+"
                     r"(?:[\w-]+\s+){0,2}$", re.IGNORECASE)
"""Before a value, a purpose ("… so it gets closed once the change is verified"): what advice would bring about, not
the record's state now."""
IMPERATIVE = re.compile(r"^\W*(?:open|raise|file|log|create|assign|add|put|give|hand|set|move|escalate|page|ping|ask)\s+"
                        r"(?:a|an|the|it|one|[A-Z]{3}\d+)\b", re.IGNORECASE)
"""An item that tells the reader what to do ("Open a Data Platform Ops incident … so it has an owner"): what follows
"so it" is what the action would bring about."""
TARGET = re.compile(r"(?<!been )(?<!was )(?<!is )(?<!were )(?<!got )(?<!are )\b(?:move|set|change|mark|put|switch|bump|transition|flip|update)\s+(?:(?:it|this|that|them|the\s+"
                    r"(?:ticket|incident|state|status|change|priority|record)|[A-Z]{3}\d+)\s+)?(?:back\s+)?(?:to|as|in|into)\s+$",
                    re.IGNORECASE)
"""Before a value, where an action would put the record ("move it to In Progress", "set the priority to P2"); not
what was done to it ("it was set to P1")."""
COMPARED_WITH = re.compile(r"\b(?:than|vs\.?|versus|compared (?:with|to))\s+(?:any|all|each|most|every)?\s*(?:one\s+)?"
                           r"(?:of\s+)?(?:the|its|their)?\s*(?:\d+\s+)?(?:[\w-]+\s+){0,2}$", re.IGNORECASE)
"""Before a value, what a record is compared with ("longer than any of the 10 recent successes"), not its own."""
ADVICE_LEAD = re.compile(r"(?:^|[.;:,!(—–-]|\b(?:and|then|or|to|please|pls|should|can|could|must|would|I'd|recommend|"
                         r"consider|suggest|want|need|just))\s*(?:\*+\s*)?$", re.IGNORECASE)
"""Before an action's verb, what makes it advice: a clause's start, "and", a modal ("you can set …", "I'd move …")."""


def _advised_target(before: str) -> bool:
    """A value right after an action advised ("… and move it to In Progress"), not one reported done ("Priya set it
    to On Hold")."""
    target = TARGET.search(before)
    return target is not None and ADVICE_LEAD.search(before[:target.start()]) is not None


COPULA_BEFORE = re.compile(r"\b(?:is|are|'s|remains|stays)\s+(?:still\s+|now\s+)?$", re.IGNORECASE)
"""Before a state word, what makes it the state now ("is scheduled 08:00–11:00"), not an event with its moment."""


def _since_then(vocabulary: Vocabulary, value: str) -> frozenset[str]:
    """A ticket's state and the later states of its stage ("resolved" → Resolved, Closed: a group such as "done",
    not "all"), which a state said with its moment ("resolved 11:00") stays true under; none for a run's status
    ("cancelled at 04:00" is what it is)."""
    values = vocabulary.values()
    if vocabulary.record not in ("incident", "change") or value not in values:
        return frozenset()
    return frozenset(choice.label.lower() for members in vocabulary.groups.values() if value in members
                     and len(members) < len(values) for choice in vocabulary.choices
                     if choice.value in members and values.index(choice.value) >= values.index(value))


SET_SUBJECT = re.compile(r"\b(?:\d+|two|three|four|five|six|all|both|most|several)\s+(?:of\s+(?:the|them|those|these)"
                         r"(?:\s+\d+)?\s+)?(?:are|were|remain|stay)\s+(?:still\s+|now\s+|all\s+)?$", re.IGNORECASE)
"""Before a value, a count of records that have it ("3 of the 4 are In Progress and 1 is On Hold (INC…)"): the
value of the set counted (which the count checks judge), not of the one record the clause names."""
WHEN = re.compile(r"\b(?:after|before|until|till|once)\s+(?:(?:it|its|it['’]s|the|that|this)\s+)?(?:[\w-]+\s+)?$|"
                  r"\b(?:until|till|once|as soon as)\s+(?:[\w'’-]+\s+){0,5}$", re.IGNORECASE)
"""Before a value, a moment ("five hours after it closed", "44 hours after that window closed") or a condition to
come ("stays On Hold until it's done", "once the change is closed"), not the record's state."""
OF_A_WINDOW = re.compile(r"\bwindows?\s+(?:has\s+|had\s+|is\s+|was\s+)?$", re.IGNORECASE)
"""Before a value, a window ("after CHG…'s window closed"): the window's moment, not the record's state."""
PROSPECTIVE = re.compile(r"\b(?:will|['’]ll|gonna|going to|can|could|would|should|might|may|ha(?:s|ve) to|needs? to|"
                         r"ought to)\s+(?:not\s+)?(?:be\s+|get\s+)?"
                         r"(?:[\w-]+ly\s+)?$", re.IGNORECASE)
"""Before a value, what is to come, may be or has to be ("will be fixed by that change", "check whether INC… can be
resolved", "it has to be approved before 10:00"): not the record's state now ("appears to be resolved", "must be
resolved by now" are, and are checked)."""
AS_A_VERB = re.compile(r"\s+(?:a|an|the|one|it|them|another)\b", re.IGNORECASE)
"""After a state's base form, an object: the verb ("rather than open a new ticket", "close it"), not the state."""
VERB_FORMS = frozenset({"open", "close", "cancel", "resolve", "fix", "hold", "park", "pause"})
HYPOTHETICAL = re.compile(r"\b(?:if|unless|in case|whether)\b(?P<condition>[^.;,:—–()]*)$", re.IGNORECASE)
"""Before a value in the same clause, a condition ("if CAB doesn't authorise it, …"): asserted of nothing."""
GOES_ON = re.compile(r"\b(?:which|that|who|and|but|it is|it's|is|are|was)\b", re.IGNORECASE)


def _conditional(before: str, key: str) -> bool:
    """The value is inside a condition: after "if …" with nothing between that asserts something of the record
    ("if you need detail on INC… which is Resolved": the record is named and "which is" asserts)."""
    found = HYPOTHETICAL.search(before)
    condition = found.group("condition").lower() if found else ""
    return found is not None and key not in condition and not GOES_ON.search(condition)
BEFORE_NOUN = re.compile(r"\s+(?!(?:and|or|but|with|since|for|in|at|on|by|to|from|until|till|yet|as|so|now|again|"
                         r"state|status|p\d)\b)[A-Za-z]")
""""new certificate from the CA", "new SFTP credentials": lower-case "new" before a word it qualifies is the adjective,
not the state."""
COPULA = re.compile(r"\b(?:is|was|are|were|still|now|remains?|stays?|as)\s+$|[:=]\s*$", re.IGNORECASE)
"""Before "new", what makes it the state ("INC… is new today", "state: new")."""
ATTRIBUTIVE = re.compile(r"\b(?:the|a|an|this|that|these|those|its|their|anything|something|nothing|everything)\s+$",
                         re.IGNORECASE)
LATE = re.compile(r"\s+(?:(?:about|over|nearly|some)\s+)?(?:\d+|an?|one|two|three)?\s*(?:minutes?|mins?|hours?|h)?\s*"
                  r"(?:late|behind|early|ahead of schedule)\b", re.IGNORECASE)
"""After a status word, lateness ("running 40 minutes late"): how it keeps time, not its state."""


APART = re.compile(r"\b(?:hours?|minutes?|days?)\s+(?:after|before)\b|\b(?:after|before|since)\s+(?:the\s+)?\S+\s+window\b|"
                   r"\b(?:unrelated|not related|no link|not linked|can't have|cannot have|couldn't have)\b",
                   re.IGNORECASE)
"""An item that says two records are apart in time or unrelated: not a link between them."""


TO_THE_USER = re.compile(r"^\W*(?:(?:so|then|and)\s+)?you(?:'ll|'d| will| would)?\s+(?:need to|have to|can|could|should|"
                         r"may want to|might want to)\b|\byourself\b", re.IGNORECASE)
"""What the user is asked or advised to do ("you'll need to set Assigned to = Marek on INC… yourself"): no link the
data must show."""


def link_claims(item: str, known: Collection[str]) -> Iterator[LinkClaim]:
    """Pairs of names in one item: each record key with every other name the item gives."""
    item = unquoted(item)
    if APART.search(item) or TO_THE_USER.search(item):
        return  # "… began seven hours after CHG…'s window ended": the item sets them apart, it links nothing
    names = identifiers_in(item) | {name.lower() for name in known if says(item, name)}
    keys = [key for key in record_keys(item) if key in names]
    for key in keys:
        for other in sorted(names - {key}):
            if key < other or other not in keys:
                yield LinkClaim(item, key, other)


def respective_links(clause: str, known: Collection[str]) -> list[LinkClaim]:
    """"DPO and NetOps have two each (INC… and INC…; INC… and INC…)": the parenthesis's groups, in the order of
    the names before it — each group's records are its own name's, not every name's."""
    found = re.search(r"\(([^()]*;[^()]*)\)", clause)
    if found is None:
        return []
    groups = [group for group in found.group(1).split(";") if group.strip()]
    before = unquoted(clause[:found.start()])
    said = sorted((before.lower().find(name.lower()), name.lower()) for name in known if says(before, name))
    if not len(said) == len(groups) >= 2:
        return []
    return [LinkClaim(clause, key, name) for (_, name), group in zip(said, groups) for key in record_keys(group)]


def says(text: str, name: str) -> bool:
    """``name`` as a whole name in ``text`` (any case; hyphens and underscores are part of a name)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def comparison_claims(clause: str) -> Iterator[ComparisonClaim]:
    for match in COMPARISON.finditer(clause):
        yield ComparisonClaim(clause, match.group())


AT_THE_END = re.compile(r"\b(?:right|just|shortly|immediately|minutes)\s+(?:as|after|when|once)\s+(?:[\w'’-]+\s+){0,4}?"
                        r"(?:window|change|it|maintenance)\s+(?:had\s+|was\s+)?(?:closed|ended|finished|completed|"
                        r"was over|wrapped up)\b|\b(?:right|just|shortly|immediately)\s+after\s+(?:the|that|its|this)\s+"
                        r"(?:change|window|maintenance)\b", re.IGNORECASE)
"""A run placed at a window's end ("started at 04:00, right as the change window closed", "just after the change")."""


def placement_claims(clause: str, the_change: str | None = None) -> Iterator[PlacementClaim]:
    """"pl_x failed during CHG…'s window", "no run failed inside the window of CHG…", "… right as the window
    closed"; "both failed during the window" is about ``the_change``, the one change the answer names."""
    placed = PLACEMENT.search(clause) or AT_THE_END.search(clause)
    if not placed or not RUN_WORDS.search(clause) or re.search(r"\b(?:whether|if)\b", clause[:placed.start()], re.IGNORECASE):
        return  # ("check whether the runs are paused during the window": a question to ask, no placement)
    own = next((item for item in items(clause) if placed.group() in item), clause)
    if not RUN_WORDS.search(own) and OTHER_STATE.search(own):
        return  # "left the runtime offline during its window, so pl_x failed": what the window holds is the outage
    changes = [match.group().lower() for match in TICKET.finditer(clause) if match.group().upper().startswith("CHG")]
    if not changes and the_change and re.search(r"\b(?:the|that|its|this)\s+(?:planned\s+|change\s+|maintenance\s+)?window\b"
                                                r"|\b(?:with|to)\s+(?:it|that|this|the change)\b", clause, re.IGNORECASE):
        changes = [the_change]
    pipelines = tuple(dict.fromkeys(match.group().lower() for match in PIPELINE.finditer(clause)))
    negated = re.search(r"\b(?:no|none|nothing|not|never|didn't|did not)\b", clause, re.IGNORECASE) is not None
    every = re.search(r"\b(?:all|every|each|both)\b", clause, re.IGNORECASE) is not None
    at_end = AT_THE_END.search(clause) is not None and not PLACEMENT.search(clause)
    for change in changes:
        yield PlacementClaim(clause, change, pipelines, negated, every, at_end)


def not_looked_at(name: str, sentence: str) -> bool:
    """The sentence says ``name`` was not searched ("I only checked North Europe, not West Europe", "I didn't look
    at adf-prod-eus")."""
    name = re.escape(name)
    return re.search(rf"\b(?:only|just)\s+(?:checked|looked at|searched|queried)\b[^.;]*\bnot\s+(?:the\s+)?{name}\b"
                     rf"|\b(?:didn't|did not|haven't|have not|couldn't|could not|not)\s+(?:check|look at|search|query)\w*\s+"
                     rf"(?:[\w-]+\s+){{0,3}}?{name}\b", sentence) is not None
