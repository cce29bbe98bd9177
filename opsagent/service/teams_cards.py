"""The answer as an Adaptive Card (schema 1.5, the newest Teams renders for bots), within a size budget.

    ┌ direct answer (summary)                    ← a warning colour when grounding blocked parts
    │ key facts: a FactSet ("label: value" facts) or a bullet list
    │ Limitations: bullets
    │ [hidden] evidence: each specialist's calls, their rows as Tables   ← "Show evidence" toggles it
    └ workflow · route · model (provider) · grounding · model calls · seconds

Teams refuses messages over roughly 100 KB (counted as UTF-16, 80 KB recommended) with a 413, and
a failed send loses the answer. So the whole activity (card and text) is kept under
``CARD_BUDGET_BYTES`` of UTF-16: when it is larger, evidence rows go first, then whole evidence
sections (the chat page and the metadata keep everything), then facts and limitations, and as a
last resort the direct answer is shortened. The budget is never exceeded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from opsagent.contracts.results import Answer, EvidenceSection

CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
CARD_VERSION = "1.5"
CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"
EVIDENCE_ID = "evidence"
CARD_BUDGET_BYTES = 40_000
"""UTF-16 bytes of the whole activity JSON (≈ 20,000 characters, the size of a text message we send);
well below Teams' ~100 KB limit."""
FACT_TITLE_CHARS = 48


def card_size(payload: Any) -> int:
    """Bytes as Teams counts a message (UTF-16) of any JSON-serialisable payload."""
    return len(json.dumps(payload, ensure_ascii=False).encode("utf-16-le"))


def has_card(answer: Answer) -> bool:
    """Answers with facts or evidence get a card; clarifications, refusals and failures stay plain text."""
    return bool(answer.facts or answer.evidence)


@dataclass(frozen=True)
class _Cut:
    """How much of the answer a card shows (each trim level lowers one of these)."""

    rows: int = 8
    sections: int = 1_000
    facts: int = 1_000
    limitations: int = 1_000
    summary_chars: int | None = None


_LEVELS = (*(_Cut(rows=rows) for rows in (8, 6, 4, 3, 2, 1, 0)), _Cut(rows=0, sections=3), _Cut(rows=0, sections=1),
           _Cut(rows=0, sections=0), _Cut(rows=0, sections=0, facts=10, limitations=5),
           _Cut(rows=0, sections=0, facts=3, limitations=2), _Cut(rows=0, sections=0, facts=0, limitations=0))


def _text(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _facts(facts: list[str]) -> dict[str, Any]:
    """A FactSet when every fact reads "label: value" with a short label, else a bullet list."""
    pairs = [fact.split(": ", 1) for fact in facts]
    if all(len(pair) == 2 and 0 < len(pair[0]) <= FACT_TITLE_CHARS for pair in pairs):
        return {"type": "FactSet", "facts": [{"title": title, "value": value} for title, value in pairs]}
    return _text(_bullets(facts), spacing="small")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str], rows: int) -> list[dict[str, Any]]:
    """A markdown table (header, separator, rows) as an Adaptive Card Table with at most ``rows`` rows."""
    header, body = _cells(lines[0]), [_cells(line) for line in lines[2:]]
    if rows == 0 or not body:
        return [_text(f"_{len(body)} row(s): shown on the chat page and in the answer's metadata._",
                      isSubtle=True, size="small", spacing="none")] if body else []

    def row(cells: list[str], *, bold: bool = False) -> dict[str, Any]:
        padded = (cells + [""] * len(header))[:len(header)]
        return {"type": "TableRow", "cells": [{"type": "TableCell", "items": [
            _text(cell or " ", size="small", **({"weight": "bolder"} if bold else {}))]} for cell in padded]}

    table = {"type": "Table", "columns": [{"width": 1} for _ in header], "firstRowAsHeader": True,
             "gridStyle": "default", "rows": [row(header, bold=True), *(row(cells) for cells in body[:rows])]}
    more = len(body) - rows
    if more <= 0:
        return [table]
    return [table, _text(f"_…{more} more row(s) on the chat page._", isSubtle=True, size="small", spacing="none")]


def _section(section: EvidenceSection, rows: int) -> list[dict[str, Any]]:
    """One specialist's evidence: its title, then each call's line and rows (markdown paragraphs → elements)."""
    items: list[dict[str, Any]] = [_text(section.title, weight="bolder", spacing="medium")]
    for paragraph in section.markdown.split("\n\n"):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        is_table = len(lines) >= 2 and lines[0].lstrip().startswith("|")
        if is_table and set(lines[1].replace("|", "").strip()) <= {"-", ":"}:
            items += _table(lines, rows)
        elif lines:  # TextBlocks render no code spans: drop the backticks around tool calls
            items.append(_text("\n".join(lines).replace("`", ""), size="small", spacing="small"))
    return items


