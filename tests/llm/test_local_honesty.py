"""What the offline model cannot read, it says — and answers nothing in its place.

Questions written as general shapes (not eval wordings): a word it does not know, a qualifier no tool
filter applies, a time it cannot place, an unknown name, a negation outside a filter, a part that
relates two searches. Each must come back on the clarify route naming the unread words in its metadata,
with options that are questions it does read whole, and without a single tool call.
"""

from __future__ import annotations

import pytest

from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat

CANNOT_READ = [
    ("which pipelines are flaky?", "flaky"),                                 # a word nothing knows
    ("which P1 changes are scheduled?", "P1"),                               # changes have no priority
    ("incidents opened since the reorg", "reorg"),                           # a time it cannot place
    ("why did pl_payroll_export fail this morning?", "pl_payroll_export"),   # a name that does not exist
    ("which pipelines didn't run today?", "didn't"),                         # a negation outside a filter
    ("is databricks slower than usual?", "slower than usual"),               # a past no tool keeps
    ("failed pipelines in the last 24h that already have an open incident",  # a clause relating two searches
     "failed pipelines in the last 24h that already have an open incident"),
]


async def ask(runtime, question: str):
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question), workflow="dynamic")
    finally:
        await runtime.aclose()
    return answer


@pytest.mark.parametrize(("question", "word"), CANNOT_READ)
async def test_a_question_it_cannot_read_gets_the_honest_answer(demo_runtime, question: str, word: str) -> None:
    answer = await ask(demo_runtime(), question)
    meta = answer.metadata
    assert meta.route == "clarify" and not meta.tasks, answer.text
    assert word in meta.offline_unread, meta.offline_unread
    assert answer.text.startswith("The offline demo model couldn't read")
    assert "connect a model" in answer.text
    options = meta.clarification.possible_interpretations if meta.clarification else []
    assert options
    for option in options:  # what it offers, it can answer
        offered = await ask(demo_runtime(), option)
        assert offered.metadata.route == "execute" and not offered.metadata.offline_unread, (option, offered.text)


async def test_a_yes_or_no_is_never_led_without_the_whole_predicate(demo_runtime) -> None:
    """The status of a health check is reported, but "is X the cause" is not answered yes or no."""
    answer = await ask(demo_runtime(), "is snowflake the cause?")
    assert answer.metadata.route == "execute"
    assert not answer.summary.startswith(("Yes", "No")), answer.summary


async def test_a_question_read_whole_carries_no_unread_words(demo_runtime) -> None:
    answer = await ask(demo_runtime(), "which P1 incidents are open?")
    assert answer.metadata.offline_unread == []


NAMED_BUT_UNREAD = [  # a known name in words the model cannot place: the options are about that name
    ("has pl_ingest_sales hit this error before?", "pl_ingest_sales"),
    ("whats the deal w/ INC0010052, any eta?", "INC0010052"),
    ("vm-shir-01 acting up again?", "vm-shir-01"),
]


@pytest.mark.parametrize(("question", "name"), NAMED_BUT_UNREAD)
async def test_the_options_for_an_unread_question_are_about_what_it_names(demo_runtime, question: str,
                                                                         name: str) -> None:
    answer = await ask(demo_runtime(), question)
    assert answer.metadata.route == "clarify" and answer.metadata.offline_unread, answer.text
    options = answer.metadata.clarification.possible_interpretations if answer.metadata.clarification else []
    about = [option for option in options if name in option]
    assert about, options
    for option in about:  # what it offers about the name, it answers whole, with a call about that name
        offered = await ask(demo_runtime(), option)
        assert offered.metadata.route == "execute" and not offered.metadata.offline_unread, (option, offered.text)
        assert any(name in str(item.arguments) for task in offered.metadata.tasks for item in task.evidence), option
