"""Yes/no leads: "Yes — …" / "No — …" must answer the ask's own predicate.

A lead is judged against the ask it answers (intake's asks, in order): a search must have applied every filter,
window and name the ask states — or, for what no search applied, every row must say it by its own fields (a
group, an assignee, an age) — and what the rows then show must say yes or no. A lead about one record is read
from that record's rows; "every run" needs each row to have it; "slower than usual" is the run's place among its
pipeline's recent successful runs. The rows are read with ``claim_checks``' helpers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from opsagent.contracts.analysis import Ask, QuestionAnalysis, Span
from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.grounding import GroundingCheck
from opsagent.intake.asks import EXISTENCE
from opsagent.intake.vocabulary import PLATFORM_WORDS, STOPWORDS
from opsagent.tools.catalog import RECORDS, record_of_noun, records_named, same_kind, tool_spec
from opsagent.tools.run_history import DurationStats
from opsagent.tools.timewindow import iso_moment
from opsagent.tools.vocabularies import HEALTH_STATUS, VALUE_VOCABULARIES
from opsagent.workflows.claim_checks import (
    KEY_RECORDS,
    asked_values,
    found_in,
    record_window,
    row_matches,
    rows_read,
    text_of,
    has_baseline,
    observed_values,
    record_of_key,
    region_said,
    row_moments,
    row_values,
)
from opsagent.workflows.claims import LEAD, LEAD_WORDS, PRONOUN, lead_said, record_keys
from opsagent.workflows.claims import sentences as read_sentences
from opsagent.workflows.evidence_index import EvidenceIndex, digits, numbers_in, record_of_tool
from opsagent.workflows.history_claims import STREAK, failures_of
from opsagent.workflows.fitting import (
    Qualifier,
    asked_windows,
    fits,
    narrowed_by,
    read_from_rows,
    row_meets,
    text_asked,
    unapplied_mentions,
)


WORD = re.compile(r"[a-z0-9][a-z0-9_-]+")


SMALL_WORDS = frozenset("the any are is was were did does do has have there for of in on to and or it its".split())


BARE_LEAD = re.compile(rf"^\W*(?:{'|'.join(LEAD_WORDS)})\W*$", re.IGNORECASE)


def leads_of(summary: str) -> list[tuple[str, str]]:
    """Every "Yes —" / "No —" that starts a sentence of the direct answer, with its sentence (a bare "No."
    with the sentence after it, which says what it is about)."""
    said = read_sentences(summary)
    return [(lead_said(match), sentence + (f" {said[number + 1]}" if BARE_LEAD.match(sentence)
                                                 and number + 1 < len(said) else ""))
            for number, sentence in enumerate(said) if (match := LEAD.match(sentence))]


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower())) - SMALL_WORDS


def _answered_ask(sentence: str, asks: Sequence[Ask]) -> Ask:
    """The yes/no ask a lead sentence answers: the one whose words and records it shares most (then the first)."""
    words, records = _words(sentence), set(records_named(sentence)) | {
        VALUE_VOCABULARIES[name].record for name in asked_values(Ask(id="", text=sentence, span=Span(start=0, end=0)))}
    return max(asks, key=lambda ask: (len(words & _words(ask.text)) + 2 * len(records & set(ask.records)),
                                      -asks.index(ask)))


def _scope(analysis: QuestionAnalysis, ask: Ask) -> QuestionAnalysis:
    return analysis.in_span(ask.span.start, ask.span.end)


DESCRIBING_WORD = re.compile(r"\b[a-z][a-z0-9-]{3,}\b")


@cache
def _value_words() -> frozenset[str]:
    return frozenset(word for vocabulary in VALUE_VOCABULARIES.values() for phrase, _ in vocabulary.text_phrases
                     for word in phrase.lower().split())


def _described(asked: str, items: Sequence[ToolEvidence]) -> list[tuple[ToolEvidence, dict[str, Any]]] | None:
    """"Is *the* change for the portal approved?": a yes/no about one record described by its words, not named.
    The rows whose own text has a describing word of the ask (not a value, a record noun or a function word),
    when some rows do and others do not; else ``None`` (every row is read)."""
    if not re.search(r"\bthe\b", asked, re.IGNORECASE):
        return None
    words = [word for word in DESCRIBING_WORD.findall(asked.lower()) if word not in STOPWORDS
             and word not in _value_words() and record_of_noun(word) is None]
    rows = [(item, row) for item in items for row in rows_read(item, asked)]
    picked = [(item, row) for item, row in rows
              if any(re.search(rf"\b{re.escape(word)}", text_of(row).lower()) for word in words)]
    return picked if picked and len(picked) < len(rows) else None


def _subjects(ask: Ask, asked: dict[str, set[str]], analysis: QuestionAnalysis) -> set[str]:
    """The record kinds whose existence an ask is about: the first record a noun or a name gives after
    "any / is there" ("any *pipeline* failure before CHG…", "anyone raised a *ticket* for the x failure",
    "any *azure* service issues"); else those of the values it asks ("any open P1s"); else its nouns.
    A ticket it names by id is the anchor of the question, not its subject. Empty when the words do not say."""
    existence = EXISTENCE.search(ask.text)
    valued = {VALUE_VOCABULARIES[name].record for name in asked}
    if existence:  # a noun after it, else the values asked, else a name after it
        after = ask.text[existence.end():]
        nouns = sorted(((match.start(), -len(noun), kind.name) for kind in RECORDS.values() for noun in kind.nouns
                        for match in re.finditer(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", after, re.IGNORECASE)))
        offset = ask.span.start + existence.end()
        # a record that places a window is its anchor ("anything fail since the firewall change CHG… started")
        nouns = [noun for noun in nouns if not any(
            window.span.start <= offset + noun[0] < window.span.end for window in analysis.record_windows)]
        names = sorted((item.span.start, record) for item in analysis.entities if item.usable
                       and item.span.start >= offset and item.span.end <= ask.span.end
                       for record in ENTITY_SUBJECT.get(item.kind, ()))
        chosen = {nouns[0][2]} if nouns else valued or ({names[0][1]} if names else set())
        if chosen:
            return _with_runs(chosen)
    anchors = {KEY_RECORDS[key[:3]] for key in record_keys(ask.text) if key[:3] in KEY_RECORDS}
    return _with_runs(valued or set(records_named(ask.text)) - anchors)


ENTITY_SUBJECT = {"pipeline": ("pipeline",), "factory": ("pipeline",), "platform": ("health",),
                  "component": ("health",), "azure_service": ("health",), "run_id": ("run",)}


def _with_runs(records: set[str]) -> set[str]:
    return records | ({"run"} if "pipeline" in records else set()) | ({"pipeline"} if "run" in records else set())




def _relevant(index: EvidenceIndex, subjects: set[str]) -> list[ToolEvidence]:
    return [item for item in index.items if item.answered and tool_spec(item.tool)
            and any(same_kind(tool_spec(item.tool).record, subject) for subject in subjects)]


DEFINITE = re.compile(r"\b(?:the|this|its|my|our)\b|\bthat\s+(?!(?:is|are|was|were|has|have|had)\b)[a-z]",
                      re.IGNORECASE)
"""A definite record ("the change", "that run"), not a relative "that" ("any P1 that's been open …")."""


def _the_record_said(sentence: str, ask: Ask, asked: dict[str, set[str]], index: EvidenceIndex) -> str | None:
    """"Is *the* emergency change for the portal approved?" answered "No — CHG… is in Authorize": a definite
    question about one record the lead names (and the evidence has), judged on that record's row."""
    keys = record_keys(sentence)
    if len(keys) != 1 or not index.rows_for(keys[0]) or not DEFINITE.search(ask.text):
        return None
    kind = record_of_key(keys[0])
    return keys[0] if any(same_kind(VALUE_VOCABULARIES[name].record, kind) for name in asked) else None


