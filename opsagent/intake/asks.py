"""The asks of a question: each clause, each "and …?", each "then …", each trailing "who / why / since when".

Product code, for every model: the planner is told the asks (one line each) and its plan's parts are
checked against them, so a part a planner forgets is still noticed by coverage and the answer
checks. A leading statement before the real question ("pl_x keeps failing. Is there an incident?")
is background, not an ask. Each ask gets its shape (yes/no, count, which…) from its first words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from opsagent.contracts.analysis import Ask, AskShape, EntityMention, Span
from opsagent.intake.relations import FAMILIES, RELATION, STILL, find_relation
from opsagent.tools.catalog import RECORDS
from opsagent.tools.vocabularies import VOCABULARIES

LEADS = ("is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would",
         "should", "which", "what", "whats", "what's", "who", "whose", "whom", "why", "when", "where", "how", "any",
         "anything", "anyone", "anybody", "show", "list", "give", "tell", "get", "find", "check", "whether",
         "since when", "also", "and also", "plus")
_LEAD = "|".join(re.escape(lead) for lead in sorted(LEADS, key=len, reverse=True))
BREAK = re.compile(
    rf"[?;!]+\s*|\.\s+|\n+|,?\s+(?:and\s+)?then\s+|,\s+(?:and\s+|but\s+|or\s+)?(?=(?:{_LEAD})\b)"
    rf"|\s+(?:and|but)\s+(?=(?:{_LEAD})\b)|\s+[-–—]+\s+(?=(?:{_LEAD}|(?:the\s+)?same\s+as)\b)",
    re.IGNORECASE,
)
"""Where one ask ends and the next begins."""
SENTENCE_END = re.compile(r"(?<=[.!])\s+")
FILLER = re.compile(r"^(?:please|pls|plz|thanks|thank you|thx|ok|okay|hi|hello|hey|so|also|and|quick question)$",
                    re.IGNORECASE)
SHAPES: tuple[tuple[AskShape, re.Pattern[str]], ...] = (
    ("count", re.compile(r"^(?:how many|how much|how often|number of|count\b|total\b|no\. of)", re.IGNORECASE)),
    ("compare", re.compile(r"\b(?:compared? (?:to|with)|vs\.?|versus|same as|than usual|than normal|than before|"
                           r"than yesterday|than last|(?:more|fewer|less|slower|faster|longer|shorter|worse|better)"
                           r"(?:\s+(?!than\b)[\w:-]+){0,6}\s+than(?!\s+(?:\d|a\b|an\b|one|two|three|four|five|a few)))\b",
                           re.IGNORECASE)),
    ("why", re.compile(r"^(?:why|what caused|what's causing|whats causing|what is causing|cause of|root cause|"
                       r"what went wrong|what broke|reason)\b", re.IGNORECASE)),
    ("who", re.compile(r"^(?:who|whose|whom|which team|which group|which person)\b", re.IGNORECASE)),
    ("when", re.compile(r"^(?:when|since when|what time|how long ago|how long has|how long have)\b", re.IGNORECASE)),
    ("which", re.compile(r"^(?:which|what (?:\w+ ){0,2}(?:incidents?|tickets?|changes?|pipelines?|runs?|jobs?|"
                         r"components?|services?|regions?|platforms?)\b)", re.IGNORECASE)),
    ("how", re.compile(r"^(?:how)\b", re.IGNORECASE)),
    ("yes_no", re.compile(r"^(?:is|are|was|were|did|does|do|has|have|had|can|could|will|would|should|any|anything|"
                          r"anyone|anybody|whether|did any|are there|is there)\b"
                          # a status asked without a verb ("sql mi ok in both regions?", "snowflake down?")
                          r"|^(?!(?:which|what|whats|who|when|where|why|how|list|show|give|find|check|get|tell|describe|summari[sz]e|"
                          r"count|display|pull)\b)"
                          r"(?:[\w.'-]+\s+){1,5}(?:still\s+|all\s+)?(?:ok|okay|fine|healthy|down|degraded|broken|working)"
                          r"\b(?!\s+(?:\w+\s+){0,2}(?:since|for)\b)", re.IGNORECASE)),
    ("record", re.compile(r"^(?:show|get|give|tell|describe|details|what (?:is|was|does|did)|whats|what's)\b",
                          re.IGNORECASE)),
    ("list", re.compile(r"^(?:list|find|check|show|give)\b", re.IGNORECASE)),
)
INTONATION = re.compile(r"^(?!(?:which|what|whats|who|when|where|why|how)\b)(?:[\w.'-]+\s+){1,5}(?:still\s+|all\s+|fully\s+)?"
                        r"(?:stuck|still\s+(?:failing|broken|red)|fail(?:ed|ing)\s+again)\b",
                        re.IGNORECASE)
"""A failure asked by a question mark alone ("c360 failed again?", "sales ingest still failing?"): with no "?" the same
words state it ("finance load failed again — is it the same thing?"). ("All green?" is left out: its lead is not
judged on a count's failures yet.)"""
ASKING = re.compile(rf"^(?:{_LEAD}|please|pls|can you|could you|i need|i want|need)\b", re.IGNORECASE)
ENTITY_RECORDS = {"incident": "incident", "change": "change", "run_id": "run", "pipeline": "pipeline",
                  "factory": "pipeline", "platform": "health", "component": "health", "region": "health",
                  "azure_service": "health", "person": "incident"}


def _background_end(text: str) -> int:
    """Where the asks begin: after leading statements that end in "." or "!" and precede a question."""
    pieces = SENTENCE_END.split(text)
    if len(pieces) < 2 or not (pieces[-1].rstrip().endswith("?") or ASKING.match(pieces[-1].strip())):
        return 0
    end = position = 0
    for piece in pieces[:-1]:
        if ASKING.match(piece.strip()) or not piece.rstrip().endswith((".", "!")):
            break
        position = text.find(piece, position) + len(piece)
        end = position
    return end


def shape_of(text: str, asked: bool = False) -> AskShape:
    """The shape of one ask from its own words ("is …" a yes or no, "how many" a count …); ``asked``: a question
    mark ends it."""
    words = text.strip().lower()
    words = re.sub(r"^(?:and|also|plus|so|but|or|then|please|pls|can you|could you|would you|quickly)\s+", "", words)
    for shape, pattern in SHAPES:
        if shape == "compare":
            if pattern.search(words):
                return shape
        elif pattern.match(words) or shape == "yes_no" and asked and INTONATION.match(words):
            return shape
    return "list" if words else "other"


def _records(text: str, span: Span, entities: Sequence[EntityMention]) -> list[str]:
    """Record kinds the words name: nouns ("tickets"), values of one record's vocabulary ("P1s", "failing";
    "open" names no kind: incidents and changes are both open), and entities. Names are not nouns:
    "Data Platform Ops" is a group, not a platform."""
    inside = [item for item in entities if item.span.within(span.start, span.end)]
    low = text.lower()
    for item in sorted(inside, key=lambda item: -item.span.start):
        start, end = item.span.start - span.start, item.span.end - span.start
        low = low[:start] + " " * (end - start) + low[end:]
    found = [kind.name for kind in RECORDS.values()
             if any(re.search(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", low) for noun in kind.nouns)]
    found += [record for phrase, record in _phrase_records(low)]
    found += [ENTITY_RECORDS[item.kind] for item in inside if item.kind in ENTITY_RECORDS]
    return list(dict.fromkeys(found))


def _phrase_records(low: str) -> list[tuple[str, str]]:
    """(phrase, record) for each vocabulary phrase in ``low`` that only one record kind uses."""
    found: dict[str, set[str]] = {}
    for vocabulary in VOCABULARIES.values():
        if vocabulary.role != "value":  # "latest" orders incidents and runs alike: it names no kind
            continue
        for match, _ in vocabulary.find(low):
            found.setdefault(match.group().lower(), set()).add(vocabulary.record)
    return [(phrase, next(iter(records))) for phrase, records in found.items() if len(records) == 1]


EXISTENCE = re.compile(r"\b(?:any|anything|anyone|anybody|ever|some|there (?:is|are|was|were)|(?:is|are|was|were) there)\b",
                       re.IGNORECASE)
"""Words that make a yes/no ask about whether something exists ("any open P1?", "has pl_x ever failed?"), not
about the state of a named record ("is pl_x failing?")."""
SEGMENT = re.compile(r",\s+(?:and\s+)?|\s+and\s+|\s*&\s*|\s+plus\s+", re.IGNORECASE)


def _segments(text: str, begin: int, end: int, entities: Sequence[EntityMention]) -> list[tuple[int, int]]:
    """A fragment about two kinds of record ("upcoming changes and open problems") is two asks;
    "Databricks or Snowflake", "failed and cancelled runs" stay one."""
    cuts = [match for match in SEGMENT.finditer(text, begin, end)]
    if not cuts:
        return [(begin, end)]
    bounds = [begin, *(edge for match in cuts for edge in (match.start(), match.end())), end]
    pieces = [(bounds[index], bounds[index + 1]) for index in range(0, len(bounds), 2)]
    kinds = [set(_records(text[a:b], Span(start=a, end=b), entities)) for a, b in pieces]
    related = any(RELATION_FIRST.match(text, a) for a, _ in pieces[1:])  # "P2s … and still without a linked change"
    if len(pieces) > 1 and all(kinds) and not related and all(
            not (one & other) for i, one in enumerate(kinds) for other in kinds[i + 1:]):
        return pieces
    return [(begin, end)]


RELATION_FIRST = re.compile(rf"(?:{STILL}\s+)*(?:{RELATION.pattern})", re.IGNORECASE)
"""A piece after "and" that starts by relating the records before it to another kind: one ask, not two lists."""


SHARED_SUBJECT = re.compile(r"\s+(?:and|but)\s+(?:is|are|was|were|has|have|had)\s+(?P<next>[\w'-]+)", re.IGNORECASE)
"""An auxiliary after "and" ("which changes need approval and are due …"): a second predicate of the same subject
unless a subject of its own follows it ("… and is Databricks healthy?", "… and are there incidents?")."""
SUBJECT_WORDS = frozenset(
    "there it its they them he she we you i this that these those the a an any anything anyone anybody someone "
    "somebody something everything everyone all each every my our your his her their what which who".split())


def _own_subject(text: str, match: re.Match[str], entities: Sequence[EntityMention]) -> bool:
    """Whether the clause that ``match`` starts names its own subject (a pronoun, a name, a record noun)."""
    shared = SHARED_SUBJECT.match(text, match.start())
    if shared is None or shared.start() != match.start():
        return True
    word, at = shared.group("next").lower(), shared.start("next")
    return word in SUBJECT_WORDS or shared.group("next")[0].isupper() or any(  # a name ("… and has Amira updated it?")
        item.span.start == at for item in entities) or any(
        re.fullmatch(rf"{re.escape(noun)}s?", word) for kind in RECORDS.values() for noun in kind.nouns)


def find_asks(text: str, entities: Sequence[EntityMention] = (), times: Sequence[Span] = ()) -> list[Ask]:
    """The asks of ``text`` in order, each with its span, shape, the record kinds it names and the relation between
    two kinds it asks about (``times``: where the question gives a window, which relates nothing)."""
    start = _background_end(text)
    pieces: list[tuple[int, int]] = []
    for match in BREAK.finditer(text, start):
        if not _own_subject(text, match, entities):
            continue  # "which incidents are P2 and are still unassigned": one ask
        if match.start() > start:
            pieces.append((start, match.start()))
        start = match.end()
    if start < len(text):
        pieces.append((start, len(text)))
    pieces = [segment for begin, end in pieces for segment in _segments(text, begin, end, entities)]
    named = frozenset(FAMILIES.get(ENTITY_RECORDS.get(item.kind, ""), "") for item in entities if item.usable) - {""}
    asks: list[Ask] = []
    for begin, end in pieces:
        raw = text[begin:end]
        stripped = raw.strip(" ,.:-–—")
        if not stripped or FILLER.match(stripped) or not re.search(r"[a-z0-9]", stripped, re.IGNORECASE):
            continue
        offset = begin + raw.find(stripped)
        span = Span(start=offset, end=offset + len(stripped))
        asked = re.match(r"[\s.,]*\?", text[span.end:]) is not None
        asks.append(Ask(id=f"p{len(asks) + 1}", text=stripped, span=span, shape=shape_of(stripped, asked),
                        records=_records(stripped, span, entities),
                        relation=find_relation(stripped, span, entities, named, times)))
    if not asks and text.strip():
        span = Span(start=0, end=len(text))
        asks.append(Ask(id="p1", text=text.strip(), span=span, shape=shape_of(text, text.rstrip().endswith("?")),
                        records=_records(text, span, entities),
                        relation=find_relation(text, span, entities, named, times)))
    return asks
