"""Answers that identify a record: "It's INC…" to "which ticket covers pl_x?", "That's CHG…" to "what change is
INC… waiting for?".

A which- or what-question that names something (a pipeline, a CI, a run, a ticket, a person, a team) asks for
the record that goes with it; a direct answer that identifies a record says that record goes with it. One row
must link the two (``EvidenceIndex.linked``), as for a sentence that names both — a true row about another
record is not the answer.
"""

from __future__ import annotations

import re

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.vocabulary import STOPWORDS
from opsagent.tools.identifiers import RUN_ID, TICKET
from opsagent.workflows.claims import record_keys, sentences
from opsagent.workflows.evidence_index import EvidenceIndex

IDENTIFYING = re.compile(r"^\W*(?:it'?s|it is|that'?s|that is|that would be|that'd be|the (?:one|culprit|ticket|"
                         r"incident|change|run) (?:is|was)|you(?:'re| are) looking for)\W+(?=\w)", re.IGNORECASE)
"""A direct answer naming its record: "It's **INC…**", "That would be CHG…"."""
IDENTIFIED_AFTER = re.compile(rf"(?P<key>{TICKET.pattern})\W{{0,6}}(?:[—–,:-]\s*)?(?:that['’]s|that is|which is|is|it['’]s)\s+"
                              r"the\s+(?:ticket|one|incident|record|change)\s+(?:for|tracking|about|covering|behind)\b",
                              re.IGNORECASE)
"""The record named, then said to be the one asked for ("Add it to INC… — that's the ticket for the customer360 …")."""
LINKED_KINDS = frozenset({"pipeline", "configuration_item", "run_id", "incident", "change", "person",
                          "assignment_group"})
"""Names a record goes with by its own fields or text (not a region or platform, which rows spell their own way)."""


def check_identified(summary: str, analysis: QuestionAnalysis | None, index: EvidenceIndex) -> list[GroundingCheck]:
    """The record the first sentence identifies, linked to each name the which/what ask gives."""
    said = sentences(summary)[:1]
    lead = IDENTIFYING.match(said[0]) if said and analysis is not None else None
    after = IDENTIFIED_AFTER.search(said[0]) if said and analysis is not None and not lead else None
    keys = record_keys(said[0][lead.end():lead.end() + 40]) if lead else [after.group("key").lower()] if after else []
    if not keys or analysis is None:
        return []
    asks = [ask for ask in analysis.asks if ask.shape in ("which", "record")]
    names = {item.value for ask in asks for item in analysis.in_span(ask.span.start, ask.span.end).entities
             if item.usable and item.kind in LINKED_KINDS and item.value.lower() != keys[0]}
    return [GroundingCheck.of("link", said[0], index.linked(keys[0], name),
                              f"no row links {keys[0]} and {name}, which the question asks about",
                              "a record that no data links to what was asked")
            for name in sorted(names) if name.lower() in index.text or index.rows_for(keys[0])]


TITLED = re.compile(rf"(?P<key>{TICKET.pattern})\W{{0,4}}[\"“](?P<title>[^\"”]{{8,}})[\"”]", re.IGNORECASE)
"""A ticket with its title quoted ("INC…: \"Databricks job clusters slow to start\"")."""
TITLE_FIELDS = ("short_description", "description", "title")
DASHED = re.compile(rf"(?P<key>{TICKET.pattern})\W{{0,4}}\s[—–:-]\s+(?P<title>(?:(?!{TICKET.pattern})(?:[^;.(\n|]|"
                    r"(?<=\d)\.(?=\d))){12,})", re.IGNORECASE)
"""A ticket with words after a dash ("**INC…** — Databricks job clusters slow to start; …"): a title, or not. It ends
at a sentence's end (not inside a version: "SHIR 5.44 upgrade"), a table cell's edge or at another ticket ("INC… — portal 503s | P1 | CHG… — roll back 2.14" pairs two)."""


