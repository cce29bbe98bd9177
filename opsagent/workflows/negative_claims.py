"""negative_claim: every "no …" / "none" / "nothing" in an answer is backed by the evidence.

Backed means: a search that fits what was asked (its filters, window and names, and free text that names
something real) came back empty — or a wider one whose rows, all seen, none meets it; a count of rows that
count zero ("10 of the 15 pipelines had no failed run"); a field a row shows empty ("no error code"); or the
sentence's own bound ("nothing has failed since the 3 Jan run"). A negation that quotes the data ("Cannot find
the file …", "source file not found"), a value ("no one assigned") or the writer itself ("I can't page anyone")
is not such a claim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, time, timedelta
from typing import Any

from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.catalog_filters import AGE, duration_minutes
from opsagent.intake.times import DAY_NAME, MONTH_NAME
from opsagent.tools.catalog import RECORDS, TOOLS, health_tools, tool_spec
from opsagent.tools.identifiers import TICKET, TICKET_PREFIXES
from opsagent.tools.pipeline_rows import count_fields_in
from opsagent.tools.vocabularies import ASSIGNEE, VALUE_VOCABULARIES, Vocabulary
from opsagent.workflows import claims as read
from opsagent.workflows.claims import LEAD_WORD, NOT_SINCE, THE_RECORD, record_keys, says
from opsagent.workflows.evidence_index import EvidenceIndex, digits, identifiers_in, moments_of, record_of_tool
from opsagent.workflows.fitting import covers, narrowed_by, searched_values
from opsagent.workflows.failure_history import NO_FAILURES, history_none
from opsagent.workflows.health_claims import regions_in
from opsagent.workflows.since_bounds import since_bound
from opsagent.tools.timewindow import UNIT_WORD, iso_moment, unit_minutes

CLAUSE = re.compile(r",?\s+(?:and|but|while|whereas|although|though)\s+(?=\S)|,\s+so\s+(?=\S)|[:;]\s+|\s+[-–—]\s+|"
                    r"\s*\|\s*", re.IGNORECASE)
"""Where a sentence's claims part ("pl_a has INC… , but pl_b has no incident"; a table row's cells): negations are
checked per clause."""
NEGATION = re.compile(
    r"\b(?:no|none|nothing|nobody|zero|without)\b(?!\s+(?:longer|more than|later|sooner|earlier\s+than))"
    r"|\b(?:did not|didn't|could not|couldn't|cannot) find\b|\bnot (?:find|found|any)\b"
    r"|\b(?:not|\w+n't)\s+(?:\w+\s+){0,2}any(?:one|thing|body)?\b",  # "hasn't resolved any incidents"
    re.IGNORECASE,
)
"""Existence negations ("no open incident", "nothing failed"); "is not approved" is a value, checked as one."""
BARE_NONE = re.compile(r"^\W*(?:nothing|none)\s+(?:since|after|across|out of|in)\b")
""""Nothing since 31 Dec across the 28 runs": a none of no noun of its own (the runs are where it looked)."""
SHARE = re.compile(r"\b(\d+) of the (\d+)\b", re.IGNORECASE)
PARTIAL = re.compile(r"\b(\d+) of the \d+\b|\bthe (?:other|remaining|rest of the) (\d+)\b"
                     r"|^\W*(\d+)\s+(?:[\w-]+\s+){0,2}?(?:had|have|has|saw|showed|show)\s+no\b", re.IGNORECASE)
"""A share of the rows said to have none ("10 of the 15 pipelines had no failed run", "the other 7 had none", "7
pipelines had no failures at all")."""
BARE_ANSWERS = frozenset({"no", "none", "nope", "nothing"})
CONJUNCTION = re.compile(r"^(?:and|but|so|also)\s+")
"""Before a bare answer ("And no: the last update is …")."""
NEGATED_TEXT = re.compile(r"\b(?:no|not|cannot|can't|couldn't|without|missing)\b|notfound", re.IGNORECASE)
"""A record's own words that negate something ("Cannot find the file …", "ErrorCode=UserErrorFileNotFound")."""


COMMON_WORDS = frozenset(
    "which what when where there have that this with from they them their last hours days open show list tell "
    "about since status please check were been does into many much some each those these latest current right "
    "today yesterday week also then than just only still over under after before during them your ours".split()
)
"""Words too common to show that an answer covers a part."""
Fit = Callable[[ToolEvidence], bool]
RowsRead = Callable[[ToolEvidence, str, frozenset[str]], list[dict[str, Any]] | None]


def _record_words(record: str) -> set[str]:
    """The nouns and value words that name a record kind ("tickets", "failed", "degraded")."""
    words = set(RECORDS[record].nouns)
    words |= {phrase for vocabulary in VALUE_VOCABULARIES.values() if vocabulary.record == record
              for phrase, _ in vocabulary.phrases if " " not in phrase and len(phrase) > 3}
    return words


RECORD_WORDS = {record: _record_words(record) for record in RECORDS}
RECORD_WORDS_FLAT = frozenset(word for words in RECORD_WORDS.values() for word in words)


def words_in(text: str, words: Collection[str]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) for word in words)


def _family(text: str) -> set[str]:
    """The tools whose empty answer can back a negation about ``text``'s records."""
    records = {record for record, words in RECORD_WORDS.items() if words_in(text, words)}
    if "pipeline" in records:
        records |= {"run", "run_count"}  # a pipeline's runs, listed or counted
    return {spec.name for spec in TOOLS if spec.record in records}


def _names_record(word: str, index: EvidenceIndex) -> bool:
    """A record's own name, whole or without its prefix ("ingest_sales"): whose error it is, not what it negates."""
    return word in index.identifiers or "_" in word and any(name.endswith(f"_{word}") for name in index.identifiers)


def _negated_in_rows(before_words: list[str], after: list[str], said_of: list[str], index: EvidenceIndex) -> bool:
    """"source file pos_export.csv not found": what a row's own error negates, the words before the negation in
    one sentence of a row's text (a file name alone, with what the error says of it, is enough)."""
    distinctive = len(before_words) >= 2 or bool(said_of) and re.search(r"\w[._]\w", before_words[-1]) is not None
    return distinctive and any(
        NEGATED_TEXT.search(part) and all(word[:5] in part for word in [*before_words, *after[:len(before_words) < 2]])
        and (before_words[-1] in part or not re.search(r"\w[._]\w", before_words[-1]))  # what is not found, whole
        for part in re.split(r"(?<=[.!?])\s+|\n", index.row_text))


def _quotes_evidence(sentence: str, index: EvidenceIndex) -> bool:
    """The negation is quoted from the evidence itself ("source file not found" in an error message)."""
    match = NEGATION.search(sentence)
    words = sentence.lower().strip(" .!?\"'").split()
    if match is None or len(words) < 2:
        return False
    before = len(sentence[: match.start()].split())
    quoted = " ".join(words[max(0, before - 2): before + 3])
    if quoted in index.row_text:  # a record's own words; a tool's "none" message is checked like any "none"
        return True
    # reworded ("because no proxy was configured" for "(no proxy configured)"): the evidence's text negates the
    # same thing — the first word of substance after the negation, a few words after a negation of its own
    after = [word for word in re.findall(r"[a-z]+", sentence[match.end():].lower())[:4]
             if len(word) >= 4 and word not in COMMON_WORDS and word not in RECORD_WORDS_FLAT]
    subject = re.split(r"[,;:=(]|\s[-–—]\s", sentence[:match.start()])[-1]  # "x = could not …, y = file not found"
    before_words = [word for word in re.findall(r"[a-z][\w.]*", subject.lower())[-3:]
                    if len(word) >= 4 and word not in COMMON_WORDS and word not in RECORD_WORDS_FLAT]
    said_of = after or re.findall(r"find|found", match.group().lower())  # what the negation says of the name
    for words_of in (before_words, [word for word in before_words if not _names_record(word, index)]):
        # (then without the names of records: "ingest_sales = pos_export.csv not found" is of the run's error)
        if words_of and _negated_in_rows(words_of, after, said_of, index):
            return True
    next_word = re.match(r"\W*(?:(?:a|an|the|any)\s+)?([a-z]+)", sentence[match.end():].lower())
    said = match.group().lower()
    same = "no|without" if said in ("no", "without") else re.escape(said)  # "without a proxy" is "no proxy"
    if after and next_word and next_word.group(1) == after[0] and re.search(
            rf"\b(?:{same})\s+(?:(?:a|an|the|any)\s+)?{re.escape(after[0])}\b", index.row_text):
        return True  # "came back without a proxy" over "(no proxy configured)": the row's own negation of it
    if len(after) < 2:  # "none found" names nothing the evidence's own negation could be about
        return False
    return re.search(rf"\b(?:no|not|none|never|without|cannot)\W+(?:\w+\W+){{0,3}}{re.escape(after[0][:5])}"
                     rf"\w*\W+(?:\w+\W+){{0,3}}{re.escape(after[1][:5])}", index.row_text) is not None


