"""The grounding evaluator: the claims of a written answer checked against the evidence and the question.

Deterministic and cheap (no model call), the same for every model. The checks:

- identifier: every ticket number, run id and snake/kebab name (and every inventory name: CIs,
  groups, components, people) appears in the evidence rows, in the question, or in a search that
  came back empty;
- number: every count is a count of rows, of distinct values, or a total a tool reported (written in
  digits or words); never a number found only in a window ("last 24 hours"), a time, a date or an id;
- negative_claim: every "no …" / "none" / "nothing" is backed by an empty search that fits what was
  asked — its filters, window and names — and whose free text names something real (``negative_claims.py``);
- part_coverage: every part of the question that had a task is represented in the answer;
- lead, value, link, comparison, placement: see ``claim_checks.py`` (claims read by ``claims.py``).

Score = share of checks passed; any failure caps it below the pass mark, because one invented id
or one false "none" must never go out as verified. Verdicts: pass; regenerate (once); after that the
failing sentences are dropped (partial) — or, when nothing supported is left, the answer is blocked.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.grounding import GroundingCheck, GroundingReport, GroundingVerdict
from opsagent.contracts.messages import RunTrail
from opsagent.contracts.plans import QuestionPart
from opsagent.intake.vocabulary import PLATFORM_WORDS, STOPWORDS
from opsagent.tools.catalog import RECORDS, TOOLS, record_of_noun, tool_spec
from opsagent.tools.identifiers import RUN_ID, TICKET
from opsagent.tools.rendering import identity
from opsagent.tools.timewindow import UNIT_WORD, iso_moment, unit_minutes
from opsagent.tools.vocabularies import VALUE_VOCABULARIES
from opsagent.workflows import claims as read
from opsagent.workflows.claims import OPENS_WITH_IT, PRONOUN, THE_RECORD
from opsagent.workflows.action_claims import check_action_claims
from opsagent.workflows.claim_checks import (
    check_assignees,
    check_spread,
    check_ages,
    check_causal_links,
    check_causes,
    check_codes,
    check_comparisons,
    check_failed_activities,
    check_open_for,
    check_bare_key_counts,
    check_key_counts,
    check_named_counts,
    check_links,
    check_placements,
    check_times,
    check_values,
    record_of_key,
    text_of,
)
from opsagent.workflows.count_claims import (
    check_existential_claims,
    check_failed_pipeline_counts,
    check_named_status_counts,
    check_qualified_counts,
    check_windowed_counts,
    moment_sets,
    timed_shares,
)
from opsagent.workflows.derived_numbers import (
    PERCENT,
    bare_difference_claims,
    derived_numbers,
    fraction_claims,
    leading_sum_claims,
    margin_claims,
    rounds_to,
)
from opsagent.workflows.evidence_index import (
    COMPOUND,
    ISO_MOMENT,
    WORD_NUMBERS,
    EvidenceIndex,
    counted_nouns_in,
    compound_lengths,
    counts_with_phrases,
    digits,
    elapsed_ahead,
    elapsed_apart,
    elapsed_said,
    identifiers_in,
    moments_of,
    numbers_in,
    parts_of,
    records_counted,
)
from opsagent.workflows.fitting import (
    asked_windows,
    covers,
    fits,
    read_from_rows,
    row_meets,
    text_names_something,
    unapplied_mentions,
    windows_of,
)
from opsagent.workflows.health_claims import check_health_claims
from opsagent.workflows.history_claims import (
    check_first_failures,
    check_nth_failures,
    check_last_failures,
    check_times_before,
    check_usual_lengths,
)
from opsagent.workflows.identified_claims import (
    check_dashed_titles,
    check_identified,
    check_runs_of_the_pipeline,
    check_titles,
)
from opsagent.workflows.lead_claims import check_leads, streak_claims
from opsagent.workflows.relation_claims import check_relations
from opsagent.workflows.negative_claims import (
    COMMON_WORDS,
    NEGATION,
    RECORD_WORDS,
    Fit,
    RowsRead,
    check_negative_claims,
    words_in,
)
from opsagent.workflows.sequence_claims import check_each_day, check_sequences
from opsagent.workflows.time_claims import (
    check_clock_times,
    check_every_inside,
    check_from_now,
    check_lengths_of_ranges,
    check_weekdays,
    check_opening_clocks,
    check_ordinals,
    check_since_times,
    evidence_clocks,
    said_clocks,
)
from opsagent.workflows.universal_claims import check_universal_claims

logger = logging.getLogger(__name__)
FAILURE_CAP = 0.6
"""The highest score an answer with a failed check can get (below the default pass mark 0.7)."""
PART_WORD = re.compile(r"[a-z][a-z0-9_-]{3,}")
@dataclass(frozen=True)
class Thresholds:
    pass_at: float = 0.7
    block_below: float = 0.3


def sentences(text: str) -> list[str]:
    return read.sentences(text)


PERSON = re.compile(r"\b(?:by|to|with|paged|called|pinged|contacted|messaged|owner is|assignee is)\s+"
                    r"(?P<name>[A-Z][a-z]+ [A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")
"""A person said to hold, do or be told of something ("picked up by Ravi Patel", "assigned to Elif Demir")."""


PERSON_ACTING = re.compile(r"\b(?P<name>[A-Z][a-z]+ [A-Z][a-z]+)(?:\s+\([^)]*\)|\s+(?:in|from|of)\s+(?:[A-Z][\w-]*\s*){1,3})?"
                           r"\s+(?:picked up|is working|owns|took|has taken|is looking|is on it|is handling|handles|"
                           r"acknowledged|resolved|fixed|closed)\b")
"""A person said to act on a ticket ("Marco Bianchi in Analytics Engineering picked up INC…")."""


STATUS_SAID = (r"(?:degraded|outage|operational|down|delayed|impacted|affected|healthy|fine|slow|failing|broken|"
               r"unavailable|(?:has|have|having|with)\s+(?:\w+\s+)?(?:issues?|problems?))")
"""Words that say how a component is: beside an everyday word that names one (a few words away), they make it the
component ("notebooks are degraded too"; "a storage problem" is a kind of failure, not the component's status)."""


def _status_beside(name: str, sentence: str) -> bool:
    word = re.escape(name)
    return re.search(rf"\b{word}\b(?:\W+\w+){{0,3}}?\W+{STATUS_SAID}\b|\b{STATUS_SAID}\W+(?:\w+\W+){{0,3}}?{word}\b",
                     sentence, re.IGNORECASE) is not None


def _shortened(token: str, identifiers: Collection[str]) -> bool:
    """A name written without its prefix ("ingest_sales" for pl_ingest_sales): the one identifier it ends."""
    return "_" in token and sum(1 for name in identifiers if name.endswith(f"_{token}")) == 1


ABSENT_FROM = re.compile(r"(?:\bnot\b|n['’]t\b)\s+(?:\w+\s+){0,2}?(?:on|in|among|listed|affected|included|mentioned|named|"
                         r"part of|one of)\b", re.IGNORECASE)
"""Absence from what the data lists ("isn't on the problem list", "not affected"), said of a name."""
CLAUSE_BREAK = re.compile(r"[,;]\s+|\s+[-–—]\s+")


NOT_FOUND = re.compile(r"\b(?:couldn['’]t|could not|can['’]t|cannot|didn['’]t|did not|unable to)\s+(?:find|see|locate)\b|"
                       r"\bno (?:such|record of)\b|\bdoes(?:n['’]t| not) exist\b|\bnot found\b", re.IGNORECASE)


def _retold(name: str, text: str, told: str) -> bool:
    """A name an earlier answer of this conversation gave (checked then), named again with no value said of it, in
    its own clause, that the earlier answer did not say of it in its own clauses: "about three hours before
    INC0010054 was opened" after "INC0010054 is New"; not "INC0010054 is resolved now", nor a name the earlier
    answer said it could not find."""
    low = name.lower()
    if not words_in(told.lower(), [low]):
        return False
    about, naming = [], False
    for clause in (clause for sentence in sentences(told.lower()) for clause in read.split_outside(CLAUSE_BREAK, sentence)):
        # its clauses, and those after them that name no other record
        naming = words_in(clause, [low]) or (naming and not identifiers_in(clause))
        about += [clause] if naming else []
    if any(NOT_FOUND.search(clause) for clause in about if words_in(clause, [low])):
        return False
    before = _values_said(" ".join(about))
    return all(_values_said(clause) <= before for sentence in sentences(text.lower())
               for clause in read.split_outside(CLAUSE_BREAK, sentence) if words_in(clause, [low]))


def _values_said(text: str) -> set[tuple[str, str]]:
    """The field values ``text`` names, as (vocabulary, value): "still failing" and "has failed" say the same."""
    return {(field, str(value)) for field, vocabulary in VALUE_VOCABULARIES.items()
            for phrase, value in vocabulary.phrases if words_in(text, [phrase])}


def _only_as_not_looked_at(name: str, text: str) -> bool:
    """Every sentence that names ``name`` says it was not looked at."""
    said = [sentence for sentence in sentences(text) if name in sentence]
    return bool(said) and all(read.not_looked_at(name, sentence) for sentence in said)


def check_identifiers(text: str, index: EvidenceIndex, known_names: Collection[str], told: str = "") -> list[GroundingCheck]:
    """Every id and name the answer gives is one the data showed, or one OpsAgent's own earlier answer ``told``
    gave and the answer only names again. One the user named earlier is no exception: "Yes, INC0010099 is still
    open" for a ticket that does not exist would pass on nothing else."""
    checks = [GroundingCheck.of("identifier", token, token in index.identifiers or _shortened(token, index.identifiers)
                                or _retold(token, text, told),
                                f"{token} appears in no tool output", "a reference to a record or name that no data showed")
              for token in sorted(identifiers_in(text) - {spec.name for spec in TOOLS})]  # a tool's name is no record
    # ("`list_failed_pipelines` for adf-prod-weu would be the next drill-down"); an invented tool's name still fails
    lowered = text.lower()
    systems = {system.lower() for item in index.items if (spec := tool_spec(item.tool))
               for system in RECORDS[spec.record].systems}  # "rerun it from the Data Factory monitor"
    for name in sorted(known_names):
        low = name.lower()
        if low not in lowered:
            continue  # (most names of a large inventory: no need to read the sentences for them)
        if name.isalpha() and low not in PLATFORM_WORDS and not re.search(rf"\b{re.escape(name)}\b", text) and not any(
                _status_beside(low, sentence) for sentence in sentences(text) if words_in(sentence.lower(), [low])):
            continue  # a component named by an everyday word ("Storage"), written as one ("storage throttling"), with
            # no status said of it ("notebooks are degraded too" is a claim about the component)
        if not words_in(lowered, [low]) or low in index.text or low in systems or identifiers_in(low) or \
                _retold(name, text, told):
            continue
        if all(NEGATION.search(clause) or ABSENT_FROM.search(clause) for sentence in sentences(text)
               for clause in read.split_outside(CLAUSE_BREAK, sentence) if words_in(clause.lower(), [low])):
            continue  # "nothing failed in adf-prod-neu", "Data Factory isn't on the problem list": its absence, in its
            # own clause, which the negative and health checks judge ("doesn't exist" is no absence from a list)
        if _only_as_not_looked_at(low, lowered):
            continue  # "I only checked North Europe, not West Europe": what was left out, no claim about its data
        checks.append(GroundingCheck.of("identifier", name, False, f"{name} appears in no tool output",
                                        "a reference to a record or name that no data showed"))
    known = {name.lower() for name in known_names}
    values = {phrase for vocabulary in VALUE_VOCABULARIES.values() for phrase, _ in vocabulary.phrases}
    sentence_first = {match.group("name") for pattern in (PERSON, PERSON_ACTING) for match in pattern.finditer(text)
                      if not text[:match.start("name")].strip() or text[:match.start("name")].rstrip()[-1] in ".!?:\n*-"}
    for name in sorted({match.group("name") for pattern in (PERSON, PERSON_ACTING) for match in pattern.finditer(text)}):
        low = name.lower()
        if low.split()[0] in STOPWORDS and name in sentence_first:
            continue  # "Since Leila …": a sentence's first word before one name ("assigned to Will Jensen" is a name)
        if _only_as_not_looked_at(low, lowered):
            continue
        if low not in index.text and low not in known and low not in systems and low not in values:
            # a person nobody's data names ("move it to In Progress" names a state)
            checks.append(GroundingCheck.of("identifier", name, False, f"{name} appears in no tool output",
                                            "a person no data showed"))
    return checks


WINDOW_PHRASE = re.compile(r"\b(?:last|past|next|previous)\s+(\d+)\s*(m|min|mins|minutes?|h|hrs?|hours?|d|days?|w|wks?|"
                           r"weeks?)\b", re.IGNORECASE)


HALF_HOUR = re.compile(r"\b(?:last|past|previous)\s+half(?:\s+an)?\s+hour\b", re.IGNORECASE)


def _windows_said(text: str) -> dict[str, int]:
    """Each "last N units" window of ``text`` (numbers in words too), with its length in minutes."""
    found = {f"last {number}{unit[0].lower()}": int(number) * (unit_minutes(unit) or 1)
             for number, unit in WINDOW_PHRASE.findall(digits(text))}
    return found | ({"last half hour": 30} if HALF_HOUR.search(text) else {})


def _searched_minutes(index: EvidenceIndex) -> set[int]:
    """The lengths of the windows the searches applied, and of those the question or the tools name."""
    lengths = set(_windows_said(index.text).values())
    for item in index.items:
        # its windows, and the span a history searched over its whole retention ("the last 14 days")
        spans = [*windows_of(item), *((row.get("searched_from"), row.get("searched_to")) for row in item.rows)]
        for start, end in ((iso_moment(first), iso_moment(last)) for first, last in spans):
            if start and end:
                lengths.add(round((end - start).total_seconds() / 60))
    return lengths


def check_windows(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """A window the answer names ("in the last 24 hours", "the past half hour") is as long as one a search
    used or the question asked — or lies inside the window of a search whose every row was shown, and its sentence
    counts what those rows hold inside it ("only one is from the last 24 hours")."""
    searched = _searched_minutes(index)
    return [GroundingCheck.of("number", said, minutes in searched or _counted_inside(sentence, minutes, index),
                              f"no search covered \"the {said}\"", "a time window no search covered")
            for sentence in sentences(text) for said, minutes in sorted(_windows_said(sentence).items())]


def _counted_inside(sentence: str, minutes: int, index: EvidenceIndex) -> bool:
    """A complete search covers the last ``minutes``, and a number the sentence says (or its none) is how many of its
    rows — of the pipelines it names — started inside them."""
    if index.now is None:
        return False
    window = (index.now - timedelta(minutes=minutes), index.now)
    named = [key for key in read.record_keys(sentence) if key.startswith("pl_")]
    counts = {sum(1 for row in item.rows if (not named or str(row.get("pipeline_name", "")).lower() in named)
                  and (moments := moments_of(row)) and window[0] <= min(moments) < window[1])
              for item in index.items if item.answered and item.total == len(item.rows) and covers(item, [window])}
    plain = WINDOW_PHRASE.sub(" ", digits(sentence))  # (not the window's own number)
    said = {int(number) for number in re.findall(r"(?<![\w.:])\d+(?![\w.:])", plain)} | {
        WORD_NUMBERS[word.lower()] for word in re.findall(rf"\b(?:{'|'.join(WORD_NUMBERS)})\b", plain, re.IGNORECASE)}
    return bool(counts & (said | ({0} if NEGATION.search(sentence) else set())))


TOOK = re.compile(r"\b(?:took|lasted|ran for|running for|run for|went for)\s+(?:about |around |roughly |approximately |nearly "
                  r"|almost |just )?(\d+(?:\.\d+)?)\s*(minutes?|mins?|hours?|hrs?)\b", re.IGNORECASE)
"""How long something took ("ran for about 35 minutes before it was cancelled"): a span of the evidence, even
where the words after it ("… before …") read like a window."""


THE_RUN = re.compile(r"^\W*(?:it|the run|this run|that run|the latest run|its latest run)\b", re.IGNORECASE)


def _run_lengths(sentence: str, index: EvidenceIndex) -> list[float]:
    """How long the one run a sentence is about took ("It ran for 62 minutes" after a run's look-up): the run it
    names, or the only run looked up when it opens with "it" or "the run"; none for an activity's length."""
    keys = [key for key in read.record_keys(sentence) if RUN_ID.fullmatch(key)]
    named = [row for key in keys[:1] for _, row in index.rows_for(key)]
    looked_up = [row for item in index.items if (spec := tool_spec(item.tool)) and spec.is_lookup and spec.record == "run"
                 for row in item.rows]
    rows = named if len(keys) == 1 else looked_up if not keys and THE_RUN.match(sentence) and len(looked_up) == 1 else []
    activities = {str(part.get("activity_name") or part.get("name") or "").lower() for row in rows
                  for part in parts_of(row)} - {""}
    if any(name in sentence.lower() for name in activities):
        return []  # "Lookup_Config took 31 minutes": an activity's own length
    return [float(row["duration_min"]) for row in rows if isinstance(row.get("duration_min"), (int, float))]


ENUMERATED = re.compile(r"(?<![\w.:-])(\d+)\s+(?:[\w'-]+\s+){0,2}?[a-z]+s\s*\(([^()]+)\)"
                        r"|(?<![\w.:-])(\d+)\s+(?:[\w'-]+\s+){0,2}?[\w'-]+:\s+([^.;\n]+)", re.IGNORECASE)
"""A count and its list: in parentheses ("two failures (03:21 and 07:20)"), or after a colon ("the five most recent:
9 Jan 18:12, 6 Jan 06:10, …")."""
LISTED_ITEM = re.compile(r"^(?:(?:[a-z]{3,9}\s+)?(?:\d{1,2}\s+[a-z]{3,9}|[a-z]{3,9}\s+\d{1,2})(?:,?\s+at)?\s+)?"
                         rf"(?:[01]?\d|2[0-3]):[0-5]\d(?:\s*UTC)?$|^pl_\w+$|^(?:{TICKET.pattern}|{RUN_ID.pattern})$",
                         re.IGNORECASE)


def _enumerated_counts(text: str) -> set[float]:
    """Counts followed by the list of what they count, each item a time or an id ("two failures (03:21 and
    07:20 UTC)"): the count is the list's length, and each item is checked on its own."""
    found = set()
    for match in ENUMERATED.finditer(text):
        count, listed = match.group(1) or match.group(3), match.group(2) or match.group(4)
        items = [item.strip() for item in re.split(r",|\band\b", listed) if item.strip()]
        if int(count) == len(items) and all(LISTED_ITEM.match(item) for item in items):
            found.add(float(count))
    return found


SHARE_OF_ALL = re.compile(r"\s*of\s+(?:the|all)\b", re.IGNORECASE)
"""After a percentage, a share of a whole ("96 % of the failures"), not a rate ("a failure rate of 82 %")."""
POINTED_BACK = re.compile(r"\b(?:those|these|the)\s+(\d+)\s+([a-z]+)", re.IGNORECASE)
KEY_OF_KIND = {"pipeline": lambda key: key.startswith("pl_"), "incident": lambda key: key.startswith("inc"),
               "change": lambda key: key.startswith("chg"), "run": lambda key: RUN_ID.fullmatch(key) is not None}


def _pointed_back_blanked(text: str, said: str) -> str:
    """``text`` without the count of "those two pipelines" when it is the number of records of that kind the answer
    (``said``, whole: ``text`` may have lost a sentence echoing a record) named before it, each checked on its own —
    that mention only, not every 2 of the answer."""
    for match in reversed(list(POINTED_BACK.finditer(text))):
        kind = record_of_noun(match.group(2))
        before = said[:at] if (at := said.find(match.group())) >= 0 else text[:match.start()]
        named = [key for key in read.record_keys(before) if kind in KEY_OF_KIND and KEY_OF_KIND[kind](key)]
        if named and len(named) == int(match.group(1)):
            text = _blanked(text, match.start(1), match.end(1))
    return text


OTHER_COUNT = re.compile(r"\b(?:other|remaining|earlier|older|previous)\s+(\d+)\b|\b(\d+)\s+(?:other|more|remaining)\b",
                         re.IGNORECASE)
"""A count of the rest ("the other 15 components", "3 more runs", "the earlier two"): the rows less those the answer
names, or the whole of a share said less its part ("2 of the 4 are today, the other two …")."""
PART_SAID = re.compile(r"(?<![\w.])(\d+)\s+(?:out\s+)?of\s+(?:the|all|its)?\s*(\d+)\b(?!\s*%)", re.IGNORECASE)


SHARE_OF_THEM = re.compile(r"(?<![\w.])(\d+)\s+of\s+(?:them|those|these|which)\b([^.;:()]*)", re.IGNORECASE)
"""A share of the rows just listed by what they say ("3 of them were vm-shir-01 being offline")."""


def _rows_sharing(text: str, index: EvidenceIndex) -> set[float]:
    """The counts "N of them <words>" may be: how many rows of one search hold a distinctive word of those words."""
    counts: set[float] = set()
    for match in SHARE_OF_THEM.finditer(text):
        words = {word for word in re.findall(r"[a-z][\w-]{4,}", match.group(2).lower()) if word not in COMMON_WORDS}
        counts |= {float(sum(1 for row in item.rows if word in text_of(row).lower()))
                   for item in index.items for word in words}
    return counts - {0.0}


GROUP_COUNT = re.compile(r"(?<![\w.])(\d+)\s+(?:(?:finished|completed|active|ongoing)\s+(?:pipeline\s+)?runs?\b|"
                         r"(?:pipeline\s+)?runs?\s+(?:that\s+|which\s+)?(?:have\s+|had\s+)?(?:finished|completed)\b)",
                         re.IGNORECASE)
ENUMERATOR = re.compile(r"^\s*\d{1,2}[.)]\s+", re.MULTILINE)
"""A numbered list's "2." at the start of a line: an item's place, not a quantity."""
SPACED_NAME = re.compile(r"\b[A-Za-z][a-z]{2,}\s\d{2,4}\b")
ADVISED_WAIT = re.compile(rf"\b(?:re-?check|check (?:again|back)|look again|retry|try again|re-?run|wait|revisit|follow up|"
                          rf"chase|escalate|if)\b[^.;\n]{{0,60}}?\b(?P<wait>(?:in|after|for|within|every)\s+(?:another\s+|"
                          rf"the next\s+)?\d+(?:\s*(?:-|–|to)\s*\d+)?\s*{UNIT_WORD})", re.IGNORECASE)
"""Advice of when to act ("re-check in 30–60 minutes", "retry every 15 min") or a condition on a time to come ("if it
is still queued in 10–15 minutes, …"): not a length the data must show (only the wait itself: "re-run the 5 failed
loads in 30 minutes" still counts 5 loads)."""


PART_OF = re.compile(r"(?<![\w.])\d+\s+(?:out\s+)?of\b", re.IGNORECASE)
"""A part said with what it is a part of ("8 of them", "9 of 40"): the percentage right after it is that share."""
WHETHER = re.compile(r"\bwhether\b[^.;\n]*", re.IGNORECASE)
"""A question inside a sentence ("worth checking whether 2.14 dropped a setting too"): asked, not asserted."""


CLOCK_AGO = re.compile(rf"\b(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?P<aside>(?:\s*UTC)?\s*\([^()]{{0,40}}\)|\s*UTC)?\s*"
                       rf"[(,—–-]\s*(?:about|around|roughly|nearly|almost|just over|over|~)?\s*(?P<number>\d+(?:\.\d+)?)\s*"
                       rf"(?P<unit>{UNIT_WORD})\s+ago\b", re.IGNORECASE)
"""A clock time with how long ago it was ("opened today at 02:40 UTC (about 4 hours ago)", "23:10 UTC (finished 23:33,
23 min) — about 10 hours ago"): the span from that time (or one in its aside) to now, on that day or one of the week
before."""


def _clocks_ago(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    checks = []
    for match in CLOCK_AGO.finditer(digits(text)) if index.now is not None else ():
        minutes_per_unit = unit_minutes(match.group("unit")) or 1
        clocks = [(int(match.group("hour")), int(match.group("minute"))), *(
            (int(hour), int(minute)) for hour, minute in read.CLOCK_TIME.findall(match.group("aside") or ""))]
        spans = [(index.now - (at - timedelta(days=days))).total_seconds() / 60 / minutes_per_unit
                 for hour, minute in clocks for at in [index.now.replace(hour=hour, minute=minute, second=0, microsecond=0)]
                 for days in range(8) if at - timedelta(days=days) <= index.now]
        said = float(match.group("number"))
        checks.append(GroundingCheck.of("number", match.group(), any(abs(span - said) < 1 for span in spans),
                                        f"{match.group('hour')}:{match.group('minute')} was not {said:g} "
                                        f"{match.group('unit')} ago", "a time the data does not show"))
    return checks


def _blanked(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` in spaces: read and checked already, and its offsets elsewhere kept."""
    return text[:start] + " " * (end - start) + text[end:]


def _ahead_backed(said: re.Match[str], index: EvidenceIndex) -> bool:
    """A length ahead that far from now to a moment of the evidence, or a record's own words ("expires in 14 days")."""
    return index.vouches_for_ahead(float(said.group(1)), unit_minutes(said.group(2)) or 1) or \
        said.group().lower() in index.row_text


def check_numbers(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    checks = check_windows(text, index)
    derived = derived_numbers(text, index.vouches_for_number)  # "9 of 49 runs = 18.4%", "217 more runs"
    worked_out = {number for piece in derived for number in numbers_in(piece)}
    for sentence in sentences(digits(text)):
        took = [match for match in TOOK.finditer(sentence) if float(match.group(1)) not in worked_out]
        own = _run_lengths(sentence, index) if took else []  # only a sentence saying a length needs its run's
        for match in took:
            number, unit = float(match.group(1)), unit_minutes(match.group(2)) or 1
            ok = any(abs(length / unit - number) < 1 for length in own) if own else \
                index.vouches_for_elapsed(number, unit) or index.vouches_for_number(number)
            checks.append(GroundingCheck.of("number", match.group(), ok,
                                            f"nothing in the evidence lasted {match.group(1)} {match.group(2)}"
                                            + (f" (the run took {', '.join(f'{length:g}' for length in own)} min)"
                                               if own else ""), "a length of time the data does not show"))
    checks += [GroundingCheck.of("number", said, index.vouches_for_elapsed(minutes / unit, unit)
                                 or index.vouches_for_number(minutes) or index.vouches_for_gap(minutes, unit),
                                 f"nothing in the evidence lasted {said}",
                                 "a length of time the data does not show")
               for said, minutes, unit in compound_lengths(text)]
    lengths = {number for number, unit in elapsed_said(text) if index.vouches_for_elapsed(number, unit)}
    names = {1: "minutes", 60: "hours", 1440: "days", 10080: "weeks"}  # the units ELAPSED reads
    for sentence in sentences(text):
        clocks = read.hh_mm(read.CLOCK_TIME, sentence)
        for number, unit, relation in elapsed_apart(sentence) if clocks else ():
            approximate = re.search(rf"(?:about|around|roughly|approximately|nearly|almost|~)\s*{number:g}\b",
                                    digits(sentence), re.IGNORECASE) is not None
            backed = index.vouches_for_apart(number, unit, clocks, approximate=approximate, later=relation == "into")
            checks.append(GroundingCheck.of("number", f"{number:g} {names[unit]} {relation}", backed,
                                            f"no moment of the evidence is {number:g} {names[unit]} from "
                                            f"{', '.join(sorted(clocks))}", "a length of time the data does not show"))
            # a length between a moment said and one of the evidence ("72 minutes into the window") backs the
            # number as a length too
            lengths |= {number} if backed else set()
        # a length with both its ends said ("~18 hours (12:26 → 06:25)"): two moments of the evidence that far apart
        lengths |= {number for number, unit in (elapsed_said(sentence) if len(clocks) > 1 else ())
                    if index.vouches_for_between(number, unit, clocks)}
    if index.spans_from_now:  # "48 minutes ago" reads as a time, not a number: checked as a span from now
        checks += [GroundingCheck.of("number", f"{number:g} {names[unit]} ago", index.vouches_for_elapsed(number, unit),
                          f"nothing in the evidence happened {number:g} {names[unit]} ago", "a time the data does not show")
                   for number, unit in elapsed_said(text, ago=True)]
    checks += _clocks_ago(text, index)
    checks += [GroundingCheck.of("number", said.group(), _ahead_backed(said, index),
                                 f"nothing in the evidence is {said.group()} ahead", "a time the data does not show")
               for said in (elapsed_ahead(digits(text)) if index.now else ())]  # "starts in 4 days", "2 hours away"
    listed = _enumerated_counts(digits(text))
    others = {float(match.group(1) or match.group(2)) for match in OTHER_COUNT.finditer(digits(text))}
    rests = {float(int(whole) - int(part)) for part, whole in PART_SAID.findall(digits(text))} | \
        {float(total - len(moments) + sum(moment < today for moment in moments)) for moments, total in moment_sets(index)
         if (today := index.now.replace(hour=0, minute=0, second=0, microsecond=0) if index.now else None)} \
        if others else set()  # "the other two": the rest of a share said, or of a list's moments before today
    named = sum(1 for item in index.items for row in item.rows  # only "the other N" needs it
                if (key := identity(row)) and key.lower() in text.lower()) if others else 0
    # a sentence telling a record's own words again ("failed … on its last two runs"): the record's numbers
    own = text
    for sentence in (sentence for sentence in sentences(text) if index.echoes(sentence)):
        own = own.replace(sentence, " ")
    own = ADVISED_WAIT.sub(lambda wait: wait.group()[:wait.start("wait") - wait.start()], ENUMERATOR.sub(" ", digits(own)))
    own = _pointed_back_blanked(WHETHER.sub(" ", COMPOUND.sub(" ", own)), digits(text))  # "2 days and 6 hours": one length,
    # checked above as one
    for said in reversed(elapsed_ahead(own) if index.now else []):  # "in 4 days": a length ahead, checked above
        own = _blanked(own, said.start(), said.end())
    own = SPACED_NAME.sub(lambda name: " " if re.sub(r"\s+", "", name.group()).lower() in index.row_text else name.group(),
                          own)  # "Customer 360": the name customer360 written apart, not a number
    for piece in derived:  # worked out from the answer's own numbers:
        # its first mention standing alone, never digits inside a date or an id ("2" in "2025-01-10"); said again
        # as a bare quantity ("the bigger overrun: 23 minutes"): worked_out
        own = re.sub(rf"(?<![\w.:/-]){re.escape(piece)}(?![\w.:/-]|\.\d)", " ", own, count=1)
    for said, allowed in reversed(timed_shares(own, index)):  # "5 of them before today": checked here, not as a count
        checks.append(GroundingCheck.of("number", said.group(), int(said.group("number")) in allowed,
                                        f"{said.group().strip()}: the rows have {', '.join(map(str, sorted(allowed)))} "
                                        "such", "a count the data contradicts"))
        own = _blanked(own, said.start("number"), said.end("number"))
    for said, check in reversed(streak_claims(own, index)):  # "two in a row today": failures since the last other run
        checks.append(check)
        own = _blanked(own, said.start(), said.end())
    sharing = _rows_sharing(own, index)
    for sentence in sentences(digits(text)):  # "weu had 40 runs; 22.5% of them failed": the named row's counts' share
        percents = list(PERCENT.finditer(sentence))
        alone = [match for before, match in zip([None, *percents], percents)  # not right after a part ("8 of them —
                 if not PART_OF.search(sentence, before.end() if before else 0, match.start())]  # 33%")
        shares = index.shares_of_named_rows(sentence) if alone else []
        of_all = index.shares_of_totals(sentence) if alone else []  # "96 % of the failures": of a search's whole
        sharing |= {float(match.group(1)) for match in alone if any(rounds_to(share, match.group(1)) for share in shares)
                    or SHARE_OF_ALL.match(sentence, match.end()) and any(rounds_to(share, match.group(1)) for share in of_all)}
    grouped = {float(match.group(1)) for match in GROUP_COUNT.finditer(own)}  # "38 finished runs"
    # "6 are still open": a count with a value for its noun, backed by the rows having it (check_qualified_counts)
    sharing |= {float(found.group(1)) for check in check_qualified_counts(sentences(text), index)
                if check.passed and (found := re.match(r"\W*(\d+)", check.claim))}
    for number, noun in dict.fromkeys(counted_nouns_in(own)):
        if number in listed or number in sharing:
            continue  # "two failures (03:21 and 07:20)": the count is its own list, whose items are checked
        shown = f"{number:g}"
        if noun is None and number not in others:
            ok = number in lengths or number in worked_out or index.vouches_for_number(number)
            detail = f"{shown} is neither a value in the evidence, a count of its rows nor a span of its times"
        else:
            # "the other 15 components": a count less the rows the answer names
            ok = any(index.vouches_for_count(number + less, records_counted(noun),
                                             pipelines=record_of_noun(noun or "") == "pipeline")
                     for less in ({0} | (set(range(1, named + 1)) if number in others else set())))
            ok = ok or number in index.group_counts and number in grouped or number in others and number in rests
            detail = f"{shown} is not a count of the {noun or 'rows'} in the evidence"
        checks.append(GroundingCheck.of("number", shown, ok, detail, "a number that no data showed"))
    checks += [GroundingCheck.of("number", said, holds, f"{said} would be {share}, not the count said beside it",
                                 "a share the answer's own numbers contradict")
               for said, holds, share in fraction_claims(text)]
    checks += [GroundingCheck.of("number", said, holds, f"{said}: the numbers its sentence gives differ by {gaps}",
                                 "a difference the answer's own numbers contradict")
               for said, holds, gaps in [*margin_claims(text), *bare_difference_claims(text)]]
    checks += [GroundingCheck.of("number", said, holds, f"the table's first rows sum to {sums}, not the number said",
                                 "a sum the answer's own table contradicts")
               for said, holds, sums in leading_sum_claims(text)]
    # A count restating a tool's summary line must be that line's count, not another row count.
    for number, phrase in dict.fromkeys(counts_with_phrases(text)):
        stated = index.phrased_counts.get(phrase)
        if stated and number not in stated:
            said = ", ".join(f"{value:g}" for value in sorted(stated))
            checks.append(GroundingCheck.of("number", f"{number:g} {phrase}", False,
                                 f"the evidence says {said} {phrase}, not {number:g}", "a count the data contradicts"))
    return checks


def _says_word(stem: str, text: str) -> bool:
    """``stem`` as a word of ``text`` with an ordinary ending ("fail" in "failures", not "run" in "runtime")."""
    return re.search(rf"\b{re.escape(stem)}(?:s|es|ed|d|ing|ure|ures|ss|eded|ation|y|ies|al)?\b", text) is not None


def _topics(tool: str) -> set[str]:
    spec = tool_spec(tool)
    if spec is None:
        return set()
    return {word for word in RECORD_WORDS[spec.record] if " " not in word} | (
        {spec.platform.lower()} if spec.platform else set())


def _short_values(items: Sequence[ToolEvidence]) -> set[str]:
    """The names rows give (an assignee, a group, a CI, a factory): short text values of two words or more, or
    one hyphenated name ("adf-prod-neu") — not descriptions, states or times."""
    return {value.lower() for item in items for row in item.rows for value in row.values()
            if isinstance(value, str) and 6 <= len(value) <= 40 and not ISO_MOMENT.match(value)
            and (" " in value.strip() or re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", value.lower()))}


def _measures(items: Sequence[ToolEvidence]) -> set[float]:
    """What rows measure (a duration, a rate: fields ending in _min or _pct, nested too), ten or more or a fraction."""
    found: set[float] = set()
    stack: list[Any] = [row for item in items for row in item.rows]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            found |= {float(number) for key, number in value.items() if str(key).endswith(("_min", "_pct"))
                      and isinstance(number, (int, float)) and not isinstance(number, bool)}
            stack += [part for part in value.values() if isinstance(part, (dict, list))]
        elif isinstance(value, list):
            stack += value
    return {number for number in found if number >= 10 or not number.is_integer()}


def check_parts(text: str, parts: Sequence[QuestionPart], results: Sequence[TaskResult]) -> list[GroundingCheck]:
    """Each part that has evidence must show up in the answer: one of its ids, or its topic."""
    lowered = text.lower()
    checks = []

    def evidence_of(part_id: str, *, other: bool = False) -> list[ToolEvidence]:
        return [item for result in results if (part_id in [p.strip() for p in result.part.split(",")]) != other
                for item in result.evidence]

    for part in parts:
        evidence = evidence_of(part.id)
        if not evidence:
            continue  # a part nobody could answer is a limitation, not a grounding failure
        others = evidence_of(part.id, other=True)
        shared = set().union(set(), *(identifiers_in(str(item.rows) + str(item.arguments)) for item in others))
        ids = set().union(*(identifiers_in(str(item.rows) + str(item.arguments)) for item in evidence)) - shared
        topics = {word for item in evidence for word in _topics(item.tool)}
        # a time or a short value only this part's rows show ("its last failure was at 17:40", "Amira Haddad has
        # it"): the answer speaks of it
        clocks = evidence_clocks(evidence) - evidence_clocks(others)
        values = _short_values(evidence) - _short_values(others)
        # a measure only this part's rows give ("55 min vs a median of 32" over a run's history)
        measures = _measures(evidence) - _measures(others)
        own_words = {word for word in PART_WORD.findall(part.text.lower()) if word not in COMMON_WORDS}
        if not own_words:
            continue  # a part without a word of its own ("hi") gives nothing to look for
        ok = any(token in lowered for token in ids | own_words) or any(_says_word(topic, lowered) for topic in topics) \
            or bool(clocks & said_clocks(text)) or any(value in lowered for value in values) \
            or bool(measures & set(numbers_in(text)))
        checks.append(GroundingCheck.of("part_coverage", f"{part.id}: {part.text}", ok,
                             f"the answer says nothing about \"{part.text}\"", f"the part \"{part.text}\""))
    return checks


def _scoper(analysis: QuestionAnalysis) -> Callable[[str], QuestionAnalysis]:
    """What the question asks of one record kind: the qualifiers inside the asks about it."""
    def scope(record: str) -> QuestionAnalysis:
        asks = [ask for ask in analysis.asks if record in ask.records or record == "run" and "pipeline" in ask.records]
        if not asks:
            return analysis
        inside = lambda span: any(span.within(ask.span.start, ask.span.end) for ask in asks)  # noqa: E731
        return analysis.model_copy(update={
            "entities": [item for item in analysis.entities if inside(item.span)],
            "times": [item for item in analysis.times if inside(item.span)],
            "filters": [item for item in analysis.filters if inside(item.span)],
        })

    return scope


INVENTORIED = ("configuration_item", "assignment_group", "pipeline", "factory", "component")
"""The filters whose every value the inventory lists (``InventorySnapshot.names``)."""


def fit_for(analysis: QuestionAnalysis | None, known_names: Collection[str], seen: str = "") -> Fit:
    """Whether an answered search fits what the question asked of its record kind (see ``fitting.py``), and
    narrows by no name that neither the question nor the rows ``seen`` gave (an empty search of another CI
    than the one asked backs no "none"), nor, empty, by a name the inventory (``known_names``) does not have."""
    if analysis is None:
        return lambda item: True
    scope = _scoper(analysis)
    given = " ".join([analysis.resolved_question, analysis.question, *(item.value for item in analysis.entities),
                      *(str(reference) for reference in analysis.references), seen]).lower()
    known = {name.lower() for name in known_names}

    def fit(item: ToolEvidence) -> bool:
        spec = tool_spec(item.tool)
        if spec is None or spec.is_lookup:
            return True
        named = [str(item.arguments.get(taken.parameter) or "").strip().lower() for taken in spec.filters
                 if taken.kind in ("name", "person")]
        unasked = [value for value in named if value and value not in given]
        # an empty search by a name the inventory does not have (a warehouse passed as a CI) names nothing
        listed = [str(item.arguments.get(taken.parameter) or "").strip().lower() for taken in spec.filters
                  if taken.kind == "name" and taken.inventory in INVENTORIED]
        unknown = [value for value in listed if value and known and value not in known] if not item.rows else []
        return fits(scope(spec.record), item) and text_names_something(item, known_names, analysis) \
            and not unasked and not unknown

    return fit


RANGE_AFTER = re.compile(r"^\s*(?:or|and)\s+(?:lower|below|less|under|worse|higher|above|more|over|up)\b", re.IGNORECASE)
RANGE_BEFORE = re.compile(r"\b(?:below|under|lower than|less than|above|over|higher than|at least|at most)\s*$",
                          re.IGNORECASE)


def _wider_than_read(mention: Any, question: str) -> bool:
    """A value the question bounds with words intake did not read ("P3 or lower" read as P3 alone): reading rows
    for the value alone would answer a narrower question."""
    span = getattr(mention, "span", None)
    return span is not None and (RANGE_AFTER.match(question[span.end:]) is not None
                                 or RANGE_BEFORE.search(question[:span.start]) is not None)


def read_for(analysis: QuestionAnalysis | None, known_names: Collection[str]) -> RowsRead:
    """The rows of a search that meet what the question asked and the search did not apply, read from the rows
    themselves (each row's group, assignee, opening time); ``None`` when the search fits, or some of what it did
    not apply no row can say, or some rows were not shown, or the claim (``said``) does not name a name read.
    ``leave_out``: filters (by vocabulary) the claim states values of its own for, not read."""
    if analysis is None:
        return lambda item, said, leave_out=frozenset(): None
    scope = _scoper(analysis)

    def read(item: ToolEvidence, said: str, leave_out: frozenset[str] = frozenset()) -> list[dict[str, Any]] | None:
        spec = tool_spec(item.tool)
        if spec is None or spec.is_lookup or not item.answered or item.total > len(item.rows) \
                or not text_names_something(item, known_names, analysis):
            return None
        unread = unapplied_mentions(scope(spec.record), [item])
        if not unread or not all(read_from_rows(qualifier, mention, item, analysis.now) for qualifier, mention in unread) \
                or any(_wider_than_read(mention, analysis.question) for _, mention in unread):
            return None
        lowered = said.lower()
        if any(qualifier.kind == "name" and not any(name and name in lowered for name in (
                qualifier.text.lower(), str(getattr(mention, "value", "")).lower())) for qualifier, mention in unread):
            return None  # "nothing is running" is wider than the runs of the pipeline the question also named
        return [row for row in item.rows if all(row_meets(qualifier, mention, row, spec.record, analysis.now)
                                                for qualifier, mention in unread if qualifier.field not in leave_out)]

    return read




def _units(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The units claims are read from — a clause about one record whole (it states its values across its commas:
    "CHG… is …, Assess, approval requested"), else its items — and, for values, each unit with the text read:
    a clause naming no record whose "it" follows a clause of the same sentence about one record is about that
    record ("INC… is a P2; Leila has it and it's On Hold"), and so is the clause after a record and a dash (in a
    table row, the rest of the cell: "| Amira | INC… — pl_x file not found | P2 |", the title naming pl_x)."""
    units, resolved, before = [], [], None
    for sentence in sentences(text):
        # "CHG… is Scheduled for tomorrow. It's a normal, Moderate-risk change": a sentence opening with "it"
        # goes on about the one record the sentence before was about
        subject, led, row = before if OPENS_WITH_IT.match(sentence) else None, None, None
        for clause in read.clauses(sentence):
            keys = read.record_keys(read.unquoted(clause))
            own = [clause] if len(keys) == 1 else read.items(clause)
            units += own
            if row:  # the rest of a table row whose cell went on about its record after a dash
                resolved.append((clause, f"{row} {_without_keys(clause, keys)}"))
            elif led:  # "INC… — Priya's P2, in progress, for … the failing pl_x notebook": about INC…
                resolved.append((clause, f"{led} {clause}"))
            elif not keys and subject and PRONOUN.search(clause):
                resolved.append((clause, f"{subject} {PRONOUN.sub(' ', clause)}"))
            elif not keys and subject and (named := THE_RECORD.search(clause)) and record_of_noun(named.group(1)) in (
                    None, record_of_key(subject)):  # "INC… is assigned to Tomás, so the ticket is In Progress"
                resolved.append((clause, f"{subject} {clause[:named.start()]} {clause[named.end():]}"))
            else:
                resolved += [(unit, unit) for unit in own]
            subject = keys[0] if len(keys) == 1 else subject if not keys else None
            dashed = re.search(rf"{re.escape(clause)}\s+[-–—]\s", sentence) is not None
            led = keys[0] if len(keys) == 1 and BARE_KEY.match(read.unquoted(clause)) and dashed else None
            # ("pl_x: 0 of 14 runs failed" counts its runs)
            row = row or (keys[-1] if dashed and keys and clause.startswith("|") and re.search(
                rf"{re.escape(keys[-1])}\W*$", clause, re.IGNORECASE) else None)
        keys = read.record_keys(read.unquoted(sentence))
        before = keys[0] if len(keys) == 1 else before if not keys and OPENS_WITH_IT.match(sentence) else None
    return units, resolved


def _without_keys(text: str, keys: Sequence[str]) -> str:
    """``text`` with the records it names left out (a title's words: "pl_ingest_sales source file not found")."""
    for key in keys:
        text = re.sub(rf"(?<![\w-]){re.escape(key)}(?![\w-])", " ", text, flags=re.IGNORECASE)
    return text


BARE_KEY = re.compile(r"^\W*(?:[\w-]+\W*|(?:[\w-]+\s+){1,6}(?:is|=)\s+[*_`]*[A-Z]{3}\d+[*_`]*\W*)$")
"""A clause that is only a record's key, or names it last ("VPN packet loss is INC…"), before " — its values"."""


def _one_run(keys: Sequence[str], index: EvidenceIndex) -> str | None:
    """"pl_x failed at 23:46 (run 3022…)": a pipeline and one run of it name one record, the run."""
    runs = [key for key in keys if RUN_ID.fullmatch(key)]
    owners = {str(row.get("pipeline_name")).lower() for run in runs[:1] for _, row in index.rows_for(run)
              if str(row.get("run_id", "")).lower() == run}
    return runs[0] if len(runs) == 1 and owners and set(keys) - set(runs) <= owners else None


def claim_checks(text: str, index: EvidenceIndex, known_names: Collection[str],
                 now: datetime | None = None) -> list[GroundingCheck]:
    """Values, links, comparisons and placements, read item by item from the answer."""
    written, text = text, read.carry_subjects(text)
    clauses = [clause for sentence in sentences(text) for clause in read.clauses(sentence)]
    units, resolved = _units(text)
    keys = read.record_keys(text)  # the one record the answer is about: the one it names, or the one looked up
    changes = [key for key in keys if key.startswith("chg")]  # "during the window": the one change named
    placements = [claim for clause in clauses
                  for claim in read.placement_claims(clause, changes[0] if len(changes) == 1 else None)]
    placed = {claim.clause for claim in placements}
    # (for "about", a key no row is about — a pipeline a ticket's text mentions — leaves the record looked up)
    about = keys[0] if len(keys) == 1 and index.rows_for(keys[0]) else _one_run(keys, index) if len(keys) > 1 \
        else index.sole_record()
    return [
        *check_values((replace(claim, item=unit) for unit, said in resolved for claim in read.value_claims(said)), index),
        *check_assignees(resolved, index),
        *check_key_counts(units, index),
        *check_bare_key_counts(sentences(written), index),  # (as written: the carried bullet lost its dash)
        *check_first_failures(units, index, only=about),
        *check_nth_failures(units, index, only=about, now=now),
        *check_times_before(sentences(text), index, only=about, now=now),
        *check_codes(units, index, only=about),
        *check_failed_activities(units, index),
        *check_named_counts(text, index),
        *check_times(units, index, now),
        *check_causes([*units, *(sentence for sentence in sentences(text) if ":" in sentence)], index, only=about),
        *check_ages(sentences(text), index, now),
        *check_open_for(sentences(text), index, now),
        *check_qualified_counts(sentences(text), index),
        *check_windowed_counts(sentences(text), index),
        *check_named_status_counts(sentences(text), index),
        *check_usual_lengths(sentences(text), index),
        *check_failed_pipeline_counts(sentences(text), index),
        *check_spread(sentences(text), index),
        *check_links((claim for clause in clauses for claim in read.respective_links(clause, known_names) or [
            claim for item in read.items(clause) if not any(item in placing for placing in placed)
            for claim in read.link_claims(item, known_names)]), index),
        *check_causal_links(sentences(text), index),
        *check_comparisons((claim for clause in clauses for claim in read.comparison_claims(clause)), index),
        *check_placements(placements, index),
        *check_action_claims(sentences(text)),
        *check_sequences(text, index),
        *check_each_day(text, index, index.question),
        *check_universal_claims(sentences(text), index, now),
        *check_existential_claims(sentences(text), index),
    ]


SEMICOLON = re.compile(r";\s+")


def time_checks(text: str, index: EvidenceIndex, *, question: str, now: datetime | None,
                earlier: str = "", known_names: Collection[str] = ()) -> list[GroundingCheck]:
    """Clock times said of one record, "the latest / oldest is …" (``time_claims.py``) and components'
    statuses (``health_claims.py``)."""
    said = sentences(text)
    # (independent clauses joined by a semicolon may each be about their own record: "the status incident started at
    # 02:00; INC… was opened at 03:50")
    joined = [part for sentence in said for part in read.split_outside(SEMICOLON, sentence) if part.strip()]
    return [*check_clock_times(joined, index, question=question, now=now, earlier=earlier),
            *check_opening_clocks(said, index),
            *check_since_times(said, index, question=f"{question}\n{earlier}", now=now), *check_ordinals(said, index.items),
            *check_last_failures(said, index, question=question, now=now), *check_weekdays(said, now),
            *check_every_inside(said, index), *check_from_now(said, now), *check_lengths_of_ranges(said),
            *check_health_claims(said, index, known_names)]


EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=[^\s*])|(?<=[^\s*])\*(?![\w*])")
"""Markdown bold and italics: formatting, not words ("since **07:45 UTC**")."""


def evaluate(
    text: str,
    results: Sequence[TaskResult],
    *,
    parts: Sequence[QuestionPart] = (),
    question: str = "",
    known_names: Collection[str] = (),
    analysis: QuestionAnalysis | None = None,
    summary: str | None = None,
    earlier: str = "",
    told: str = "",
) -> list[GroundingCheck]:
    """Every check of ``text`` (the direct answer ``summary`` and its facts) against the evidence of ``results``;
    ``earlier``, the conversation before the question, gave times and names the answer may say again ("half an
    hour after the 00:10 failure" told in the turn before); ``told``, OpsAgent's own answers in it, the records it
    named then."""
    text, summary = EMPHASIS.sub("", text), summary if summary is None else EMPHASIS.sub("", summary)
    # the question as intake read it names what the user meant ("the north europe factory": adf-prod-neu)
    asked = question if analysis is None or analysis.resolved_question == question else \
        f"{question}\n{analysis.resolved_question}"
    index = EvidenceIndex.build(results, question=asked, now=analysis.now if analysis is not None else None)
    return [
        *check_identifiers(text, index, known_names, told),
        *check_numbers(text, index),
        *check_negative_claims(text, index, fit_for(analysis, known_names, index.row_text),
                               windows=asked_windows(analysis),
                               fit_any_time=fit_for(analysis and analysis.model_copy(update={"times": []}), known_names,
                                                    index.row_text),
                               read_rows=read_for(analysis, known_names),
                               now=analysis.now if analysis is not None else None, known_names=known_names),
        *check_parts(text, parts, results),
        *check_leads(text if summary is None else summary, analysis, index),
        *check_relations(text, analysis, index),
        *check_identified(text if summary is None else summary, analysis, index),
        *check_titles(text, index),
        *check_runs_of_the_pipeline(text, index),
        *check_dashed_titles(text, index),
        *claim_checks(text, index, known_names, analysis.now if analysis is not None else None),
        *time_checks(text, index, question=question, now=analysis.now if analysis is not None else None,
                     earlier=earlier, known_names=known_names),
    ]


def score(checks: Sequence[GroundingCheck]) -> float:
    if not checks:
        return 1.0
    share = sum(check.passed for check in checks) / len(checks)
    return round(share if all(check.passed for check in checks) else min(share, FAILURE_CAP), 3)




NUMBER_WORDS = {str(index): word for word, index in WORD_NUMBERS.items()}


def _plain(text: str) -> str:
    """Lower case without emphasis, separators and extra spaces: a claim read from a bullet ("CHG… Risk
    Moderate" for "- **Risk:** Moderate") is found again in it."""
    spaced = re.sub(r"[`:;|—–]+|\s-\s", " ", re.sub(r"\*|__", "", text.lower()))
    return re.sub(r"\s+([,.])", r"\1", " ".join(spaced.split()))


def _mentions(sentence: str, claim: str) -> bool:
    low, needle = sentence.lower(), claim.lower().strip()
    if len(needle) <= 4:  # a number (in digits or words: "three and a half") or a short name: as a whole token
        return any(re.search(rf"(?<![\w.-]){re.escape(form)}(?![\w-])", text) is not None
                   for form in (needle, NUMBER_WORDS.get(needle, needle)) for text in (low, digits(low)))
    low, needle = _plain(sentence), _plain(claim)
    return needle in low or len(low) >= 8 and low in needle or needle in _plain(digits(sentence))  # "3.5 hours ago"


def verified_text(text: str, report: GroundingReport) -> str:
    """``text`` without the sentences a failed check is about. A failed yes/no lead takes its whole
    sentence with it: "Yes — X is operational" says the same thing twice."""
    failed = [check for check in report.failures if check.kind not in ("part_coverage", "lead")]
    lead_failed = any(check.kind == "lead" for check in report.failures)
    kept = []
    for sentence in sentences(text):
        if any(_mentions(sentence, check.claim) for check in failed) or lead_failed and read.LEAD_WORD.match(sentence):
            continue
        kept.append(sentence)
    return "\n".join(kept)


def verdict(value: float, *, attempt: int, thresholds: Thresholds, can_regenerate: bool,
            kept: str) -> GroundingVerdict:
    if value >= thresholds.pass_at:
        return "pass"
    if value >= thresholds.block_below and can_regenerate and attempt == 1:
        return "regenerate"
    return "partial" if kept.strip() else "block"


def grounding_report(text: str, results: Sequence[TaskResult], *, attempt: int, thresholds: Thresholds,
                     can_regenerate: bool, **context: object) -> GroundingReport:
    """Evaluate ``text`` and decide: pass, regenerate (once), partial or block. An empty answer is blocked."""
    if not text.strip():
        empty = GroundingCheck.of("part_coverage", "(no answer)", False, "no answer was written from the evidence",
                       "the answer itself (none could be written from the data)")
        return GroundingReport(score=0.0, verdict="block", attempt=attempt, checks=[empty])
    try:
        checks = evaluate(text, results, **context)  # type: ignore[arg-type]
    except Exception:  # a bug in a reading must not publish the answer unchecked, nor lose the evidence
        logger.exception("grounding checks failed on an answer")
        unread = GroundingCheck.of("part_coverage", "(the answer)", False, "the checks could not read this answer",
                                   "the answer itself (the checks could not read it)")
        return GroundingReport(score=0.0, verdict="block", attempt=attempt, checks=[unread])
    value = score(checks)
    report = GroundingReport(score=value, verdict="pass", attempt=attempt, checks=checks)
    kept = verified_text(text, report) if value < thresholds.pass_at else text
    return report.model_copy(update={"verdict": verdict(value, attempt=attempt, thresholds=thresholds,
                                                        can_regenerate=can_regenerate, kept=kept), "kept": kept})


def checked_aspects(trail: RunTrail) -> list[str]:
    """The final review's missing aspects that may be shown: the deterministic gaps (the user's own words
    and a reason from code), and the model's own notes only when every id and number in them is backed."""
    if not trail.reviews:
        return []
    gaps = {gap.describe() for gaps in trail.gaps for gap in gaps}
    index = EvidenceIndex.build(trail.results, question=trail.question)
    return [aspect for aspect in trail.reviews[-1].missing_aspects
            if aspect in gaps or all(check.passed for check in (*check_identifiers(aspect, index, ()),
                                                                 *check_numbers(aspect, index)))]
