"""Okapi BM25, short: how well a few words match each of a small set of texts (no library needed).

Used by ``similar_incidents.py`` to rank a bounded set of candidate incidents against a question's
or an incident's words. Scores follow Robertson's BM25 with the usual ``k1 = 1.5``, ``b = 0.75`` and
Lucene's idf ``ln(1 + (N - n + 0.5) / (n + 0.5))``, which stays positive even for a word most
candidates share (candidates were found by these words, so many do). Words are lower-cased runs of
letters, digits and underscores (``pl_ingest_sales`` and error code ``2200`` stay whole), common
English words are dropped and a few suffixes stripped ("throttling" ~ "throttled").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9_]+")
_SUFFIXES = ("ing", "ed", "es", "s")
STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how in into is it its no not "
    "of on or our so than that the their them then there these they this to too up was we were what when where "
    "which while who why will with you after before again all also any because during each few more most only "
    "other over same some such just now new".split()
)


def stem(word: str) -> str:
    """``throttling`` -> ``throttl``, ``throttled`` -> ``throttl``; short words and identifiers stay as they are."""
    if "_" in word or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """The words of ``text`` that carry meaning, stemmed, in order (repeats kept: they count)."""
    return [stem(word) for word in _WORD.findall(text.lower()) if len(word) > 1 and word not in STOPWORDS]


class BM25:
    """Scores of a query against each of ``documents`` (already split into terms)."""

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.counts = [Counter(document) for document in documents]
        self.lengths = [len(document) for document in documents]
        self.average = (sum(self.lengths) / len(documents)) if documents else 0.0
        self.frequency = Counter(term for counts in self.counts for term in counts)

    def idf(self, term: str) -> float:
        total, having = len(self.counts), self.frequency.get(term, 0)
        return math.log(1 + (total - having + 0.5) / (having + 0.5))

    def score(self, query: Sequence[str], index: int) -> float:
        counts, length = self.counts[index], self.lengths[index]
        norm = self.k1 * (1 - self.b + self.b * length / self.average) if self.average else self.k1
        return sum(self.idf(term) * counts[term] * (self.k1 + 1) / (counts[term] + norm)
                   for term in set(query) if counts[term])

    def shared(self, query: Sequence[str], index: int, *, most: int = 5) -> list[str]:
        """The query's terms found in document ``index``, rarest first."""
        found = {term for term in query if self.counts[index][term]}
        return sorted(found, key=lambda term: (-self.idf(term), term))[:most]
