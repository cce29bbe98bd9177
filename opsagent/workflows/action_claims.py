"""Claims that OpsAgent did something: "I've acknowledged INC…", "I triggered a rerun", "I'll page them now".

Every tool OpsAgent calls reads; none changes a ticket, a pipeline or a platform (the tool catalog has no
action). A sentence in which the writer says it acted, or will act, is therefore never backed by the
evidence, whatever the model believes. Negations ("I can't rerun it", "I have not paged anyone") are not
claims; the verbs are intake's vocabulary of actions, so a verb people ask for is a verb checked here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.vocabulary import ACTIONS, AMBIGUOUS_VERBS
from opsagent.tools.identifiers import TICKET
from opsagent.tools.vocabularies import VALUE_VOCABULARIES

IRREGULAR = {"ran": "run", "reran": "rerun", "re-ran": "re-run", "set": "set", "made": "make", "wrote": "write",
             "woke": "wake", "sent": "send", "put": "put"}


def _stem(word: str) -> str:
    """The base form of a past tense or participle ("triggered" → trigger, "stopped" → stop, "paged" → page)."""
    low = word.lower()
    if low in IRREGULAR:
        return IRREGULAR[low]
    if low.endswith("ied"):
        return low[:-3] + "y"
    if low.endswith("ed"):
        base = low[:-2]
        return base[:-1] if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls" else base
    return low


# "ran a search", "start with", "update you" are not actions on a record: verbs that are commands only before an
# object are left out, and so are questions ("Should I open …?") and quoted text
VERBS = frozenset(word for phrases in ACTIONS.values() for phrase in phrases for word in [phrase.split()[0]]
                  if word not in AMBIGUOUS_VERBS) - {"run"}
SUBJECT = (r"(?:^|[.;:!—–-]\s*|\b(?i:and|so|then|but|also|now)\s+)"  # "I" opening a clause, not "Phase I"
           r"I(?:'ve|\s+have|\s+had|'ll|\s+will|\s+am going to|'m going to)?")
ADVERB = r"(?:\s+(?i:just|already|now|also|gone ahead and|went ahead and|successfully))*"
OBJECTED = frozenset(word for phrases in ACTIONS.values() for phrase in phrases for word in [phrase.split()[0]]
                    if word in AMBIGUOUS_VERBS)
"""Verbs that are actions only with an object ("I've paged Leila", "I fixed it"; not "I set the window to …")."""
OBJECT = re.compile(rf"\s+(?:{TICKET.pattern}|[A-Z][a-z]+|him|her|them|someone|everyone|it"
                    r"|(?i:an?|the|new)\s+(?:[\w-]+\s+){0,2}(?i:ticket|case|incident|request|bridge|rfc)"
                    r"(?!\s+(?i:query|queries|list|queue|page|view|search|details|history|data|report|table)\b))\b")
"""What an ambiguous verb acts on: a record, a person, a pronoun, or a kind of ticket ("opened a support case")."""
CLAIM = re.compile(rf"{SUBJECT}{ADVERB}\s+(?P<verb>(?i:[a-z][a-z-]+))(?P<particle>\s+(?i:off|out|over|up|back))?\b")
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")


TOLD = re.compile(r"^\W*(?:(?i:done|ok|okay|sure|right|all set)\W+)?(?P<verb>[A-Za-z][a-z]+(?:ed|d))\s+"
                  r"(?:[A-Z][a-z]+ [A-Z][a-z]+|him|her|them|the (?:[\w-]+ ){0,3}on-?call)\b")
"""A report without its "I" ("Paged Elif Demir about INC…", "Notified them", "Done — paged the DBA on-call"): telling a person is the writer's
act; a record's own history names who did it ("Escalated by …") or what changed, not a person told."""


FOR_YOU = re.compile(r"\b(?P<verb>[a-z][a-z-]+(?:ed|ran|set|sent))\s+(?:(?:it|this|that|the \w+)\s+)?(?:to|for)\s+"
                     r"(?:you|u)\b", re.IGNORECASE)
"""An act done for the user without its "I" ("reassigned to you", "rerun for you"): records never name the reader."""
TOLD_PASSIVE = re.compile(r"\b(?:has|have)\s+(?:now\s+|just\s+|already\s+)?been\s+(?P<verb>[a-z]+ed)\b(?!\s+by\b)", re.IGNORECASE)
"""A person told, reported as done ("Elif has been notified"): a page the writer claims; a record's history says
who did it and when, not that it "has been" done."""


