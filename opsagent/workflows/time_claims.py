"""Times said of one record or platform, and "the latest / the oldest is …".

A clock time in a sentence about one record ("CHG… closes at 10:00", "Databricks has been degraded since
03:00") must be one of that record's own moments — its fields, a run's end (start plus duration), a time
its own text gives — or now, or a time the question gave. "The latest incident is INC…" must not be
contradicted by a later row of the same kind in the evidence (an earlier one for "the oldest").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.times import DAY_NAME, WEEKDAY_STEMS
from opsagent.tools.catalog import tool_spec
from opsagent.tools.identifiers import RUN_ID, TICKET
from opsagent.tools.timewindow import UNIT_WORD, iso_moment, unit_minutes
from opsagent.tools.vocabularies import HEALTH_STATUS
from opsagent.workflows.claim_checks import row_moments
from opsagent.workflows.count_claims import fixed_status
from opsagent.workflows.claims import CLOCK_TIME, OPENS_WITH_IT, RUN_WORDS, hh_mm, record_keys
from opsagent.workflows.evidence_index import EvidenceIndex, digits, moments_of, parts_of, record_of_tool
from opsagent.workflows.negative_claims import NO_UPDATE, UPDATE_FIELDS

CLOCK = re.compile(rf"(?<!around )(?<!about ){CLOCK_TIME.pattern}(?!\s*(?:am|pm|a\.m|p\.m))", re.IGNORECASE)
"""A 24-hour clock time said exactly (a 12-hour one, or "around 02:45", is not checked to the minute)."""
ORDINAL = re.compile(r"\b(?P<order>latest|newest|most recent|oldest|earliest)\b[^.;:]{0,40}?\b(?:is|was|:)\s+"
                     rf"(?P<key>{TICKET.pattern})", re.IGNORECASE)
LATEST = {"latest", "newest", "most recent"}
LENGTH_AFTER = r"(?!\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|just\s+)?\d+(?:\.\d+)?\s*(?:min|mins|minutes?|h|hours?|s|seconds?)\b)"
""""failed after 25 minutes": a length, not another event it is placed against."""
OTHER_EVENTS = re.compile(rf"\b(?:failures?|failed|inside|during|(?:before|after){LENGTH_AFTER}|within)\b", re.IGNORECASE)
"""A sentence that places other events against a record ("the 08:12 failure falls inside CHG…'s window"): its
times are those events' (``check_placements`` reads it), not the record's own."""


PLACING = re.compile(rf"\b(?:inside|during|(?:before|after){LENGTH_AFTER}|within)\b", re.IGNORECASE)


def clock_of(moment: datetime) -> str:
    return f"{moment.hour:02d}:{moment.minute:02d}"


def said_clocks(text: str) -> set[str]:
    """The 24-hour clock times a text says exactly ("17:40")."""
    return hh_mm(CLOCK, text)


def _platform_rows(index: EvidenceIndex, platform: str) -> list[dict[str, Any]]:
    return [row for item in index.items if (spec := tool_spec(item.tool)) is not None
            and spec.platform.lower() == platform for row in item.rows]


def _subject_rows(sentence: str, index: EvidenceIndex) -> list[dict[str, Any]] | None:
    """The rows of the one record (or platform) a sentence is about; ``None`` when it names none or several."""
    keys = record_keys(sentence)
    if len(keys) == 1:
        return [row for _, row in index.rows_for(keys[0])] or None
    platforms = {spec.platform.lower() for item in index.items if (spec := tool_spec(item.tool)) and spec.platform
                 and (re.search(rf"\b{re.escape(spec.platform)}\b", re.sub(r"\([^()]*\)", " ", sentence), re.IGNORECASE)
                      or _quotes_a_title(sentence, item.rows))}  # not a CI in an aside ("(target snowflake-prod.DWH)");
    # a status page's incident named by its title
    return (_platform_rows(index, platforms.pop()) or None) if not keys and len(platforms) == 1 else None


def _quotes_a_title(sentence: str, rows: Sequence[dict[str, Any]]) -> bool:
    """The sentence gives a status page row's own title ("Incident *Delays starting job clusters in …*")."""
    low = sentence.lower()
    return any(isinstance(title, str) and len(title) > 20 and title.lower() in low
               for row in rows for title in (row.get("name"), row.get("title")))


