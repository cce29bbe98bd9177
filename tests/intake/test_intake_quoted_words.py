"""Words the user quotes are text to find in the records, not filters, times or names to read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opsagent.intake.analyzer import analyse_question
from opsagent.workflows.prompts import analysis_lines

NOW = datetime(2025, 1, 10, 9, tzinfo=UTC)


@pytest.mark.parametrize(("question", "quoted"), [
    ("seen the error 'Execution Timeout Expired' before?", ["Execution Timeout Expired"]),
    ('any incidents mentioning "warehouse timeout"?', ["warehouse timeout"]),
    ("past incidents like “statement reached its timeout”", ["statement reached its timeout"]),
    ("it's the users' dashboard that broke, isn't it?", []),     # apostrophes open no quote
    ("incidents in 'On Hold'", []),                              # only a filter: the filter
    ("why did 'pl_ingest_sales' fail?", []),                     # only a name: the name
    ("any incidents about 'x'?", []),                            # one letter is no text
])
def test_quoted_words_are_found_as_written(question: str, quoted: list[str]) -> None:
    analysis = analyse_question(question, now=NOW)
    assert [item.text for item in analysis.quoted] == quoted
    for item in analysis.quoted:
        assert item.text in analysis.resolved_question[item.span.start:item.span.end]
        assert not set(item.text.lower().split()) & set(analysis.unplaced)


def test_a_filter_or_a_time_inside_quotes_is_not_read_but_one_outside_is() -> None:
    question = "on hold incidents from yesterday mentioning 'resolved after a restart on Monday'"
    analysis = analyse_question(question, now=NOW)
    assert [item.text for item in analysis.quoted] == ["resolved after a restart on Monday"]
    [quote] = analysis.quoted
    assert [(item.field, item.values) for item in analysis.filters] == [("incident_state", ["on_hold"])]
    assert [item.text.lower() for item in analysis.times] == ["from yesterday"]
    assert all(item.span.end <= quote.span.start for item in (*analysis.filters, *analysis.times))


def test_the_name_and_the_filter_a_quote_only_holds_are_still_read() -> None:
    assert analyse_question("incidents in 'On Hold'", now=NOW).filters[0].field == "incident_state"
    assert [item.value for item in analyse_question("why did 'pl_ingest_sales' fail?", now=NOW).entities] == \
        ["pl_ingest_sales"]


def test_every_model_gets_the_quoted_words_as_a_hint() -> None:
    lines = analysis_lines(analyse_question("seen 'Execution Timeout Expired' before?", now=NOW))
    [hint] = [line for line in lines if line.startswith("quoted words")]
    assert '"Execution Timeout Expired"' in hint and "text argument" in hint
    assert not [line for line in analysis_lines(analyse_question("why did pl_ingest_sales fail?", now=NOW))
                if line.startswith("quoted words")]
