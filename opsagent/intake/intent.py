"""What the message is, read by product code for every model: a question, a greeting, a request for
help, thanks, a request to act, something off-topic, or an operations question that names nothing.

A request to act is found by intent, not by example sentences: a verb of ``vocabulary.ACTIONS`` used
as a command — at the start of a clause or after "please / can you / go ahead and" — and, for verbs
that double as nouns ("open incidents", "run status"), followed by what it acts on. "Who
acknowledged INC…?" and "was CHG… approved?" ask about a state; "ack INC…" asks to change it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence

from opsagent.contracts.analysis import ActionRequest, Ask, EntityMention, Intent, Span
from opsagent.intake.vocabulary import (
    ACTIONS,
    ADDRESSEE,
    AMBIGUOUS_VERBS,
    COMMAND_LEADS,
    DOMAIN_WORDS,
    GREETINGS,
    HELP_WORDS,
    OFF_TOPIC,
    OFF_TOPIC_REQUESTS,
    PLATFORMS,
    REFERENCES,
    STOPWORDS,
    THANKS_WORDS,
)
from opsagent.tools.catalog import RECORDS
from opsagent.tools.vocabularies import VOCABULARIES

WORD = re.compile(r"[a-z0-9][a-z0-9_'.-]*[a-z0-9]|[a-z0-9]", re.IGNORECASE)
PRONOUNS = frozenset({"it", "them", "this", "that"})
"""A command's object that points back at what the message named before ("pl_x failed; rerun *it*")."""
OBJECT_WORDS = PRONOUNS | frozenset("the a an these those all every my our its their new another some "
                                    "whoever someone somebody anyone everyone".split())
"""Words after an ambiguous verb that make it a command ("open *an* incident", "run *it* again")."""
VERB_PHRASES = sorted(((phrase, action) for action, phrases in ACTIONS.items() for phrase in phrases),
                      key=lambda pair: -len(pair[0]))
LEAD_PATTERN = "|".join(re.escape(lead) for lead in sorted(COMMAND_LEADS, key=len, reverse=True))
NOT_A_COMMAND = re.compile(r"\b(?:who|whom|whose|when|why|how|which|what|whether|did|has|have|had|was|were|is|are)\b",
                           re.IGNORECASE)
"""A question word before the verb makes it a question about the action ("who acked it?")."""


SEPARATOR = re.compile(r"\s+[-–—]\s+|\s*;\s*|(?<=[.!?])\s+")
"""Where a clause a command may start begins ("whoever is on call for the portal - page them"): after a dash set
apart by spaces, a semicolon or a sentence end."""


