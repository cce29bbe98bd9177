"""The grounding check: an id is grounded only when a tool of the run vouched for it."""

from __future__ import annotations

from evals.checks import ungrounded_entities
from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.results import Answer, AnswerMetadata
from opsagent.contracts.tool_result import ToolResult


def answer_with(text: str, *envelopes: ToolResult) -> Answer:
    evidence = [ToolEvidence.from_output(e.tool, dict(e.query), e.to_text()) for e in envelopes]
    task = TaskResult(agent="servicenow", question="q", status="ok", response=text, evidence=evidence)
    return Answer(text=text, metadata=AnswerMetadata(workflow="dynamic", route="execute", tasks=[task]))


ROWS = ToolResult(tool="list_failed_pipelines", status="ok", total=2, shown=2,
                  items=[{"pipeline_name": "pl_transform_customer360", "run_id": "18b8104f-06e8-4af7-ba52-fa300d8046f7"},
                         {"number": "INC0010050"}])


def test_ids_from_data_rows_are_grounded_in_any_case():
    answer = answer_with("INC0010050 and PL_TRANSFORM_CUSTOMER360 (run 18B8104F-06E8-4AF7-BA52-FA300D8046F7).", ROWS)
    assert ungrounded_entities(answer) == []


def test_prefixes_longer_numbers_and_other_cases_of_invented_ids_are_caught():
    answer = answer_with("pl_transform (a prefix), inc0099999, INC00100500 and pl_made_up-dev failed.", ROWS)
    assert ungrounded_entities(answer) == ["INC00100500", "inc0099999", "pl_made_up-dev", "pl_transform"]


def test_a_search_term_echoed_in_an_ok_result_is_not_evidence():
    echo = ToolResult(tool="list_incidents", status="ok", query={"text": "pl_made_up"}, total=1, shown=1,
                      items=[{"number": "INC0010049"}], message="1 incident mentions pl_made_up")
    assert ungrounded_entities(answer_with("pl_made_up is in INC0010049.", echo)) == ["pl_made_up"]


def test_an_id_a_tool_reported_as_not_found_is_grounded():
    missing = ToolResult(tool="get_incident", status="error", error_kind="not_found", query={"number": "INC0099999"},
                         message="No incident INC0099999 found in ServiceNow.")
    assert ungrounded_entities(answer_with("INC0099999 was not found.", missing)) == []