def _single_record(ask: Ask, asked: dict[str, set[str]]) -> str | None:
    """"Is INC… still open?": one record named by key, asked about a value of its own kind."""
    keys = record_keys(ask.text)
    if len(keys) != 1:
        return None
    kind = record_of_key(keys[0])
    return keys[0] if any(same_kind(VALUE_VOCABULARIES[name].record, kind) for name in asked) else None


def _the_one_record(ask: Ask, asked: dict[str, set[str]], index: EvidenceIndex) -> str | None:
    """"Is it still failing?" after a look-up of one pipeline's history: "it" is the one record of the asked
    value's kind that the evidence is about (more than one, and the pronoun is not read)."""
    if record_keys(ask.text) or not PRONOUN.search(ask.text) or not asked:
        return None
    keys = {str(row.get("number") or row.get("pipeline_name")).lower() for row in index.records
            if row.get("number") or row.get("pipeline_name")}
    keys = {key for key in keys if any(same_kind(VALUE_VOCABULARIES[name].record, record_of_key(key)) for name in asked)}
    return keys.pop() if len(keys) == 1 else None


def _borrowed(analysis: QuestionAnalysis, ask: Ask) -> QuestionAnalysis:
    """The whole question as the scope of an ask that names no kind of record ("snowflake frankfurt this morning -
    any problems?"), without the windows of another ask that names its own kind by a noun or a value ("what's
    scheduled"): "changes going in this weekend - anything already open on those CIs?" asks of incidents open now,
    not of ones opened this weekend."""
    others = [other for other in analysis.asks if other.id != ask.id and (records_named(other.text) or asked_values(other))]

    def theirs(span: Span) -> bool:
        return any(span.within(other.span.start, other.span.end) for other in others)
    return analysis.model_copy(update={"times": [item for item in analysis.times if not theirs(item.span)],
                                       "record_windows": [item for item in analysis.record_windows
                                                          if not theirs(item.span)]})


