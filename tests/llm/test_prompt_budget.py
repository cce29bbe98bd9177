"""The prompt budget: data rows go first, the question and instructions stay, and it says what it left out."""

from __future__ import annotations

import pytest

from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.role_inputs import read_role_input
from opsagent.llm.prompt_budget import fit_prompt, left_out_line, prompt_tokens
from opsagent.workflows.runner import answer_chat
from tests.fakes import fetch_then, reply

ROW = '  {"number":"INC00100%02d","short_description":"' + "x" * 150 + '"}'


def prompt_lines(rows_per_call: tuple[int, ...]) -> list[str]:
    lines = ["User question: which incidents?", "Task results:"]
    for call, count in enumerate(rows_per_call):
        lines.append(f"list_incidents(call={call}) → ok, {count} found, {count} shown: {count} incidents.")
        lines += [ROW % index for index in range(count)]
    return lines


def test_a_prompt_within_budget_is_untouched():
    lines = prompt_lines((3,))
    assert fit_prompt(lines, 10_000).lines == lines


def test_rows_go_from_the_longest_run_first_and_each_run_says_what_it_lost():
    lines = prompt_lines((10, 2))
    result = fit_prompt(lines, 300)
    assert result.fits and result.dropped_rows > 0
    assert [line for line in result.lines if not line.startswith("  ")] == [line for line in lines if not line.startswith("  ")]
    first_run = result.lines[3:result.lines.index(lines[13])]
    assert first_run[-1] == left_out_line(10 - (len(first_run) - 1))
    assert lines[-2:] == result.lines[-2:]  # the short run kept both rows: the long one paid first
    assert sum(len(line) + 1 for line in result.lines) // 4 <= 300


def test_when_rows_are_not_enough_every_other_line_stays():
    lines = ["Question: " + "q" * 4_000, *prompt_lines((4,))]
    result = fit_prompt(lines, 500)
    assert not result.fits and result.dropped_rows == 4
    assert result.lines[0] == lines[0] and result.lines[-1] == left_out_line(4)


@pytest.mark.parametrize("budget", [None, 1_000])
async def test_the_reviewer_prompt_is_cut_to_the_budget_on_the_way_to_the_model(make_scripted_runtime, budget):
    seen: list[tuple[list, dict]] = []

    def review(messages, options):
        seen.append((messages, options))
        return reply({"is_complete": True, "summary": "Many incidents."})

    rows = [{"number": f"INC00100{i:02d}", "short_description": "y" * 300} for i in range(40)]
    overrides = {} if budget is None else {"prompt_budget_tokens": budget}
    runtime, _ = make_scripted_runtime({"dynamic_triage": [reply({"plan": [{"step": 1, "agent": "servicenow",
                                                                           "question": "All incidents?"}]})],
                                        "servicenow": fetch_then("40 incidents."), "review": review},
                                       tool_rows={"list_incidents": rows}, **overrides)
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("All incidents?"))
    messages, options = seen[0]
    text = messages[-1].text
    usage = answer.metadata.usage_by_role["review"]
    if budget is None:  # the hosted default budget is far above this prompt
        assert "left out to fit the prompt budget" not in text and usage.trimmed_calls == 0
        return
    assert "left out to fit the prompt budget" in text and usage.trimmed_calls >= 1
    assert prompt_tokens(messages, options) <= budget
    assert "User question: All incidents?" in text and "INC0010000" in text  # the question and a first row stay
    assert read_role_input(messages).question == "All incidents?"  # the typed input stays attached