def _health_narrowed(words: str, tools: set[str]) -> set[str]:
    """A platform a negative claim names narrows it to that platform's check."""
    platforms = {tool for name, tool in health_tools().items() if words_in(words, [name.lower()])}
    return (tools & platforms or platforms) if platforms else tools


def _named_absent(sentence: str, index: EvidenceIndex, tools: set[str], fit: Fit,
                  known_names: Collection[str] = ()) -> str | None:
    for name in sorted(identifiers_in(sentence)):
        if found := _searched_without(name, index, tools, fit, empty_of_any_tool=True):
            return found
    # "nothing failed in adf-prod-neu": a name the inventory has, absent from every row of a complete listing that
    # searched every name (one narrowed to another factory says nothing of this one)
    low = sentence.lower()
    for name in sorted(name for name in known_names if name.lower() in low and words_in(low, [name.lower()])):
        listings = [item for item in index.complete_listings_without(name) if (not tools or item.tool in tools)
                    and fit(item) and not _names_filtered(item) and _holds_values_said(item, sentence)]
        if listings and not index.rows_mentioning(name, tools):
            return f"no row of the complete {listings[0].tool} listing is in {name}"
    return None


def _searched_without(name: str, index: EvidenceIndex, tools: set[str], fit: Fit, *,
                      empty_of_any_tool: bool = False) -> str | None:
    """A fitting search of ``tools`` (of any tool: ``empty_of_any_tool``) for ``name`` came back empty, or a complete
    listing of ``tools`` (any, when none) does not name it and no row of them does: "no open incident names it" needs
    a ticket search, not an empty search of its runs."""
    empty = [item for item in index.searched_for(name) if (empty_of_any_tool or item.tool in tools)
             and item.status in ("no_data", "not_found") and fit(item)]
    if empty:
        return f"{empty[0].tool} for {name} came back empty"
    listings = [item for item in index.complete_listings_without(name) if (not tools or item.tool in tools)
                and fit(item)]
    # "INC… has no incident" while get_incident returned it: a listing elsewhere without it proves nothing
    return f"a complete listing does not contain {name}" if listings and not index.rows_mentioning(name, tools) else None


def _holds_values_said(item: ToolEvidence, sentence: str) -> bool:
    """A search narrowed by a value (failed runs only) holds the values the sentence says: "nothing failed in X"
    rests on it, "no successful runs in X" does not."""
    spec = tool_spec(item.tool)
    if spec is None:
        return False
    for vocabulary, value in _values_said(sentence):
        wanted = vocabulary.selected(value) or {value.lower()}
        if vocabulary.name in spec.fixed and spec.fixed[vocabulary.name].lower() not in wanted:
            return False
        searched = next((found for each in spec.filters if each.vocabulary == vocabulary.name
                         and (found := searched_values(item, each)) is not None), None)
        if searched is not None and not wanted <= searched:
            return False
    return True


def _filtered_names(item: ToolEvidence) -> list[str]:
    """The names a search was narrowed by (a factory, a CI, a group …), as its arguments give them."""
    spec = tool_spec(item.tool)
    return [str(value) for each in (spec.filters if spec else ()) if each.kind == "name"
            and (value := item.arguments.get(each.parameter))]


def _names_said(item: ToolEvidence, text: str) -> bool:
    """Every name a search was narrowed by is one ``text`` says (whole, or without its prefix): a count of one
    pipeline's runs backs no "nothing failed overnight" about all of them."""
    low = text.lower()
    return all(value.lower() in low or value.lower().removeprefix("pl_") in low for value in _filtered_names(item))


def _names_filtered(item: ToolEvidence) -> bool:
    """Whether a search was narrowed by a name (a factory, a CI, a group …)."""
    return tool_spec(item.tool) is None or bool(_filtered_names(item))


def _values_said(text: str) -> list[tuple[Vocabulary, str]]:
    """Each value the text says, with its vocabulary ("failed": the run status Failed)."""
    return [(vocabulary, value) for vocabulary in VALUE_VOCABULARIES.values() for _, value in vocabulary.find(text)]


def _stated(text: str) -> set[str]:
    return {vocabulary.name for vocabulary, _ in _values_said(text)}