def _placed_windows(scope: QuestionAnalysis, index: EvidenceIndex) -> list[tuple[datetime, datetime]]:
    """The exact windows the ask places by a record ("during the window of CHG…"), from its fetched row."""
    windows = []
    for relative in scope.record_windows:
        found = record_window(index, relative.record.lower()) if relative.record else None
        if found:
            windows.append(relative.window(found[0], found[1], scope.now))
    return windows


def check_leads(summary: str, analysis: QuestionAnalysis | None, index: EvidenceIndex) -> list[GroundingCheck]:
    """Each yes/no lead against the ask it answers (the yes/no asks, in order)."""
    if analysis is None:
        return []
    asks = [ask for ask in analysis.asks if ask.shape in ("yes_no", "compare")]
    return [_lead_check(lead, _answered_ask(sentence, asks), analysis, index, sentence)
            for lead, sentence in leads_of(summary) if asks]


def readable(qualifier: Qualifier, items: Sequence[ToolEvidence]) -> bool:
    """A filter no search applied whose value every row shows (the assignee, the state): the answer could
    read it from the rows ("are any of the open P3s unassigned?" over the open P3s). A name no search was
    asked for is readable when a row names it (the record was found another way)."""
    rows = [row for item in items for row in item.rows]
    if qualifier.kind == "name" and region_said(qualifier.text) and any(
            (spec := tool_spec(item.tool)) and spec.platform and not item.query.get("region") for item in items):
        return True  # a whole-platform health report covers every region: one it does not list is operational
    if qualifier.kind == "name":
        return any(qualifier.text.lower() in text_of(row).lower() for row in rows)
    if qualifier.kind == "window":  # a wider search: each row says when it happened, so the window can be read
        return bool(rows) and all(row_moments(record_of_tool(item.tool), row) for item in items for row in item.rows)
    vocabulary = VALUE_VOCABULARIES.get(qualifier.field)
    return qualifier.kind == "filter" and vocabulary is not None and bool(rows) and all(
        any(field in row for field in vocabulary.row_fields) for row in rows)


def _rows_say(qualifier: Qualifier, mention: Any, items: Sequence[ToolEvidence], now: datetime | None) -> bool:
    """Every row can say whether it meets a qualifier no search applied (its group, assignee, opening time)."""
    return any(item.rows for item in items) and all(read_from_rows(qualifier, mention, item, now) for item in items)


def _rows_meeting(read: Sequence[tuple[Qualifier, Any]], items: Sequence[ToolEvidence],
                  now: datetime | None) -> list[ToolEvidence]:
    """The searches with only the rows that meet the qualifiers read from rows (the search did not apply them)."""
    if not read:
        return list(items)
    return [item.model_copy(update={"rows": [row for row in item.rows if all(
        row_meets(qualifier, mention, row, record_of_tool(item.tool), now) for qualifier, mention in read)]})
        for item in items]


LEAD_COUNT = re.compile(r"^\W*yes\b(?:\s*[,—–:;.-]*\s*(?:there (?:are|were|is)\s+)?(?:just\s+|only\s+|exactly\s+)?|"
                        r"\s*[,—–:;-]+\s*all\s+(?:of\s+)?(?:the\s+)?)(\d+)\b(?!\s*(?:%|min|h\b|:|\.\d|of\b|out of\b))",
                        re.IGNORECASE)
