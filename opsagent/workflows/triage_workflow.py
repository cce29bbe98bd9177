"""create_triage_workflow: store_query -> triage -> reject | fan-out to specialists -> aggregate."""

from __future__ import annotations

from agent_framework import Workflow, WorkflowBuilder

from opsagent.runtime import Runtime
from opsagent.workflows.answer import AggregateExecutor
from opsagent.workflows.intake import StoreQueryExecutor
from opsagent.workflows.reject import RejectQueryExecutor
from opsagent.workflows.routing import select_triage_targets
from opsagent.workflows.specialist_task import SpecialistTaskExecutor
from opsagent.workflows.triage import TriageExecutor

MAX_SUPERSTEPS = 6
"""store_query, triage, specialists, aggregate: four supersteps, with room to spare."""


def create_triage_workflow(runtime: Runtime) -> Workflow:
    settings, agents = runtime.settings, runtime.agents
    store_query = StoreQueryExecutor("triage")
    triage = TriageExecutor(
        agents.triage, agents=runtime.specialist_names, max_tasks=settings.max_plan_tasks,
        timeout_seconds=settings.task_timeout_seconds,
    )
    reject_query = RejectQueryExecutor()
    specialists = [
        SpecialistTaskExecutor(agent, task_timeout_seconds=settings.task_timeout_seconds)
        for agent in agents.specialists.values()
    ]
    aggregate = AggregateExecutor(runtime.specialist_titles)
    return (
        WorkflowBuilder(
            max_iterations=MAX_SUPERSTEPS,
            name="opsagent-triage",
            start_executor=store_query,
            output_from=[reject_query, aggregate],
            intermediate_output_from=[triage, *specialists],
        )
        .add_edge(store_query, triage)
        .add_multi_selection_edge_group(triage, [reject_query, *specialists], selection_func=select_triage_targets)
        .add_fan_in_edges(specialists, aggregate)
        .build()
    )
