"""Set filters written as text: one value, a list, a negation; and the words and record they give."""

from __future__ import annotations

import pytest

from opsagent.tools.filters import parse_set_filter
from opsagent.tools.rendering import ArgumentError

STATES = ("New", "In Progress", "On Hold", "Resolved", "Closed")
STATE_CHOICES = {
    "open": ("New", "In Progress", "On Hold"), "new": ("New",), "in_progress": ("In Progress",),
    "on_hold": ("On Hold",), "resolved": ("Resolved",), "closed": ("Closed",), "all": STATES,
}
APPROVALS = ("not requested", "requested", "approved", "rejected")
APPROVAL_CHOICES = {"not_requested": ("not requested",), "requested": ("requested",), "approved": ("approved",),
                    "rejected": ("rejected",)}


@pytest.mark.parametrize(
    ("value", "values", "words"),
    [
        ("In Progress", ("In Progress",), "state 'in progress'"),
        ("in-progress, closed", ("In Progress", "Closed"), "state 'in progress' or 'closed'"),
        ("closed or new", ("New", "Closed"), "state 'closed' or 'new'"),
        ("open,in_progress", ("New", "In Progress", "On Hold"), "state 'open' or 'in progress'"),
        ("not resolved", ("New", "In Progress", "On Hold", "Closed"), "state not 'resolved'"),
        ("Not Open", ("Resolved", "Closed"), "state not 'open'"),
        ("!=closed", ("New", "In Progress", "On Hold", "Resolved"), "state not 'closed'"),
        ("not resolved, closed", ("New", "In Progress", "On Hold"), "state not 'resolved' or 'closed'"),
        ("not resolved, not closed", ("New", "In Progress", "On Hold"), "state not 'resolved' or 'closed'"),
    ],
    ids=["label", "list", "or-list", "alias-in-list", "negation", "negated-alias", "bang", "negated-list",
         "repeated-not"],
)
def test_parse_set_filter_values_and_words(value: str, values: tuple[str, ...], words: str) -> None:
    resolved = parse_set_filter(value, STATE_CHOICES, universe=STATES, argument="state")
    assert resolved.values == values
    assert resolved.words() == words
    assert resolved.to_json() == {"asked": value.strip(), "values": list(values)}
    assert resolved.restriction == list(values)


def test_a_label_that_starts_with_not_is_a_value_not_a_negation() -> None:
    value = parse_set_filter("not requested", APPROVAL_CHOICES, universe=APPROVALS, argument="approval")
    assert (value.values, value.is_negated) == (("not requested",), False)
    negated = parse_set_filter("not approved", APPROVAL_CHOICES, universe=APPROVALS, argument="approval")
    assert (negated.values, negated.words()) == (("not requested", "requested", "rejected"), "approval not 'approved'")
    double = parse_set_filter("not not_requested", APPROVAL_CHOICES, universe=APPROVALS, argument="approval")
    assert double.values == ("requested", "approved", "rejected")


def test_everything_restricts_nothing() -> None:
    resolved = parse_set_filter("all", STATE_CHOICES, universe=STATES, argument="state")
    assert (resolved.is_everything, resolved.restriction, resolved.values) == (True, None, STATES)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nope", "state: unknown value 'nope'; accepted: all, closed, in_progress, new, on_hold, open, resolved, "
                 "or 'not <value>'."),
        ("new, not closed", "state: 'not closed' inside a list of values; put 'not' once, before the whole list"),
        ("not all", "state: 'not all' excludes every value, so nothing could match."),
        ("not ", "state: unknown value 'not'; accepted:"),
        (" , ", "state: empty value"),
    ],
    ids=["unknown", "not-inside-list", "matches-nothing", "bare-not", "empty-list"],
)
def test_parse_set_filter_refusals_say_what_to_write(value: str, message: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        parse_set_filter(value, STATE_CHOICES, universe=STATES, argument="state")
    assert str(caught.value).startswith(message)