"""A yes that says how many ("Yes, two:", "Yes — 3 came in", "Yes — all four open P1s"): the count of rows having
what was asked ("Yes. All five components are operational" is a sentence of its own, about all of them)."""


def _each_read(scope: QuestionAnalysis, items: Sequence[ToolEvidence],
               read: Sequence[tuple[Qualifier, Any]]) -> list[ToolEvidence]:
    """No one search applied all that was asked ("anyone from DPO on the P1?" over the P1s and DPO's tickets):
    each search's rows meeting what it left out, read from them; a search whose rows cannot say is left out."""
    found = []
    for item in items:
        left = [pair for pair in unapplied_mentions(scope, [item]) if pair not in read]
        if all(read_from_rows(qualifier, mention, item, scope.now) for qualifier, mention in left):
            found += _rows_meeting([*read, *left], [item], scope.now)
    return found or _rows_meeting(read, items, scope.now)


def _record_lead(lead: str, key: str, ask: Ask, asked: dict[str, set[str]], index: EvidenceIndex,
                 windows: Sequence[tuple[datetime, datetime]] = (),
                 placed: Sequence[tuple[datetime, datetime]] = ()) -> GroundingCheck:
    claim, public = f"{lead.capitalize()} — {ask.text}", f"the yes/no answer to \"{ask.text}\""
    kind = record_of_key(key)
    seen = {name: observed_values(index, key, VALUE_VOCABULARIES[name]) for name in asked
            if same_kind(VALUE_VOCABULARIES[name].record, kind)}
    if not any(seen.values()):
        # "did pl_x fail in the last 7 days?" over an empty search for pl_x's failures: no
        empty = [item for item in index.empty_searches() if key in str(item.arguments).lower()
                 and set(seen) <= narrowed_by(item) and text_asked(item, index.question)]
        if empty:
            return GroundingCheck.of("lead", claim, lead == "no", f"the lead says {lead} but {empty[0].tool} for {key} found nothing",
                          public + " (the data says otherwise)")
        return GroundingCheck.of("lead", claim, False, f"no row shows what \"{ask.text}\" asks about {key}",
                      public + " (no data showed it)")
    expected = "yes" if all(seen[name] & asked[name] for name in seen if seen[name]) else "no"
    streak = _streak(ask.text, key, asked, index)
    streak = streak if streak is not None else _latest_state(ask.text, key, asked, index)
    if streak is not None:  # "has it failed two nights in a row?", "still failing?": the latest runs, not any run
        return GroundingCheck.of("lead", claim, lead == streak, f"the lead says {lead} but {key}'s latest runs say "
                                 f"{streak}", public + " (the data says otherwise)")
    if len(windows) > 1 and not EITHER.search(ask.text):  # "did it fail both yesterday and today?": in each
        expected = "yes" if all(any(row_matches(item, row, asked, [window]) and row_moments(record_of_tool(item.tool), row)
                                    for item, row in index.rows_for(key)) for window in windows) else "no"
    elif EVERY.search(ask.text):  # "has pl_x failed on every run?", "did both failures fall in that window?":
        # each of its rows that shows a status has it, and happened inside the windows asked
        rows = index.rows_for(key)
        expected = "yes" if all(shown & asked[name] for name in seen for item, row in rows
                                if (shown := row_values(item, row, VALUE_VOCABULARIES[name]))) and all(
            row_matches(item, row, asked, [*placed, *windows]) for item, row in rows) else "no"
    return GroundingCheck.of("lead", claim, lead == expected, f"the lead says {lead} but {key}'s row says {expected}",
                  public + " (the data says otherwise)")


IN_A_ROW = re.compile(r"\b(?:in a row|consecutive(?:ly)?|back[- ]to[- ]back|straight|running)\b", re.IGNORECASE)
"""A streak ("failed two nights in a row", "3 consecutive failures"): the latest runs all have the value."""


def _streak(text: str, key: str, asked: dict[str, set[str]], index: EvidenceIndex) -> str | None:
    """Yes when the record's latest N runs have the status asked (none without it since), else no; ``None`` when
    the ask is no streak or the rows cannot place a run without it (a list of failures alone)."""
    wanted = {label.lower() for label in asked.get("run_status", ())}
    if not IN_A_ROW.search(text) or not wanted:
        return None
    count = int(next(iter(numbers_in(digits(text))), 2))
    having, other = _run_moments(key, wanted, index)
    if not other:
        return None
    return "yes" if sum(1 for moment in set(having) if moment > max(other)) >= count else "no"


