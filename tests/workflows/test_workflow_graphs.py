"""The builders wire exactly the DESIGN diagram: executor ids, selection groups, bounds, fresh instances."""

from __future__ import annotations

from agent_framework import WorkflowViz

from opsagent.workflows import ids
from opsagent.workflows.dynamic_workflow import MAX_SUPERSTEPS, create_dynamic_workflow
from opsagent.workflows.triage_workflow import create_triage_workflow


def selection_groups(workflow) -> dict[str, tuple[str, list[str]]]:
    return {
        group.selection_func_name: (group.source_executor_ids[0], group.target_ids)
        for group in workflow.edge_groups
        if getattr(group, "selection_func_name", None)
    }


def test_dynamic_workflow_has_the_design_executors_and_three_selection_groups(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({})
    workflow = create_dynamic_workflow(runtime)
    assert set(workflow.executors) == {
        ids.STORE_QUERY, ids.DYNAMIC_TRIAGE, ids.PARSE_TRIAGE_OUTPUT, ids.REJECT_QUERY,
        ids.CLARIFY, ids.ORCHESTRATOR, ids.REVIEW, ids.GROUNDING, ids.AGGREGATE,
    }
    assert selection_groups(workflow) == {
        "select_intake_outcome": (ids.STORE_QUERY, [ids.DYNAMIC_TRIAGE, ids.REJECT_QUERY, ids.CLARIFY]),
        "select_execution_path": (ids.PARSE_TRIAGE_OUTPUT, [ids.REJECT_QUERY, ids.CLARIFY, ids.ORCHESTRATOR, ids.GROUNDING]),
        "select_review_outcome": (ids.REVIEW, [ids.GROUNDING, ids.DYNAMIC_TRIAGE]),
        "select_grounding_outcome": (ids.GROUNDING, [ids.AGGREGATE, ids.REVIEW]),
    }
    assert workflow.max_iterations == MAX_SUPERSTEPS
    handlers = {t.__name__ for t in workflow.executors[ids.DYNAMIC_TRIAGE].input_types}
    assert handlers == {"PlanningRequest", "ReplanRequest"}
    review_inputs = {t.__name__ for t in workflow.executors[ids.REVIEW].input_types}
    assert {"ExecutionReport", "RegenerateRequest"} <= review_inputs
    assert {t.__name__ for t in workflow.executors[ids.AGGREGATE].input_types} == {"GroundedAnswer"}


def test_triage_workflow_fans_out_to_every_specialist_and_back_in_to_the_review(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({})
    workflow = create_triage_workflow(runtime)
    specialists = ["servicenow", "log_analytics", "service_health"]
    assert selection_groups(workflow) == {
        "select_intake_outcome": (ids.STORE_QUERY, [ids.TRIAGE, ids.REJECT_QUERY]),
        "select_triage_targets": (ids.TRIAGE, [ids.REJECT_QUERY, *specialists]),
        "select_grounding_outcome": (ids.GROUNDING, [ids.AGGREGATE, ids.REVIEW]),
    }
    mermaid = WorkflowViz(workflow).to_mermaid()
    assert all(f"{name} --> fan_in__review" in mermaid for name in specialists)


def test_each_call_builds_fresh_executors(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({})
    first, second = create_dynamic_workflow(runtime), create_dynamic_workflow(runtime)
    assert first is not second
    assert all(first.executors[key] is not second.executors[key] for key in first.executors)
