"""The answer card: Adaptive Card 1.5 (checked against the official schema), its layout, and the size budget."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.grounding import GroundingReport
from opsagent.contracts.results import Answer, AnswerMetadata
from opsagent.service.teams_cards import (CARD_BUDGET_BYTES, EVIDENCE_ID, card_message, card_size, has_card)
from opsagent.workflows.presentation import evidence_sections
from tests.service.cards import assert_valid_card

TITLES = {"servicenow": "ServiceNow", "log_analytics": "Log Analytics", "service_health": "Platform health"}


def incident_rows(count: int, *, text_chars: int = 40) -> list[dict[str, Any]]:
    return [{"number": f"INC00{10040 + i}", "short_description": f"pl_ingest_sales failed {'x' * text_chars}",
             "state": "In Progress", "priority": "2 - High", "assignment_group": "Data Platform",
             "opened_at": "2025-01-10T02:14Z"} for i in range(count)]


def answer_with(*, agents: tuple[str, ...] = ("servicenow",), calls: int = 1, rows: int = 3, text_chars: int = 40,
                facts: list[str] | None = None, verdict: str = "pass", summary: str = "2 incidents are open.") -> Answer:
    """An answer as the core builds it: evidence sections rendered by the core's own presentation code."""
    results = [TaskResult(agent=agent, question="q", status="ok", evidence=[
        ToolEvidence(tool="list_incidents", arguments={"state": "open", "page": call}, status="ok",
                     message=f"{rows} incident(s)", rows=incident_rows(rows, text_chars=text_chars))
        for call in range(calls)]) for agent in agents]
    metadata = AnswerMetadata(workflow="dynamic", route="execute", tasks=results, model="local-rules", provider="local",
                              grounding=[GroundingReport(score=1.0 if verdict == "pass" else 0.2, verdict=verdict,
                                                         attempt=1)], llm_calls=6, duration_ms=840.0)
    return Answer(text=f"{summary}\n\n(the whole answer as markdown)", summary=summary,
                  facts=["INC0010049: P2, In Progress, Data Platform", "INC0010050: P3, New"] if facts is None else facts,
                  limitations=["ServiceNow: list_incidents found 40, showing the 20 returned"],
                  evidence=evidence_sections(results, TITLES), metadata=metadata)


def texts(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["text"]] if node.get("type") == "TextBlock" else []
        return own + [found for value in node.values() for found in texts(value)]
    if isinstance(node, list):
        return [found for value in node for found in texts(value)]
    return []


def test_card_shows_answer_facts_limitations_hidden_evidence_and_the_model_line() -> None:
    message = card_message(answer_with(rows=3))
    card = message.card
    assert_valid_card(card)
    assert message.text == "2 incidents are open." and card["body"][0]["text"] == "2 incidents are open."
    assert card["body"][1] == {"type": "FactSet", "facts": [
        {"title": "INC0010049", "value": "P2, In Progress, Data Platform"}, {"title": "INC0010050", "value": "P3, New"}]}
    assert "- ServiceNow: list_incidents found 40, showing the 20 returned" in texts(card)
    evidence = next(item for item in card["body"] if item.get("id") == EVIDENCE_ID)
    assert evidence["isVisible"] is False and evidence["items"][0]["text"] == "ServiceNow"
    table = next(item for item in evidence["items"] if item["type"] == "Table")
    assert len(table["rows"]) == 1 + 3 and table["firstRowAsHeader"] is True
    assert table["rows"][1]["cells"][0]["items"][0]["text"] == "INC0010040"
    assert card["actions"] == [{"type": "Action.ToggleVisibility", "title": "Show evidence",
                                "targetElements": [EVIDENCE_ID]}]
    assert card["body"][-1]["text"] == ("dynamic workflow · route execute · local-rules (local) · grounding pass (1.00) "
                                        "· 6 model call(s) · 0.8 s")
    assert card["fallbackText"].startswith("2 incidents are open.\n\n- INC0010049: P2")
    assert "list_incidents(state=open, page=0) → 3 incident(s)" in texts(card), "no code-span backticks in TextBlocks"


