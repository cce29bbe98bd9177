"""The grounding evaluator: every claim of a written answer checked against the evidence.

Deterministic and cheap (no model call). Four kinds of check:

- identifier: every ticket number, run id and snake/kebab name (and every inventory name) in the
  answer appears in the evidence rows, in the question, or in a search that came back empty;
- number: every quantity is a value in the evidence or a count of evidence rows;
- negative_claim: every "no …" / "none" / "nothing" is backed by a search for that thing that
  ran and came back empty (or by a complete, untruncated listing that does not contain it);
- part_coverage: every part of the question that had a task is represented in the answer.

Score = share of checks passed; any failure caps it below the pass mark, because one invented id
or one false "none" must never go out as verified. Thresholds and verdicts: see ``grounding.py``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from opsagent.contracts.evidence import TaskResult
from opsagent.contracts.grounding import GroundingCheck, GroundingReport, GroundingVerdict
from opsagent.contracts.plans import QuestionPart
from opsagent.workflows.evidence_index import EvidenceIndex, counted_numbers_in, counts_with_phrases, identifiers_in

FAILURE_CAP = 0.6
"""The highest score an answer with a failed check can get (below the default pass mark 0.7)."""
SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][)'\"]))\s+(?=[A-Z0-9*`_'\"-])|\n+")
CLAUSE = re.compile(r",?\s+(?:and|but|while|whereas|although|though)\s+(?=\S)|[:;]\s+|\s+[-–—]\s+", re.IGNORECASE)
"""Where a sentence's claims part ("pl_a has INC… , but pl_b has no incident"): negations are checked per clause."""
NEGATION = re.compile(
    r"\b(?:no|none|nothing|nobody|zero|without)\b(?!\s+(?:longer|more than|later|sooner|earlier))"
    r"|\b(?:did not|didn't|could not|couldn't|cannot) find\b|\bnot (?:find|found|any)\b",
    re.IGNORECASE,
)
"""Existence negations ("no open incident", "nothing failed"); "is not approved" is an attribute, not checked here."""
FAMILY_WORDS: dict[str, tuple[str, ...]] = {
    "incident": ("list_incidents", "get_incident", "check_databricks_health", "check_snowflake_health",
                 "check_azure_service_health"),
    "ticket": ("list_incidents", "get_incident", "list_change_requests", "get_change_request"),
    "change": ("list_change_requests", "get_change_request"),
    "run": ("list_failed_pipelines", "query_pipeline_status", "get_pipeline_run_details"),
    "fail": ("list_failed_pipelines", "query_pipeline_status", "get_pipeline_run_details"),
    "pipeline": ("list_failed_pipelines", "query_pipeline_status", "get_pipeline_run_details"),
    "degrad": ("check_databricks_health", "check_snowflake_health", "check_azure_service_health"),
    "outage": ("check_databricks_health", "check_snowflake_health", "check_azure_service_health"),
    "issue": ("check_databricks_health", "check_snowflake_health", "check_azure_service_health"),
    "problem": ("check_databricks_health", "check_snowflake_health", "check_azure_service_health"),
}
TICKET_SEARCHES = frozenset({"list_incidents", "get_incident"})
PARTIAL = re.compile(r"\b(\d+) of the \d+\b")
ZERO_FIELDS = {"fail": "failed", "cancel": "cancelled"}
"""The count field a partial negation is about ("had no failed run" → ``failed``)."""
BARE_ANSWERS = frozenset({"no", "none", "nope", "nothing"})
PLATFORM_TOOLS = {"databricks": "check_databricks_health", "snowflake": "check_snowflake_health",
                  "azure": "check_azure_service_health"}
"""A platform a negative claim names narrows it to that platform's check."""
"""Nouns of a negative claim → the tools whose empty answer can back it."""
TOOL_TOPICS: dict[str, tuple[str, ...]] = {
    "list_incidents": ("incident", "ticket"), "get_incident": ("incident", "ticket"),
    "list_change_requests": ("change",), "get_change_request": ("change",),
    "list_failed_pipelines": ("fail", "run", "pipeline"), "query_pipeline_status": ("run", "pipeline", "succe", "fail"),
    "get_pipeline_run_details": ("run", "fail", "error", "activity"),
    "check_databricks_health": ("databricks", "health", "degrad", "operational", "outage"),
    "check_snowflake_health": ("snowflake", "health", "degrad", "operational", "outage"),
    "check_azure_service_health": ("azure", "health", "degrad", "operational", "outage", "available"),
}
"""Words that show an answer talks about what a tool fetched (the part-coverage fallback)."""
PART_WORD = re.compile(r"[a-z][a-z0-9_-]{3,}")
COMMON_WORDS = frozenset(
    "which what when where there have that this with from they them their last hours days open show list tell "
    "about since status please check were been does into many much some each those these latest current right "
    "today yesterday week also then than just only still over under after before during them your ours".split()
)
"""Words too common to show that an answer covers a part."""


