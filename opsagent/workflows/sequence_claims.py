"""Which came first, said in words: "the failures started right after the firewall change went in", "INC… was
opened before Databricks posted the status incident".

Both sides are events the rows date: a pipeline's failures (the first failed run shown), a ticket's opening, a
change's window (its start — "went in", "started" — or its end — "closed", "finished"), a status page's incident.
The sentence is true only when the moments are in the order it says; a side the rows do not date is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from opsagent.contracts.grounding import GroundingCheck
from opsagent.tools.catalog import RECORDS, health_tools, tool_spec
from opsagent.tools.identifiers import TICKET
from opsagent.tools.timewindow import iso_moment
from opsagent.tools.vocabularies import RUN_STATUS
from opsagent.workflows.claim_checks import record_window, row_values
from opsagent.workflows.claims import PIPELINE, clauses, sentences
from opsagent.workflows.evidence_index import EvidenceIndex
from opsagent.workflows.fitting import covers

ORDER = re.compile(r"\b(?P<verb>started|began|begun|kicked in|showed up|appeared|(?:was |were )?(?:opened|raised|logged|"
                   r"created)|came in|failed|hit)\s+(?:(?P<near>right|just|shortly|soon|immediately|only|minutes|hours)\s+)?"
                   r"(?P<relation>after|once|as soon as|before|ahead of|prior to)\s+(?P<other>[^.;:!?]{3,80})",
                   re.IGNORECASE)
"""One event placed before or after another ("started right after the change went in", "was opened before …")."""
NEGATED = re.compile(r"\b(?:not|never|didn't|did not|wasn't|was not|weren't|were not|no)\b", re.IGNORECASE)
ENDED = re.compile(r"\b(?:ended|closed|finished|completed|was over|wrapped up|was done)\b", re.IGNORECASE)
STATUS_PAGE = re.compile(r"\b(?:status (?:page|incident)|posted|acknowledged it|"
                         rf"(?:{'|'.join(re.escape(platform) for platform in health_tools())})['’]s incident)\b", re.IGNORECASE)
"""The status page's own incident ("before Databricks posted the status incident")."""
FAILURES = re.compile(r"\bfail(?:ures?|ing|ed)\b|\berrors?\b", re.IGNORECASE)
IT_WENT_IN = re.compile(r"\s*(?:it|that|this)\s+(?:went in|went live|started|began|kicked off|landed|was implemented|"
                        r"was deployed|was applied|was rolled out|opened|closed|ended|finished|completed)\b", re.IGNORECASE)
"""A pronoun for the change just named, with what its window did."""
FAILED_AGAIN = re.compile(r"failed|hit", re.IGNORECASE)
"""A failure said, not a start ("failed after", against "the failures started after")."""
NEAR = timedelta(hours=3)
"""How soon "right after" is: a failure three hours on is no longer "right after" the change."""


def _window_edge(index: EvidenceIndex, key: str, end: bool) -> datetime | None:
    window = record_window(index, key)
    return window[1 if end else 0] if window else None


def _failures_shown(index: EvidenceIndex, pipelines: list[str]) -> list[datetime]:
    """The failed runs the run searches show of those pipelines (of the one pipeline the rows show failing), by start."""
    failed = [(str(row.get("pipeline_name", "")).lower(), moment) for item in _run_searches(index) for row in item.rows
              if row_values(item, row, RUN_STATUS) & {"failed"} and (moment := iso_moment(row.get("start")))]
    named = [moment for name, moment in failed if name in pipelines] if pipelines else \
        [moment for _, moment in failed] if len({name for name, _ in failed}) == 1 else []
    return sorted(named)


def _run_searches(index: EvidenceIndex) -> list:
    return [item for item in index.items if (spec := tool_spec(item.tool)) and spec.record == "run" and item.answered]


def _status_incident(index: EvidenceIndex) -> datetime | None:
    """When the one status-page incident the evidence holds started."""
    starts = {moment for row in index.records if row.get("kind") == "incident" and
              (moment := iso_moment(row.get("started_at") or row.get("created_at")))}
    return next(iter(starts)) if len(starts) == 1 else None


def _changes(index: EvidenceIndex) -> list[str]:
    prefix = RECORDS["change"].id_prefix or "CHG"
    return sorted({str(row["number"]).lower() for row in index.records if str(row.get("number", "")).upper().startswith(prefix)})