def test_card_lists_facts_that_are_not_label_value_pairs_as_bullets() -> None:
    card = card_message(answer_with(facts=["Three runs failed overnight.", "pl_ingest_sales: 2 failed runs"])).card
    assert_valid_card(card)
    assert card["body"][1]["type"] == "TextBlock"
    assert card["body"][1]["text"] == "- Three runs failed overnight.\n- pl_ingest_sales: 2 failed runs"


def test_blocked_answer_is_shown_in_the_warning_colour() -> None:
    card = card_message(answer_with(verdict="block", summary="⚠️ **Parts of this answer could not be verified…**")).card
    assert_valid_card(card)
    assert card["body"][0]["color"] == "attention" and "grounding block (0.20)" in card["body"][-1]["text"]


def test_a_big_answer_is_trimmed_to_the_budget_rows_first(capsys: pytest.CaptureFixture[str]) -> None:
    """Three specialists × two calls × eight rows (the core's cap) of long texts: far over the budget untrimmed."""
    answer = answer_with(agents=tuple(TITLES), calls=2, rows=8, text_chars=150)
    untrimmed = card_message(answer, budget=10_000_000)
    trimmed = card_message(answer)
    for message in (untrimmed, trimmed):
        assert_valid_card(message.card)
    assert card_size(untrimmed.activity_payload()) > 2 * CARD_BUDGET_BYTES
    assert card_size(trimmed.activity_payload()) <= CARD_BUDGET_BYTES
    shown = texts(trimmed.card)
    assert trimmed.card["body"][0]["text"] == "2 incidents are open." and "Platform health" in shown, \
        "the answer and every section's calls survive; only rows went"
    assert any("more row(s) on the chat page" in text for text in shown), "some rows are kept, the rest counted"
    with capsys.disabled():  # the figure quoted in the README
        print(f"\n[card size] big answer: {card_size(untrimmed.activity_payload()):,} B untrimmed, "
              f"{card_size(trimmed.activity_payload()):,} B sent (UTF-16, budget {CARD_BUDGET_BYTES:,})")


@pytest.mark.parametrize("budget", [4_000, 8_000, 16_000, 30_000])
def test_card_never_exceeds_the_budget_and_keeps_more_when_it_may(budget: int) -> None:
    answer = answer_with(agents=tuple(TITLES), calls=4, rows=8, text_chars=150,
                         facts=[f"fact {i}: {'y' * 80}" for i in range(30)])
    message = card_message(answer, budget=budget)
    assert card_size(message.activity_payload()) <= budget
    assert_valid_card(message.card)
    assert message.card["body"][0]["text"] == "2 incidents are open."
    assert card_size(card_message(answer, budget=budget * 3).activity_payload()) > card_size(message.activity_payload())


def test_a_huge_direct_answer_is_shortened_to_fit() -> None:
    message = card_message(answer_with(summary="word " * 30_000))
    assert card_size(message.activity_payload()) <= CARD_BUDGET_BYTES
    assert_valid_card(message.card)
    assert message.text.endswith("…") and message.card["body"][0]["text"] == message.text


def test_answers_without_facts_or_evidence_stay_plain_text() -> None:
    clarify = Answer(text="Which pipeline do you mean?", summary="Which pipeline do you mean?",
                     metadata=AnswerMetadata(workflow="dynamic", route="clarify"))
    assert not has_card(clarify) and has_card(answer_with())


@pytest.mark.parametrize("breakage", ["wrong-version", "missing-toggle-target", "unknown-element", "text-not-string"])
def test_the_card_check_catches_what_teams_would_not_render(breakage: str) -> None:
    """The checker itself: the schema catches element mistakes, our asserts what the schema cannot say."""
    card = copy.deepcopy(card_message(answer_with()).card)
    if breakage == "wrong-version":
        card["version"] = "1.6"
    elif breakage == "missing-toggle-target":
        card["actions"][0]["targetElements"] = ["nowhere"]
    elif breakage == "unknown-element":
        card["body"].append({"type": "Markdown", "text": "x"})
    else:
        card["body"][0]["text"] = 5
    with pytest.raises(AssertionError):
        assert_valid_card(card)
