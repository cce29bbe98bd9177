"""create_dynamic_workflow: the WorkflowBuilder wiring of the dynamic (step-based) workflow.

Fresh executors and a fresh Workflow for every request: MAF allows one run per instance at a
time and keeps state between runs, and a shared executor would serialise requests on its lock.
"""

from __future__ import annotations

from agent_framework import Workflow, WorkflowBuilder

from opsagent.runtime import Runtime
from opsagent.workflows.answer import AggregateExecutor
from opsagent.workflows.clarify import ClarifyExecutor
from opsagent.workflows.decision import ParseTriageOutputExecutor
from opsagent.workflows.intake import StoreQueryExecutor
from opsagent.workflows.orchestration import OrchestratorExecutor
from opsagent.workflows.reject import RejectQueryExecutor
from opsagent.workflows.review import ReviewExecutor
from opsagent.workflows.routing import select_execution_path, select_review_outcome
from opsagent.workflows.triage import DynamicTriageExecutor

MAX_SUPERSTEPS = 12
"""The longest legal run takes 10 supersteps (plan, execute, review, re-plan, execute, review,
aggregate); the builder's bound is the second guard behind the retry counter."""


def create_dynamic_workflow(runtime: Runtime) -> Workflow:
    settings, agents = runtime.settings, runtime.agents
    names = runtime.specialist_names
    store_query = StoreQueryExecutor("dynamic")
    dynamic_triage = DynamicTriageExecutor(agents.dynamic_triage, timeout_seconds=settings.task_timeout_seconds)
    parse_triage_output = ParseTriageOutputExecutor(agents=names, max_tasks=settings.max_plan_tasks)
    reject_query = RejectQueryExecutor()
    clarify = ClarifyExecutor(agents.clarify, timeout_seconds=settings.task_timeout_seconds)
    orchestrator = OrchestratorExecutor(agents.specialists, task_timeout_seconds=settings.task_timeout_seconds)
    review = ReviewExecutor(agents.review, timeout_seconds=settings.task_timeout_seconds)
    aggregate = AggregateExecutor(runtime.specialist_titles)
    return (
        WorkflowBuilder(
            max_iterations=MAX_SUPERSTEPS,
            name="opsagent-dynamic",
            start_executor=store_query,
            output_from=[reject_query, clarify, aggregate],
            intermediate_output_from=[parse_triage_output, orchestrator, review],
        )
        .add_edge(store_query, dynamic_triage)
        .add_edge(dynamic_triage, parse_triage_output)
        .add_multi_selection_edge_group(
            parse_triage_output, [reject_query, clarify, orchestrator, aggregate], selection_func=select_execution_path
        )
        .add_edge(orchestrator, review)
        .add_multi_selection_edge_group(review, [aggregate, dynamic_triage], selection_func=select_review_outcome)
        .build()
    )
