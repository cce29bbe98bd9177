"""One part of the question answered from its own evidence: a lead sentence and the supporting facts.

Three families of evidence, each with its own voice: listings (the tool's counted message, led by
"Yes —" / "No —" for yes/no questions, then the rows that matter), single records (the field the
question asks about first), and platform health (the status, then what is not operational).
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from opsagent.contracts.evidence import ToolEvidence
from opsagent.local_model.rows import activities_line, clause, identity, is_open, label, row_kind, when
from opsagent.local_model.shapes import PER_GROUP, Shape, asked_state

MAX_ITEMS = 8
MAX_IDS = 20
"""Up to this many ids are named in a listing's lead sentence (the rows shown, in order)."""
STATUS_WORDS: dict[str, tuple[str, ...]] = {"running": ("InProgress",), "in progress": ("InProgress",),
                                            "queued": ("Queued",), "broken": ("Failed",), "failed": ("Failed",)}
"""A run state the question names → the pipelines whose latest run is in it ("which are running?"):
the run tools cannot filter on it, so the summary does, over the rows returned."""
PLATFORMS = {"check_databricks_health": "Databricks", "check_snowflake_health": "Snowflake",
             "check_azure_service_health": "Azure"}
SUPERLATIVES: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    (("success rate", "reliab", "least success", "lowest"), "success_rate_pct", False),
    (("most runs", "busiest"), "runs", True),
    (("longest", "slowest"), "duration_min", True),
    (("most urgent", "highest priority", "most critical"), "priority", False),
    (("most", "worst", "top", "highest", "biggest"), "failed", True),
)
"""Words → the row field to rank by and whether bigger ranks first."""


@dataclass
class PartAnswer:
    sentence: str
    facts: list[str] = field(default_factory=list)
    concludes: bool = False
    """A conclusion across results (``correlation.py``), not one result described."""


def first_sentence(text: str) -> str:
    head = text.split(". ", 1)[0].strip()
    return head if head.endswith((".", "!", "?")) else f"{head}."


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def failed_run_facts(rows: Sequence[dict]) -> list[str]:
    """Failed runs grouped by pipeline: how many, and the latest one's error (rows come newest first)."""
    by_pipeline: OrderedDict[str, list[dict]] = OrderedDict()
    for row in rows:
        by_pipeline.setdefault(str(row.get("pipeline_name")), []).append(row)
    facts = []
    for pipeline, runs in by_pipeline.items():
        latest = runs[0]
        count = f"{len(runs)} failed run{'s' if len(runs) > 1 else ''}"
        where = f" in {latest['failed_activity']}" if latest.get("failed_activity") else ""
        cause = f": {clause(latest.get('error_message'))}" if latest.get("error_message") else ""
        ids = ", ".join(str(run.get("run_id")) for run in runs)
        facts.append(f"{pipeline}: {count} (runs {ids}), latest {when(latest.get('start'))} "
                     f"with {latest.get('error_code')}{where}{cause}")
    return facts


def _most_failing(rows: Sequence[dict], text: str) -> PartAnswer | None:
    """Failed runs ranked by pipeline: "the most failures" over a list of runs."""
    if not any(word in text.lower() for word in ("most", "worst", "top", "highest", "biggest")):
        return None
    counts: OrderedDict[str, int] = OrderedDict()
    for row in rows:
        counts[str(row.get("pipeline_name"))] = counts.get(str(row.get("pipeline_name")), 0) + 1
    top = max(counts.values())
    leaders = [name for name, count in counts.items() if count == top]
    runs = f"{top} failed run{'s' if top > 1 else ''}"
    if len(leaders) == 1:
        return PartAnswer(f"{leaders[0]} had the most failures: {runs}.")
    return PartAnswer(f"{', '.join(leaders)} had the most failures: {runs} each.")


def _ranks_by_failures(text: str) -> bool:
    low = text.lower()
    return next((key for words, key, _ in SUPERLATIVES if any(word in low for word in words)), None) == "failed"


def _ranked(rows: Sequence[dict], text: str) -> dict | None:
    low = text.lower()
    for words, key, biggest in SUPERLATIVES:
        usable = [row for row in rows if isinstance(row.get(key), (int, float))]
        if usable and any(word in low for word in words):
            return max(usable, key=lambda row: row[key]) if biggest else min(usable, key=lambda row: row[key])
    return None


