"""How an answer reads: the direct answer first, then facts, limitations and compact evidence.

Pure functions from the run's trail to text. The full evidence stays in the metadata; the text
shows each tool call in one line (what was searched, what came back), and the evidence sections
(for the chat page and Teams cards) show a few rows per call with long texts cut at a clause.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import ReviewOutput
from opsagent.contracts.results import EvidenceSection
from opsagent.tools.rendering import shorten

SECTION_ROWS = 8
SECTION_COLUMNS = 6
CELL_CHARS = 160
PREFERRED_COLUMNS = (
    "number", "kind", "title", "name", "pipeline_name", "run_id", "short_description", "state", "status",
    "last_status", "priority", "approval", "region", "assignment_group", "configuration_item", "opened_at",
    "start_date", "end_date", "start", "started_at", "runs", "failed", "success_rate_pct", "error_code",
    "failed_activity", "error_message", "detail",
)


REF_FIELDS = ("number", "run_id", "pipeline_name")
MAX_REFS = 50


def _row_ref(row: dict[str, Any]) -> str | None:
    return next((str(row[key]) for key in REF_FIELDS if row.get(key)), None)


def answer_refs(results: Sequence[TaskResult]) -> list[str]:
    """The ids the answer's evidence listed, in row order: what "the second one" can point at later."""
    refs = [ref for result in results for item in result.evidence for row in item.rows if (ref := _row_ref(row))]
    return list(dict.fromkeys(refs))[:MAX_REFS]


def call_label(item: ToolEvidence) -> str:
    shown = ", ".join(f"{key}={value}" for key, value in item.arguments.items())
    return f"`{item.tool}({shown})`"


def evidence_line(item: ToolEvidence) -> str:
    """One line per call: what was searched and what came back."""
    outcome = item.message or {"ok": "rows returned", "no_data": "nothing found", "not_found": "not found",
                               "error": "failed"}[item.status]
    flags = " (repeated call)" if item.repeated else " (recovered from text)" if item.recovered else ""
    return f"{call_label(item)}{flags} → {shorten(outcome, 240)}"


def _cell(value: Any) -> str:
    if isinstance(value, list):
        value = ", ".join(str(item) for item in value if not isinstance(item, dict))
    text = "" if value is None else str(value)
    return shorten(text, CELL_CHARS).replace("|", "/")


def _columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    keys = list(dict.fromkeys(key for row in rows for key in row))
    ordered = [key for key in PREFERRED_COLUMNS if key in keys] + [key for key in keys if key not in PREFERRED_COLUMNS]
    filled = [key for key in ordered if any(row.get(key) not in (None, "", []) and not isinstance(row.get(key), dict)
                                            for row in rows)]
    return filled[:SECTION_COLUMNS]


def rows_table(rows: Sequence[dict[str, Any]], *, limit: int = SECTION_ROWS) -> str:
    if not rows:
        return ""
    columns = _columns(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(row.get(column)) for column in columns) + " |" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"\n_…{len(rows) - limit} more rows in the metadata._")
    return "\n".join(lines)


def evidence_sections(results: Sequence[TaskResult], titles: Mapping[str, str]) -> list[EvidenceSection]:
    """Each specialist's calls with a few rows each, in plan order."""
    sections: dict[str, list[str]] = {}
    for result in results:
        parts = sections.setdefault(result.agent, [])
        for item in result.evidence:
            parts.append(f"{evidence_line(item)}\n\n{rows_table(item.rows)}".rstrip())
        if not result.evidence and result.status != "ok":
            parts.append(f"_{result.status}: {result.error or 'no details'}_")
    return [EvidenceSection(agent=agent, title=titles.get(agent, agent), markdown="\n\n".join(parts))
            for agent, parts in sections.items() if parts]


def _superseded(result: TaskResult, results: Sequence[TaskResult]) -> bool:
    """A first-pass failure that a clean review-mode task for the same part made good."""
    if result.succeeded or result.mode != "user":
        return False
    return any(later.mode == "review" and later.succeeded and (later.part == result.part or later.agent == result.agent)
               for later in results)


def shown_results(results: Sequence[TaskResult]) -> list[TaskResult]:
    return [result for result in results if not _superseded(result, results)]


def task_limitations(results: Sequence[TaskResult], titles: Mapping[str, str]) -> list[str]:
    """Failed tasks, failed calls, cut lists and backend warnings, each said once."""
    lines: list[str] = []
    for result in shown_results(results):
        title = titles.get(result.agent, result.agent)
        if result.status in ("failed", "timeout", "unsupported"):
            lines.append(f"{title} (step {result.step}) {result.status}: {result.error or 'no details'}")
        for item in result.evidence:
            if item.status == "error" and result.status == "ok":
                lines.append(f"{title}: {item.tool} failed: {item.message}")
            if item.truncated and item.status == "ok":
                lines.append(f"{title}: {item.tool} found {item.total}, showing the {item.shown} returned; "
                             "the answer covers those (narrow the question for the rest)")
            lines += [f"{title}: {warning}" for warning in item.warnings]
        lines += [f"{title}: {note}" for note in result.notes]
    return lines


def analysis_limitations(analysis: QuestionAnalysis) -> list[str]:
    """How ambiguous parts were read, and what could not be resolved."""
    lines = [f"Read the question as: {note}" for note in analysis.notes]
    for item in analysis.unresolved:
        hint = f" Did you mean {', '.join(item.suggestions)}?" if item.suggestions else ""
        lines.append(f"Could not resolve \"{item.text}\": {item.reason}.{hint}")
    return lines


def review_limitations(verdict: ReviewOutput | None, *, retry_ran: bool, declined_reason: str,
                       checked: Sequence[str] | None = None) -> list[str]:
    """What the final review still found missing, with why it stayed missing. ``checked``: the aspects
    that may be shown (the model's own words only when what they name is backed)."""
    aspects = verdict.missing_aspects if verdict is not None and checked is None else list(checked or [])
    if verdict is None or verdict.is_complete or not aspects:
        return []
    missing = "; ".join(aspects)
    if retry_ran:
        return [f"Still missing after the one allowed retry: {missing}"]
    if declined_reason:
        return [f"Not answered (the re-plan was declined: {declined_reason}): {missing}"]
    return [f"Not answered: {missing}"]


def body(review: ReviewOutput) -> str:
    facts = "\n".join(f"- {fact}" for fact in review.key_facts)
    return f"{review.summary.strip()}\n\n{facts}".strip()


def compose_text(summary: str, limitations: Sequence[str], results: Sequence[TaskResult]) -> str:
    """The answer for plain surfaces: direct answer and facts, limitations, then one line per call."""
    parts = [summary.strip()]
    if limitations:
        parts.append("**Limitations**\n" + "\n".join(f"- {line}" for line in limitations))
    calls = [evidence_line(item) for result in shown_results(results) for item in result.evidence]
    if calls:
        parts.append("**Evidence**\n" + "\n".join(f"- {line}" for line in calls))
    return "\n\n".join(part for part in parts if part)


def cap_text(text: str, limit: int) -> str:
    """Every answer is bounded; the full evidence stays in the metadata."""
    if len(text) <= limit:
        return text
    return text[: limit - 120].rstrip() + f"\n\n_(Answer shortened to {limit:,} characters; the full evidence is in the metadata.)_"