def _run_moments(key: str, wanted: set[str], index: EvidenceIndex, *,
                 finished_only: bool = False) -> tuple[list[datetime], list[datetime]]:
    """When the record's runs the rows show started: (those with a status wanted, the others); a history's last
    failure and last success count. ``finished_only``: a run still going is no state yet (unless it is wanted)."""
    having, other = [], []
    for item, row in index.rows_for(key):
        for field, has in (("last_failure", "failed" in wanted), ("last_success", "succeeded" in wanted)):
            if isinstance(row.get(field), dict) and (moment := iso_moment(row[field].get("start"))):
                (having if has else other).append(moment)
        shown = row_values(item, row, VALUE_VOCABULARIES["run_status"])
        if finished_only and not shown & wanted and shown <= ACTIVE_RUN:
            continue
        if shown and (moment := iso_moment(row.get("start"))):
            (having if shown & wanted else other).append(moment)
    return having, other


STILL = re.compile(r"\b(?:still|currently|right now|at the moment|as of now|any ?more)\b", re.IGNORECASE)
"""A state asked of the present ("still broken?", "is it failing now?"): the latest run says it, not any run."""
ACTIVE_RUN = frozenset(label.lower() for label in VALUE_VOCABULARIES["run_status"].group_labels("active"))


def _latest_state(text: str, key: str, asked: dict[str, set[str]], index: EvidenceIndex) -> str | None:
    """Yes when the record's latest finished run (or the run asked about, when a status of a run going is asked)
    has the status asked, else no; ``None`` when the ask is not about now or no row places a run."""
    wanted = {label.lower() for label in asked.get("run_status", ())}
    if not STILL.search(text) or not wanted:
        return None
    having, other = _run_moments(key, wanted, index, finished_only=True)
    if not having or not other:
        return None  # rows of one kind only (a search of failures alone): which came last is not shown
    return "yes" if max(having) > max(other) else "no"


CAUSAL = re.compile(r"\b(?:break|broke|broken|cause[ds]?|behind|responsible for|due to|because of|related to|"
                    r"linked to|to blame)\b", re.IGNORECASE)
"""An ask whether one record caused another ("did the firewall change break the finance load?"): not a status."""
IN_WINDOW = re.compile(r"\b(?:inside|during|within|in)\s+(?:the\s+|its\s+|that\s+)?(?:[\w-]+\s+){0,3}window\b",
                       re.IGNORECASE)
PLACING_WORDS = re.compile(r"\b(?:inside|outside|during|within|before|after|while)\b", re.IGNORECASE)
"""An ask whether something fell in a window, answered by a sentence that places it (checked as a placement)."""
CAUSE_ASKED = re.compile(r"^\W*(?:is|was|are|were)\b.*\bwhy\b", re.IGNORECASE)
"""A yes/no whether one thing is why another happens ("is the databricks mess why pl_x keeps failing?")."""
EITHER = re.compile(r"\b(?:or|either)\b", re.IGNORECASE)
"""Windows an ask joins by "or": one of them is enough."""
PER_NAME = ("platform", "pipeline")
"""Names a question may ask about several of at once ("is Databricks or Snowflake degraded?")."""


def _named_in(sentence: str, analysis: QuestionAnalysis) -> set[str]:
    return {item.value.lower() for item in analysis.entities if item.usable and item.kind in PER_NAME
            and re.search(rf"(?<![\w-]){re.escape(item.value)}(?![\w-])", sentence, re.IGNORECASE)}


def _about_sentence(relevant: list[ToolEvidence], sentence: str, analysis: QuestionAnalysis) -> list[ToolEvidence]:
    """A lead sentence that names one of several platforms or pipelines the ask names ("Yes — Databricks is
    degraded. No — Snowflake …") answers for that one: only its searches count."""
    values = _named_in(sentence, analysis)
    if not values:
        return relevant
    narrowed = [item for item in relevant if (tool_spec(item.tool).platform or "").lower() in values
                or any(value in str(item.arguments).lower() for value in values)]
    return narrowed or relevant