DOWN_WORDS = re.compile(r"\b(?:down|offline|unavailable|dead)\b")
EXISTENCE = re.compile(r"\b(?:is|are) there\b|\bany\b|\banything\b")
ASKS_FAILURE = re.compile(r"\bfail\w*|\bbr[oe]k\w*|\berrors?\b|\bproblems?\b|\bissues?\b")
NOT_FAILED = re.compile(r"(?:\bnot|n't|\bnever|\bwithout|\bno)\s+(?:\w+\s+)?fail(?:ed|ures?|ing)?\b")
"""A question about the pipelines that did *not* fail: the summary rows with no failure answer it."""


def _without_failures(rows: Sequence[dict], item: ToolEvidence) -> PartAnswer:
    clean = [row for row in rows if row.get("failed") == 0]
    names = ", ".join(identity(row) for row in clean[:MAX_ITEMS * 2])
    if not clean:
        return PartAnswer(f"None — every one of the {len(rows)} pipelines with runs had a failure.", [label(row) for row in rows[:MAX_ITEMS]])
    more = f" (and {len(clean) - MAX_ITEMS * 2} more)" if len(clean) > MAX_ITEMS * 2 else ""
    return PartAnswer(f"{len(clean)} of the {len(rows)} pipelines with runs had no failed run: {names}{more}.",
                      [first_sentence(item.message)] if item.message else [])


def _leaders(counted: Sequence[tuple[str, int]]) -> tuple[str, int, bool]:
    """Of (group, count) pairs, biggest first: "X has" / "X, Y and Z have", the top count, whether tied."""
    top = counted[0][1]
    tied = [group for group, count in counted if count == top]
    who = (", ".join(tied[:-1]) + f" and {tied[-1]} have") if len(tied) > 1 else f"{tied[0]} has"
    return who, top, len(tied) > 1


def group_totals(text: str, shape: Shape, evidence: Sequence[ToolEvidence]) -> PartAnswer | None:
    """Counts per group from one search per group (exact totals), when the question asks for them."""
    searches = [item for item in evidence if item.answered and item.arguments.get("assignment_group")]
    if len(searches) < 2 or PER_GROUP.search(text.lower()) is None:
        return None
    counted = sorted(((str(item.arguments["assignment_group"]), item.total) for item in searches), key=lambda x: -x[1])
    spread = ", ".join(f"{group} {count}" for group, count in counted)
    what = "open incidents" if str(searches[0].arguments.get("state", "open")).lower() == "open" else "incidents"
    if shape == "superlative":
        who, top, tied = _leaders(counted)
        return PartAnswer(f"{who} the most {what}: {top}{' each' if tied else ''}.",
                          [f"{what.capitalize()} by group: {spread}."])
    return PartAnswer(f"{what.capitalize()} by group: {spread}.", [])


def _by_group(rows: Sequence[dict], shape: Shape, item: ToolEvidence) -> PartAnswer | None:
    groups = [str(row["assignment_group"]) for row in rows if row.get("assignment_group")]
    if not groups:
        return None
    counted = Counter(groups).most_common()
    partial = f" (counted over the {len(rows)} shown of {item.total})" if item.total > len(rows) else ""
    spread = ", ".join(f"{group} {count}" for group, count in counted)
    if shape == "superlative":
        who, count, tied = _leaders(counted)
        return PartAnswer(f"{who} the most: {count} each{partial}." if tied else
                          f"{who} the most: {count} of the {len(rows)}{partial}.", [f"By group: {spread}."])
    return PartAnswer(f"By group{partial}: {spread}.", [label(row) for row in rows[:MAX_ITEMS]])


LAST_WORKED = re.compile(r"\blast (?:time (?:it )?)?(?:succe\w*|work\w*|good|green|ok)\b"
                         r"|\blast (?:run|ran) (?:successfully|ok|fine)\b|\blast successful run\b")
"""A question about the latest success ("when did it last succeed / work?")."""
STATUS_SAID = {"broken": "latest run failed", "failed": "latest run failed"}
ASKED_STATUS = re.compile(r"\b(?:is|are|still|currently|now)\s+(running|in progress|queued|broken)\b"
                          r"|\b(?:latest|last|most recent) run (?:has |have )?(failed)\b"
                          r"|\b(running|in progress|queued)\s+(?:now|right now|at the moment)\b"
                          r"|\b(?:or|and)\s+(running|in progress|queued)\b")
"""A run state asked about as a state ("which are running?", "queued right now"), not "been running"."""