def check_titles(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """A title quoted beside a ticket is that ticket's own words (most of them): another ticket's title is not."""
    checks = []
    for match in TITLED.finditer(text):
        key = match.group("key").lower()
        own = " ".join(str(row.get(field) or "") for _, row in index.rows_for(key)
                       if str(row.get("number", "")).lower() == key for field in TITLE_FIELDS).lower()
        words = set(re.findall(r"[a-z0-9_]{3,}", match.group("title").lower()))
        if own.strip() and words:
            shared = sum(word in own for word in words) / len(words)
            checks.append(GroundingCheck.of("value", match.group(), shared >= 0.6,
                                            f"the title quoted is not {key.upper()}'s own",
                                            "a ticket's title the data gives another ticket"))
    return checks


def _title_words(text: str) -> set[str]:
    """A title's telling words ("the", "with" are in every title)."""
    return set(re.findall(r"[a-z0-9_]{3,}", text.lower())) - STOPWORDS


NAMED_IS = re.compile(rf"(?:^|(?<=[.;:!?\n])\s*|\s[—–-]\s)(?:the\s+)?(?P<title>(?:[\w-]+\s+){{2,6}}?)(?:ticket|incident|"
                      rf"one|issue|change)?\s*(?:is|=|→)\s+(?P<key>{TICKET.pattern})\b|"
                      rf"(?P<key2>{TICKET.pattern})\s+is\s+the\s+(?P<title2>(?:[\w-]+\s+){{2,6}}?)"
                      r"(?:ticket|incident|one|issue|change)\b", re.IGNORECASE)
"""A ticket named by what it is about ("VPN packet loss is INC…", "INC… is the VPN packet loss one")."""


def _title_shares(words: set[str], titles: dict[str, str]) -> dict[str, float]:
    """How much of ``words`` each ticket's title holds (ticket → share)."""
    return {number: sum(word in title for word in words) / len(words) for number, title in titles.items()}


def check_dashed_titles(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """Words beside a ticket — after it and a dash, or naming it ("VPN packet loss is INC…") — that are most of
    another ticket's title, and not of its own, are that other ticket's ("INC0010051 — Databricks job clusters
    slow to start…" when that is INC0010050's title)."""
    titles = {str(row["number"]).lower(): " ".join(str(row.get(field) or "") for field in TITLE_FIELDS).lower()
              for row in index.records if row.get("number") and row.get("short_description")}
    checks = []
    for match in DASHED.finditer(text):
        key, words = match.group("key").lower(), _title_words(match.group("title"))
        if key not in titles or len(words) < 3:
            continue
        share = _title_shares(words, titles)
        other = max((number for number in share if number != key), key=share.__getitem__, default=None)
        if other and share[other] >= 0.6 and share[key] < 0.6:
            checks.append(GroundingCheck.of("value", match.group(), False,
                                            f"the words beside {key.upper()} are {other.upper()}'s title",
                                            "a ticket's title the data gives another ticket"))
    for match in NAMED_IS.finditer(text):
        key = (match.group("key") or match.group("key2")).lower()
        words = _title_words(match.group("title") or match.group("title2"))
        if key not in titles or len(words) < 2:
            continue
        share = _title_shares(words, titles)
        # (of the same kind: "the portal 503 fix is CHG…" relates a change to the incident, it does not misname it)
        others = [number for number in share if number != key and share[number] >= 0.6 and number[:3] == key[:3]]
        if others and share[key] < 0.6:
            checks.append(GroundingCheck.of("value", match.group().strip(" —–-"), False,
                                            f"{key.upper()} is not what the words say; {others[0].upper()} is",
                                            "a ticket's title the data gives another ticket"))
    return checks


def check_runs_of_the_pipeline(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """An answer about one pipeline (the only one it names) gives run ids of that pipeline: a run id whose row is
    another pipeline's ("run_id: 543f…" under "pipeline: pl_load_finance_dwh") is a true id told of the wrong run."""
    pipelines = {key for key in record_keys(text) if key.startswith("pl_")}
    if len(pipelines) != 1:
        return []
    checks = []
    for run_id in dict.fromkeys(match.lower() for match in RUN_ID.findall(text)):
        owners = {str(row.get("pipeline_name")).lower() for _, row in index.rows_for(run_id)
                  if str(row.get("run_id", "")).lower() == run_id and row.get("pipeline_name")}
        if owners and not owners & pipelines:
            checks.append(GroundingCheck.of("identifier", run_id, False,
                                            f"run {run_id} is {', '.join(sorted(owners))}'s, not {next(iter(pipelines))}'s",
                                            "a run id told of another pipeline's run"))
    return checks