def _backs_negative(sentence: str, index: EvidenceIndex, fit: Fit, *, context: str = "",
                    windows: Sequence[tuple[datetime, datetime]] = (), fit_any_time: Fit | None = None,
                    read_rows: RowsRead | None = None, answer: str = "", now: datetime | None = None,
                    known_names: Collection[str] = ()) -> str | None:
    """Why the evidence backs this negative clause, or ``None``. Only searches that fit what was asked
    count, and only those no narrower than the claim: an empty search for *failed* runs backs "no failed
    run", not "no run"; one for *open* incidents backs "no open incident", not "no incident ever".
    ``context`` is the whole sentence: "nothing matched during CHG…'s window: no failed runs …" is about
    runs although its first clause does not say so."""
    if _quotes_evidence(sentence, index):
        return "quoted from the evidence"
    empty = _empty_field(sentence, index, context)
    if empty:
        return empty
    nobody = _nobody_holds(sentence, context, index, answer)
    if nobody:
        return nobody
    listed = _listed_absent(context or sentence, index, answer, fit)
    if listed:
        return listed
    among = _none_of_them(sentence, index)
    if among:
        return among
    about = NOTHING_ABOUT.search(sentence)  # "nothing about clusters in the error": the text does not say it
    if about and about.group(2) and not about.group(2).isupper():
        about = None  # "no fix in the ticket" may be said in other words ("will be fixed by"); an acronym (ETA) may not
    if about:
        # "It adds a rule … (see INC…) — nothing about Databricks": the change's own text; "in the error": the
        # errors' own words; about no one record: every row's
        own_text = PARENTHESIS.sub(" ", context or sentence)
        record = _record_meant(PARENTHESIS.sub(" ", sentence), own_text, answer, index,
                               pointed=NAMES_IT.search(own_text) is not None)
        rows = [row for _, row in index.rows_for(record)] if record else []
        if IN_THE_ERROR.search(sentence):
            written = " ".join(str(row.get(field) or "") for row in index.records for field in ERROR_FIELDS).lower()
        else:
            written = " ".join(str(value) for row in rows for value in row.values()).lower() if rows else index.row_text
        words = [(about.group(1) or about.group(2)).lower(), *(more.lower() for more in re.findall(
            r"^\s+(?:or|nor|and)\s+(?:the\s+)?([a-z][\w-]{2,})\b", sentence[about.end():], re.IGNORECASE))]
        # ("nothing about ADF or the load": none of the words)
        stems = [re.escape(word.removesuffix("s")[:5]) if len(word) > 3 else rf"\b{re.escape(word)}\b"  # "eta" in
                 for word in words]  # "metadata"
        if written.strip() and not any(re.search(stem, written) for stem in stems):
            return f"no row's text mentions {' or '.join(words)}"
    elif NO_RUN_SINCE.match(sentence) and _latest_said(sentence, context, answer, index):
        return "the pipeline's latest run is the one the row gives"
    elif OTHER_KIND.search(sentence) and (kinds := _failure_kinds(sentence, context, answer, index)) is not None:
        if len(kinds) == 1 and kinds[0] in answer:  # "2108 twice in its history. No other kind of failure."
            return "the history groups one kind of failure, the one named"
    elif (history := _history_none(sentence, context, answer, index)) is not None:
        return history
    elif _a_detail(sentence, context or sentence, index):
        return "a detail of a record, naming no kind of record"
    stated = _stated(context or sentence)
    fit = _no_narrower(fit, stated)
    words = sentence.lower()
    own = PARENTHESIS.sub(" ", words)  # "(pl_archive_logs only had a cancelled run)": an aside, not what the none is of
    tools = _elided(sentence, context, answer) or _family(own) or _family(PARENTHESIS.sub(" ", context.lower()))
    unlinked = _links_none(sentence, context, answer, index, tools)
    if unlinked:
        return unlinked
    named = _named_absent(sentence, index, tools, fit, known_names)
    if not named and not identifiers_in(sentence) and tools and NAMES_IT.search(sentence) and all(
            record_of_tool(tool) in ("incident", "change") for tool in tools):
        meant = _record_meant(sentence, context, answer, index, pointed=True)  # "no open incident names it"
        named = _searched_without(meant, index, tools, fit) if meant else None
    if named or identifiers_in(sentence) and not tools:
        return named  # a named thing said to be absent, backed only by a search for it
    tools = _health_narrowed(words, tools)
    relevant = [item for item in index.items if item.answered and (not tools or item.tool in tools) and fit(item)]
    shown_none = _no_row_shows(sentence, relevant, known_names, index.question)
    if shown_none:
        return shown_none
    tickets = [item for item in relevant if tool_spec(item.tool) and tool_spec(item.tool).record == "incident"]
    if "incident" in words and tickets:  # "no matching incident": the ticket searches, not status pages
        relevant = tickets
    pages = [item for item in index.items if item.answered and fit(item) and (spec := tool_spec(item.tool)) and spec.platform]
    if ON_THE_STATUS_PAGE.search(words) and pages:  # "nothing on the status page for that region": no incident, and
        # every component operational — on the page of the platform and in the region the sentence names, if it does
        platforms = {platform for platform in health_tools() if says(sentence, platform)}
        pages = [item for item in pages if not platforms or tool_spec(item.tool).platform in platforms]
        named = regions_in(PARENTHESIS.sub(" ", sentence))
        rows = [row for item in pages for row in item.rows if not named or regions_in(" ".join(
            [str(row.get("region") or ""), *map(str, row.get("components") or [])])) & named]
        quiet = all(row.get("kind") != "incident" and str(row.get("status", "operational")).lower() == "operational"
                    for row in rows)
        return f"{pages[0].tool} shows no incident and every component operational" if quiet and rows else None
    if "incident" in words and relevant and all(tool_spec(item.tool).platform for item in relevant):
        if not any(row.get("kind") == "incident" for item in relevant for row in item.rows):
            return f"{relevant[0].tool} reports no active incident"
        return None
    fields = count_fields_in(own) or (
        [] if _family(own) and not BARE_NONE.match(own) else _elided_fields(sentence, context, answer))
    partial = PARTIAL.search(digits(sentence))
    if partial:  # "10 of the 15 pipelines had no failed run": that many rows count zero of it — in a search that
        # fits, or one over a wider window (none there is none in the window asked)
        counting = [item for item in index.items if item.answered and fit(item)] or [
            item for item in index.items if item.answered and windows and fit_any_time and item.total == len(item.rows)
            and _no_narrower(fit_any_time, stated)(item) and covers(item, windows, now)]
        said = int(partial.group(1) or partial.group(2) or partial.group(3))
        for item in counting:  # (each search on its own: a count per pipeline beside one per factory)
            zero = [row for row in item.rows if any(row.get(name) == 0 for name in fields)]
            if fields and len(zero) == said:
                return f"{len(zero)} rows of {item.tool} count none"
    said = PARENTHESIS.sub(" ", (context or sentence).lower())  # a record named in an aside is not the none's
    if fields and not partial and any(all(row.get(name) == 0 for name in fields)  # "adf-prod-neu ran 9 and none
                                      for row in index.named_rows(said)):  # failed", "neu had none": its row counts none
        return f"the row of what the sentence names counts no {fields[0]}"
    counts = [item for item in index.items if item.answered and fit(item) and item.rows
              and all(name in row for row in item.rows for name in fields)  # a count of runs per status,
              and _names_said(item, f"{answer or context or sentence}\n{index.question}")]  # what the answer is about
    if fields and not partial and counts and all(item.total == len(item.rows) for item in counts) and all(
            row[name] == 0 for item in counts for row in item.rows for name in fields):  # "nothing running or queued"
        return f"every count that fits counts no {' or '.join(fields)}"
    if relevant and all(not item.rows for item in relevant):
        return f"{relevant[0].tool} came back empty"
    complete = [item for item in relevant if item.rows and item.total == len(item.rows)]
    if OTHERWISE.search(sentence) and complete and all(  # "nothing else failed": every row is one the answer names
            any(str(row.get(field) or "").lower() in answer.lower() for field in ("number", "run_id", "pipeline_name")
                if row.get(field)) for item in complete for row in item.rows):
        return f"every row of {complete[0].tool} is named in the answer"
    # a search that did not apply something asked, every row seen, none of them meeting it by its own fields
    read = [(item, kept) for item in index.items if read_rows and (not tools or item.tool in tools)
            and (kept := read_rows(item, context or sentence, frozenset())) is not None]
    said_values = _values_said(words)  # a value the clause says in place of the one asked is read as said: "nothing
    said_fields = frozenset(vocabulary.name for vocabulary, _ in said_values)  # at P2 or above", not "no P3"
    if read and not any(kept for _, kept in read) and not any(
            all(_shows(row, vocabulary, value) for vocabulary, value in said_values
                if vocabulary.record == record_of_tool(item.tool))
            for item, _ in read for row in (read_rows(item, context or sentence, said_fields) or []) if said_values):
        return f"none of the rows of {read[0][0].tool} meets what was asked"
    # a search that fits but for its window, every row of it seen: wider than the window asked ("nothing in the
    # last 30 minutes") or than the one the sentence gives itself
    any_time = [item for item in index.items if fit_any_time and item.answered and (not tools or item.tool in tools)
                and _no_narrower(fit_any_time, stated)(item) and item.total == len(item.rows)]
    # (asked no window, "no change window overlaps 03:00–05:30 today" gives its own)
    within = windows or ([] if now is None else _own_range(sentence, now))
    wide = [item for item in any_time if within and covers(item, within)]
    if wide and not any(start <= moment < end for item in wide for row in item.rows for moment in moments_of(row)
                        for start, end in within):
        return f"none of the rows of {wide[0].tool} falls inside the window asked"
    # its own day ("none of yesterday's runs failed"): none of the covering search's rows that day has what the
    # clause says
    day = _own_window(sentence, now)
    seen_day = [item for item in any_time if day and covers(item, [day])]
    if seen_day and day is not None:
        values = _values_said(words)
        inside = [row for item in seen_day for row in item.rows
                  if (moments := moments_of(row)) and day[0] <= min(moments) < day[1]]
        named = [key for key in record_keys(context or sentence) if key.startswith("pl_")]
        if named and OTHERWISE.search(sentence):  # "the other four … had no failed runs yesterday: pl_a, pl_b"
            inside = [row for row in inside if str(row.get("pipeline_name", "")).lower() in named]
        if not any(all(_shows(row, vocabulary, value) for vocabulary, value in values) for row in inside):
            return f"no row of {seen_day[0].tool} in that window has it"
    # its own bound ("nothing has failed since 06:00", "… since the 3 Jan run"): a fitting search covering it, every
    # row seen, none starting after it
    at = answer.find(sentence)
    at = at if at >= 0 else max(answer.find(context or sentence), 0)
    since = since_bound(sentence, now, answer[:at])  # (what was said before the clause: "updated at 05:20 — none since")
    if since is not None and NO_UPDATE.search(sentence):  # "nothing logged on it since Monday": its last update then
        keys = record_keys(sentence) or record_keys(answer)
        # the record meant, or — since a moment just said ("last updated 03:20 — nothing on it since") — the one
        # whose last update that is
        for updated in dict.fromkeys(_last_update(key, index) for key in [index.subject(keys), *(
                keys if since[2] == "record" else ())]):
            last_then = since[0] <= updated < since[0] + timedelta(days=1) if since[2] == "day" else \
                DATED.search(sentence) is not None and updated is not None and updated <= since[0] + timedelta(minutes=1)
            # (a dated moment: nothing after it; a clock alone names no day: only the last update's own clock)
            if updated and (last_then or not DATED.search(sentence)
                            and f"{updated:%H:%M}" == f"{since[0]:%H:%M}" and since[0].time() != time(0)):
                # "no update since 07:20 (on the day it opened)": a clock time alone names the last update's
                return f"the record's last update is {updated:%Y-%m-%d %H:%M}"
    opened = SINCE_OPENED.search(sentence)
    if opened and NO_UPDATE.search(sentence):  # "nothing has moved on it since the day it was opened"
        record = _record_meant(sentence, context, answer, index, pointed=True)
        updated, born = _last_update(record, index), index.opened_at(record)
        if updated and born and (updated.date() == born.date() if opened.group("day") else updated <= born + timedelta(minutes=1)):
            return f"the record's last update is {updated:%Y-%m-%d %H:%M}, the day it was opened"
    quiet = AGE.search(sentence)
    if quiet and now is not None and NO_UPDATE.search(sentence) and (NAMES_IT.search(sentence) or record_keys(sentence)):
        # "nothing written on it for more than a day": its last update at least that long ago ("the P1" names no key)
        updated = _last_update(_record_meant(sentence, context, answer, index, pointed=True), index)
        if updated and updated <= now - timedelta(minutes=duration_minutes(quiet)):
            return f"the record's last update is {updated:%Y-%m-%d %H:%M}"
    negation = NEGATION.search(words)
    about = words[negation.end():negation.end() + 24] if negation else words  # the word the "no" is about
    last = "last_success" if re.search(r"\b(?:succe|good|ok\b|clean|green)", about) else \
        "last_failure" if "failed" in fields else None
    lasted = _length_without(sentence, last, index, now, answer) if last else None
    if lasted:
        return lasted
    if since is not None and last:  # "no failures since …", "no success since …": a pipeline history's last one
        named = record_keys(sentence) or record_keys(answer)
        pipelines = [key for key in named if key.startswith("pl_")]  # a history is a pipeline's, whatever runs it names
        key = pipelines[0] if len(pipelines) == 1 else next(iter(index.sole_history()), None) or index.subject(named)
        lasts = [moment for _, row in (index.rows_for(key) if key else []) if isinstance(row.get(last), dict)
                 and (moment := iso_moment(row[last].get("start")))]
        if lasts:  # the history says when the last one was: nothing else can back the none
            backed = max(lasts) < (since[1] if since[2] else since[0] + timedelta(minutes=1))
            return f"the history's {last.replace('_', ' ')} is {max(lasts):%Y-%m-%d %H:%M}" if backed else None
    covering = [item for item in any_time if since and now and covers(item, [(since[0], now)])]
    starts = [min(moments) for item in covering for row in item.rows if (moments := moments_of(row))]
    if covering and since is not None:
        start, end, pointed = since
        referenced = [moment for moment in starts if start <= moment < end]
        if pointed == "record" and not referenced:
            return None  # "since the 3 Jan run": no run that day to point at
        bound = max(referenced) if pointed and referenced else start
        if not any(moment > bound or not pointed and moment == bound for moment in starts):
            return f"no row of {covering[0].tool} starts after {bound:%Y-%m-%d %H:%M}"
    return None