def _with_status(rows: Sequence[dict], text: str) -> tuple[list[dict], str]:
    """The rows in the status the question names ("which are running or queued?"), with its word."""
    low = text.lower()
    named = list(dict.fromkeys(word for match in ASKED_STATUS.finditer(low) for word in match.groups() if word))
    values = {value for word in named for value in STATUS_WORDS[word]}
    if not values or not all("last_status" in row for row in rows):
        return list(rows), ""
    shown = dict.fromkeys(STATUS_SAID.get(word, word) for word in named)
    return [row for row in rows if row.get("last_status") in values], " or ".join(shown)


def _named(rows: Sequence[dict]) -> str:
    if rows and row_kind(rows[0]) == "run":  # a few failed runs: which pipelines (the runs are in the facts)
        names = list(dict.fromkeys(str(row.get("pipeline_name")) for row in rows if row.get("pipeline_name")))
        return f": {', '.join(names)}" if 0 < len(names) <= 3 else ""
    ids = [identity(row) for row in rows if identity(row)]
    if not ids or row_kind(rows[0]) in ("component", "health_incident"):
        return ""
    listed = ", ".join(dict.fromkeys(ids[:MAX_IDS]))
    return f": {listed}" + (", …" if len(ids) > MAX_IDS else "")


def _next_up(rows: Sequence[dict], now: str) -> PartAnswer | None:
    """"Which change is next up?": the earliest planned start that is still ahead."""
    ahead = [row for row in rows if str(row.get("start_date") or "") >= now
             and row.get("state") not in ("Closed", "Canceled")]  # a canceled change is not coming up
    if not ahead:
        return None
    first = min(ahead, key=lambda row: str(row["start_date"]))
    return PartAnswer(f"Next up is {label(first)}.", [])


def listing_answer(text: str, shape: Shape, item: ToolEvidence, *, now: str = "") -> PartAnswer:
    lead = first_sentence(item.message) if item.message else f"{item.total} found."
    if not item.rows:
        return PartAnswer(f"No — {lower_first(lead)}" if shape == "yes_no" else lead)
    rows, status = _with_status(item.rows, text)
    if status:
        names = ", ".join(dict.fromkeys(identity(row) for row in rows))
        others = sorted({str(row.get("last_status")) for row in item.rows})
        sentence = (f"{status[0].upper()}{status[1:]}: {names}." if rows
                    else f"All {len(item.rows)} returned are in another state ({', '.join(others)}).")
        return PartAnswer(sentence, [label(row) for row in rows[:MAX_ITEMS]])
    if len(rows) == 1 and row_kind(rows[0]) == "pipeline_status" and LAST_WORKED.search(text.lower()):
        row = rows[0]
        worked = (f"{row['pipeline_name']} last succeeded at {when(row['last_success'])}" if row.get("last_success")
                  else f"{row['pipeline_name']} did not succeed in the window searched")
        return PartAnswer(f"{worked}; its latest run ({when(row.get('last_start'))}) {str(row.get('last_status')).lower()}.",
                          [label(row), lead])
    if len(rows) == 1 and row_kind(rows[0]) == "pipeline_status" and shape in ("list", "count", "yes_no", "when"):
        figures = f"{label(rows[0])}."  # one pipeline asked about: its figures are the answer
        if shape == "yes_no" and isinstance(rows[0].get("failed"), int):
            failed = rows[0]["failed"] > 0  # "did it fail?" → yes when it did; "did it run ok?" → no
            figures = f"{'Yes' if failed == bool(ASKS_FAILURE.search(text.lower())) else 'No'} — {figures}"
        return PartAnswer(figures, [lead])
    if len(rows) == 1 and row_kind(rows[0]) in ("incident", "change") and shape not in ("count", "superlative"):
        record = _incident_sentence(rows[0], shape, None) if row_kind(rows[0]) == "incident" else \
            _change_sentence(rows[0], shape, None)
        asks_existence = shape == "yes_no" or EXISTENCE.search(text.lower()) is not None
        record = f"Yes — {record}" if asks_existence and not record.startswith(("Yes", "No")) else record
        return PartAnswer(record, [lead])  # the one record found is the answer: say what it is
    if row_kind(rows[0]) == "pipeline_status" and NOT_FAILED.search(text.lower()):
        return _without_failures(rows, item)
    if row_kind(rows[0]) in ("incident", "change") and PER_GROUP.search(text.lower()):
        grouped = _by_group(rows, shape, item)
        if grouped is not None:
            return grouped
    lead = f"{lead[:-1]}{_named(rows)}."
    facts = failed_run_facts(rows) if row_kind(rows[0]) == "run" else [label(row) for row in rows[:MAX_ITEMS]]
    if len(rows) > MAX_ITEMS and row_kind(rows[0]) != "run":
        facts.append(f"…and the other rows of the {len(rows)} in the evidence")
    if shape == "yes_no":
        return PartAnswer(f"Yes — {lower_first(lead)}", facts)
    if shape == "latest":
        return PartAnswer(f"The latest is {label(rows[0])}.", facts[1:4])
    if shape == "next" and now and (upcoming := _next_up(rows, now)) is not None:
        return upcoming
    if shape == "superlative" and row_kind(rows[0]) == "run" and (most := _most_failing(rows, text)) is not None:
        return PartAnswer(f"{most.sentence} {lead}", facts)
    if shape == "superlative" and (top := _ranked(rows, text)) is not None:
        overview = ""
        if row_kind(top) == "pipeline_status" and len(rows) > 1:  # "how healthy were they, which is worst?"
            failing = sum(1 for row in rows if isinstance(row.get("failed"), int) and row["failed"] > 0)
            overview = f" {failing} of the {len(rows)} pipelines with runs had failures."
        lead_words = label(top)
        if row_kind(top) == "pipeline_status" and _ranks_by_failures(text) and isinstance(top.get("failed"), int):
            lead_words = f"{top['pipeline_name']} failed the most: {top['failed']} failed runs ({label(top)})"
        return PartAnswer(f"{lead_words}.{overview}", [fact for fact in facts if label(top) != fact][:3])
    if shape == "who" and row_kind(rows[0]) in ("incident", "change"):
        groups = list(dict.fromkeys(str(row.get("assignment_group")) for row in rows if row.get("assignment_group")))
        return PartAnswer(f"{lead[:-1]}, with {', '.join(groups)}." if groups else lead, facts)
    return PartAnswer(lead, facts)


