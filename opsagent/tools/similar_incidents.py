"""Past incidents like a given incident, pipeline, CI or error text, and what fixed each (``find_similar_incidents``).

Sits between the tool (``tools/servicenow.py``) and ``ServiceNowBackend``: a bounded candidate
search (Resolved, Closed and Canceled incidents on the same CI, and those whose texts hold any of
the few most telling words), then ranking here: the same CI or a named pipeline first, then text
similarity (BM25 over short description, description and close notes, ``bm25.py``). Each row says
what fixed it (its close notes, else its description) and why it matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from opsagent.backends.base import Incident, IncidentQuery, IncidentState, ServiceNowBackend
from opsagent.tools.bm25 import BM25, STOPWORDS, stem, terms
from opsagent.tools.rendering import iso_minute, shorten, shorten_sentences

CLOSED_STATES: list[IncidentState] = ["Resolved", "Closed", "Canceled"]
CANDIDATES = 100
"""At most this many incidents per candidate search (one on the CI, one on the words)."""
KEYWORDS = 8
"""At most this many words go into the candidate search (the ranking uses every word)."""
_WORD = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class SimilarAsk:
    """What the past incidents should resemble."""

    subject: str
    """How the message names it: "INC0000001", "pipeline 'x'", "the text '…'"."""
    configuration_item: str | None = None
    pipelines: tuple[str, ...] = ()
    text: str = ""
    exclude: str = ""
    """The incident asked about, never its own match."""


@dataclass(frozen=True)
class Match:
    incident: Incident
    score: float
    reasons: list[str] = field(default_factory=list)
    is_same_thing: bool = False
    """Same CI or a named pipeline: ranked before text-only matches."""


def keywords(ask: SimilarAsk) -> list[str]:
    """The candidate search's words: pipelines first, then identifiers and codes, then the longest words (stemmed:
    the search matches parts of words, so "throttl" finds "throttling" and "throttled")."""
    words = [word for word in _WORD.findall(ask.text.lower()) if len(word) > 2 and word not in STOPWORDS]
    ranked = sorted(dict.fromkeys(words), key=lambda word: (not ("_" in word or any(c.isdigit() for c in word)),
                                                            -len(word)))
    return list(dict.fromkeys([*(name.lower() for name in ask.pipelines), *map(stem, ranked)]))[:KEYWORDS]


async def candidates(backend: ServiceNowBackend, ask: SimilarAsk) -> tuple[list[Incident], list[str], list[str]]:
    """Closed incidents on the same CI and those with any of the words; with the words and any warnings."""
    words = keywords(ask)
    queries = [IncidentQuery(states=CLOSED_STATES, configuration_item=ask.configuration_item, limit=CANDIDATES)
               ] if ask.configuration_item else []
    queries += [IncidentQuery(states=CLOSED_STATES, any_words=words, limit=CANDIDATES)] if words else []
    found: dict[str, Incident] = {}
    warnings: list[str] = []
    for query in queries:
        page = await backend.list_incidents(query)
        warnings += page.warnings
        if page.total > len(page.items):
            warnings.append(f"{page.total} candidates matched one search; the {len(page.items)} newest were ranked.")
        for incident in page.items:
            found.setdefault(incident.number, incident)
    found.pop(ask.exclude, None)
    return list(found.values()), words, warnings


def _document(incident: Incident) -> str:
    return " ".join((incident.short_description, incident.description, incident.close_notes))


def rank(incidents: list[Incident], ask: SimilarAsk) -> list[Match]:
    """Same CI or a named pipeline first, then by text similarity, then the most recently resolved."""
    bm25 = BM25([terms(_document(incident)) for incident in incidents])
    query = terms(" ".join((ask.text, *ask.pipelines)))
    matches = []
    for index, incident in enumerate(incidents):
        reasons = _same_thing(incident, ask)
        score, shared = bm25.score(query, index), bm25.shared(query, index)
        if not reasons and not _enough(shared, asked=len(set(query))):
            continue
        matches.append(Match(incident, round(score, 2), reasons + ([f"shared words: {', '.join(shared)}"] if shared
                                                                  else []), is_same_thing=bool(reasons)))
    return sorted(matches, key=lambda m: (not m.is_same_thing, -m.score,
                                          -(m.incident.resolved_at or m.incident.opened_at).timestamp()))


def _enough(shared: list[str], *, asked: int) -> bool:
    """A match by words alone needs two shared words, or one identifier or code ("wh_finance", "2200"):
    one common word ("failed") says nothing — unless one word is all that was asked for ("timeout")."""
    return len(shared) >= min(2, asked) or any(len(term) >= 4 and ("_" in term or term.isdigit()) for term in shared)


def _same_thing(incident: Incident, ask: SimilarAsk) -> list[str]:
    reasons = []
    ci = (ask.configuration_item or "").lower()
    if ci and ci in incident.configuration_item.lower():
        reasons.append(f"same CI {incident.configuration_item!r}")
    text = _document(incident).lower()
    reasons += [f"names pipeline {name!r}" for name in ask.pipelines if name.lower() in text]
    return reasons


def similar_row(match: Match) -> dict[str, Any]:
    """The incident, what fixed it (close notes, else the description) and why it matched."""
    incident = match.incident
    fix, source = ((incident.close_notes, "close_notes") if incident.close_notes
                   else (incident.description, "description"))
    return {
        "number": incident.number, "short_description": shorten(incident.short_description), "state": incident.state,
        "priority": incident.priority, "configuration_item": incident.configuration_item,
        "opened_at": iso_minute(incident.opened_at), "resolved_at": iso_minute(incident.resolved_at),
        "fix": shorten_sentences(fix), "fix_from": source, "matched": match.reasons, "score": match.score,
    }


def similar_message(matches: list[Match], shown: int, *, ask: SimilarAsk, searched: int) -> str:
    """"2 past incidents like INC…, the same CI or pipeline first: INC… (same CI 'x'), INC…; 9 candidates searched." """
    scope = f"{searched} Resolved, Closed or Canceled candidates searched"
    if not matches:
        return f"No resolved, closed or canceled incidents like {ask.subject} found ({scope})."
    listed = ", ".join(f"{m.incident.number} ({m.reasons[0]})" if m.is_same_thing else m.incident.number
                       for m in matches[:shown])
    more = f"; showing the {shown} most alike" if shown < len(matches) else ""
    noun = "past incident" if len(matches) == 1 else "past incidents"
    return f"{len(matches)} {noun} like {ask.subject}, the same CI or pipeline first{more}: {listed}; {scope}."