LENGTH_WITHOUT = re.compile(rf"(?<![\w.])(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>{UNIT_WORD})\s+(?:without|with no)\b"
                            rf"|\bno\b[^.;]{{0,40}}?\bfor\s+(?:~|about\s+|around\s+|roughly\s+|nearly\s+|almost\s+)?"
                            rf"(?P<number2>\d+(?:\.\d+)?)\s*(?P<unit2>{UNIT_WORD})", re.IGNORECASE)
"""A "none" over a length up to now ("~10 h without a successful load", "no good run for 9 hours")."""


GENERIC_RUN_WORDS = frozenset({"good", "successful", "success", "clean", "green", "build", "builds", "load", "loads",
                               "runs", "refresh", "copy", "without", "with", "been", "there", "have", "about"})
"""Words of "no good build for 9 hours" that name no pipeline."""


def _length_without(sentence: str, last: str, index: EvidenceIndex, now: datetime | None, answer: str) -> str | None:
    """"~10 h without a successful load": the last success (or failure) of the pipeline meant is that long ago, as
    people round it (within one unit) — its history's, or the latest of its runs with that status."""
    match = LENGTH_WITHOUT.search(digits(sentence))
    if match is None or now is None:
        return None
    number = float(match.group("number") or match.group("number2"))
    unit = unit_minutes(match.group("unit") or match.group("unit2"))
    named = [key for key in record_keys(sentence) or record_keys(answer) if key.startswith("pl_")]
    sole = index.sole_pipeline()  # "no good customer360 build": the one pipeline listed, when the words name it
    words = set(re.findall(r"[a-z0-9]{4,}", sentence[:match.start()].lower() if match.group("number") else
                           sentence[sentence.lower().find("no"):match.start("number2")].lower())) - GENERIC_RUN_WORDS
    key = named[0] if len(set(named)) == 1 else next(iter(index.sole_history()), None) or (
        sole if sole and all(word in sole for word in words) else None)
    status = "succeeded" if last == "last_success" else "failed"
    moments = [moment for _, row in (index.rows_for(key) if key else []) for moment in (
        [iso_moment(row[last].get("start"))] if isinstance(row.get(last), dict) else
        [iso_moment(row.get("start"))] if str(row.get("status", "")).lower() == status else []) if moment]
    if not moments or not unit:
        return None
    ago = (now - max(moments)).total_seconds() / 60 / unit
    return f"{key}'s last {status} run started {max(moments):%Y-%m-%d %H:%M}" if abs(ago - number) < 1 else None


NONE_OF = re.compile(r"\b(?:none|neither)\s+of\s+(?:them|those|these|the\s+(?:[\w-]+\s+){0,2}?[\w-]+)\b", re.IGNORECASE)


def _none_of_them(sentence: str, index: EvidenceIndex) -> str | None:
    """"Four were resolved; none of them has been closed yet": a value no row of the complete searches it
    is about shows (rows with the field, every row seen)."""
    match = NONE_OF.search(sentence)
    if match is None:
        return None
    said = sentence[match.end():]
    if re.search(r"\b(?:has|have|had|with)\s+(?:an?|any|one)\b", said, re.IGNORECASE):
        return None  # "none of them has an open incident": what they have, not what they are
    values = _values_said(said)
    tools = _family(said.lower())
    rows = [row for item in index.items if item.answered and item.rows and item.total == len(item.rows)
            and (not tools or item.tool in tools) for row in item.rows
            if all(any(field in row for field in vocabulary.row_fields) for vocabulary, _ in values)]
    if values and rows and not any(all(_shows(row, vocabulary, value) for vocabulary, value in values) for row in rows):
        return f"none of the {len(rows)} rows shows it"
    return None


DENIED_VALUE = re.compile(r"\b(?:no|none|nothing|nobody)\b(?:\s+(?:is|are|was|were|else|other|more|currently|"
                           r"still|has|have|been|of them|of those))*\s+(?P<rest>.+)", re.IGNORECASE)
"""A value denied right after the negation: "nothing degraded", "no failed runs", "none are on hold"."""


EVERYWHERE = re.compile(r"\b(?:anywhere|at all|across|overall|in total|in any|everywhere)\b", re.IGNORECASE)
"""Words that widen a "none" past any one name ("no P1 open anywhere")."""


