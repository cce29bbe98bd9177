"""Ways a model gets an answer wrong, and ways to say a right answer differently — applied to real answers.

Each mutation takes a graded answer (its text, its evidence, its question analysis) and returns a wrong
version, or ``None`` when the answer gives it nothing to work on. Wrong versions are built from the
evidence's own rows (never by asking the evaluator), so a miss is a miss. Correct variants say the same
thing another way; the evaluator must not flag them.

Wrong: a count off by one; an invented id; "X has none" for a thing with rows; "No — none found"; a
part dropped; a number no data has; a "none" for the question's own subject; a number taken from a
window label ("24 pipelines" from "last 24 hours"); an id moved to another record (misattribution); a
state, priority or approval changed; the yes/no lead flipped; a comparison with an unfetched side; a
failure placed inside a change window it was not in; and, changing the evidence instead of the text, a
search that did not apply a qualifier the kept yes/no lead asserts.

Correct: a count written in words; dates written another way; states in lower case; durations rounded;
the number of distinct pipelines or tickets in the rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from evals.graded import GradedAnswer, evidence_of, evidence_text
from opsagent.tools.vocabularies import VOCABULARIES
from opsagent.workflows.evidence_index import DATE_OR_TIME, WINDOW_LABEL, identifiers_in
from opsagent.workflows.claims import clauses, items
from opsagent.workflows.grounding_check import sentences

COUNT = re.compile(r"(?<![\w.:/,-])\d{1,4}(?= (?:of |[a-z]))")
"""A count in prose: "9 failed runs", "3 of the 5" (not a priority, a time, a version or a quoted code)."""
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\([^)]*\)")
SUBJECT_FIELDS = ("number", "pipeline_name", "run_id")
TICKET = re.compile(r"\b(INC|CHG)(\d{7,})\b")
RUN_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
PIPELINE = re.compile(r"\bpl_[a-z0-9_]+\b")
LEAD = re.compile(r"^(\W*)(Yes|No)(\s*[—–-])", re.MULTILINE)
PART_WORD = re.compile(r"[a-z][a-z0-9_]{4,}")
STOP_WORDS = frozenset("which where there their these those about since would could should other every".split())
WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen twenty".split()
ISO_MINUTE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}) UTC\b")
DURATION = re.compile(r"\b(\d+)\.0 min\b")
Mutation = Callable[[GradedAnswer], "str | GradedAnswer | None"]


def _direct(text: str) -> str:
    return text.split("\n\n", 1)[0]


def _topic(tool: str) -> str:
    return {"incident": "open incident", "change": "change request", "run": "failed run", "pipeline": "run",
            "health": "degraded component"}.get(_record(tool), "result")


def _record(tool: str) -> str:
    from opsagent.tools.catalog import tool_spec

    spec = tool_spec(tool)
    return spec.record if spec else ""


# ---------------------------------------------------------------------------------------- wrong

def wrong_count(graded: GradedAnswer) -> str | None:
    masked = QUOTED.sub(lambda m: "#" * len(m.group()), DATE_OR_TIME.sub(lambda m: "#" * len(m.group()),
                                                                       _direct(graded.text)))
    match = COUNT.search(masked)
    if match is None:
        return None
    return graded.text[: match.start()] + str(int(match.group()) + 1) + graded.text[match.end():]


def _unused_ticket(prefix: str, digits: str, evidence: str) -> str:
    number = int(digits)
    for step in range(1000, 100_000, 1000):
        candidate = f"{prefix}{number + step:0{len(digits)}d}"
        if candidate.lower() not in evidence:
            return candidate
    return f"{prefix}{'9' * len(digits)}"


def invented_id(graded: GradedAnswer) -> str | None:
    evidence = evidence_text(graded)
    found = [(m.start(), m.end(), _unused_ticket(m.group(1), m.group(2), evidence)) for m in TICKET.finditer(graded.text)]
    found += [(m.start(), m.end(), m.group()[:-4] + ("0000" if not m.group().endswith("0000") else "ffff"))
              for m in RUN_ID.finditer(graded.text)]
    found += [(m.start(), m.end(), m.group() + "_v2") for m in PIPELINE.finditer(graded.text)]
    found = [item for item in found if item[2].lower() not in evidence]
    if not found:
        return None
    start, end, replacement = min(found)
    return graded.text[:start] + replacement + graded.text[end:]


def false_none(graded: GradedAnswer) -> str | None:
    """A named thing the evidence has rows for, said to have none of what that tool found."""
    for item in evidence_of(graded):
        if item.status != "ok" or not item.rows:
            continue
        subject = next((str(item.rows[0][key]) for key in SUBJECT_FIELDS if item.rows[0].get(key)), "")
        if subject:
            return f"{subject} has no {_topic(item.tool)}.\n{graded.text}"
    return None


def false_none_overall(graded: GradedAnswer) -> str | None:
    said = LEAD.search(_direct(graded.text))
    if said is not None and said.group(2) == "No" or not any(item.status == "ok" and item.rows
                                                            for item in evidence_of(graded)):
        return None
    rest = graded.text.split("\n\n", 1)
    return "No — none found." + (f"\n\n{rest[1]}" if len(rest) > 1 else "")


def dropped_part(graded: GradedAnswer) -> str | None:
    """The answer without the sentences about the last part that has evidence of its own."""
    texts = [part.text.strip().lower() for part in graded.parts]
    with_evidence = [part for part in graded.parts if texts.count(part.text.strip().lower()) == 1
                     and any(part.id in result.part.split(",") and result.answered_evidence for result in graded.results)]
    if len(with_evidence) < 2:
        return None
    part = with_evidence[-1]
    own_ids = {token.lower() for result in graded.results if part.id in result.part.split(",")
               for item in result.evidence for token in identifiers_in(str(item.rows))}
    other_ids = {token.lower() for result in graded.results if part.id not in result.part.split(",")
                 for item in result.evidence for token in identifiers_in(str(item.rows))}
    markers = (own_ids - other_ids) | {word for word in PART_WORD.findall(part.text.lower()) if word not in STOP_WORDS}
    kept = [sentence for sentence in sentences(graded.text) if not any(marker in sentence.lower() for marker in markers)]
    text = " ".join(kept)
    return text if kept and text != " ".join(sentences(graded.text)) else None


def unsupported_number(graded: GradedAnswer) -> str:
    total = 17 + sum(map(ord, graded.case_id)) % 60
    return f"{graded.text}\nIn all, the failures cost {total} minutes."


def subject_none(graded: GradedAnswer) -> str | None:
    """ "No — there is nothing for <the ask in the user's words>." where the right answer said yes."""
    asks = [ask for ask in graded.analysis.asks] if graded.analysis else []
    said = LEAD.search(_direct(graded.text))
    if not graded.right or not asks or said is None or said.group(2) != "Yes":
        return None
    return f"No — nothing matches \"{asks[0].text}\": there are none.\n{graded.text}"


def _row_counts(graded: GradedAnswer) -> set[int]:
    """Every count the rows could give (totals, rows, any integer field): a label number equal to one is
    not a wrong count."""
    found = {0, 1}
    for item in evidence_of(graded):
        found |= {item.total, item.shown, len(item.rows)}
        found |= {value for row in item.rows for value in row.values() if isinstance(value, int)}
    return found


def label_count(graded: GradedAnswer) -> str | None:
    """A number that only appears in a window ("last 24 hours") written as a count."""
    labels = [match.group() for item in evidence_of(graded) for match in WINDOW_LABEL.finditer(item.message)]
    numbers = [int(found) for label in labels for found in re.findall(r"\d+", label)]
    usable = [number for number in numbers if number not in _row_counts(graded) and number < 1000]
    if not usable:
        return None
    noun = next((_topic(item.tool) for item in evidence_of(graded) if item.rows), "result")
    return f"{usable[0]} {noun}s matched.\n{graded.text}"


def misattribution(graded: GradedAnswer) -> str | None:
    """Two tickets swapped between the pipelines they were said to belong to ("pl_a (INC_b), pl_b (INC_a)"):
    only where each ticket stands next to a different pipeline, so the swap really says something false."""
    pairs = []
    for clause in (part for sentence in sentences(graded.text) for part in clauses(sentence)):
        for item in items(clause):
            tickets, pipelines = TICKET.findall(item), PIPELINE.findall(item)
            if len(tickets) == 1 and len(pipelines) == 1:
                pairs.append(("".join(tickets[0]), pipelines[0]))
    distinct = [(ticket, pipeline) for ticket, pipeline in pairs if sum(1 for t, _ in pairs if t == ticket) == 1]
    if len(distinct) < 2 or distinct[0][1] == distinct[1][1]:
        return None
    (first, _), (second, _) = distinct[0], distinct[1]
    return graded.text.replace(first, "\x00").replace(second, first).replace("\x00", second)


def wrong_value(graded: GradedAnswer) -> str | None:
    """The first state, approval or priority label in the answer changed to another of its vocabulary."""
    for name in ("incident_state", "change_state", "approval"):
        vocabulary = VOCABULARIES[name]
        labels = [label for label in vocabulary.labels() if len(label) > 3]
        for label in labels:
            match = re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", graded.text)
            if match:
                other = next(item for item in labels if item != label)
                return graded.text[: match.start()] + other + graded.text[match.end():]
    return None


def lead_flipped(graded: GradedAnswer) -> str | None:
    """The yes/no of a right answer turned round (a wrong answer turned round might be right)."""
    match = LEAD.search(graded.text)
    if match is None or not graded.right:
        return None
    flipped = "No" if match.group(2) == "Yes" else "Yes"
    return graded.text[: match.start(2)] + flipped + graded.text[match.end(2):]


def one_sided_comparison(graded: GradedAnswer) -> str:
    return f"{graded.text}\nThat is more than the week before."


def wrong_placement(graded: GradedAnswer) -> str | None:
    """A failed run placed inside a change window it did not start in."""
    changes = [(row["number"], row["start_date"], row["end_date"]) for item in evidence_of(graded) for row in item.rows
               if str(row.get("number", "")).startswith("CHG") and row.get("start_date") and row.get("end_date")]
    runs = [(row["pipeline_name"], row["start"]) for item in evidence_of(graded) for row in item.rows
            if row.get("pipeline_name") and row.get("start") and row.get("run_id")]
    for number, start, end in changes:
        for pipeline in dict.fromkeys(name for name, _ in runs):  # none of its runs started inside: else it is true
            if not any(start <= started < end for name, started in runs if name == pipeline):
                return f"{graded.text}\n{pipeline} failed during {number}'s window."
    return None


def dropped_qualifier(graded: GradedAnswer) -> GradedAnswer | None:
    """The evidence changed instead of the text: the search the yes/no lead rests on no longer applied
    the filter its ask states (the model searched wider than asked and kept the lead), and none of its
    rows holds the asked value — what such a search finds when the "yes" was not true."""
    if graded.analysis is None or not graded.analysis.filters or not LEAD.search(_direct(graded.text)):
        return None
    asked = {item.field for item in graded.analysis.filters}
    results = [result.model_copy(deep=True) for result in graded.results]
    for result in results:
        for item in result.evidence:
            wider = {key for key in item.query if key in ("state", "priority", "approval", "type", "risk")}
            if wider and item.status == "ok":
                for key in wider:
                    item.query.pop(key, None)
                    item.arguments.pop(key, None)
                item.arguments["state"] = "all" if "state" in wider else item.arguments.get("state", "all")
                _rows_without(item.rows, asked)
                return graded.model_copy(update={"results": results})
    return None


def _rows_without(rows: list[dict], fields: set[str]) -> None:
    """What a wider search finds when nothing matched the qualifier: rows holding another value of it."""
    for name in fields:
        vocabulary = VOCABULARIES.get(name)
        if vocabulary is None or vocabulary.role != "value":
            continue
        for row in rows:
            for field in vocabulary.row_fields:
                if field in row:
                    others = [label for label in vocabulary.labels() if str(label).lower() != str(row[field]).lower()]
                    row[field] = others[-1] if others else row[field]


# -------------------------------------------------------------------------------------- correct

def count_in_words(graded: GradedAnswer) -> str | None:
    match = COUNT.search(_direct(graded.text))
    if match is None or int(match.group()) > 20:
        return None
    return graded.text[: match.start()] + WORDS[int(match.group())] + graded.text[match.end():]


def dates_reworded(graded: GradedAnswer) -> str | None:
    def reword(match: re.Match[str]) -> str:
        moment = datetime.strptime(match.group()[:10], "%Y-%m-%d")
        return f"{moment.day} {moment.strftime('%b')} {moment.year}, {match.group(4)} UTC"

    text = ISO_MINUTE.sub(reword, graded.text)
    return text if text != graded.text else None


def states_lower_case(graded: GradedAnswer) -> str | None:
    text = graded.text
    for label in ("In Progress", "On Hold"):
        text = re.sub(rf"\bis {label}\b", f"is {label.lower()}", text)
    return text if text != graded.text else None


def durations_rounded(graded: GradedAnswer) -> str | None:
    text = DURATION.sub(lambda match: f"about {match.group(1)} minutes", graded.text)
    return text if text != graded.text else None


def distinct_count(graded: GradedAnswer) -> str | None:
    pipelines = {row["pipeline_name"] for item in evidence_of(graded) for row in item.rows if row.get("pipeline_name")}
    if len(pipelines) < 2:
        return None
    return f"{graded.text}\n{len(pipelines)} different pipelines are involved."


WRONG: dict[str, Mutation] = {
    "wrong_count": wrong_count, "invented_id": invented_id, "false_none": false_none,
    "false_none_overall": false_none_overall, "dropped_part": dropped_part, "unsupported_number": unsupported_number,
    "subject_none": subject_none, "label_count": label_count, "misattribution": misattribution,
    "wrong_value": wrong_value, "lead_flipped": lead_flipped, "one_sided_comparison": one_sided_comparison,
    "wrong_placement": wrong_placement, "dropped_qualifier": dropped_qualifier,
}
CORRECT: dict[str, Mutation] = {
    "count_in_words": count_in_words, "dates_reworded": dates_reworded, "states_lower_case": states_lower_case,
    "durations_rounded": durations_rounded, "distinct_count": distinct_count,
}
