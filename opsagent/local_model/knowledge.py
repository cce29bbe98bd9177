"""What the offline model knows, and how it reads the words of an ask.

The catalog, the vocabularies, intake's word lists and ``knowledge.yaml`` (cues, ranking, meaningful function
words) make one phrase table (``Lexicon``). An ask's unplaced words are matched to it longest phrase first, a
one-letter slip read as the known word; a word in none of it, or a meaningful function word no cue uses, is
**unread**.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from opsagent.contracts.analysis import Ask, QuestionAnalysis, Span
from opsagent.intake.filters import PATTERNS
from opsagent.intake.intent import WORD
from opsagent.intake.vocabulary import PLATFORMS, REGIONS, SERVICE_ALIASES, STOPWORDS
from opsagent.tools.catalog import RECORDS
from opsagent.tools.vocabularies import VOCABULARIES

KNOWLEDGE_FILE = Path(__file__).with_name("knowledge.yaml")
Cue = Literal["latest", "oldest", "owner", "cause", "opened", "anaphor", "link", "now", "during", "window",
              "overlap", "many", "when", "state", "every", "first", "past", "usual", "slower", "text"]
FILTER_VOCABULARIES = frozenset({*PATTERNS, "priority"})  # intake reads them with their polarity: never guessed
MIN_TYPO, MEMO = 4, 1024
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed: the demo starts faster
T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RankField(_Strict):
    field: str
    worst: Literal["high", "low"]
    words: tuple[str, ...]


class KnowledgeFile(_Strict):
    meaningful: tuple[str, ...]
    function_words: tuple[str, ...]
    cues: dict[Cue, tuple[str, ...]]
    rank: dict[Literal["high", "low", "worst", "best"], tuple[str, ...]]
    rank_fields: tuple[RankField, ...]


def load_knowledge_file(path: Path = KNOWLEDGE_FILE) -> KnowledgeFile:
    """Read and validate the knowledge file; a bad key is a ``ValueError`` naming the file and the key."""
    try:
        return KnowledgeFile.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER))
    except ValidationError as error:
        raise ValueError(f"{path}: {'.'.join(map(str, error.errors()[0]['loc']))}: {error.errors()[0]['msg']}") from None


@dataclass(frozen=True)
class Meaning:
    kind: Literal["cue", "noun", "value", "alias", "rank", "field"]
    name: str
    value: str = ""


def _entries(known: KnowledgeFile) -> Iterator[tuple[str, Meaning]]:
    yield from ((phrase, Meaning("cue", "function")) for phrase in known.function_words if " " in phrase)
    yield from ((phrase, Meaning("cue", cue)) for cue, phrases in known.cues.items() for phrase in phrases)
    for record in RECORDS.values():
        yield from ((noun, Meaning("noun", record.name)) for noun in record.nouns)
        yield from ((f"{word} {noun}", Meaning("cue", "anaphor")) for noun in record.nouns  # "that pipeline"
                    for word in ("that", "this", "those", "these", "the same", "said"))
    for vocabulary in VOCABULARIES.values():
        yield from ((phrase, Meaning("value", vocabulary.name, value)) for phrase, value in vocabulary.text_phrases)
    for kind, table in (("platform", PLATFORMS), ("region", REGIONS)):
        yield from ((word, Meaning("alias", kind, name)) for name, words in table.items() for word in words)
    yield from ((word, Meaning("alias", "azure_service", name)) for word, name in SERVICE_ALIASES.items())
    yield from ((word, Meaning("rank", direction)) for direction, words in known.rank.items() for word in words)
    for field in known.rank_fields:
        yield from ((word, Meaning("field", field.field, field.worst)) for word in field.words)


class Lexicon:
    """Every phrase the model reads, by its words; the function words it passes over; typo repair; a memo."""

    def __init__(self, known: KnowledgeFile) -> None:
        self.phrases: dict[tuple[str, ...], list[Meaning]] = {}
        for phrase, meaning in _entries(known):
            self.phrases.setdefault(tuple(phrase.lower().split()), []).append(meaning)
        self.longest = max(len(key) for key in self.phrases)
        self.meaningful = frozenset(known.meaningful)
        self.harmless = (STOPWORDS | {word for word in known.function_words if " " not in word}) - self.meaningful
        self._typos: dict[str, set[str]] = {}  # a word and each of it less one letter → the word (a slip shares one)
        for word in self._typo_targets():
            for key in _dropped(word):
                self._typos.setdefault(key, set()).add(word)
        self._memo: dict[Hashable, Any] = {}

    def _typo_targets(self) -> frozenset[str]:
        """Words a slip is read as: known single words, not meaningful ones, no filter value's but nouns."""
        nouns = {noun for kind in RECORDS.values() for noun in kind.nouns}
        filters = {word for name in FILTER_VOCABULARIES for phrase, _ in VOCABULARIES[name].phrases
                   for word in phrase.split()} - nouns
        words = {key[0] for key in self.phrases if len(key) == 1 and len(key[0]) >= MIN_TYPO and key[0].isalpha()}
        words |= {word for word in self.harmless if len(word) >= MIN_TYPO - 1 and word.isalpha()}
        return frozenset(words - self.meaningful - filters)

    def read(self, word: str) -> str:
        """The word as written when it is known, else the known word it is one slip from (memoised)."""
        if (word,) in self.phrases or word in self.harmless or word in self.meaningful:
            return word
        return self.remember(("slip", word), lambda: self.repaired(word)) or word

    def repaired(self, word: str) -> str | None:
        """The known word ``word`` is one slip from (a letter added, dropped, changed; two swapped), when every
        such word means the same ("faild": fail, fails, failed); three letters only when swapped ("teh")."""
        if len(word) < MIN_TYPO - 1 or not word.isalpha():
            return None
        found = {known for key in _dropped(word) for known in self._typos.get(key, ()) if _one_slip(word, known)}
        meanings = {frozenset(map(str, self.phrases.get((known,), ()))) for known in found}
        short = len(word) < MIN_TYPO and not all(sorted(word) == sorted(known) for known in found)
        return min(found) if found and len(meanings) == 1 and not short else None

    def remember(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Read once: readings are pure functions of their input, and every role reads the same question."""
        if key not in self._memo:
            if len(self._memo) >= MEMO:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key] = compute()
        return self._memo[key]


UNREAD = [Meaning("cue", "unread")]


def _dropped(word: str) -> set[str]:
    return {word, *(word[:index] + word[index + 1:] for index in range(len(word)))}


def _one_slip(typed: str, known: str) -> bool:
    """Damerau distance 1 (lengths within one): a letter inserted, deleted or replaced, or two neighbours swapped."""
    if len(typed) != len(known):
        short, long = sorted((typed, known), key=len)
        return any(long[:index] + long[index + 1:] == short for index in range(len(long)))
    diff = [index for index, (a, b) in enumerate(zip(typed, known)) if a != b]
    return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and sorted(typed) == sorted(known))


CLITIC = re.compile(r"'(?:s|d|ll|re|ve|m)$")  # "run's" is "run", "why'd" is "why"; "n't" stays (a negation)
NEGATIONS = frozenset({"not", "no", "never", "except", "excluding"})


@dataclass
class Found:
    """What an ask's free words say (mutable while the ask is read)."""

    values: list[tuple[str, str]] = field(default_factory=list)
    cues: dict[str, str] = field(default_factory=dict)  # cue → its words (named back when it does not fit)
    fields: list[Meaning] = field(default_factory=list)
    ranks: list[tuple[str, str]] = field(default_factory=list)  # (direction, as written)
    aliases: list[Meaning] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    excluded: list[tuple[str, str, str]] = field(default_factory=list)  # (negation, vocabulary, value): "not the P1"

    def rank(self) -> tuple[str, str] | None:
        """(row field, "max" | "min") of "the worst success rate", "the most failures"."""
        if not self.ranks or not self.fields:
            return None
        direction, worst_is = self.ranks[0][0], self.fields[0].value
        biggest = direction == "high" or (direction == "worst") == (worst_is == "high")
        return self.fields[0].name, "max" if biggest else "min"


def runs(analysis: QuestionAnalysis, span: Span, skip: Sequence[Span], lexicon: Lexicon) -> Iterator[list[str]]:
    """The ask's words outside ``skip``, as runs of neighbours; a slip of a known word read as that word."""
    matches = WORD.finditer(analysis.resolved_question, span.start, span.end)
    for skipped, run in groupby(matches, lambda match: any(item.start <= match.start() < item.end for item in skip)):
        if not skipped:
            yield [lexicon.read(CLITIC.sub("", match.group().lower())) for match in run]


def meanings(words: list[str], lexicon: Lexicon) -> Iterator[tuple[str, list[Meaning]]]:
    """(phrase, meanings) for each phrase, longest first; a function word has none."""
    index = 0
    while index < len(words):
        size = next((size for size in range(min(lexicon.longest, len(words) - index), 0, -1)
                     if tuple(words[index:index + size]) in lexicon.phrases), 0)
        key = tuple(words[index:index + (size or 1)])
        yield " ".join(key), lexicon.phrases[key] if size else [] if key[0] in lexicon.harmless else UNREAD
        index += size or 1


def read_words(analysis: QuestionAnalysis, ask: Ask, lexicon: Lexicon) -> Found:
    found = Found()
    placed = (*analysis.entities, *analysis.times, *analysis.filters, *analysis.record_windows, *analysis.quoted)
    for words in runs(analysis, ask.span, [item.span for item in placed], lexicon):
        negation = ""
        for phrase, said in meanings(words, lexicon):
            if negation:
                found.excluded += [(negation, item.name, item.value) for item in said if item.kind == "value"]
            negation = phrase if phrase in NEGATIONS else negation if not said else ""
            for meaning in said:
                _note(found, phrase, meaning)
    return found


def _note(found: Found, phrase: str, meaning: Meaning) -> None:
    if meaning.kind == "cue" and meaning.name == "unread":
        found.unread.append(phrase)
    elif meaning.kind == "cue" and meaning.name != "function":
        found.cues.setdefault(meaning.name, phrase)
    elif meaning.kind == "value":
        found.values.append((meaning.name, meaning.value))
    elif meaning.kind == "rank":
        found.ranks.append((meaning.name, phrase))
    elif meaning.kind in ("field", "alias"):
        (found.fields if meaning.kind == "field" else found.aliases).append(meaning)


def nouns(analysis: QuestionAnalysis, ask: Ask, lexicon: Lexicon) -> list[tuple[str, bool]]:
    """Record kinds the ask's nouns name, each with whether it is plural ("pipelines whose latest run failed"),
    inside intake's windows and filters too ("before the SHIR change"), never inside quoted words."""
    names = [item.span for item in (*analysis.entities, *analysis.quoted)]
    return [(meaning.name, phrase.endswith("s") and (phrase[:-1],) in lexicon.phrases)
            for words in runs(analysis, ask.span, names, lexicon) for phrase, said in meanings(words, lexicon)
            for meaning in said if meaning.kind == "noun"]