ONLY = re.compile(r"\b(?:the only|only one|just one|the sole|the one and only)\b(?!\s*(?:question|thing|more)\b)",
                  re.IGNORECASE)
"""A yes/no whether one record is the only one that has what was asked: yes for exactly one row."""
EVERY = re.compile(r"\b(?:every|each|always|both)\b|(?<!\bat )\ball\b(?!\s+(?:day|night|week|morning|the time)\b)",
                   re.IGNORECASE)
"""A yes/no about every record ("has it failed on every run?", "are all the P1s assigned?"): one that does not
have it makes the answer no."""


SLOWER = re.compile(r"\b(?:slow(?:er)?|long(?:er)?|overr?un(?:ning)?|dragging|taking (?:ages|forever|a while))\b",
                    re.IGNORECASE)


FASTER = re.compile(r"\b(?:fast(?:er)?|quick(?:er)?|short(?:er)?)\b", re.IGNORECASE)
IN_USUAL_TIME = re.compile(r"\b(?:in|within)\s+(?:its|the|their|a)?\s*(?:normal|usual|typical|expected|regular)\s+"
                           r"(?:time|duration|runtime|run time)\b|\bon time\b", re.IGNORECASE)
"""Asked whether a run took no longer than usual ("did it finish in its normal time?"): yes unless it ran longer."""


def _usual_lead(lead: str, ask: Ask, index: EvidenceIndex, claim: str) -> GroundingCheck | None:
    """"Is pl_x taking longer than normal?" against the history the tool read: its run's minutes placed in the
    middle half of its recent successful runs (``DurationStats.place``); ``None`` when no history was read."""
    slower, faster, in_time = SLOWER.search(ask.text), FASTER.search(ask.text), IN_USUAL_TIME.search(ask.text)
    if not slower and not faster and not in_time:
        return None
    places = [DurationStats.from_row(row["durations"]).place(minutes) for item in index.items for row in item.rows
              if isinstance(row.get("durations"), dict) and isinstance(row.get("run"), dict)
              and isinstance(minutes := row["run"].get("running_for_min", row["run"].get("duration_min")), (int, float))]
    if not places:
        return None
    if slower or faster:
        expected = "yes" if ("longer" if slower else "shorter") in places else "no"
    else:
        expected = "no" if "longer" in places else "yes"
    return GroundingCheck.of("lead", claim, lead == expected,
                             f"the lead says {lead} but the run's time against its usual says {expected} ({places[0]})",
                             f"the yes/no answer to \"{ask.text}\" (the data says otherwise)")