def _names_only_searched(item: ToolEvidence, sentence: str, known_names: Collection[str], question: str) -> bool:
    """A search narrowed by a name (a region, a group) speaks only of that name: one the question or the sentence
    asks about, and the sentence names no other one, nor says "anywhere"."""
    if not _names_filtered(item):
        return True
    spec = tool_spec(item.tool)
    names = [str(item.arguments[each.parameter]) for each in spec.filters if each.kind == "name"
             and item.arguments.get(each.parameter)] if spec else []
    asked = f"{question} {sentence}".lower()
    if not all(name.lower() in asked or regions_in(name) & regions_in(asked) for name in names):
        return False  # narrowed by a name nobody asked about
    applied = " ".join(names).lower()
    said = {*regions_in(sentence), *(name for name in known_names if name.lower() in sentence.lower()
                                     and words_in(sentence.lower(), [name.lower()]))}
    return not EVERYWHERE.search(sentence) and all(name.lower() in applied or name in regions_in(applied) for name in said)


def _no_row_shows(clause: str, relevant: Sequence[ToolEvidence], known_names: Collection[str] = (),
                  question: str = "") -> str | None:
    """"Nothing degraded": the value said is shown by no row of a complete fitting search whose rows carry its
    field — one that could have shown it (a search narrowed to other values of it could not, nor one narrowed to
    another region or group than the sentence names)."""
    match = DENIED_VALUE.search(clause)
    if match is None:
        return None
    rest = match.group("rest")
    values = [(vocabulary, value) for vocabulary in VALUE_VOCABULARIES.values() for found, value in vocabulary.find(rest)
              if len(rest[:found.start()].split()) <= 1]  # the value is what is denied, not a later detail
    for vocabulary, value in values:
        searches = [item for item in relevant if item.rows and item.total == len(item.rows)
                    and (spec := tool_spec(item.tool)) and not spec.is_lookup and not spec.past  # a listing of them
                    and spec.record == vocabulary.record and _names_only_searched(item, clause, known_names, question)
                    and vocabulary.name not in narrowed_by(item)
                    and all(any(field in row for field in vocabulary.row_fields) for row in item.rows)]
        if searches and not any(_shows(row, vocabulary, value) for item in searches for row in item.rows):
            return f"no row of the complete {searches[0].tool} search is {value}"
    return None


ELLIPSIS = re.compile(r"\b(?:ha(?:ve|s|d)\s+none|none\s+either|neither\s+(?:do|does|did|has|have))\b", re.IGNORECASE)


def _elided(clause: str, sentence: str, answer: str) -> set[str]:
    """"Three have an open ticket: … pl_a and pl_b have none": a "none" whose noun is the sentence's before it."""
    if not ELLIPSIS.search(clause) or _family(PARENTHESIS.sub(" ", clause).lower()):
        return set()
    return _family(PARENTHESIS.sub(" ", _sentence_before(clause, sentence, answer)).lower())


def _sentence_before(clause: str, sentence: str, answer: str) -> str:
    """The answer's sentence before the one holding ``clause`` ("" for the first)."""
    said = read.sentences(answer)
    at = next((number for number, text in enumerate(said) if clause in text or text in sentence), 0)
    return said[at - 1] if at > 0 else ""


def _elided_fields(clause: str, sentence: str, answer: str) -> list[str]:
    """"8 of 15 failed; the other 7 had none", "… twice in December. Nothing since 31 Dec.": a "none" naming no
    record is about the count its sentence, or the sentence before, names."""
    # (an aside in its own sentence is not what it is about; the sentence before may name it in one: "(the last failure)")
    for text in (PARENTHESIS.sub(" ", sentence), _sentence_before(clause, sentence, answer)):
        found = count_fields_in(text.lower())
        if found:
            return found
    return []


LINKING = re.compile(r"\b(?:link(?:s|ed)?|attached|related|parent)\b", re.IGNORECASE)
"""Words that make a "no change" about a record's links ("no linked records: no problem, no change")."""
IN_THE_ERROR = re.compile(r"\bin (?:the|its) (?:error|error message|message|failure)\b", re.IGNORECASE)
ERROR_FIELDS = ("error_message", "error_code", "failed_activity")
NOTHING_ABOUT = re.compile(r"\b(?:nothing|no mention|no word)\s+(?:about|of|on)\s+(?:the\s+)?([a-z][\w-]{3,}|(?-i:[A-Z]{3}))\b"
                           r"(?!\s+(?:status|side|page|dashboard|portal))"  # ("nothing on the Snowflake status page")
                           r"|\bno\s+([a-z][\w-]{2,})\s+(?:yet\s+)?(?:in|on)\s+(?:the|its|this|that)\s+(?:ticket|incident|record|"
                           r"notes|work notes|description|updates?)\b", re.IGNORECASE)
"""What a record's own text is said not to mention: "nothing about clusters in the error", "no ETA in the ticket"."""


OTHER_KIND = re.compile(r"\bno other (?:kinds?|types?|sorts?) of (?:failures?|errors?)\b|\bno other (?:failures?|errors?|"
                        r"error codes?)\b", re.IGNORECASE)
"""A none about a pipeline's history: no failure of another kind than those the answer gives."""


NO_RUN_SINCE = re.compile(r"^\W*no (?:new |other |further |later )?(?:runs?|reruns?|retr(?:y|ies)) since\W*$", re.IGNORECASE)
"""A table cell beside a pipeline's latest run ("❌ Failed — no run since"): nothing ran after it."""


def _latest_said(sentence: str, context: str, answer: str, index: EvidenceIndex) -> bool:
    """The pipeline a row is about has a status summary whose latest run started at a time the row says."""
    record = _record_meant(sentence, context, answer, index, pointed=True)
    starts = {moment for _, row in (index.rows_for(record) if record else []) if (moment := iso_moment(row.get("last_start")))}
    return any(f"{moment:%H:%M}" in context for moment in starts)


def _failure_kinds(sentence: str, context: str, answer: str, index: EvidenceIndex) -> list[str] | None:
    """The error code of each failure group (one kind of failure: a code, an activity, a message) in the history of
    the pipeline a clause is about (``None`` without a history of it)."""
    record = _record_meant(sentence, context, answer, index, pointed=True)
    groups = [group for _, row in (index.rows_for(record) if record else []) if isinstance(row.get("failure_groups"), list)
              for group in row["failure_groups"] if isinstance(group, dict)]
    return [str(group.get("error_code")) for group in groups] if groups else None


def _history_none(sentence: str, context: str, answer: str, index: EvidenceIndex) -> str | None:
    """A none of failures (of a kind) read against the history of the pipeline meant (``failure_history``)."""
    return history_none(sentence, _record_meant(sentence, context, answer, index, pointed=True), index) \
        if NO_FAILURES.search(sentence) else None


STATES = frozenset({"incident_state", "change_state"})
"""What "no open ticket …" may be narrowed by: the open states it says."""


def _listed_absent(sentence: str, index: EvidenceIndex, answer: str, fit: Fit) -> str | None:
    """"No open ticket names these:" and a list: every record the list leads with was searched for, fittingly, and
    that search came back empty — or a complete listing of what the sentence names shows none of them."""
    if not sentence.rstrip(" *_").endswith(":") or sentence not in answer:
        return None
    after = answer[answer.index(sentence) + len(sentence):].split("\n")[1:]  # the lines after its own
    items = list(itertools.takewhile(read.BULLET.match, after))
    keys = [found[0] for line in items if (found := record_keys(line))]
    if not keys or len(keys) != len(items):
        return None
    tools = _family(PARENTHESIS.sub(" ", sentence.lower()))  # "no open ticket …": the ticket searches
    wide = [item for item in index.items if not _names_filtered(item) and narrowed_by(item) <= STATES]
    for key in keys:
        searches = [item for item in index.searched_for(key) if item.answered and fit(item) and item in wide]
        listings = [item for item in index.complete_listings_without(key) if fit(item) and item in wide
                    and (not tools or item.tool in tools)]
        if searches and any(item.rows for item in searches) or not searches and (
                not listings or index.rows_mentioning(key, tools)):
            return None
    return f"the searches for {', '.join(keys)} came back without them"


