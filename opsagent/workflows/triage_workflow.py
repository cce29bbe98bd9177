"""create_triage_workflow: store_query → triage → reject | specialists in parallel → review → grounding → aggregate."""

from __future__ import annotations

from agent_framework import Workflow, WorkflowBuilder

from opsagent.runtime import Runtime
from opsagent.workflows.answer import AggregateExecutor
from opsagent.workflows.grounding import GroundingExecutor, grounding_thresholds
from opsagent.workflows.intake import StoreQueryExecutor
from opsagent.workflows.reject import RejectQueryExecutor
from opsagent.workflows.review import ReviewExecutor
from opsagent.workflows.routing import select_grounding_outcome, select_intake_outcome, select_triage_targets
from opsagent.workflows.triage import SpecialistTaskExecutor, TriageExecutor

MAX_SUPERSTEPS = 10
"""Intake, triage, specialists, review, grounding, rewrite, grounding, aggregate: eight, with room to spare."""


def create_triage_workflow(runtime: Runtime) -> Workflow:
    settings, agents = runtime.settings, runtime.agents
    timeout = settings.task_timeout_seconds
    store_query = StoreQueryExecutor("triage", runtime.intake, can_clarify=False)
    triage = TriageExecutor(agents.triage, specialists=runtime.specialist_infos, agents=runtime.specialist_names,
                            max_tasks=settings.max_plan_tasks, timeout_seconds=timeout)
    reject_query = RejectQueryExecutor(runtime.intake.example_questions, runtime.intake.action_records)
    specialists = [SpecialistTaskExecutor(agent, task_timeout_seconds=timeout) for agent in agents.specialists.values()]
    review = ReviewExecutor(agents.review, allow_retry=False, timeout_seconds=timeout)
    grounding = GroundingExecutor(thresholds=grounding_thresholds(settings), known_names=runtime.intake.known_names)
    aggregate = AggregateExecutor(runtime.specialist_titles, max_answer_chars=settings.max_answer_chars)
    return (
        WorkflowBuilder(
            max_iterations=MAX_SUPERSTEPS,
            name="opsagent-triage",
            start_executor=store_query,
            output_from=[reject_query, aggregate],
            intermediate_output_from=[store_query, triage, *specialists, review, grounding],
        )
        .add_multi_selection_edge_group(store_query, [triage, reject_query], selection_func=select_intake_outcome)
        .add_multi_selection_edge_group(triage, [reject_query, *specialists], selection_func=select_triage_targets)
        .add_fan_in_edges(specialists, review)
        .add_edge(review, grounding)
        .add_multi_selection_edge_group(grounding, [aggregate, review], selection_func=select_grounding_outcome)
        .build()
    )