REPORTED = re.compile(r"^\W*(?P<verb>[A-Za-z][a-z-]+ed)\s*[:—–]")
"""An act reported as a heading ("Rescheduled: CHG… now runs Sunday", "Acknowledged — …")."""


LAUNCHED = ("kicked off", "triggered", "submitted", "requested", "initiated", "sent", "issued", "fired", "launched")
"""What launching an act is called ("started", "queued", "underway" are states a run's own rows carry)."""
NOMINAL = re.compile(r"(?:^|[.;:!—–]\s*)[\W_]*(?P<noun>[A-Za-z][A-Za-z-]+)\s+(?:(?:has|have)\s+been\s+|was\s+|is\s+|now\s+)?"
                     rf"(?i:{'|'.join(LAUNCHED)})\b"
                     r"(?!\s+(?i:by|automatically|at|via|in|per|on|from|according)\b|\s+\d{1,2}:\d{2})"
                     r"(?![^.;]*\b(?i:failed|errored|bounced|was rejected)\b)")
"""An act reported by its noun, without an actor ("Rerun triggered for pl_x", "Page sent to the on-call"): the
launch of a rerun, a page or a restart that no read-only tool made. A record's own history says who, when or where
("Rollback requested via CHG…", "Page sent at 06:35", "… by Priya"), or that it failed."""


def _noun_action(noun: str) -> str | None:
    """The action a noun names ("rerun", "re-run", "escalation" → escalate, "acknowledgement" → acknowledge)."""
    low = noun.lower()
    forms = {low, low.replace("-", " "), low.removesuffix("ment"), low.removesuffix("ion") + "e",
             low.removesuffix("ication") + "y"}
    return next((form for form in sorted(forms) if form in VERBS or form in {"page", "scale up", "scale-up"}), None)


RECORD_EVENTS = frozenset({phrase for vocabulary in VALUE_VOCABULARIES.values() for phrase, _ in vocabulary.phrases}
                          | {"opened", "raised", "created", "logged", "reported", "updated", "changed", "assigned",
                             "escalated", "planned"})
"""Headings that label a record's own state or history ("Resolved: INC… on 28 Dec"), not the writer's act."""


def _action(verb: str, verbs: frozenset[str] = VERBS | OBJECTED) -> str | None:
    return next((form for form in (_stem(verb), verb.lower().removesuffix("d")) if form in verbs), None)


def action_claims(sentence: str) -> list[str]:
    """The actions a sentence says the writer took or will take, as intake's verbs ("acknowledge")."""
    found = []
    sentence = QUOTED.sub(" ", sentence).strip()
    if sentence.endswith("?"):
        return found
    told = TOLD.match(sentence)
    if told and {_stem(told.group("verb")), told.group("verb").lower().removesuffix("d")} & set(ACTIONS["page"]):
        found.append("page")
    found += [stem for match in FOR_YOU.finditer(sentence) if (stem := _action(match.group("verb")))]
    found += [stem for match in [REPORTED.match(sentence)] if match and match.group("verb").lower() not in RECORD_EVENTS
              and (stem := _action(match.group("verb"), VERBS))]
    found += ["page" for match in TOLD_PASSIVE.finditer(sentence)
              if _action(match.group("verb"), frozenset(ACTIONS["page"]) - {"escalate"})]
    found += [stem for match in NOMINAL.finditer(sentence) if (stem := _noun_action(match.group("noun")))]
    for match in CLAIM.finditer(sentence):
        if re.match(r"\s+(?:you|u)\b", sentence[match.end():], re.IGNORECASE):
            continue  # "I'll update you", "I'll let you know": a promise to the user, not an act on a record
        verb = match.group("verb")
        stem = _action(verb, VERBS)
        if stem is None and OBJECT.match(sentence[match.end():]):
            stem = _action(verb, OBJECTED)
        if stem is not None:
            found.append(stem)
    return found


def check_action_claims(sentences: Iterable[str]) -> list[GroundingCheck]:
    """Each sentence that claims an action: failed, since no tool acts (OpsAgent is read-only)."""
    return [GroundingCheck(kind="link", claim=sentence, passed=False,
                           detail=f"\"{sentence}\" says an action was taken ({', '.join(verbs)}), but OpsAgent's "
                                  "tools only read: say what the user can do instead",
                           public="a statement that an action was taken (OpsAgent only reads)")
            for sentence in sentences if (verbs := action_claims(sentence))]