def _record_meant(sentence: str, context: str, answer: str, index: EvidenceIndex, *, pointed: bool) -> str | None:
    """The record a clause is about: the one it (or its whole sentence) names, else — when it points back ("it", a
    field dump's line) — the last one the answer named before it."""
    before = record_keys(answer[:answer.find(context or sentence)]) if answer and pointed else []
    return index.subject(record_keys(sentence) or record_keys(context) or before[-1:])


LINKED_NOTHING = re.compile(r"\b(?:nothing|no (?:other )?(?:record|ticket|change|incident)s?)\s+(?:is\s+|are\s+|has been\s+)?"
                            r"(?:linked|attached|related)\s+(?:to|with)\b|\bno linked (?:records?|tickets?|items?)\b",
                            re.IGNORECASE)
"""A none of any linked record ("Nothing is linked to it yet", "no linked records")."""


LINKED_KIND_NONE = re.compile(r"\bno\s+(?P<kinds>(?:[\w-]+\s+){1,6}?)(?:is|are|has been|have been|was|were)\s+"
                              r"(?:linked|attached)\b", re.IGNORECASE)
"""A none of linked records of some kinds ("No problem record or parent incident is linked")."""
LINK_KINDS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "problem": lambda link: link.get("kind") == "problem" or "problem_id" in (link.get("via") or ()),
    "parent": lambda link: "parent_incident" in (link.get("via") or ()),
    "change": lambda link: link.get("kind") == "change",
    "incident": lambda link: link.get("kind") == "incident",
}
"""A word naming a kind of link, and which of a looked-up ticket's ``links`` are of it (a "parent incident" is a
parent: the first word that names a kind says it)."""


def _links_of_kinds_none(sentence: str, context: str, answer: str, index: EvidenceIndex) -> str | None:
    """"No problem record or parent incident is linked": the looked-up ticket meant links none of the kinds named."""
    match = LINKED_KIND_NONE.search(sentence)
    words = re.split(r"\s+(?:or|and|nor)\s+|,\s*", match.group("kinds").lower().strip()) if match else []
    kinds = [next((kind for kind in LINK_KINDS if kind in phrase.split()), None) for phrase in words]
    if not kinds or None in kinds:
        return None
    # the ticket the clause names, else the last one named before it whose links were looked up (not a linked
    # record named beside the none: "…is linked; CHG… is the only link")
    named = record_keys(sentence) or record_keys(answer[:max(answer.find(context or sentence), 0)])[::-1]
    linked = {str(link.get("number", "")).lower() for row in index.records if isinstance(row.get("links"), list)
              for link in row["links"] if isinstance(link, dict)}
    # (a record another's links name is passed over; any other stops the search: "The only P1 is INC…. No change is
    # linked to it" is about that P1, whose links nobody looked up)
    key = next((key for key in named if key not in linked), "")
    key = key if any(isinstance(row.get("links"), list) for _, row in index.rows_for(key)) else ""
    links = [row["links"] for _, row in index.rows_for(key) if isinstance(row.get("links"), list)] if key else []
    if links and not any(LINK_KINDS[kind](link) for found in links for link in found if isinstance(link, dict)
                         for kind in kinds):
        return f"{key} links no {' or '.join(kinds)}"
    return None


def _links_none(sentence: str, context: str, answer: str, index: EvidenceIndex, tools: set[str]) -> str | None:
    """"INC… → no change", "the ticket links no change": each ticket the clause names (or points back at) was looked
    up, its "links" (the change raised for it or that caused it, its parent, the tickets its text names) hold none of
    the kind denied, and no row of that kind names it."""
    if LINKED_NOTHING.search(sentence):  # "nothing is linked to it yet": a looked-up record whose links are empty
        key = _record_meant(sentence, context, answer, index, pointed=True)
        links = [row["links"] for _, row in index.rows_for(key) if isinstance(row.get("links"), list)] if key else []
        if links and not any(found for found in links):
            return f"{key} links no record"
    if by_kind := _links_of_kinds_none(sentence, context, answer, index):
        return by_kind
    denial = NEGATION.search(sentence)
    denied = _family(sentence[denial.end():].lower()) if denial else set()  # "the ticket links no change": changes
    kinds = {spec.record for tool in denied or tools if (spec := tool_spec(tool))} & {"incident", "change"}
    keys = [key for key in record_keys(PARENTHESIS.sub(" ", sentence)) if TICKET.fullmatch(key)]
    if not keys and (NAMES_IT.search(context or sentence) or any(  # "the ticket links no change" (not "the run")
            found.group(1).lower() != "run" for found in THE_RECORD.finditer(sentence))):
        keys = [key] if (key := _record_meant(sentence, context, answer, index, pointed=True)) else []
    share = SHARE.search(digits(sentence))
    if kinds and not keys and share and BARE_NO_LINK.match(digits(sentence)[share.end():]):  # "3 of the 4 have no change"
        looked = [row for item in index.items for row in item.rows if isinstance(row.get("links"), list)
                  and record_of_tool(item.tool) not in kinds]
        without = [row for row in looked if not any(isinstance(link, dict) and link.get("kind") in kinds
                                                    for link in row["links"])]
        if looked and len(without) == int(share.group(1)) and len(looked) == int(share.group(2)):
            return f"{len(without)} of the {len(looked)} records looked up link no {' or '.join(sorted(kinds))}"
    if not kinds or not keys or any(TICKET_PREFIXES.get(key[:3].upper()) in kinds for key in keys):
        return None  # "CHG… has no change request" denies the record itself: the named-absent reading's
    for key in keys:
        links = [row["links"] for _, row in index.rows_for(key) if isinstance(row.get("links"), list)]
        if not links or any(link.get("kind") in kinds for found in links for link in found if isinstance(link, dict)):
            return None
        if any(key in str(row).lower() for item in index.items if item.tool in tools for row in item.rows
               if str(row.get("number", "")).lower() != key):
            return None  # a record of that kind names it from its side
    return f"the links of {', '.join(keys)} hold no {' or '.join(sorted(kinds))}"


SINCE_OPENED = re.compile(r"\bsince\s+(?P<day>the day\s+)?(?:it|the ticket|the incident|they)\s+(?:was|were)\s+"
                          r"(?:opened|raised|logged|created)\b", re.IGNORECASE)
"""A bound at the record's own opening ("nothing has moved since the day it was opened")."""


def _last_update(key: str | None, index: EvidenceIndex) -> datetime | None:
    """When the record was last updated, from its rows' update fields."""
    updates = [moment for _, row in (index.rows_for(key) if key else []) for field in UPDATE_FIELDS
               if (moment := iso_moment(row.get(field)))]
    return max(updates, default=None)


def _nobody_holds(sentence: str, context: str, index: EvidenceIndex, answer: str) -> str | None:
    """"assigned_to: (nobody)", "nobody's on it": the record the line is about (named there, else the last one
    named before it) has no assignee."""
    if not any(value == "unassigned" for _, value in ASSIGNEE.find(sentence)):
        return None
    pointed = NAMES_IT.search(context) is not None or FIELD_DUMP.match(context) is not None  # "it", "assigned_to: …"
    key = _record_meant(sentence, context, answer, index, pointed=pointed)
    people = [row["assigned_to"] for _, row in (index.rows_for(key) if key else []) if "assigned_to" in row]
    return f"{key} has no assignee" if people and not any(people) else None