def record_answer(text: str, shape: Shape, item: ToolEvidence) -> PartAnswer:
    if not item.rows:
        return PartAnswer(first_sentence(item.message) if item.message else "Not found.")
    row = item.rows[0]
    kind = row_kind(row)
    state = asked_state(text) if shape in ("yes_no", "who") else None
    if kind == "incident":
        return PartAnswer(_incident_sentence(row, shape, state), [label(row)])
    if kind == "change":
        return PartAnswer(_change_sentence(row, shape, state), [label(row)])
    if kind == "run_detail":
        activities = activities_line(row)
        return PartAnswer(_run_sentence(row, item, state), [f"Activities in order: {activities}"] if activities else [])
    return PartAnswer(f"{label(row)}.")


def _incident_sentence(row: dict, shape: Shape, state: str | None) -> str:
    number, status = row["number"], row.get("state")
    who = f"assigned to {row['assigned_to']}" if row.get("assigned_to") else (
        "not assigned to anyone" if "assigned_to" in row else "assigned")
    group = f" in {row['assignment_group']}" if row.get("assignment_group") else ""
    if shape == "who" and state == "open":  # "is it still open and who owns it?"
        still = f"Yes — {number} is still open" if is_open(row) else f"{number} is not open any more"
        return f"{still} ({status}, P{row.get('priority')}), {who}{group}."
    if shape == "who":
        return f"{number} is {who}{group} ({status}, P{row.get('priority')})."
    if state == "open":
        return (f"Yes — {number} is still open ({status})." if is_open(row)
                else f"{number} is not open any more: it is {status}.")
    if state == "closed":
        return (f"Yes — {number} is {status}." if not is_open(row)
                else f"No — {number} is still open ({status}, P{row.get('priority')}), {who}{group}.")
    return f"{number} is {status} (P{row.get('priority')}), {who}{group}: {clause(row.get('short_description'))}."