def _lead_check(lead: str, ask: Ask, analysis: QuestionAnalysis, index: EvidenceIndex,
                sentence: str = "") -> GroundingCheck:
    claim = f"{lead.capitalize()} — {ask.text}"
    public = f"the yes/no answer to \"{ask.text}\""
    usual = _usual_lead(lead, ask, index, claim)
    if usual is not None:
        return usual
    kinds_named = {"run" if kind == "pipeline" else kind  # a pipeline's runs are one kind with it
                   for kind in (*records_named(ask.text), *(record_of_key(key) for key in record_keys(ask.text)))}
    kinds_named |= {"health"} if any(re.search(rf"\b{re.escape(word)}\b", ask.text, re.IGNORECASE)
                                     for word in PLATFORM_WORDS) else set()
    if (CAUSAL.search(ask.text) or CAUSE_ASKED.search(ask.text)) and len(kinds_named) > 1 or (
            IN_WINDOW.search(ask.text) and PLACING_WORDS.search(sentence) and not EVERY.search(ask.text)):
        # a cause between two records, or a run placed in a window: the sentence's placements are checked ("did
        # both fall inside it?" is judged on each row below)
        return GroundingCheck.of("lead", claim, True, "", "")
    asked = asked_values(ask)
    existence = EXISTENCE.search(ask.text) is not None
    # "is X the only one …?" asks about every record that has it, not X's own row
    key = None if existence or ONLY.search(ask.text) else _single_record(ask, asked) or _the_record_said(
        sentence, ask, asked, index) or _the_one_record(ask, asked, index)
    if key is not None:
        scope = _scope(analysis, ask)
        return _record_lead(lead, key, ask, asked, index, asked_windows(scope), _placed_windows(scope, index))
    subjects = _subjects(ask, asked, analysis)
    relevant = (_relevant(index, subjects) or _relevant(index, set(ask.records))
                or [item for item in index.items if item.answered])
    relevant = _about_sentence(relevant, sentence, analysis)
    if existence:  # "is there a ticket for the finance load failure? INC… maybe?": a record looked up for another
        # ask (a candidate) is no search for what this one asks — unless the lead names it as the one
        asked_for = [item for item in relevant if not (spec := tool_spec(item.tool)) or not spec.is_lookup
                     or any(key in f"{ask.text} {sentence}".lower() for key in record_keys(json.dumps(item.arguments)))]
        relevant = asked_for or relevant
    subjects = subjects or ({tool_spec(item.tool).record for item in relevant} if existence else set())
    kinds = {tool_spec(item.tool).record for item in relevant}
    asked = {name: values for name, values in asked.items()
             if any(same_kind(VALUE_VOCABULARIES[name].record, kind) for kind in kinds)}
    if existence and kinds == {"health"} and "health_status" not in asked:  # "any problems with X?"
        asked["health_status"] = {label for label in HEALTH_STATUS.labels() if label not in ("operational", "unknown")}
    # the words say what yes means: a value the searches can show, or "any …" over records they name
    judged = bool(subjects) and (bool(asked) or existence)
    if not relevant:
        return GroundingCheck.of("lead", claim, False, f"no search answered \"{ask.text}\"", public + " (no search answered it)")
    scope = _scope(analysis, ask) if ask.records else analysis  # "snowflake frankfurt - any problems?"
    only = ONLY.search(ask.text)
    candidates = [item.value.lower() for item in scope.entities if only and item.span.start < ask.span.start + only.start()]
    if only:  # "was the pl_x run the only one cancelled?": pl_x is the candidate, not a filter of the search
        scope = scope.model_copy(update={"entities": [item for item in scope.entities
                                                      if item.span.start >= ask.span.start + only.start()]})
    named = _named_in(sentence, analysis)
    if named:  # the sentence answers for the names it gives; the others are other sentences' business
        scope = scope.model_copy(update={"entities": [item for item in scope.entities if item.kind not in PER_NAME
                                                      or item.value.lower() in named]})
    unread = unapplied_mentions(scope, relevant)
    by_rows = [(item, mention) for item, mention in unread if _rows_say(item, mention, relevant, scope.now)]
    missing = [item for item, mention in unread if (item, mention) not in by_rows and not readable(item, relevant)]
    searched = [item for item in relevant if fits(scope, item)]
    fitting = _rows_meeting(by_rows, searched, scope.now) if searched else _each_read(scope, relevant, by_rows)
    searched = searched or relevant
    if by_rows and not found_in(fitting, asked, asked_windows(scope), ask.text) and any(
            item.total > len(item.rows) for item in searched):  # a "no" read from some of the rows only
        missing += [item for item, _ in by_rows]
    if missing:
        words = ", ".join(f"\"{item.text}\"" for item in missing)
        return GroundingCheck.of("lead", claim, False, f"the lead answers \"{ask.text}\" but no search applied {words}",
                      public + f" (no search applied {words})")
    # a comparison over time ("last 24h vs the week"): the same search over two windows is both sides
    over_time = [item for item in relevant if fits(scope.model_copy(update={"times": []}), item)]
    between_rows = len(asked_windows(scope)) < 2 and sum(len(item.rows) for item in fitting) >= 2
    if ask.shape == "compare" and len(fitting) < 2 and not any(has_baseline(item) for item in fitting) \
            and len({json.dumps(item.query, sort_keys=True, default=str) for item in over_time}) < 2 \
            and not between_rows:  # "same as the first?": two records of one search are both sides
        return GroundingCheck.of("lead", claim, False, f"\"{ask.text}\" compares two things; only one side was fetched",
                      public + " (only one side was fetched)")
    if not judged:  # "did X finish?": what a yes needs is not readable; the searches applied what is
        return GroundingCheck.of("lead", claim, True, "", "")
    windows = _placed_windows(scope, index) + asked_windows(scope if ask.records else _borrowed(scope, ask))
    described = None if existence else _described(ask.text, fitting)
    if described is not None:
        found = any(row_matches(item, row, asked, windows) for item, row in described)
    elif EVERY.search(ask.text) and (asked or by_rows):  # "has it failed on every run?", "are all the P2s with
        # DPO?": yes only if each row of the wider search has it (rows narrowed to those that do prove nothing)
        rows = [(item, row) for item in searched for row in rows_read(item, ask.text)]
        found = bool(rows) and all(row_matches(item, row, asked, windows) and all(
            row_meets(qualifier, mention, row, record_of_tool(item.tool), scope.now) for qualifier, mention in by_rows)
            for item, row in rows)
    else:
        found = found_in(fitting, asked, windows, ask.text)
        counted = LEAD_COUNT.match(digits(sentence))  # "Yes, four came in today": how many have what was asked
        if counted and re.search(r"\ball\b", counted.group(), re.IGNORECASE) and not by_rows:
            counted = None  # "Yes — all four …" counts against a qualifier read from the rows (an age no search
            # applied); "all 5 components are operational" over a status page says all of them, not how many have it
        left_open = by_rows or any(name not in narrowed_by(item) for item in searched for name in asked)
        complete = all(item.total == len(item.rows) for item in searched)  # every row the searches matched is shown
        # "Yes — 7 open incidents": the incidents, not the changes (the noun right after the count)
        counted_kinds = set(records_named(" ".join(digits(sentence)[counted.end():].split()[:3]))) if counted else set()
        of_kind = [item for item in fitting if any(same_kind(record_of_tool(item.tool), kind) for kind in counted_kinds)]
        rows = {str(row.get("number") or row.get("run_id") or id(row)): row for item in of_kind or fitting
                for row in rows_read(item, ask.text) if row_matches(item, row, asked, windows)}
        meeting = set(rows)
        if only and complete:  # "was that the only run cancelled this week?": exactly one has it, the one named
            found = len(rows) == 1 and (not candidates or any(name in text_of(row).lower() for row in rows.values()
                                                              for name in candidates))
        elif counted and lead == "yes" and found and left_open and complete:  # (a search that applied it all counts
            return GroundingCheck.of("lead", claim, int(counted.group(1)) == len(meeting),
                                     f"the lead counts {counted.group(1)} but {len(meeting)} rows have what "
                                     f"\"{ask.text}\" asks", public + " (the data counts otherwise)")
    expected = "yes" if found else "no"
    return GroundingCheck.of("lead", claim, lead == expected,
                  f"the lead says {lead} but the search that applied what \"{ask.text}\" asks says {expected}",
                  public + " (the data says otherwise)")