def _moment(side: str, index: EvidenceIndex, *, subject: bool, verb: str = "", sentence: str = "") -> datetime | None:
    """When the event one side names happened: a ticket's opening, a change's start or end, a pipeline's first
    failure, a status incident's start; ``None`` when the side names none the rows date."""
    tickets = [match.group().lower() for match in TICKET.finditer(side)]
    pipelines = list(dict.fromkeys(match.group().lower() for match in PIPELINE.finditer(side)))
    if tickets:
        key = tickets[0]
        if key.startswith("chg"):
            return _window_edge(index, key, end=bool(ENDED.search(side)))
        return index.opened_at(key) if subject is False or re.search(r"open|rais|logg|creat|came", verb, re.IGNORECASE) \
            else None
    if pipelines or subject and FAILURES.search(side):
        failures = _failures_shown(index, pipelines) if FAILURES.search(side) or FAILURES.search(verb) else []
        return failures[0] if failures else None  # the first failure shown (a run search's window may start later)
    if not subject and (re.search(r"\bchange\b", side, re.IGNORECASE) or IT_WENT_IN.match(side)):
        # "the firewall change", "once it went in": the one change the sentence names, else the evidence holds
        changes = [key for key in (match.group().lower() for match in TICKET.finditer(sentence)) if key.startswith("chg")]
        changes = list(dict.fromkeys(changes)) or _changes(index)
        return _window_edge(index, changes[0], end=bool(ENDED.search(side))) if len(changes) == 1 else None
    if not subject and STATUS_PAGE.search(side):
        return _status_incident(index)
    return None


def check_sequences(text: str, index: EvidenceIndex) -> list[GroundingCheck]:
    """Each "A … after/before B" whose two sides the rows date: in that order (and near, for "right after")."""
    checks = []
    for sentence, clause in ((sentence, clause) for sentence in sentences(text) for clause in clauses(sentence)):
        match = ORDER.search(clause)
        if match is None or NEGATED.search(clause[:match.end("relation")]) or clause.rstrip().endswith("?"):
            continue
        first = _moment(clause[:match.end("verb")], index, subject=True, verb=match.group("verb"))
        second = _moment(match.group("other"), index, subject=False, sentence=sentence)
        if first is None or second is None:
            continue
        after = match.group("relation").lower() in ("after", "once", "as soon as")
        near = (match.group("near") or "").lower() in ("right", "just", "shortly", "soon", "immediately", "minutes")
        subject = clause[:match.end("verb")]
        if FAILED_AGAIN.match(match.group("verb")) and (PIPELINE.search(subject) or FAILURES.search(subject)):
            # "it also failed after INC… was opened": any failure shown on that side, not the first
            shown = _failures_shown(index, [found.group().lower() for found in PIPELINE.finditer(subject)])
            first = next((moment for moment in shown if (moment >= second - timedelta(minutes=5)) == after), first)
        elif (PIPELINE.search(subject) or FAILURES.search(subject)) and first >= second and not any(
                covers(item, [(second, first)]) for item in _run_searches(index)):
            continue  # "the failures started after CHG…": no run search reaches back to the other event, so an earlier
            # failure would not be shown (a failure shown on the wrong side of it is judged)
        ok = (second - timedelta(minutes=5) <= first and (not near or first - second <= NEAR)) if after else first < second
        checks.append(GroundingCheck.of(
            "placement", clause, ok, f"the rows date the first at {first:%a %d %b %H:%M} and the second at "
            f"{second:%a %d %b %H:%M}: not {match.group('near') + ' ' if match.group('near') else ''}"
            f"{match.group('relation').lower()} it", "an order of events the times in the data contradict"))
    return checks


EACH_DAY = re.compile(r"\bfail(?:ed|s|ing)?\s+(?:on\s+)?(?P<days>both days|each day|each of the (?:two|2) days|every day"
                      r"|both yesterday and today|both today and yesterday|yesterday and today|today and yesterday"
                      r"|yesterday as well as today|today as well as yesterday)\b", re.IGNORECASE)
"""A pipeline said to have failed on each of two days ("failed on both days", "failed yesterday and today")."""


def check_each_day(text: str, index: EvidenceIndex, question: str) -> list[GroundingCheck]:
    """"pl_x failed on both days": a failed run of it inside each day (the days said, else the question's), in a
    search that covered the day."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    now = index.now
    checks = []
    for sentence in sentences(text) if now is not None else ():
        match = EACH_DAY.search(sentence)
        if match is None or NEGATED.search(sentence[:match.start()]):
            continue
        said = "yesterday" in match.group("days").lower()
        days = sorted({(mention.start, mention.end) for mention in find_times("yesterday and today" if said else question, now)
                       if mention.point is None and mention.end - mention.start <= timedelta(days=1)})
        pipelines = list(dict.fromkeys(found.group().lower() for found in PIPELINE.finditer(sentence)))
        runs = [item for item in index.items if (spec := tool_spec(item.tool)) and spec.record == "run"]
        if len(days) < 2 or not runs or not all(covers(item, days, now) for item in runs):
            continue
        # each pipeline named on each day (one failing both days backs no other); naming none, the one shown failing
        missing = sorted({start for each in (pipelines or [""]) for start, end in days
                          if not any(start <= moment < end for moment in _failures_shown(index, [each] if each else []))})
        checks.append(GroundingCheck.of("placement", sentence, not missing,
                                        f"no failed run shown on {', '.join(f'{day:%a %d %b}' for day in missing)}",
                                        "a failure on each day that the runs do not show"))
    return checks