def _clauses(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for separator in SEPARATOR.finditer(text):
        yield start, text[start:separator.start()]
        start = separator.end()
    yield start, text[start:]


def _phrases(words: Sequence[str]) -> list[str]:
    return sorted(words, key=len, reverse=True)


def _strip(text: str, phrases: Sequence[str]) -> str:
    low = f" {text.lower()} "
    for phrase in _phrases(phrases):
        low = re.sub(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", " ", low)
    return re.sub(r"[\s,.!?:;()\-–—'\"]+", " ", low).strip()


def _only(text: str, phrases: Sequence[str]) -> bool:
    """``text`` says nothing but these phrases (and greetings, thanks, who it is addressed to)."""
    rest = _strip(text, [*phrases, *ADDRESSEE])
    return rest == "" and _strip(text, ADDRESSEE) != ""


RECORD_ENTITIES = frozenset({"incident", "change", "run_id", "pipeline"})
CREATES = frozenset({"a", "an", "new", "another"})
""""open" creates only before these ("open an incident"); "open the P1" and "open P4 incidents" read."""


def _starts_object(verb: str, after: str, names_first: bool) -> bool:
    first = re.sub(r"'s$", "", (after.split() or [""])[0])  # "page whoever's on call"
    if verb == "open":
        return first in CREATES
    return names_first or first in OBJECT_WORDS


def find_action(text: str, asks: Sequence[Ask], entities: Sequence[EntityMention]) -> ActionRequest | None:
    """The first clause that commands a write, with the ids and names it is about."""
    for ask, offset, clause in ((ask, ask.span.start + start, clause) for ask in asks
                                for start, clause in _clauses(ask.text)):
        low = clause.lower()
        lead = re.match(rf"^(?:(?:{LEAD_PATTERN})[\s,]+)*", low)
        start = lead.end() if lead else 0
        if NOT_A_COMMAND.match(low[:start]) or NOT_A_COMMAND.match(low[start:start + 6] or ""):
            continue
        for phrase, action in VERB_PHRASES:
            if not re.match(rf"{re.escape(phrase)}(?![\w'-])", low[start:]):
                continue
            after_at = offset + start + len(phrase)
            after = low[start + len(phrase):].strip()
            targets = [item for item in entities if item.span.start >= after_at and item.span.end <= ask.span.end]
            if not targets and (after.split() or [""])[0] in PRONOUNS:  # "pl_x failed - restart it": what came before
                targets = [item for item in entities if item.span.end <= offset]
            if phrase in AMBIGUOUS_VERBS and not _starts_object(phrase, after, _first_is_entity(after, targets)):
                break
            if _noun_compound(phrase, after):
                break
            return ActionRequest(action=action, verb=phrase, text=clause,
                                 targets=list(dict.fromkeys(item.value for item in targets if item.usable)))
    return None


def _first_is_entity(after: str, targets: Sequence[EntityMention]) -> bool:
    first = after.split()[0] if after.split() else ""
    return any(first and first in item.text.lower() for item in targets)


def _noun_compound(verb: str, after: str) -> bool:
    """"change requests", "run status", "page views": the verb is the first word of a noun."""
    first = after.split()[0] if after.split() else ""
    nouns = {noun for kind in RECORDS.values() for noun in kind.nouns if " " not in noun}
    return (f"{verb} {first}" in {noun for kind in RECORDS.values() for noun in kind.nouns}
            or first in {"status", "statuses", "history", "requests", "request", "window", "windows", "details"}
            or (verb in ("open", "new") and first in nouns))


DOMAIN_LEXICON = sorted({word for word in (
    *(noun for kind in RECORDS.values() for noun in kind.nouns), *DOMAIN_WORDS,
    *(word for words in PLATFORMS.values() for word in words),
    *(phrase for vocabulary in VOCABULARIES.values() for phrase, _ in vocabulary.phrases),
) if " " not in word and len(word) >= 5})
TYPO_AT = 0.8
"""A word this close to a domain word is that word misspelt ("databriks", "helth")."""


def _misspelt_domain_words(low: str) -> list[str]:
    return [word for word in WORD.findall(low) if len(word) >= 5 and word not in STOPWORDS
            and difflib.get_close_matches(word, DOMAIN_LEXICON, n=1, cutoff=TYPO_AT)]


def domain_words(text: str, entities: Sequence[EntityMention]) -> list[str]:
    """The words that tie the message to operations: records, values, platforms, entities, domain words
    (misspelt ones too)."""
    low = text.lower()
    found = _named_things(text, entities)
    found += [match.group() for vocabulary in VOCABULARIES.values() for match, _ in vocabulary.find(text)]
    return list(dict.fromkeys(found or _misspelt_domain_words(low)))


def _named_things(text: str, entities: Sequence[EntityMention]) -> list[str]:
    """Records, entities, platforms and domain words: what a message about operations names (a value word
    alone, "new" or "failed", can be ordinary English)."""
    low = text.lower()
    found = [item.text for item in entities if item.usable or item.status == "unknown"]
    found += [noun for kind in RECORDS.values() for noun in kind.nouns
              if re.search(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", low)]
    found += [word for word in WORD.findall(low) if word in DOMAIN_WORDS]
    found += [word for words in PLATFORMS.values() for word in words if re.search(rf"\b{re.escape(word)}\b", low)]
    return found


def unplaced_words(text: str, covered: Sequence[Span]) -> list[str]:
    """Content words outside every recognised span that no vocabulary knows."""
    known = {word for kind in RECORDS.values() for noun in kind.nouns for word in noun.split()}
    known |= {word for vocabulary in VOCABULARIES.values() for phrase, _ in vocabulary.phrases for word in phrase.split()}
    known |= {word for phrases in ACTIONS.values() for phrase in phrases for word in phrase.split()}
    known |= DOMAIN_WORDS | STOPWORDS
    found = []
    for match in WORD.finditer(text):
        word = match.group().lower().strip("'.")
        if any(span.start <= match.start() < span.end for span in covered) or word in known or word.isdigit():
            continue
        found.append(word)
    return list(dict.fromkeys(found))


def read_intent(text: str, *, asks: Sequence[Ask], entities: Sequence[EntityMention], has_window: bool,
                has_filter: bool, has_history: bool) -> tuple[Intent, ActionRequest | None]:
    """The message's intent, and the action it asks for when it asks for one."""
    if _only(text, GREETINGS):
        return "greeting", None
    if _only(text, [*GREETINGS, *HELP_WORDS]):
        return "help", None
    if _only(text, [*GREETINGS, *THANKS_WORDS]):
        return "thanks", None
    names_record = any(item.usable and item.kind in RECORD_ENTITIES for item in entities)
    asks_records = names_record or NOUN.search(text) is not None
    if not names_record and _says(text, OFF_TOPIC_REQUESTS) or not asks_records and _says(text, OFF_TOPIC):
        return "off_topic", None
    if not has_filter and not _named_things(text, entities) and _asks_capabilities(text):
        return "help", None
    related = bool(domain_words(text, entities))
    action = find_action(text, asks, entities) if related else None  # "reset my password" is the help desk's
    if action is not None:
        return "action", action
    if has_history:
        return "question", None
    if not any(item.usable for item in entities) and _points_back(text):
        return "vague", None  # "is it fixed?" with nothing before it to point at
    if not (has_filter or has_window) and _only_a_kind(text, asks, entities):
        return "vague", None  # "status?", "any issues?": which one is asked back, by every model
    # a time alone ("tomorrow") ties nothing to operations; a record, a value, a name or a filter does
    return ("question" if related or has_filter else "unrecognised"), None


QUESTION_WORDS = ("what", "how", "which")
CAPABILITY_VERBS = ("do", "help", "answer", "ask", "handle", "use", "know")
FILLER = frozenset({*STOPWORDS, *(word for phrase in (*ADDRESSEE, *COMMAND_LEADS, *GREETINGS) for word in phrase.split()),
                    "u", "me", "can", "could", "would", "please"})


KIND_WORDS = frozenset(noun for name, kind in RECORDS.items() if name != "run_count" for noun in kind.nouns
                       if " " not in noun)
WHOLE = frozenset({"all", "every", "each", "everything"})


def _only_a_kind(text: str, asks: Sequence[Ask], entities: Sequence[EntityMention]) -> bool:
    """"status?", "any issues?", "incidents": a kind of record and nothing about which — no name, value, time,
    question word or scope ("how many incidents?", "which incidents?", "all incidents" are searches)."""
    if any(item.usable or item.status == "unknown" for item in entities) or any(
            ask.shape not in ("list", "other", "yes_no", "record") for ask in asks):
        return False
    words = [word.lower() for word in WORD.findall(text)]
    content = [word for word in words if word not in FILLER]
    return bool(content) and all(word in KIND_WORDS for word in content) and not set(words) & WHOLE


def _like(word: str, targets: Sequence[str]) -> bool:
    """``word`` is one of ``targets`` or a typo of one ("wat", "halp")."""
    return word in targets or bool(difflib.get_close_matches(word, targets, n=1, cutoff=0.75))


def _asks_capabilities(text: str) -> bool:
    """A message about nothing in operations that asks what the assistant can do ("what are you able to help
    with?", "what kind of questions can you answer?") or only asks for help ("help pls", "halp")."""
    words = [word.lower() for word in WORD.findall(text)]
    content = [word for word in words if word not in FILLER]
    if content and all(_like(word, ("help",)) for word in content):
        return True
    return (any(word in ("you", "u") for word in words) and any(_like(word, QUESTION_WORDS) for word in words)
            and any(word in CAPABILITY_VERBS for word in words))


COMPOUNDS = "calendar|queue|list|board|log|process|freeze|management|manager|team|schedule|overview|summary|report|" \
            "dashboard|backlog|history|requests?|windows?|status"
"""Nouns after a record word that make a thing of its own ("the change calendar"), not a reference."""
RECORD_NOUN = "|".join(re.escape(noun) for kind in RECORDS.values() for noun in kind.nouns)
POINTING = re.compile(
    rf"(?<![\w'-])(?:{'|'.join(re.escape(word) for word in REFERENCES)})(?![\w'-])"
    rf"|\b(?:that|this|these|those|the|said)\s+(?:same\s+)?(?:{RECORD_NOUN})\b(?!\s+(?:that|which|with|for|in|on|of|from|where|{COMPOUNDS})\b)",
    re.IGNORECASE)


PRONOUNS = frozenset({"it", "its", "they", "them"})
NOUN = re.compile(rf"\b(?:{RECORD_NOUN})\b", re.IGNORECASE)


def _says(text: str, words: Sequence[str]) -> bool:
    return any(re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE) for word in words)


def _points_back(text: str) -> bool:
    """"is it fixed?", "why did that pipeline fail?" point at an earlier turn; "which pipelines failed,
    and is there an incident for any of them?" points at its own first part; "the incidents for pl_x"
    is a search."""
    match = POINTING.search(text)
    if match is None:
        return False
    before = text[:match.start()]
    if match.group().lower() in PRONOUNS:  # "I forgot my password, can you reset it?": "it" has its noun
        return not any(word.lower() not in STOPWORDS for word in WORD.findall(before))
    # a record named outside the phrase: its referent, or a question of its own ("for the status update: which
    # pipelines are down?")
    outside = before + " " + text[match.end():]
    return NOUN.search(outside) is None and not any(True for vocabulary in VOCABULARIES.values()
                                                     for _ in vocabulary.find(before))