def failure_streaks(index: EvidenceIndex) -> dict[str, set[int]]:
    """The streaks of failures each pipeline's rows show: those since its last run of another status, and every
    run of failures between two others in a listing of its runs."""
    streaks: dict[str, set[int]] = {}
    for key in {str(row["pipeline_name"]).lower() for row in index.records if row.get("pipeline_name")}:
        having, other = _run_moments(key, {"failed"}, index)
        if other:
            streaks.setdefault(key, set()).add(
                len({moment for moment in {*having, *failures_of(index, key)} if moment > max(other)}))
            failures = sorted(set(having))
            bounds = sorted(set(other))
            streaks[key] |= {count for first, last in zip(bounds, bounds[1:])
                             if (count := sum(first < moment < last for moment in failures))}
    return streaks


def streak_claims(text: str, index: EvidenceIndex) -> list[tuple[re.Match[str], GroundingCheck]]:
    """Each streak of failures said, checked against the streaks the rows show of the pipeline it names (else of any
    pipeline); a streak of successes is not read."""
    streaks = failure_streaks(index) if STREAK.search(text) else {}
    found = []
    for match in STREAK.finditer(text) if streaks else ():
        if SUCCEEDING.search(text[max(0, match.start() - 40):match.end() + 10]):
            continue  # "it had succeeded 4 times in a row"
        said = match.group("said") or match.group("said2")
        count = 2 if said.lower() == "twice" else int(said)
        sentence_start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
        named = [key for key in record_keys(text[sentence_start:match.end()]) if key in streaks]
        allowed = set().union(*(streaks[key] for key in named[-1:])) or set().union(*streaks.values())
        found.append((match, GroundingCheck.of(
            "number", match.group(), count in allowed,
            f"the runs show {' or '.join(map(str, sorted(allowed)))} failures in a row, not {count}",
            "a streak of failures the runs contradict")))
    return found


SUCCEEDING = re.compile(r"\b(?:succe\w*|good|green|clean|ok|passed)\b", re.IGNORECASE)