def _meta_line(answer: Answer) -> str:
    meta = answer.metadata
    parts = [f"{meta.workflow} workflow", f"route {meta.route}", f"{meta.model} ({meta.provider})"]
    if meta.grounding:
        parts.append(f"grounding {meta.grounding[-1].verdict} ({meta.grounding[-1].score:.2f})")
    parts += [f"{meta.llm_calls} model call(s)", f"{meta.duration_ms / 1000:.1f} s"]
    return " · ".join(parts)


def is_blocked(answer: Answer) -> bool:
    """Grounding blocked parts of the answer: the card says so in a warning colour."""
    return bool(answer.metadata.grounding) and answer.metadata.grounding[-1].verdict == "block"


def fallback_text(answer: Answer, cut: _Cut = _Cut()) -> str:
    """Plain text for clients that cannot render the card: the answer, facts and limitations."""
    parts = [_shorten(answer.summary or answer.text, cut.summary_chars)]
    if answer.facts[:cut.facts]:
        parts.append(_bullets(answer.facts[:cut.facts]))
    if answer.limitations[:cut.limitations]:
        parts.append("Limitations:\n" + _bullets(answer.limitations[:cut.limitations]))
    return "\n\n".join(parts)


def _shorten(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[:max(limit - 1, 0)].rstrip() + "…"


def _card(answer: Answer, cut: _Cut) -> dict[str, Any]:
    body: list[dict[str, Any]] = [_text(_shorten(answer.summary or answer.text, cut.summary_chars), size="medium",
                                        **({"color": "attention"} if is_blocked(answer) else {}))]
    if answer.facts[:cut.facts]:
        body.append(_facts(answer.facts[:cut.facts]))
    hidden_facts = len(answer.facts) - min(cut.facts, len(answer.facts))
    limitations = answer.limitations[:cut.limitations]
    if limitations:
        body += [_text("Limitations", weight="bolder", spacing="medium"), _text(_bullets(limitations), spacing="small")]
    trimmed = hidden_facts + len(answer.limitations) - len(limitations)
    if trimmed:
        body.append(_text(f"_{trimmed} more fact(s) or limitation(s) on the chat page._", isSubtle=True, size="small"))
    sections = answer.evidence[:cut.sections]
    actions: list[dict[str, Any]] = []
    if sections:
        evidence = [item for section in sections for item in _section(section, cut.rows)]
        if len(answer.evidence) > len(sections):
            evidence.append(_text(f"_{len(answer.evidence) - len(sections)} more evidence section(s) on the chat "
                                  "page._", isSubtle=True, size="small"))
        body.append({"type": "Container", "id": EVIDENCE_ID, "isVisible": False, "items": evidence})
        actions.append({"type": "Action.ToggleVisibility", "title": "Show evidence", "targetElements": [EVIDENCE_ID]})
    elif answer.evidence:
        body.append(_text("_Evidence is on the chat page (too large for a Teams message)._", isSubtle=True,
                          size="small"))
    body.append(_text(_meta_line(answer), isSubtle=True, size="small", spacing="medium"))
    card: dict[str, Any] = {"type": "AdaptiveCard", "$schema": CARD_SCHEMA, "version": CARD_VERSION,
                            "fallbackText": fallback_text(answer, cut), "body": body, "msteams": {"width": "Full"}}
    if actions:
        card["actions"] = actions
    return card


@dataclass(frozen=True)
class CardMessage:
    """What a Teams message carries for an answer: plain text (shown with the card, and alone where
    cards are not rendered) and the card."""

    text: str
    card: dict[str, Any]

    def activity_payload(self) -> dict[str, Any]:
        """The message as Teams receives it (what the budget is measured on)."""
        return {"type": "message", "text": self.text,
                "attachments": [{"contentType": CARD_CONTENT_TYPE, "content": self.card}]}


def card_message(answer: Answer, *, budget: int = CARD_BUDGET_BYTES) -> CardMessage:
    """The card and text for ``answer``, trimmed level by level until the message fits ``budget``."""
    for cut in _LEVELS:
        message = CardMessage(text=_shorten(answer.summary or answer.text, cut.summary_chars), card=_card(answer, cut))
        if card_size(message.activity_payload()) <= budget:
            return message
    last = _LEVELS[-1]
    chars = max(len(answer.summary or answer.text), 1)
    while True:  # the direct answer alone is too large: halve it until the message fits
        chars //= 2
        cut = replace(last, summary_chars=chars)
        message = CardMessage(text=_shorten(answer.summary or answer.text, chars), card=_card(answer, cut))
        if card_size(message.activity_payload()) <= budget or chars == 0:
            return message
