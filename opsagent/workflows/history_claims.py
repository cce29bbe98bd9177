"""What an answer says of a pipeline's past, against the history the tools returned: "it has failed like this
before, but only once", "this is the first time", "it last failed on 28 Dec".

A history (``get_pipeline_history``) groups a pipeline's failures by error, with every start; failed runs listed
by a search count too. "Before" is counted the ways people count it (before the latest failure, before today, or
all of them); "like this" narrows to the latest run's error, an error the sentence names to that one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from opsagent.backends.pipeline_records import squashed
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.vocabulary import PLATFORM_WORDS
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.claims import record_keys, says
from opsagent.workflows.evidence_index import EvidenceIndex, digits
from opsagent.workflows.failure_history import ANY_KIND, error_text
from opsagent.workflows.time_claims import DATE, DAY_AT, clock_of, nested_records, on_day, said_clocks

FIRST_FAILURE = re.compile(
    r"\b(?:(?:is|was|are|were|it's|its) (?:the |its )?first (?:[\w-]+ ){0,3}?(?:time|failures?|timeouts?)|for the first time|first time (?:[\w-]+ ){0,2}"
    r"(?:has |have )?(?:failed|happened)|one-off|one off|(?:never|not|\w+n't) (?:failed|happened)(?: like (?:this|that)| "
    r"that way| the same way)? before|no (?:earlier|previous|prior|other) failures?"
    r"|(?:never|not|\w+n't) (?:failed|happened)(?: (?:with|like) (?:this|that|the same) (?:error|code|way))? in the "
    r"(?:[\w-]+ ){0,4}?history)\b", re.IGNORECASE)
"""A failure said to be the first of its kind ("a one-off", "this is the first time pl_x failed", "hasn't failed
before"); not the first of several ("the first time on 31 December")."""
PLURAL_FIRST = re.compile(r"\b(\d+)\s+(?:[\w'-]+\s+){0,2}?failures\b.*\b(?:are|were) (?:the |its )?first\b",
                          re.IGNORECASE)
RATHER_THAN = re.compile(r"\b(?:rather than|instead of|not|no longer|isn't|is not|wasn't|was not)\s+(?:just\s+)?(?:an?\s+)?$",
                         re.IGNORECASE)
EARLIER_ONE_OFF = re.compile(r"\bbefore\b[^.;:]{0,20}\bone[- ]offs?$", re.IGNORECASE)
ALIKE = re.compile(r"\b(?:like (?:this|that)|th(?:is|at) way|same way|same error|this error)\b", re.IGNORECASE)


def _pipelines_of(unit: str, index: EvidenceIndex, only: str | None) -> list[str]:
    """The pipelines a sentence about the past is about: those it names, else the answer's one pipeline, else the
    one pipeline whose history was fetched, else the answer's one record."""
    named = [key for key in record_keys(unit) if key.startswith("pl_")]
    # (a run the answer looked up is a pipeline's: its history, when one was fetched, is what the past is about)
    return named or ([only] if only and only.startswith("pl_") else index.sole_history() or ([only] if only else []))


def check_first_failures(units: Iterable[str], index: EvidenceIndex, *, only: str | None) -> list[GroundingCheck]:
    """"The first time pl_x failed" against the failures its history counts (those like the latest, when the
    sentence says "like this"): two or more, and it was not the first."""
    checks = []
    for unit in (unit for unit in units if (first := FIRST_FAILURE.search(unit)) and not RATHER_THAN.search(
            unit[:first.start()]) and not EARLIER_ONE_OFF.search(unit[:first.end()]) and not STREAK.search(unit, first.end())):
        # "failing intermittently rather than a one-off": the one-off is denied; "it happened before as a one-off":
        # the earlier failure was the one-off; "the first time it failed twice in a row": the first streak
        for key in _pipelines_of(unit, index, only):
            histories = [row for _, row in index.rows_for(key) if isinstance(row.get("failure_groups"), list)]
            if not histories:
                continue  # no history fetched: what came before is not known (the "none" checks judge that)
            groups = _groups_said(histories, unit)
            failures = sum(int(group.get("count") or 0) for group in groups)
            said = PLURAL_FIRST.search(digits(unit))  # "today's 2 failures are the first …": 2 may be all there are
            checks.append(GroundingCheck.of("history", unit, failures < (int(said.group(1)) + 1 if said else 2),
                                            f"{key}'s history counts {failures} such failures: not its first",
                                            "a failure called the first while the history shows earlier ones"))
    return checks


ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
            "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
FIRST_OF_KIND = re.compile(rf"\b(?P<ordinal>{'|'.join(ORDINALS)})\s+(?P<kind>(?:[\w-]+\s+){{0,3}}?)"
                           r"(?P<noun>time|failures?|timeouts?|errors?)\b", re.IGNORECASE)
NTH_FAILURE = re.compile(rf"(?:\b(?:this|it|that)\s+(?:is|was)\s+(?:the|its)\s+|\b(?:it|that)['’]s\s+(?:the|its)\s+|\bits\s+)"
                         rf"{FIRST_OF_KIND.pattern}", re.IGNORECASE)
"""A failure said to be the Nth of its kind, of "this" or "it" ("this is its third 2108 failure this week"), not a
place in a list of several pipelines' ("pl_x was the fifth failure today")."""


def _groups_said(histories: list[dict], unit: str) -> list[dict]:
    """The failure groups a sentence speaks of: those like the latest run when it says "like this", those whose
    error holds the kind it names ("the first Snowflake timeout" — the run's own, "this", whose message was cut
    before saying it, too)."""
    kind = _kind_words(unit)
    return [group for row in histories for group in row["failure_groups"] if isinstance(group, dict)
            and (group.get("like_the_run") or not ALIKE.search(unit)) and (all(
                squashed(word) in squashed(error_text(group))
                for word in kind) or group.get("like_the_run") and str(group.get("error_message")).endswith("…"))]


def check_nth_failures(units: Iterable[str], index: EvidenceIndex, *, only: str | None,
                       now: datetime | None) -> list[GroundingCheck]:
    """"This is its third 2108 failure this week": that many failures of the kind in the window said (in the whole
    history without one), when the history lists every start of them there."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    checks = []
    for unit in units:
        said = NTH_FAILURE.search(unit)
        if said is None or now is None or ORDINALS[said.group("ordinal").lower()] < 2:
            continue  # (the first is FIRST_FAILURE's)
        after = re.sub(r"\([^()]*\)", " ", unit[said.end():])[:40]  # its own window, not an aside's day ("(the first
        window = next((mention for mention in find_times(after, now) if mention.end), None)  # was 28 Dec)")
        for key in _pipelines_of(unit, index, only):
            histories = [row for _, row in index.rows_for(key) if isinstance(row.get("failure_groups"), list)]
            groups = _groups_said(histories, unit)
            starts = [moment for group in groups for moment in map(iso_moment, group.get("starts") or []) if moment]
            listed = all(len(group.get("starts") or []) >= int(group.get("count") or 0) for group in groups)
            if not histories or window is None and not listed:
                continue
            if window is not None:
                if not listed and min(starts, default=now) > window.start:
                    continue  # the starts listed do not reach back to the window's start
                count = sum(window.start <= moment < window.end for moment in starts)
            else:
                count = sum(int(group.get("count") or 0) for group in groups)
            wanted = ORDINALS[said.group("ordinal").lower()]
            checks.append(GroundingCheck.of("history", said.group(), count == wanted,
                                            f"{key}'s history has {count} such failures"
                                            f"{' ' + window.text if window else ''}, not {wanted}",
                                            "how many times a failure happened, which the history contradicts"))
    return checks


def _kind_words(unit: str) -> list[str]:
    """The kind of failure a "first" names ("the first Snowflake timeout": timeout), without words that name no
    kind of error (a platform, "real", "such")."""
    said = FIRST_OF_KIND.search(unit)
    words = [*re.split(r"[\s-]+", said.group("kind").lower()), said.group("noun").lower().rstrip("s")] if said else []
    return [word for word in words if word and word not in ANY_KIND and word not in PLATFORM_WORDS
            and word not in ("time", "failure", "error")]


TIMES_BEFORE = re.compile(r"\b(?:failed|happened|seen (?:it|this|that)|occurred)\b[^.;]{0,30}?\bbefore\b[^.;]{0,12}?"
                          r"(?<!\w)(?P<said>once|twice|\d+\s+times)\b|(?<!\w)(?P<said2>once|twice|\d+\s+times)\s+before\b",
                          re.IGNORECASE)
"""How many times a failure happened before ("it has happened before, but only once", "failed twice before")."""


FAILING = re.compile(r"\b(?:fail(?:ed|s|ure|ures)?|happened|occurred|seen|timed out|errored|crashed|broke|died)\b",
                     re.IGNORECASE)


def check_times_before(units: Iterable[str], index: EvidenceIndex, *, only: str | None,
                       now: datetime | None) -> list[GroundingCheck]:
    """"It failed like this twice before": as many failures as the history counts before its latest one, before
    today, or in all (the ways people count "before")."""
    checks = []
    today = now.replace(hour=0, minute=0, second=0, microsecond=0) if now else None
    for unit in units:
        match = TIMES_BEFORE.search(digits(unit)) if FAILING.search(unit) else None  # not "retried 3 times before"
        for key in _pipelines_of(unit, index, only) if match else []:
            histories = [row for _, row in index.rows_for(key) if isinstance(row.get("failure_groups"), list)]
            groups = [group for row in histories for group in row["failure_groups"] if isinstance(group, dict)]
            named = [group for group in groups if any(says(unit, str(group.get(field) or "-"))
                                                      for field in ("error_code", "failed_activity"))]
            # what "before" counts: the error the sentence names, else the latest run's ("like this"), else any
            chosen = named or [group for group in groups if group.get("like_the_run") or not ALIKE.search(unit)]
            like = [group for group in groups if group.get("like_the_run")]
            counts: set[int] = set()
            for kept in [chosen] if named else [chosen, like]:
                starts = sorted(moment for group in kept for start in group.get("starts") or []
                                if (moment := iso_moment(start)))
                # before the latest, before today, or every one the history shows ("4 times in 14 days")
                counts |= {len(starts) - 1, len(starts), sum(moment < today for moment in starts)} \
                    if starts and today else set()
            if histories and not groups:
                counts = {0}  # a history with no failure in it: none before, however counted
            if not counts:
                continue
            said = (match.group("said") or match.group("said2")).lower()
            count = {"once": 1, "twice": 2}.get(said) or int(said.split()[0])
            checks.append(GroundingCheck.of("history", unit, count in counts,
                                            f"{key}'s history shows {' or '.join(map(str, sorted(counts)))} such "
                                            f"failures before, not {count}", "a count of past failures the history contradicts"))
    return checks


LAST_FAILURE = re.compile(r"\b(?:(?:last|latest|most recent)\s+(?:failed|failure|failed run|happened|occurred|broke|errored)"
                          r"|previous\s+(?:one|failure|failed run|time))\b"
                          r"(?:\s+(?:before|prior to)\s+[^,.;:]{1,30}?(?=\s+(?:was|is|came|on|at)\b))?(?:\s+was)?\s*:?\s*"
                          r"(?:was\s+)?(?:on\s+|at\s+)?", re.IGNORECASE)
BEFORE_TODAY = re.compile(r"\b(?:before|prior to|earlier than)\s+(?:today|this morning|tonight)\b", re.IGNORECASE)
OTHER_BOUND = re.compile(r"\b(?:before|prior to|earlier than|until|till)\s+(?=\w)", re.IGNORECASE)
"""A bound the words give ("before that", "until the 8th"); a question's bare "failed before?" gives none."""
BEFORE_THOSE = re.compile(r"\b(?:before|prior to|earlier than)\s+(?:that|then|those|these|them)\b", re.IGNORECASE)
"""A bound set by the failures just said ("Two are today (03:21 and 07:20); before that it last happened on …")."""


def _said_bound(said_before: str, failures: list[datetime]) -> datetime | None:
    """The earliest of the failures a text names by their clock (each clock as its latest failure), if any."""
    clocks = said_clocks(said_before)
    named = [max(moment for moment in failures if clock_of(moment) == clock) for clock in clocks
             if any(clock_of(moment) == clock for moment in failures)]
    return min(named) if named else None


def check_last_failures(sentences: Iterable[str], index: EvidenceIndex, *, question: str,
                        now: datetime | None) -> list[GroundingCheck]:
    """"pl_x last failed on 28 Dec at 04:01": that failure is the pipeline's latest in the evidence before now
    (before today, when the sentence or the question says so) — a later failure the history shows contradicts it."""
    checks = []
    for sentence in sentences:
        match = LAST_FAILURE.search(sentence)
        day = DATE.search(sentence, match.end(), match.end() + 16) if match and now is not None else None
        if match is None or day is None or now is None:
            continue
        keys = [key for key in record_keys(sentence) if key.startswith("pl_")] or _failed_pipelines(index)
        failures = sorted(failures_of(index, keys[0])) if len(keys) == 1 else []
        those = BEFORE_THOSE.search(sentence, 0, match.start())
        bound = now.replace(hour=0, minute=0, second=0, microsecond=0) if BEFORE_TODAY.search(
            f"{sentence} {question}") else (those and _said_bound(sentence[:those.start()], failures)) or now
        if bound == now and (OTHER_BOUND.search(sentence) or OTHER_BOUND.search(question)):
            continue  # "before that" with nothing said before it, "until the 8th": a bound this check cannot place
        clock = DAY_AT.match(sentence, day.end())
        is_that_day = on_day(day)
        said = [moment for moment in failures if is_that_day(moment) and (
            clock is None or clock_of(moment) == f"{int(clock.group(1)):02d}:{clock.group(2)}")]
        later = [moment for moment in failures if said and said[-1] < moment < bound]
        if said:
            checks.append(GroundingCheck.of("history", sentence, not later,
                                            f"{keys[0]} failed later, at {later[-1]:%a %d %b %H:%M}" if later else "",
                                            "a \"last failure\" the history contradicts"))
    return checks


def _failed_pipelines(index: EvidenceIndex) -> list[str]:
    """The pipelines whose failures the evidence shows: the one a sentence naming none is about, when alone."""
    names = {str(row["pipeline_name"]).lower() for row in index.records if row.get("pipeline_name")}
    return sorted(name for name in names if failures_of(index, name))


def failures_of(index: EvidenceIndex, pipeline: str) -> set[datetime]:
    """When ``pipeline`` failed, by every row the evidence shows of it: failed runs and a history's failure groups."""
    found: set[datetime] = set()
    for _, row in index.rows_for(pipeline):
        for record in nested_records(row):
            starts = record.get("starts") if record.get("error_code") else [record.get("start")] \
                if record.get("status") == "Failed" else []
            found |= {moment for start in starts or [] if (moment := iso_moment(start))}
    return found


USUAL_LENGTH = re.compile(r"(?<!than )(?<!vs )\b(?P<word>usually|normally|typically|on average|median|usual|typical|normal)"
                          r"\b[\s:=~]*"
                          r"(?:(?:is|was|of|at|in|for|around|about|roughly|approximately|runs?|takes?|took|lasts?|time|"
                          r"duration|length|runtime|done|finish(?:es|ed)?|complete[sd]?)\s+){0,3}"
                          r"(?P<minutes>\d+(?:\.\d+)?)\s*(?:min|mins|minutes)\b"
                          r"(?!\s+(?:longer|shorter|more|less|over|past|above|below|beyond|slower|faster|late|early)\b)",
                          re.IGNORECASE)
"""A pipeline's usual run length ("successful runs usually take about 37 min", "is normally done in 23 minutes", "a
median of 45.5 min")."""


def _spread_of(sentence: str, at: int, spreads: dict[str, dict]) -> list[dict]:
    """The history a usual length at ``at`` is about: the last pipeline the sentence names before it (whole or
    without its prefix: "ingest_sales"), else the only history fetched, else any."""
    named = [(found.start(), name) for name in spreads for form in {name, name.removeprefix("pl_")}
             for found in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", sentence[:at], re.IGNORECASE)]
    if named:
        return [spreads[max(named)[1]]]
    return list(spreads.values())


def check_usual_lengths(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """What a pipeline's runs usually take is its own history's middle half (the median when "median" is said), not
    its shortest or longest run, another pipeline's, or any other number of minutes the rows hold."""
    spreads = {str(row.get("pipeline_name", "")).lower(): row["durations"] for item in index.items for row in item.rows
               if isinstance(row.get("durations"), dict) and all(isinstance(row["durations"].get(key), (int, float))
                                                                 for key in ("median_min", "p25_min", "p75_min"))}
    checks = []
    for sentence in (digits(sentence) for sentence in sentences if spreads):
        for match in USUAL_LENGTH.finditer(sentence):
            said = float(match.group("minutes"))
            median = match.group("word").lower() == "median"
            about = _spread_of(sentence, match.start(), spreads)
            ok = any(abs(said - spread["median_min"]) <= 0.5 if median else
                     spread["p25_min"] - 0.5 <= said <= spread["p75_min"] + 0.5 for spread in about) or \
                len(spreads) > 1 and abs(said - sum(spread["median_min"] for spread in spreads.values())) <= 0.5
            # (a sum of the medians: "a combined median of 112 min")
            shown = "; ".join(f"median {spread['median_min']:g}, middle half {spread['p25_min']:g}–{spread['p75_min']:g} min"
                              for spread in about)
            checks.append(GroundingCheck.of("number", match.group(), ok, f"the history says {shown}, not {said:g} min",
                                            "a usual run length the history contradicts"))
    return checks


STREAK = re.compile(r"(?<![\w.:])(?P<said>\d+|twice)\s+(?:(?:failures?|failed runs?|runs?|times|fails)\s+)?"
                    r"(?:in a row|consecutive(?:ly)?|back[- ]to[- ]back|straight)\b"
                    r"|(?<![\w.:])(?P<said2>\d+)\s+(?:consecutive|back[- ]to[- ]back|straight)\s+(?:failures|failed runs|fails)\b",
                    re.IGNORECASE)
"""A streak of failures ("two in a row today", "failed 3 times in a row", "2 consecutive failures")."""