def _change_sentence(row: dict, shape: Shape, state: str | None) -> str:
    number = row["number"]
    window = (f"planned from {when(row.get('start_date'))} to {when(row.get('end_date'))}"
              if row.get("start_date") else "without a planned window")
    if state == "approved":
        approval = row.get("approval")
        return (f"Yes — {number} is approved ({row.get('state')}, {window})." if approval == "approved"
                else f"No — {number} is not approved yet: its approval is {approval} ({row.get('state')}, {window}).")
    if shape == "who":
        owner = f"assigned to {row['assigned_to']}" if row.get("assigned_to") else "not assigned to anyone"
        group = f" in {row['assignment_group']}" if row.get("assignment_group") else ""
        return f"{number} is {owner}{group} ({row.get('type')} change, {row.get('state')}, {window})."
    if shape == "when":
        return f"{number} is {window} ({row.get('state')}, approval {row.get('approval')})."
    ci = f" on {row['configuration_item']}" if row.get("configuration_item") else ""
    article = "an" if str(row.get("type", "")).lower()[:1] in ("a", "e", "i", "o", "u") else "a"
    return (f"{number} is {article} {row.get('type')} change{ci}, {row.get('state')}, approval {row.get('approval')}, "
            f"{window}: {clause(row.get('short_description'))}.")


RUN_STATUS_WORDS = {"InProgress": "is still running", "Queued": "is queued", "Succeeded": "succeeded",
                    "Cancelled": "was cancelled"}


def _run_sentence(row: dict, item: ToolEvidence, state: str | None) -> str:
    if item.arguments.get("run_id"):
        which = f"Run {row.get('run_id')} of {row.get('pipeline_name')}"
    elif (item.query.get("around") or {}).get("point"):
        which = f"The run of {row.get('pipeline_name')} nearest {when(item.query['around']['point'])}"
    else:
        which = f"The latest run of {row.get('pipeline_name')}"
    status = row.get("status")
    took = f", took {row['duration_min']} min" if row.get("duration_min") is not None else ""
    head = f"{which} (started {when(row.get('start'))}{took}) {RUN_STATUS_WORDS.get(str(status), str(status).lower())}"
    if status != "Failed":
        if state == "failed":
            return f"No — {head[0].lower()}{head[1:]}." if head.startswith("The") else f"No — {head}."
        if state in ("succeeded", "finished"):
            done = status == "Succeeded" if state == "succeeded" else status in ("Succeeded", "Cancelled")
            return f"{'Yes' if done else 'No'} — {head[0].lower()}{head[1:]}." if head.startswith("The") else \
                f"{'Yes' if done else 'No'} — {head}."
        return f"{head}."
    where = f" in {row['failed_activity']}" if row.get("failed_activity") else ""
    lead = "Yes — " if state == "failed" else ""
    return f"{lead}{head}{where} with {row.get('error_code')}: {clause(row.get('error_message'), 300)}"


def health_answer(shape: Shape, text: str, items: Sequence[ToolEvidence], *, question: str = "") -> PartAnswer:
    """Each platform's status, what is not operational, and its active incidents.

    For a yes/no lead, the user's own word counts ("is X *degraded*?"), even when the part was
    reworded by the planner.
    """
    sentences, facts = [], []
    health_states = ("degraded", "healthy")
    state = (asked_state(question, health_states) or asked_state(text, health_states)) if shape == "yes_no" else None
    for item in items:
        platform = PLATFORMS.get(item.tool, item.tool)
        overall = item.message.split(".", 1)[0].split(":", 1)[-1].strip() if item.message else "unknown"
        problems = [label(row) for row in item.rows if row_kind(row) == "component"]
        incidents = [label(row) for row in item.rows if row_kind(row) == "health_incident"]
        if overall == "operational":
            sentence = f"{platform} is operational"
        elif overall == "unknown":
            sentence = f"{platform}'s status is unknown ({first_sentence(item.message)[:-1]})"
        else:
            sentence = f"{platform} is {overall.replace('_', ' ')}" + (f": {problems[0]}" if problems else "")
            started = sorted(row["started_at"] for row in item.rows
                             if row_kind(row) == "health_incident" and row.get("started_at"))
            if shape == "when" and started:  # "since when?": the earliest active incident's start
                sentence += f" (since {when(started[0])})"
        facts += [first_sentence(item.message)[:-1] + "."] if item.message else []
        facts += [f"{platform} incident {incident}" for incident in incidents]
        sentences.append(sentence)
    lead = ""
    all_operational = all(" is operational" in sentence for sentence in sentences)
    asked_down = DOWN_WORDS.search(f"{question} {text}".lower()) is not None
    if state == "degraded" and asked_down and not all_operational and not any(" outage" in item for item in sentences):
        lead = "Not down — "  # "is X down?" when X is degraded: neither a plain yes nor a no
    elif state == "degraded":
        lead = "No — " if all_operational else "Yes — "
    elif state == "healthy":
        lead = "Yes — " if all_operational else "No — "
    return PartAnswer(lead + "; ".join(sentences) + ".", facts)