def _health_names(index: EvidenceIndex) -> set[str]:
    """What the status pages name: platforms, components, regions (each part of "West Europe - Azure Databricks")."""
    names: set[str] = set()
    for item in index.items:
        if (spec := tool_spec(item.tool)) is None or not spec.platform:
            continue
        names.add(spec.platform)
        for row in item.rows:
            parts = [row.get("name"), row.get("region"), *(row.get("components") or [])]
            names |= {piece.strip() for part in parts if isinstance(part, str) for piece in part.split(" - ")}
    return {name.lower() for name in names if len(name) > 3}


def _health_said(sentence: str, health: set[str]) -> bool:
    """The sentence names something the status pages show (``health``: a platform, a component, a region)."""
    low = sentence.lower()
    return any(re.search(rf"\b{re.escape(name)}\b", low) for name in health)


def _told_of_health(sentence: str, keys: Sequence[str], health: set[str]) -> set[str]:
    """The clock times written after a status page's name rather than the record's ("INC… (opened 03:50) matches
    Jobs in Azure West Europe, degraded since 02:00"): the platform's times, checked against its rows. A name in the
    record's own aside (its title) is the record's, and only a status said between the name and the time makes it
    the page's ("INC… — slow queries on Snowflake …, opened 08:10" is the ticket's)."""
    low = sentence.lower()
    outside = re.sub(r"\([^()]*\)", lambda aside: " " * len(aside.group()), low)  # "CHG… (Databricks runtime …)": its own
    marks = [(match.end(), False) for key in keys for match in re.finditer(re.escape(key), low)]
    marks += [(match.end(), True) for name in health
              for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", outside)]
    told = set()
    for match in CLOCK.finditer(sentence):
        last = max((mark for mark in marks if mark[0] <= match.start()), default=None)  # the name nearest before it
        if last is None or not last[1]:
            continue
        between = sentence[last[0]:match.start()]
        said = next(HEALTH_STATUS.find(between), None) or SINCE.search(sentence, last[0], match.end())
        if said and not OWN_EVENT.search(between):
            told |= said_clocks(match.group())
    return told


OWN_EVENT = re.compile(r"\b(?:opened|raised|logged|created|started|began|failed|finished|ended|updated|resolved|closed|"
                       r"restored|fixed)\b",
                       re.IGNORECASE)
"""… unless the record's own event comes first ("… on Snowflake warehouse WH_FINANCE, opened 08:10")."""


EVENT_AT = re.compile(r"\b(?:started|opened|began|kicked off|was raised|failed)\s+(?:at\s+)?([01]?\d|2[0-3]):([0-5]\d)\b",
                      re.IGNORECASE)
"""A record's own event at a clock time ("it started 05:12")."""
WINDOW_SAID = re.compile(r"\bwindows?\b", re.IGNORECASE)
CLOCK_RANGE = re.compile(rf"{CLOCK_TIME.pattern}\s*(?:UTC\s*)?(?:-|–|—|to|until|till)\s*{CLOCK_TIME.pattern}", re.IGNORECASE)
"""Two clock times that bound a window ("09:00–14:00", "05:00 to 07:00")."""
ADVICE = re.compile(r"\b(?:if|worth|could|should|might|consider|try|check again|look again|wait)\b", re.IGNORECASE)
"""A sentence of advice or a condition: a time in it still to come is not a time the data must show."""


def check_clock_times(sentences: Iterable[str], index: EvidenceIndex, *, question: str,
                      now: datetime | None, earlier: str = "") -> list[GroundingCheck]:
    """Each clock time said of one record is one of its own moments (or now, the question's, a searched window's);
    one said of no one record may also be a time the conversation gave before (``earlier``) — never a record's."""
    checks = []
    given = _given_clocks(index, question, now)
    told = given | said_clocks(earlier)
    anywhere: set[str] | None = None
    health = _health_names(index)  # (what the status pages name: once, not per sentence)
    subject: list[str] = []  # the record the sentence before was about: "CHG… is …. It's planned for 11:00"
    for written in sentences:
        keys = record_keys(written)
        sentence = f"{subject[0]}: {written}" if not keys and len(subject) == 1 and OPENS_WITH_IT.match(written) \
            and TICKET.fullmatch(subject[0]) and not RUN_WORDS.search(written) and not _health_said(written, health) \
            else written  # ("It's no longer failing — the 06:12 run succeeded" after a change: the pipeline's runs;
        # "It's tied to the Jobs degradation that began at 02:00": the status page's time)
        subject = keys if keys else subject if OPENS_WITH_IT.match(written) else []
        said = said_clocks(sentence) - counted_bounds(sentence, index, now)
        if said and now is not None and ADVICE.search(sentence):  # "worth another look after 09:20": advice
            said = {clock for clock in said if clock <= f"{now:%H:%M}"}  # about a time still to come
        keys = record_keys(sentence)
        others = PLACING if len(keys) == 1 and RUN_ID.fullmatch(keys[0]) else OTHER_EVENTS  # a run's "failed" is its own
        rows = _subject_rows(sentence, index) if said and not others.search(sentence) and not (
            WINDOW_SAID.search(sentence) and keys and not keys[0].startswith("chg")) else None  # ("Window is 08:00–11:00
        # …, then check whether INC… can be resolved": a change's window, not the ticket's times)
        if rows and keys and (elsewhere := _told_of_health(sentence, keys, health)):
            health = _clocks(row for item in index.items if (spec := tool_spec(item.tool)) and spec.platform
                             for row in item.rows)
            checks += [GroundingCheck(kind="placement", claim=written, passed=False,
                                      detail=f"{clock} is not a time the status pages show",
                                      public="a time the data does not show") for clock in sorted(elsewhere - health)]
            said -= elsewhere
        if rows and _clocks(rows):  # (a record whose rows show no time — a link's summary — is no subject of one)
            own = _clocks(rows)
            # a time the question gave may be restated — not as the moment of this record's own event
            # ("that's run 3a1a… — it started 05:12" when the question asked for the 05:12 run)
            pinned = {f"{int(hour):02d}:{minute}" for hour, minute in EVENT_AT.findall(sentence)}
            pinned |= {clock for match in CLOCK_RANGE.finditer(sentence) for clock in said_clocks(match.group())}
            # ("planned 09:00–14:00": a window's bounds are the record's, whatever the clock says now)
            for clock in sorted(said - own - (given - pinned)):
                checks.append(GroundingCheck(kind="placement", claim=written, passed=False,
                                             detail=f"{clock} is not one of the times of the record this sentence is "
                                                    f"about ({', '.join(sorted(own)) or 'none shown'})",
                                             public="a time the data does not show for that record"))
            continue
        if said:  # about no one record (or placing events): still a time some row or search shows
            anywhere = evidence_clocks(index.items) if anywhere is None else anywhere
            for clock in sorted(said - anywhere - told):
                checks.append(GroundingCheck(kind="placement", claim=written, passed=False,
                                             detail=f"{clock} is not a time any row or search shows",
                                             public="a time the data does not show"))
    return [*checks, *_check_dated_times(sentences, index, given)]


KEY_EVENT_AT = re.compile(rf"(?P<key>{TICKET.pattern})\s+(?:was\s+|got\s+|has been\s+)?(?:opened|raised|logged|created)\s+"
                          rf"(?:at\s+|on\s+\w+\s+\d+\s+\w+\s+at\s+)?(?P<clock>{CLOCK_TIME.pattern})", re.IGNORECASE)
"""A ticket and the clock time it was opened, in one clause ("… and INC… was opened at 03:00, so roughly 50 minutes
later"): its own opening time, however many other events the sentence places."""


def check_opening_clocks(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"INC… was opened at 03:00" holds for that ticket's own times, in a sentence about several events too."""
    checks = []
    for sentence in sentences:
        for match in KEY_EVENT_AT.finditer(sentence):
            opened = [moment for _, row in index.rows_for(match.group("key").lower())
                      if (moment := iso_moment(row.get("opened_at")))]
            clock = next(iter(said_clocks(match.group("clock"))), None)
            if opened and clock:
                own = {clock_of(moment) for moment in opened}
                checks.append(GroundingCheck(kind="placement", claim=sentence, passed=clock in own,
                                             detail=f"{match.group('key')} was not opened at {clock} ({', '.join(sorted(own))})",
                                             public="a time the data does not show for that record"))
    return checks


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DATE = re.compile(r"\b(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?P<month>" + "|".join(MONTHS) + r")[a-z]*|"
                  r"(?P<month2>" + "|".join(MONTHS) + r")[a-z]*\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?\b|"
                  r"(?P<iso>\d{4}-\d\d-\d\d)|(?P<weekday>" + "|".join(WEEKDAY_STEMS) + r")day)\b", re.IGNORECASE)
"""A calendar day said with a time ("Wed 8 Jan at 04:00", "2025-01-08 04:00", "Wednesday at 04:00")."""


def on_day(match: re.Match[str]) -> Callable[[datetime], bool]:
    if match.group("iso"):
        return lambda moment: moment.strftime("%Y-%m-%d") == match.group("iso")
    if match.group("weekday") and not (match.group("day") or match.group("day2")):
        weekday = WEEKDAY_STEMS.index(match.group("weekday").lower())
        return lambda moment: moment.weekday() == weekday
    day = int(match.group("day") or match.group("day2"))
    month = MONTHS.index((match.group("month") or match.group("month2")).lower()[:3]) + 1
    return lambda moment: (moment.month, moment.day) == (month, day)


RELATIVE_DAY = re.compile(r"\b(?:today|yesterday|tonight|tomorrow|overnight|last night|this (?:morning|afternoon|"
                          r"evening))\b", re.IGNORECASE)


def _nearer_relative_day(sentence: str, date: re.Match[str]) -> bool:
    """The clock time is written nearer to "today" / "yesterday" … than to the date."""
    clock = CLOCK.search(sentence)
    if clock is None:
        return False
    distance = min(abs(clock.start() - date.end()), abs(date.start() - clock.end()))
    return any(min(abs(clock.start() - found.end()), abs(found.start() - clock.end())) < distance
               for found in RELATIVE_DAY.finditer(sentence))


DAY_AT = re.compile(rf",?\s+(?:at\s+)?{CLOCK_TIME.pattern}")
"""The time written right after a day ("6 Jan at 18:00", "2025-01-08 23:10"): the two go together."""


SUPPOSED = re.compile(r"\b(?:would|will)\b[^.;]*\bif\b|\bif\b[^.;]*\b(?:would|will)\b", re.IGNORECASE)
"""A sentence about what would happen if … ("would cross the 2-day mark on Saturday at 05:00 if it's still open")."""


def _check_dated_times(sentences: Iterable[str], index: EvidenceIndex, given: set[str]) -> list[GroundingCheck]:
    """A sentence giving one day and one time ("last green on Wed 8 Jan at 04:00"), or a day with its time written
    right after it: some moment of the evidence is on that day at that time — the right hour on the wrong day is
    still wrong."""
    moments: list[datetime] | None = None
    checks = []
    for sentence in sentences:
        said, days = said_clocks(sentence), [match for match in DATE.finditer(sentence)
                                       if not (match.group("weekday") and DATE.search(sentence[match.end():match.end() + 8]))]
        days = [match for match in days if not match.group("weekday")] or days  # "Wednesday night, 8 Jan": the date
        bound = [(f"{int(found.group(1)):02d}:{found.group(2)}", day) for day in days
                 if (found := DAY_AT.match(sentence, day.end()))]  # "opened Mon 6 Jan at 18:00 and resolved at 21:00"
        if not bound and (len(said) != 1 or len(days) != 1 or _nearer_relative_day(sentence, days[0])) \
                or SUPPOSED.search(sentence):
            continue  # "05:20 today … since Wed 8 Jan": the time goes with the day written nearer to it; "would cross
            # the 2-day mark on Saturday at 05:00 if it's still open": a moment worked out for what may come
        for clock, day in bound or [(next(iter(said)), days[0])]:
            if clock in given:
                continue
            is_that_day = on_day(day)
            moments = _evidence_moments(index) if moments is None else moments
            at_clock = [moment for moment in moments if clock_of(moment) == clock]
            if not at_clock or any(is_that_day(moment) for moment in at_clock):
                continue
            checks.append(GroundingCheck(kind="placement", claim=sentence, passed=False,
                                         detail=f"{clock} on \"{day.group()}\" is not a time the data shows ("
                                                f"{', '.join(sorted({f'{moment:%a %d %b}' for moment in at_clock}))} "
                                                f"at {clock})", public="a date the data does not show"))
    return checks


def _evidence_moments(index: EvidenceIndex) -> list[datetime]:
    return [moment for record in _records(index.items) for moment in moments_of(record)]


SINCE = re.compile(rf"\bsince\s+(?:[\w,-]+\s+){{0,3}}?{CLOCK_TIME.pattern}", re.IGNORECASE)
""""degraded since 07:45": the time something began, not when it was last updated."""
STARTING = re.compile(r"start|since|opened|first|began|begin|created", re.IGNORECASE)


def check_since_times(sentences: Iterable[str], index: EvidenceIndex, *, question: str,
                      now: datetime | None) -> list[GroundingCheck]:
    """A time said with "since" is when something in the evidence began (a start, an opening, a first failure),
    or a time the question or a searched window gave."""
    begun: set[str] | None = None
    every: set[str] | None = None  # every moment's clock, ends of runs included (read once, when first needed)
    given = _given_clocks(index, question, now)
    checks = []
    for sentence in sentences:
        for match in SINCE.finditer(sentence):
            clock = f"{int(match.group(1)):02d}:{match.group(2)}"
            begun = _starting_clocks(index) if begun is None else begun
            # "nothing logged on it since 05:20": a record's last update bounds a "none" about its updates
            updated = _update_clocks(index) if NO_UPDATE.search(sentence) and NONE_SAID.search(sentence) else set()
            # "sales data hasn't loaded since 23:33": the end of the last run that did (a start plus its length)
            ended: set[str] = set()
            if NOT_SINCE_THEN.search(sentence[:match.start()]):
                every = {clock_of(moment) for moment in _evidence_moments(index)} if every is None else every
                ended = every
            if clock not in begun | given | updated | ended | counted_bounds(sentence, index, now):
                checks.append(GroundingCheck(kind="placement", claim=sentence, passed=False,
                                             detail=f"nothing in the data began at {clock} (began: "
                                                    f"{', '.join(sorted(begun)) or 'none shown'})",
                                             public="a start time the data does not show"))
    return checks


COUNTED_SINCE = re.compile(r"(?<![\w.:])(\d+)\s+(?:times?|failures?|failed runs?|runs?|incidents?|tickets?)\s+"
                           rf"(?:\w+\s+){{0,2}}?since\s+(?:[\w,-]+\s+){{0,2}}?{CLOCK_TIME.pattern}",
                           re.IGNORECASE)


def last_at(now: datetime, hour: int, minute: int) -> datetime:
    """The last moment the clock showed ``hour:minute``, at or before ``now`` ("since 19:00" said at 09:00: yesterday)."""
    moment = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return moment if moment <= now else moment - timedelta(days=1)


def counted_bounds(sentence: str, index: EvidenceIndex, now: datetime | None) -> set[str]:
    """"pl_x has failed three times since 02:00": a bound chosen by the writer, right when as many of the
    records the sentence is about begin between it and now (the last 24 hours)."""
    found = set()
    for match in COUNTED_SINCE.finditer(digits(sentence)) if now is not None else ():
        bound = last_at(now, int(match.group(2)), int(match.group(3)))
        keys = record_keys(sentence)
        rows = [row for _, row in index.rows_for(keys[0])] if len(keys) == 1 else index.records
        begun = {str(row.get("run_id") or row.get("number") or id(row)) for row in rows
                 if (start := iso_moment(row.get("start") or row.get("opened_at"))) and bound <= start <= now}
        if len(begun) == int(match.group(1)):
            found.add(f"{bound:%H:%M}")
    return found


def _starting_clocks(index: EvidenceIndex) -> set[str]:
    moments = [iso_moment(part) for row in _records(index.items) for name, value in row.items()
               if STARTING.search(name) for part in (value if isinstance(value, list) else [value])
               if isinstance(part, str)]
    return {clock_of(moment) for moment in moments if moment is not None} | {
        clock for item in index.items for found in re.finditer(r"since (\S+)", item.message)
        for clock in said_clocks(found.group(1))}


NOT_SINCE_THEN = re.compile(r"\b(?:hasn['’]t|haven['’]t|hadn['’]t|has not|have not|had not)\s+(?:been\s+)?[a-z]+\s+"
                            r"(?:[a-z]+\s+){0,2}?$", re.IGNORECASE)
"""Before a "since" time, a thing that has not happened again ("hasn't loaded since 23:33"): the time may be when the
last one ended."""
NONE_SAID = re.compile(r"\b(?:nothing|no|none|not)\b|n't\b", re.IGNORECASE)


def _update_clocks(index: EvidenceIndex) -> set[str]:
    return {clock_of(moment) for row in index.records for field in UPDATE_FIELDS if (moment := iso_moment(row.get(field)))}


def _clocks(rows: Iterable[dict[str, Any]]) -> set[str]:
    """The clock times rows give: their moments, and times their own text says."""
    return ({clock_of(moment) for row in rows for moment in moments_of(row)}
            | {clock for row in rows for value in row.values() if isinstance(value, str)
               for clock in said_clocks(value)})


def evidence_clocks(items: Iterable[ToolEvidence]) -> set[str]:
    """Every clock time the evidence shows: each row's and each record nested in it, and the tools' messages."""
    items = list(items)
    return _clocks(_records(items)) | {clock for item in items for clock in said_clocks(item.message)}


BARE_HOUR = re.compile(r"\b(?:(?:at|by|before|after|until|till|due)\s+(?P<hour>[01]?\d|2[0-3])(?:\s*(?P<half>am|pm))?"
                       r"(?![:.]?\d)(?!\s+(?:[a-z]+s|of|min\w*|h|hrs?|hours?|days?|percent)\b)(?!\s*%)"
                       r"|(?P<hour12>1[0-2]|0?[1-9])\s*(?P<half12>am|pm))\b", re.IGNORECASE)
"""An hour people type without minutes ("due at 10", "by 9am"): the clock on the hour."""


def _hours_said(text: str) -> set[str]:
    found = set()
    for match in BARE_HOUR.finditer(text):
        hour, half = int(match.group("hour") or match.group("hour12")), (match.group("half") or match.group("half12") or "")
        hour = hour % 12 + (12 if half.lower() == "pm" else 0) if half else hour
        found.add(f"{hour:02d}:00")
    return found


def _given_clocks(index: EvidenceIndex, question: str, now: datetime | None) -> set[str]:
    """Times an answer may say without a row showing them: the question's (with an hour typed alone, "due at 10"),
    the windows searched, now."""
    return ({clock for item in index.items for clock in said_clocks(str(item.query))} | said_clocks(question)
            | _hours_said(question) | ({clock_of(now)} if now is not None else set()))


def _records(items: Iterable[ToolEvidence]) -> list[dict[str, Any]]:
    """Every row of the evidence and every record nested in it, at any depth (a history's failure groups)."""
    return [record for item in items for row in item.rows for record in nested_records(row)]


def nested_records(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [row, *(record for part in parts_of(row) for record in nested_records(part))]


def check_ordinals(sentences: Iterable[str], items: Sequence[ToolEvidence]) -> list[GroundingCheck]:
    """"The latest incident is INC…": no row of the same kind in the evidence is later (earlier, for oldest)."""
    checks = []
    for sentence in sentences:
        for match in ORDINAL.finditer(sentence):
            key, latest = match.group("key").upper(), match.group("order").lower() in LATEST
            # "the most recent P1": against the P1 search it came from
            searches = [item for item in items if any(str(row.get("number", "")).upper() == key for row in item.rows)]
            same = [(str(row.get("number", "")).upper(), moments[0]) for item in searches for row in item.rows
                    if (moments := row_moments(record_of_tool(item.tool), row))]
            claimed = [moment for number, moment in same if number == key]
            if not claimed:
                continue
            beyond = [number for number, moment in same
                      if (moment > claimed[0] if latest else moment < claimed[0]) and number != key]
            checks.append(GroundingCheck(
                kind="placement", claim=sentence, passed=not beyond,
                detail="" if not beyond else f"{beyond[0]} is {'later' if latest else 'earlier'} than {key}",
                public="" if not beyond else "a \"latest\" or \"oldest\" the data contradicts"))
    return checks


WEEKDAY_DATE = re.compile(rf"\b(?P<name>{DAY_NAME})\b,?\s+(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+"
                          r"(?P<month>" + "|".join(MONTHS) + r")[a-z]*|(?P<month2>" + "|".join(MONTHS) + r")[a-z]*\s+"
                          r"(?P<day2>\d{1,2})(?:st|nd|rd|th)?)\b", re.IGNORECASE)
"""A date with its weekday ("Sunday 11 Jan", "Thu, Jan 9")."""


def check_weekdays(sentences: Iterable[str], now: datetime | None) -> list[GroundingCheck]:
    """The weekday said with a date is that date's (in the year nearest now): "Sunday 11 Jan" on a Saturday is wrong."""
    checks = []
    for match in (match for sentence in sentences for match in WEEKDAY_DATE.finditer(sentence)) if now else ():
        month = MONTHS.index((match.group("month") or match.group("month2")).lower()[:3]) + 1
        try:
            dates = [now.replace(year=now.year + years, month=month, day=int(match.group("day") or match.group("day2")))
                     for years in (-1, 0, 1)]
        except ValueError:
            continue  # no such day ("31 Feb"): a date the other checks judge
        date = min(dates, key=lambda moment: abs(moment - now))
        said = [stem[:3] for stem in WEEKDAY_STEMS].index(match.group("name").lower()[:3])
        checks.append(GroundingCheck.of("placement", match.group(), date.weekday() == said,
                                        f"{date:%d %b %Y} is a {date:%A}, not a {WEEKDAY_STEMS[said].capitalize()}day",
                                        "a weekday that is not the date's"))
    return checks


EVERY_INSIDE = re.compile(r"\b(?:both|all(?:\s+\d+|\s+of\s+them|\s+three|\s+four)?|each|every\s+one)\b[^.:;]{0,40}?\b(?:fell\s+|fall\s+|happened\s+|"
                          rf"were\s+|are\s+)?(?:inside|during|within)\s+(?P<key>{TICKET.pattern})(?:'s)?\s+window", re.IGNORECASE)
"""Every record placed inside a change's window ("both fell inside CHG…'s window")."""


def check_every_inside(sentences: Iterable[str], index: EvidenceIndex) -> list[GroundingCheck]:
    """"Both failures fell inside CHG…'s window": each run the searches returned starts inside that window."""
    checks = []
    for sentence in sentences:
        for match in EVERY_INSIDE.finditer(sentence):
            key = match.group("key").lower()
            changes = [row for _, row in index.rows_for(key) if row.get("start_date") and row.get("end_date")]
            window = (iso_moment(changes[0]["start_date"]), iso_moment(changes[0]["end_date"])) if changes else None
            runs = [moment for item in index.items if record_of_tool(item.tool) == "run" for row in item.rows
                    if (row.get("status") or fixed_status(item)) == "Failed" and (moment := iso_moment(row.get("start")))]
            if not window or not window[0] or not window[1] or not runs:
                continue
            outside = [moment for moment in runs if not window[0] <= moment < window[1]]
            checks.append(GroundingCheck.of("placement", sentence, not outside,
                                            f"the run at {outside[0]:%a %d %b %H:%M} is outside {key.upper()}'s window"
                                            if outside else "", "a placement in a window the data contradicts"))
    return checks


FROM_NOW = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)\s*({UNIT_WORD})\s+from now\b|"
                      rf"\bin\s+(?:about\s+|around\s+|roughly\s+|just\s+)?(\d+(?:\.\d+)?)\s*({UNIT_WORD})['’]?\s+time\b",
                      re.IGNORECASE)
"""How far ahead a time the sentence gives is ("10:00–11:00 today, about two hours from now", "in 1 hour's time");
not "succeeded in about 11 minutes", a length."""


def check_from_now(sentences: Iterable[str], now: datetime | None) -> list[GroundingCheck]:
    """"N hours from now" beside a clock time: the first time the sentence says that is still ahead is that far
    from now (to the nearest unit, or a quarter of it, whichever is wider)."""
    checks = []
    for sentence in sentences if now is not None else ():
        said = digits(sentence)
        ahead = sorted(moment for clock in hh_mm(CLOCK_TIME, said)
                       if (moment := now.replace(hour=int(clock[:2]), minute=int(clock[3:]), second=0, microsecond=0)) > now)
        for match in FROM_NOW.finditer(said) if ahead else ():
            number, unit = float(match.group(1) or match.group(3)), unit_minutes(match.group(2) or match.group(4)) or 1
            if unit >= 1440:
                continue  # "2 days from now" is read against a date, not today's clock times
            away = (ahead[0] - now).total_seconds() / 60 / unit
            checks.append(GroundingCheck.of("number", match.group(), abs(away - number) <= max(0.5, number / 4),
                                            f"{ahead[0]:%H:%M} is {away:g} {match.group(2) or match.group(4)} from now, "
                                            f"not {number:g}", "a time the data contradicts"))
    return checks


CLOCK_RANGE = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\s*(?:UTC\s*)?(?:→|->|–|—|to|until|till)\s*([01]?\d|2[0-3]):([0-5]\d)\b")
RAN_FOR = re.compile(r"(?P<verb>\b(?:ran|run|took|lasted|went|going|running|after|for)\s+(?:for\s+)?)?(?<![\w.:])"
                     r"(?P<about>about\s+|around\s+|roughly\s+|"
                     r"~\s*|nearly\s+|almost\s+|just\s+over\s+|just\s+under\s+)?(?P<number>\d+(?:\.\d+)?)\s*"
                     rf"(?P<unit>{UNIT_WORD})", re.IGNORECASE)
"""How long something ran, said beside the clock times it ran between ("ran about 45 minutes (04:00 → 05:02)", "a gap
of ~18 hours (12:26 → 06:25)")."""


def check_lengths_of_ranges(sentences: Iterable[str]) -> list[GroundingCheck]:
    """A length said right beside one clock range is that range's length (to the minute, or within a tenth when it
    says "about"): the answer's own two times contradict another length."""
    checks = []
    for sentence in sentences:
        said = digits(sentence)
        ranges, lengths = list(CLOCK_RANGE.finditer(said)), list(RAN_FOR.finditer(said))
        if len(ranges) != 1 or len(lengths) != 1 or min(abs(ranges[0].start() - lengths[0].end()),
                                                        abs(lengths[0].start() - ranges[0].end())) > 4:
            continue  # the range must be the length's own ("ran 45 minutes (04:00 → 05:02)"), not an activity's
        if not lengths[0].group("verb") and lengths[0].start() > ranges[0].start():
            continue  # "03:00–04:00, twelve hours later": without a verb, only a length before its range is its own
        first_hour, first_minute, last_hour, last_minute = map(int, ranges[0].groups())
        # "last 24h, 09:00→09:00": a range back to its own clock time is a whole day, not no time
        span = ((last_hour * 60 + last_minute) - (first_hour * 60 + first_minute)) % 1440 or 1440
        match = lengths[0]
        minutes = float(match.group("number")) * (unit_minutes(match.group("unit")) or 1)
        slack = max(1.0, span / 10) if match.group("about") else 1.0
        whole_days = span == 1440 and minutes % 1440 == 0  # "last 7 days, 09:00→09:00": whole days, any number
        checks.append(GroundingCheck.of("number", match.group(), abs(minutes - span) <= slack or whole_days,
                                        f"{ranges[0].group()} is {span} min, "
                                        f"not {match.group('number')} {match.group('unit')}",
                                        "a length the answer's own times contradict"))
    return checks

