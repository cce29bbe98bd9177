"""create_dynamic_workflow: the WorkflowBuilder wiring of the dynamic (step-based) workflow.

Fresh executors and a fresh Workflow for every request: MAF allows one run per instance at a
time and keeps state between runs, and a shared executor would serialise requests on its lock.
"""

from __future__ import annotations

from agent_framework import Workflow, WorkflowBuilder

from opsagent.runtime import Runtime
from opsagent.workflows.answer import AggregateExecutor
from opsagent.workflows.clarify import ClarifyExecutor
from opsagent.workflows.grounding import GroundingExecutor, grounding_thresholds
from opsagent.workflows.intake import StoreQueryExecutor
from opsagent.workflows.orchestration import OrchestratorExecutor
from opsagent.workflows.planner import DynamicTriageExecutor, ParseTriageOutputExecutor
from opsagent.workflows.reject import RejectQueryExecutor
from opsagent.workflows.review import ReviewExecutor
from opsagent.workflows.routing import (
    select_execution_path,
    select_grounding_outcome,
    select_intake_outcome,
    select_review_outcome,
)

MAX_SUPERSTEPS = 15
"""The longest legal run takes 13 supersteps (plan, parse, execute, review, re-plan, parse, execute,
review, grounding, rewrite, grounding, aggregate, after intake); the builder's bound is the second
guard behind the loop counters in workflow state."""


def create_dynamic_workflow(runtime: Runtime) -> Workflow:
    settings, agents = runtime.settings, runtime.agents
    timeout = settings.task_timeout_seconds
    store_query = StoreQueryExecutor("dynamic", runtime.intake)
    dynamic_triage = DynamicTriageExecutor(agents.dynamic_triage, specialists=runtime.specialist_infos,
                                           max_tasks=settings.max_plan_tasks, timeout_seconds=timeout)
    parse_triage_output = ParseTriageOutputExecutor(agents=runtime.specialist_names, max_tasks=settings.max_plan_tasks,
                                                    min_confidence=settings.planner_min_confidence,
                                                    max_steps=settings.max_plan_steps)
    reject_query = RejectQueryExecutor(runtime.intake.example_questions, runtime.intake.action_records)
    clarify = ClarifyExecutor(agents.clarify, specialists=runtime.specialist_infos, timeout_seconds=timeout,
                              candidates=runtime.intake.clarify_candidates)
    orchestrator = OrchestratorExecutor(agents.specialists, task_timeout_seconds=timeout)
    review = ReviewExecutor(agents.review, allow_retry=True, timeout_seconds=timeout)
    grounding = GroundingExecutor(thresholds=grounding_thresholds(settings), known_names=runtime.intake.known_names)
    aggregate = AggregateExecutor(runtime.specialist_titles, max_answer_chars=settings.max_answer_chars)
    return (
        WorkflowBuilder(
            max_iterations=MAX_SUPERSTEPS,
            name="opsagent-dynamic",
            start_executor=store_query,
            output_from=[reject_query, clarify, aggregate],
            intermediate_output_from=[store_query, parse_triage_output, orchestrator, review, grounding],
        )
        .add_multi_selection_edge_group(store_query, [dynamic_triage, reject_query, clarify],
                                        selection_func=select_intake_outcome)
        .add_edge(dynamic_triage, parse_triage_output)
        .add_multi_selection_edge_group(
            parse_triage_output, [reject_query, clarify, orchestrator, grounding], selection_func=select_execution_path
        )
        .add_edge(orchestrator, review)
        .add_multi_selection_edge_group(review, [grounding, dynamic_triage], selection_func=select_review_outcome)
        .add_multi_selection_edge_group(grounding, [aggregate, review], selection_func=select_grounding_outcome)
        .build()
    )
