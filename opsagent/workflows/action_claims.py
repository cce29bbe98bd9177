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
from opsagent.intake.vocabulary import ACTIONS

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


VERBS = frozenset(word for phrases in ACTIONS.values() for phrase in phrases for word in [phrase.split()[0]])
SUBJECT = r"\bI(?:'ve|\s+have|\s+had|'ll|\s+will|\s+am going to|'m going to)?"  # "we" is often the user's team
ADVERB = r"(?:\s+(?:just|already|now|also|gone ahead and|went ahead and|successfully))*"
CLAIM = re.compile(rf"{SUBJECT}{ADVERB}\s+(?P<verb>[a-z][a-z-]+)(?P<particle>\s+(?:off|out|over|up|back))?\b",
                   re.IGNORECASE)


def action_claims(sentence: str) -> list[str]:
    """The actions a sentence says the writer took or will take, as intake's verbs ("acknowledge")."""
    found = []
    for match in CLAIM.finditer(sentence):
        verb = match.group("verb")
        stem = next((form for form in (_stem(verb), verb.lower().removesuffix("d")) if form in VERBS), None)
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
