"""Answers that pair records (dev16: "which P1/P2s have a change", "does the ticket link a change"): a ticket said to
link no change is backed by its own look-up, whose "links" list the change raised for it, the one that caused it and
the tickets its text names. Evidence comes from the real tools on the demo data; each oracle is computed from the
rows, and each shape's lie (a ticket whose links hold a change) is caught."""

from __future__ import annotations

from opsagent.contracts.evidence import TaskResult
from tests.workflows.test_claim_kinds import evidence
from tests.workflows.test_claims_read_from_rows import failed, rows_of

QUESTION = "which open p1/p2 tickets have a change linked?"


def looked_up() -> tuple[list[TaskResult], list[str], list[str]]:
    """Every open P1/P2 looked up: (the evidence, the ones linking a change, the ones linking none)."""
    listing = evidence("list_incidents", priority=2)
    numbers = [row["number"] for row in rows_of(listing)]
    lookups = [result for number in numbers for result in evidence("get_incident", number=number)]
    linking, bare = [], []
    for result in lookups:
        [row] = result.evidence[0].rows
        (linking if any(link["kind"] == "change" for link in row["links"]) else bare).append(row["number"])
    assert linking and bare, "the demo data has both"
    return [*listing, *lookups], linking, bare


def test_a_ticket_whose_links_hold_no_change_links_no_change() -> None:
    results, linking, bare = looked_up()
    for said in (f"{bare[0]} → no change", f"No change on {' or '.join(bare)}.",
                 f"{bare[0]} is In Progress. It links no change."):
        assert not failed(QUESTION, said, results, "negative_claim"), said
    assert failed(QUESTION, f"{linking[0]} → no change", results, "negative_claim")
    assert failed(QUESTION, f"No change on {bare[0]} or {linking[0]}.", results, "negative_claim")


def test_a_share_of_the_tickets_looked_up_without_a_change_is_counted_from_their_links() -> None:
    results, linking, bare = looked_up()
    total = len(linking) + len(bare)
    assert not failed(QUESTION, f"So {len(bare)} of the {total} have no change.", results, "negative_claim")
    assert failed(QUESTION, f"So {len(bare) + 1} of the {total} have no change.", results, "negative_claim")


def test_a_listing_row_says_nothing_of_links() -> None:
    """Without the look-up a ticket's links are unknown: a listing's row has none."""
    listing = evidence("list_incidents", priority=2)
    number = rows_of(listing)[0]["number"]
    assert failed(QUESTION, f"{number} → no change", listing, "negative_claim")
