"""Checking an Adaptive Card the way Teams needs it: the official 1.5 schema, plus what a schema cannot say."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft6Validator
from jsonschema.exceptions import best_match

SCHEMA_FILE = Path(__file__).parent / "adaptive_cards" / "adaptive-card-1.5.schema.json"


@cache
def card_validator() -> Draft6Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft6Validator.check_schema(schema)
    return Draft6Validator(schema)


def element_ids(node: Any) -> list[str]:
    """Every element id in a card (any depth)."""
    if isinstance(node, dict):
        own = [node["id"]] if isinstance(node.get("id"), str) else []
        return own + [found for value in node.values() for found in element_ids(value)]
    if isinstance(node, list):
        return [found for value in node for found in element_ids(value)]
    return []


def toggle_targets(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [target if isinstance(target, str) else target["elementId"] for target in node.get("targetElements", [])
               ] if node.get("type") == "Action.ToggleVisibility" else []
        return own + [found for value in node.values() for found in toggle_targets(value)]
    if isinstance(node, list):
        return [found for value in node for found in toggle_targets(value)]
    return []


def assert_valid_card(card: dict[str, Any]) -> None:
    """Valid against the vendored Adaptive Card 1.5 schema, a 1.5 ``AdaptiveCard`` at the root (the schema
    requires neither), and every toggle pointing at an element that exists (nor that). The Teams-only
    ``msteams`` property is checked here and left out of the schema check (the schema does not know it)."""
    assert card.get("type") == "AdaptiveCard" and card.get("version") == "1.5", card.get("version")
    assert card.get("msteams", {"width": "Full"}) == {"width": "Full"}
    portable = {key: value for key, value in card.items() if key != "msteams"}
    error = best_match(card_validator().iter_errors(portable))
    assert error is None, f"{error.message} at {'/'.join(map(str, error.absolute_path))}"
    ids = element_ids(card)
    assert len(ids) == len(set(ids)), f"duplicate element ids: {ids}"
    assert set(toggle_targets(card)) <= set(ids), f"toggles point at missing elements: {toggle_targets(card)}"