def _empty_field(sentence: str, index: EvidenceIndex, context: str = "") -> str | None:
    """"No error code", "no end time yet": a field the rows show empty, named after the negation — the rows of
    the record the sentence (or the whole sentence a clause is part of) names, or else every row that has it."""
    keys = read.record_keys(sentence) or read.record_keys(context) or [key for key in [index.sole_record()] if key]
    rows = [row for _, row in index.rows_for(keys[0])] if len(keys) == 1 else index.records
    for match in re.finditer(r"\b(?:no|without)\s+((?:[a-z]+\s+){0,2}[a-z]+)", sentence, re.IGNORECASE):
        said = match.group(1).lower()
        fields = {field for row in rows for field in row if len(field) > 3
                  and re.match(rf"{re.escape(field.replace('_', ' '))}s?\b", said)}
        # "no error": every field the word begins (error_code, error_message) — all of them empty; a word alone,
        # naming no kind of record ("no run") and no value ("no failed run")
        alone = len(said.split()) == 1 and said not in RECORD_WORDS_FLAT and not _values_said(said)
        family = {field for row in rows for field in row if alone and "_" in field and len(said) > 3
                  and re.fullmatch(rf"{re.escape(field.split('_')[0])}s?", said)}
        if family and all(row.get(field) in (None, "", []) for row in rows for field in family):
            return f"the rows show {', '.join(sorted(family))} empty"
        if len(keys) == 1 and re.match(r"(?:linked|link|links|related|problem|parent|change)\b", said) and \
                LINKING.search(f"{sentence} {context}"):
            fields.add("links")  # "INC… has no linked records: no problem, no change": its own links
        for field in fields:
            shown = [row[field] for row in rows if field in row]
            if shown and all(value in (None, "", []) for value in shown):
                return f"the rows show {field} empty"
    return None


ON_THE_STATUS_PAGE = re.compile(r"\b(?:nothing|none|no (?:incidents?|issues?|problems?|notices?))\s+(?:(?:is\s+)?(?:posted|"
                                r"reported|listed|showing|open)\s+)?on\s+(?:the|its|their|any)\s+status\s+pages?\b")
"""A none of a status page's notices ("nothing on the status page for that region")."""


def _own_range(sentence: str, now: datetime) -> list[tuple[datetime, datetime]]:
    """The one range of time a sentence gives itself ("03:00–05:30 UTC today", read as one range), if it gives
    exactly one (``_own_window`` reads a day or window said beside a none, and wants it alone)."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    ranges = [(mention.start, mention.end) for mention in find_times(sentence, now) if mention.point is None]
    return ranges if len(ranges) == 1 else []


def _own_window(sentence: str, now: datetime | None) -> tuple[datetime, datetime] | None:
    """The one day or window a sentence names for itself ("yesterday's runs", "on Wednesday"), not a "since"."""
    from opsagent.intake.times import find_times  # the one time parser, the same that read the question

    if now is None:
        return None
    outside = PARENTHESIS.sub(" ", sentence)  # "(the last good one started 23:10)" is a detail, not its window
    found = [mention for mention in find_times(outside, now) if not mention.text.lower().startswith("since")]
    negation = NEGATION.search(outside)
    if len(found) > 1 and negation:  # "the four that failed today had no failed runs yesterday": the none's own
        found = [mention for mention in found if mention.span.start > negation.start()]
    return (found[0].start, min(found[0].end, now)) if len(found) == 1 and found[0].start < now else None


def _shows(row: dict[str, Any], vocabulary: Vocabulary, value: str) -> bool:
    """The row's own field says the value ("Failed" for the run status "failed"); a row without the field (a
    search for failed runs lists no status) may have it."""
    labels = vocabulary.selected(value) or {value.lower()}
    fields = [field for field in vocabulary.row_fields if field in row]
    if vocabulary.name == "assignee":  # its values are whether a person is set, not words in the field
        return not fields or any(bool(str(row.get(field) or "").strip()) == (value != "unassigned") for field in fields)
    return not fields or any(str(row.get(field) or "").lower() in labels for field in fields)


DATED = re.compile(rf"\b\d{{1,2}}\s+{MONTH_NAME}\b|\b{MONTH_NAME}\s+\d{{1,2}}\b|\d{{4}}-\d\d-\d\d|\b(?:yesterday|today)\b|"
                   rf"\b{DAY_NAME}\b", re.IGNORECASE)
"""A sentence that names the day of its time ("since 07:20 on Mon 6 Jan", "since yesterday 18:00")."""


NO_UPDATE = re.compile(r"\b(?:logged|updated?|updates|posted|written|added|moved|movement|progress)\b|"
                       r"\bnew(?:er)?\s+(?:on|in)\s+(?:it|the|its|this|that)\b|\bon\s+it\s+since\b", re.IGNORECASE)
"""A "none" about a record's own updates ("nothing has been logged on it since …", "nothing newer on the ticket",
"nothing has moved on it since Monday", "nothing on it since")."""
FIELD_DUMP = re.compile(r"^\W*[a-z][\w ]{1,24}:\s", re.IGNORECASE)
"""A line of a field dump ("assigned_to: (nobody)"): about the record the dump began with."""
BARE_NO_LINK = re.compile(r"\s*(?:of them\s+)?(?:have|has|had|links?|show)\s+no\s+(?:linked\s+|related\s+)?"
                          r"(?:change requests?|changes?|chgs?|rfcs?|incidents?|tickets?|incs?)\W*$", re.IGNORECASE)
""""… have no change" and nothing else: a share said of every record looked up, no subject of its own ("3 of the 4 P1s")."""
NAMES_IT = re.compile(r"\b(?:it|its|it's|this one|that one)\b", re.IGNORECASE)
"""A pronoun: the sentence is about the record named just before it, not one it names by a noun ("the P1")."""
UPDATE_FIELDS = tuple(sorted({field for kind in RECORDS.values() for field in kind.time_fields if "updated" in field}))


PARENTHESIS = re.compile(r"\(([^()]*)\)")


def _without_details(text: str) -> str:
    """The text without parenthesised details that name no record ("couldn't launch (no capacity in
    westeurope)"): a quoted reason, not a claim that nothing matched. "(none)" stays a claim."""
    def detail(match: re.Match[str]) -> str:
        words = match.group(1).lower().split()
        named = any(word.strip(".,;:") in RECORD_WORDS_FLAT for word in words)
        return " " if len(words) >= 3 and not named else match.group()

    return PARENTHESIS.sub(detail, text)


def _no_narrower(fit: Fit, stated: set[str]) -> Fit:
    return lambda item: fit(item) and narrowed_by(item) <= stated


def _without_values(text: str) -> str:
    """The text with value phrases blanked: "no one assigned", "not requested" are values, not negations."""
    for vocabulary in VALUE_VOCABULARIES.values():
        for match, _ in vocabulary.find(text):
            if match.group().lower() in NOBODY and not ASSIGNING.match(text[match.end():]) \
                    and not HOLDING.search(text[:match.start()]) and not FIELD_VALUE.search(text[:match.start()]):
                continue  # "nobody has raised a ticket": a negation, not "unassigned"
            text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
    return text


NOBODY = frozenset({"nobody", "no one", "noone"})
ASSIGNING = re.compile(r"\W*(?:(?:is|has|have|had|was|'s)\s+)?(?:been\s+)?(?:assigned|picked|owns?|working|taken|"
                       r"looking|holds?|yet|on\s+(?:it|them|this|that|these|those)\b|on\b(?=\s*(?:[.,;:!?)]|$)))"
                       rf"|\W*(?:has|holds|owns)\s+(?:{TICKET.pattern}|it|them|this one|that one)\b"
                       r"|\W*(?:has|have|had)\s+(?:yet\s+)?[a-z]+(?:ed|en)\s+(?:it|this|that|them)\b", re.IGNORECASE)
HOLDING = re.compile(r"\b(?:has|have|with|by|to)\s+$", re.IGNORECASE)
"""Around "nobody": it holds a ticket ("nobody has been assigned", "two tickets have nobody on them")."""
FIELD_VALUE = re.compile(r"(?:[·|•:—–]|\bassignee|\bowner)\s*$", re.IGNORECASE)
"""Before "nobody", a field's place ("INC… · P4 · New · nobody", "owner: nobody"): the assignee's value."""


OTHERWISE = re.compile(r"\b(?:else|other|others|besides|apart from)\b", re.IGNORECASE)
"""A "none" beyond what the answer names ("nothing else failed", "no other incidents")."""
SELF = re.compile(r"\bI(?:'m| am)?\s+(?:can't|cannot|can not|won't|unable|not able|don't|do not)\b", re.IGNORECASE)
"""What the writer says of itself ("I can't page anyone from here"): not a statement about the data."""


QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|`[^`]*`|(?<![\w'])'[^']{3,}'(?![\w'])")


def _without_data_words(clause: str, index: EvidenceIndex) -> str:
    """The clause without the data's own words: quoted text ("Cannot find the file …") and a negation a record's
    text holds with its neighbours ("source file not found" in a title, "UserErrorFileNotFound" in an error code)
    describe an error, not an empty search."""
    clause = QUOTED.sub(" ", clause)
    for match in reversed(list(NEGATION.finditer(clause))):
        before = re.findall(r"[\w-]+", clause[:match.start()])[-1:]
        after = re.findall(r"[\w-]+", clause[match.end():])[:1]
        said = re.findall(r"[\w-]+", match.group().lower())
        phrases = [" ".join(words).lower() for words in ([*before, *said], [*said, *after]) if len(words) >= 3]
        if any(f" {phrase} " in index.row_words or phrase.replace(" ", "") in index.row_text for phrase in phrases):
            # (or run together, as error codes write it: "file not found" in "UserErrorFileNotFound")
            clause = clause[:match.start()] + " " * (match.end() - match.start()) + clause[match.end():]
    return clause


JUDGEMENT = re.compile(r"^\W*(?:nothing|no evidence|no sign)\s+(?:(?:here|so far|yet|that|which|in the (?:records|data|rows|"
                       r"evidence|logs))\s+)?(?:points?|suggests?|indicates?|links?|ties?|connects?|implies|hints?|lines? up)\b",
                       re.IGNORECASE)
ADVISING = re.compile(r"\bnone of (?:that|this)\b|^\W*(?:\d+[.)]\s*)?(?:consider|try|make sure|ask|if|unless|in case)\b|"
                      r"\bI(?:'d| would)(?: not|n't)?\b|\bI wouldn't\b|\b(?:possibly|perhaps|maybe)\b[^.;]*\bwithout\b|"
                      r"\b(?:no (?:need|point|reason|rush|harm)|nothing (?:(?:for|left for) (?:anyone|you|us|them) )?(?:to (?:do|fix|worry about|change|chase|rerun|re-run|retry|restart)|"
                      r"(?:you|we) (?:need|have) to do))\b", re.IGNORECASE)
"""Advice ("no need for a new ticket", "nothing to fix in the notebook", "Consider a check so a missing file doesn't
page anyone", "I wouldn't add anything to her plate"), a condition ("if they find nothing, …"), a hedged guess
("possibly the same delays, without quite failing") or a judgement of what was just said ("none of that helps a
job cluster launch"), not a search's result."""
PREDICTING = re.compile(r"^\W*(?:so\s+|then\s+)?(?:(?:you\s+can\s+|I'd\s+)?(?:expect|anticipate)\s+(?:to\s+see\s+)?(?:no|nothing|zero)"
                        r"|there\s+(?:will|won't)\s+be\s+(?:no|nothing|any))\b|\b(?:would|could|might)\s+(?:[\w-]+\s+){1,4}?"
                        r"without\b|^\W*(?:(?:it|this|that|they|we|you)\s+)?(?:can't|cannot|can not|won't|shouldn't|mustn't|"
                        r"must not)\s+(?:[^\s.;]+\s+){1,5}?without\b", re.IGNORECASE)
"""A clause that only foretells or supposes ("so expect no CRM copies between 05:00 and 07:00", "there will be no runs
then", "a slow cluster start would add minutes without failing the run", "it can't go in at 10:00 without
authorisation"): an
inference about the future, which no search can have come back empty for (its own clause: "No runs failed, so expect
no late reports" leaves "No runs failed" to be checked)."""


GENERIC = re.compile(r"\b(?:status|state|fine|normal|green|okay|ok|slow|unknown|region|platform)\b")
"""Record words that are also everyday words ("no HTTP status came back"): they name no kind of record alone."""


DETAIL_NOUN = re.compile(r"\s+(?!(?:found|matched|match|matches|results?|records?|rows?|data|such|one|else|other|"
                         r"at|in|on|of|for|to|yet|so|here|there|this|that|showed|came|returned|turned)\b)[a-z][\w-]{2,}",
                         re.IGNORECASE)
"""What a negation is about when it names something ("no *HTTP* status"), not a bare "none found", "nothing
matched", "no results"."""


def _names_a_record(text: str, *, everyday: bool = False) -> bool:
    """A kind of record, a value, an id or a number in ``text``; with ``everyday``, record words that are also
    everyday words (GENERIC) do not count."""
    return bool(_family(GENERIC.sub(" ", text.lower()) if everyday else text.lower()) or _stated(text)
                or identifiers_in(text) or re.search(r"\d", text))


def _names_nothing(clause: str) -> bool:
    """"Nothing points to it", "nothing suggests that": a judgement naming no record kind, value, id or number —
    an inference from what was shown, not a search that came back empty ("none found" is one)."""
    return JUDGEMENT.search(clause) is not None and not _names_a_record(clause)


def _a_detail(clause: str, sentence: str, index: EvidenceIndex) -> bool:
    """"No HTTP status came back": a negation that names something, but no kind of record, value, id, number or
    row field — in its clause or its sentence — is a detail of a record, not a search that came back empty
    ("none found" is one: the question says of what)."""
    negation = NEGATION.search(clause)
    if negation is None or DETAIL_NOUN.match(clause, negation.end()) is None:
        return False
    named = re.findall(r"[a-z]+", clause[negation.end():].lower())[:3]
    fields = {field.replace("_", " ") for row in index.records for field in row if len(field) > 3}
    own_noun = bool(named) and named[0] not in RECORD_WORDS_FLAT
    tail = clause[negation.start():]  # "… rerun the pipeline as soon as they land, no ETA yet": the negated words
    read = (clause,) if own_noun and len(clause.split()) <= 6 else (tail,) if own_noun and len(tail.split()) <= 5 \
        and not identifiers_in(clause) else (clause, sentence)  # ("There's no ETA": the clause is the detail)
    return not any(f"{' '.join(named)} ".startswith(f"{field} ") or " " in field and named[:1] == field.split()[:1]
                   for field in fields) and not any(  # ("nothing assigned right now": the assigned_to field)
        _names_a_record(text, everyday=True) for text in read)


def check_negative_claims(text: str, index: EvidenceIndex, fit: Fit, windows: Sequence[tuple[datetime, datetime]] = (),
                          fit_any_time: Fit | None = None, read_rows: RowsRead | None = None,
                          now: datetime | None = None, known_names: Collection[str] = ()) -> list[GroundingCheck]:
    """Each clause saying nothing matched is backed by a fitting search that came back empty — or by a wider
    one (``fit_any_time``: it fits but for its window) that covers the ``windows`` asked and whose rows, all of
    them seen, all fall outside them."""
    checks = []
    for sentence in read.sentences(text):
        for clause in read.split_outside(CLAUSE, sentence):  # not inside "(02:11 and 05:12, …)"
            if _names_nothing(clause) or not NOT_SINCE.search(clause) and \
                    not NEGATION.search(_without_details(_without_values(_without_data_words(LEAD_WORD.sub("", clause), index)))) or \
                    CONJUNCTION.sub("", clause.lower().strip(" .!—-")) in BARE_ANSWERS or read.BARE_NO.match(clause) or SELF.search(clause) \
                    or ADVISING.search(clause) or PREDICTING.search(clause):
                continue  # a "No —" / "No," lead is checked on its own ("No, your DR region looks fine")
            why = _backs_negative(clause, index, fit, context=sentence, windows=windows, fit_any_time=fit_any_time,
                                  read_rows=read_rows, answer=text, now=now, known_names=known_names)
            checks.append(GroundingCheck.of("negative_claim", clause, why is not None,
                                 f"no search that fits what was asked came back empty for: \"{clause}\"",
                                 "a statement that nothing matched, which no fitting search backed"))
    return checks