@dataclass(frozen=True)
class Thresholds:
    pass_at: float = 0.7
    block_below: float = 0.3


def sentences(text: str) -> list[str]:
    return [part.strip(" -*•") for part in SENTENCE.split(text) if part.strip(" -*•")]


def check_identifiers(text: str, index: EvidenceIndex, known_names: Collection[str]) -> list[GroundingCheck]:
    checks = []
    for token in sorted(identifiers_in(text)):
        ok = token in index.identifiers
        checks.append(GroundingCheck(kind="identifier", claim=token, passed=ok,
                                     detail="" if ok else f"{token} appears in no tool output"))
    lowered = text.lower()
    for name in sorted(known_names):
        low = name.lower()
        if low in lowered and low not in index.text and not identifiers_in(low):
            checks.append(GroundingCheck(kind="identifier", claim=name, passed=False,
                                         detail=f"{name} appears in no tool output"))
    return checks


def check_numbers(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for number, is_count in dict.fromkeys(counted_numbers_in(text)):
        shown = f"{number:g}"
        ok = index.vouches_for_number(number, is_count=is_count)
        detail = (f"{shown} is not a count of the evidence rows" if is_count
                  else f"{shown} is neither a value in the evidence nor a count of its rows")
        checks.append(GroundingCheck(kind="number", claim=shown, passed=ok, detail="" if ok else detail))
    # A count restating a tool's summary line must be that line's count, not another row count.
    for number, phrase in dict.fromkeys(counts_with_phrases(text)):
        stated = index.phrased_counts.get(phrase)
        if stated and number not in stated:
            said = ", ".join(f"{value:g}" for value in sorted(stated))
            checks.append(GroundingCheck(kind="number", claim=f"{number:g} {phrase}", passed=False,
                                         detail=f"the evidence says {said} {phrase}, not {number:g}"))
    return checks


def _quotes_evidence(sentence: str, index: EvidenceIndex) -> bool:
    """The negation is quoted from the evidence itself ("source file not found" in an error message)."""
    match = NEGATION.search(sentence)
    words = sentence.lower().strip(" .!?\"'").split()
    if match is None or len(words) < 2:
        return False
    before = len(sentence[: match.start()].split())
    quoted = " ".join(words[max(0, before - 2): before + 3])
    return quoted in index.text


def _family(text: str) -> set[str]:
    return {tool for word, family in FAMILY_WORDS.items() if word in text for tool in family}


def _backs_negative(sentence: str, index: EvidenceIndex, *, context: str = "") -> str | None:
    """Why the evidence backs this negative clause, or ``None``. ``context`` is the whole sentence:
    "nothing matched during CHG…'s window: no failed runs …" is about runs although its first
    clause does not say so."""
    if _quotes_evidence(sentence, index):
        return "quoted from the evidence"
    words = sentence.lower()
    tools = _family(words) or _family(context.lower())
    for name in sorted(identifiers_in(sentence)):
        empty = [item for item in index.searched_for(name) if item.status in ("no_data", "not_found")]
        if empty:
            return f"{empty[0].tool} for {name} came back empty"
        listings = [item for item in index.complete_listings_without(name) if not tools or item.tool in tools]
        # "INC… has no incident" while get_incident returned it: a listing elsewhere without it proves nothing
        if listings and not index.rows_mentioning(name, tools):
            return f"a complete listing does not contain {name}"
    if identifiers_in(sentence) and not tools:
        return None  # a named thing said to be absent, and no search for it came back empty
    platforms = {tool for name, tool in PLATFORM_TOOLS.items() if name in words}
    tools = (tools & platforms or platforms) if platforms else tools
    relevant = [item for item in index.items if item.answered and (not tools or item.tool in tools)]
    tickets = [item for item in relevant if item.tool in TICKET_SEARCHES]
    if "incident" in words and tickets and not platforms:  # "no matching incident": the ticket searches, not status pages
        relevant = tickets
    if "incident" in words and relevant and all(item.tool.startswith("check_") for item in relevant):
        if not any(row.get("kind") == "incident" for item in relevant for row in item.rows):
            return f"{relevant[0].tool} reports no active incident"
        return None
    partial = PARTIAL.search(sentence)
    if partial:  # "10 of the 15 pipelines had no failed run": that many rows count zero of it
        fields = [name for stem, name in ZERO_FIELDS.items() if stem in words]
        zero = [row for item in relevant for row in item.rows if any(row.get(name) == 0 for name in fields)]
        if fields and len(zero) == int(partial.group(1)):
            return f"{len(zero)} rows of {relevant[0].tool} count none"
        # "nothing / none / no X" holds only when every search for X came back empty
    if relevant and all(not item.rows for item in relevant):
        return f"{relevant[0].tool} came back empty"
    return None


def check_negative_claims(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for sentence in sentences(text):
        for clause in (part.strip() for part in CLAUSE.split(sentence) if part.strip()):
            if not NEGATION.search(clause) or clause.lower().strip(" .!—-") in BARE_ANSWERS:
                continue  # a bare "No —" is as true as the clause that explains it, checked on its own
            why = _backs_negative(clause, index, context=sentence)
            checks.append(GroundingCheck(
                kind="negative_claim", claim=clause, passed=why is not None,
                detail=why or f"no search that ran for it came back empty: \"{clause}\"",
            ))
    return checks


def _says_word(stem: str, text: str) -> bool:
    """``stem`` as a word of ``text`` with an ordinary ending ("fail" in "failures", not "run" in "runtime")."""
    return re.search(rf"\b{re.escape(stem)}(?:s|es|ed|d|ing|ure|ures|ss|eded|ation|y|ies|al)?\b", text) is not None


def check_parts(text: str, parts: Sequence[QuestionPart], results: Sequence[TaskResult]) -> list[GroundingCheck]:
    """Each part that has evidence must show up in the answer: one of its ids, or its topic."""
    lowered = text.lower()
    checks = []

    def evidence_of(part_id: str, *, other: bool = False) -> list:
        return [item for result in results if (part_id in [p.strip() for p in result.part.split(",")]) != other
                for item in result.evidence]

    for part in parts:
        evidence = evidence_of(part.id)
        if not evidence:
            continue  # a part nobody could answer is a limitation, not a grounding failure
        shared = set().union(set(), *(identifiers_in(str(item.rows) + str(item.arguments))
                                     for item in evidence_of(part.id, other=True)))
        ids = set().union(*(identifiers_in(str(item.rows) + str(item.arguments)) for item in evidence)) - shared
        topics = {word for item in evidence for word in TOOL_TOPICS.get(item.tool, ())}
        own_words = {word for word in PART_WORD.findall(part.text.lower()) if word not in COMMON_WORDS}
        if not own_words:
            continue  # a part without a word of its own ("hi") gives nothing to look for
        ok = any(token in lowered for token in ids | own_words) or any(_says_word(topic, lowered) for topic in topics)
        checks.append(GroundingCheck(kind="part_coverage", claim=f"{part.id}: {part.text}", passed=ok,
                                     detail="" if ok else f"the answer says nothing about \"{part.text}\""))
    return checks


def evaluate(
    text: str,
    results: Sequence[TaskResult],
    *,
    parts: Sequence[QuestionPart] = (),
    question: str = "",
    known_names: Collection[str] = (),
) -> list[GroundingCheck]:
    """Every check of ``text`` against the evidence of ``results``."""
    index = EvidenceIndex.build(results, question=question)
    return [
        *check_identifiers(text, index, known_names),
        *check_numbers(text, index),
        *check_negative_claims(text, index),
        *check_parts(text, parts, results),
    ]


def score(checks: Sequence[GroundingCheck]) -> float:
    if not checks:
        return 1.0
    share = sum(check.passed for check in checks) / len(checks)
    return round(share if all(check.passed for check in checks) else min(share, FAILURE_CAP), 3)


def verdict(value: float, *, attempt: int, thresholds: Thresholds, can_regenerate: bool) -> GroundingVerdict:
    if value >= thresholds.pass_at:
        return "pass"
    if value >= thresholds.block_below and can_regenerate and attempt == 1:
        return "regenerate"
    return "block"


def grounding_report(text: str, results: Sequence[TaskResult], *, attempt: int, thresholds: Thresholds,
                     can_regenerate: bool, **context: object) -> GroundingReport:
    """Evaluate ``text`` and decide: pass, regenerate (once) or block. An empty answer is blocked."""
    if not text.strip():
        empty = GroundingCheck(kind="part_coverage", claim="(no answer)", passed=False,
                               detail="no answer was written from the evidence")
        return GroundingReport(score=0.0, verdict="block", attempt=attempt, checks=[empty])
    checks = evaluate(text, results, **context)  # type: ignore[arg-type]
    value = score(checks)
    return GroundingReport(score=value, verdict=verdict(value, attempt=attempt, thresholds=thresholds,
                                                        can_regenerate=can_regenerate),
                           attempt=attempt, checks=checks)
