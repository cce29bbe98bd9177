"""The run ledger: what one workflow run has learnt so far, kept in MAF workflow state.

Each request gets a fresh workflow, so the ledger is per request. MAF deep-copies state on get
and set, so executors read it, change their copy and write it back.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent_framework import WorkflowContext

from opsagent.contracts.plans import ClarifyOutput, ReviewOutput
from opsagent.contracts.requests import MessageData
from opsagent.contracts.results import PlanRecord, TaskResult, WorkflowKind

LEDGER_KEY = "opsagent.ledger"


class RunLedger(BaseModel):
    workflow: WorkflowKind
    query: str
    history: list[MessageData] = Field(default_factory=list)
    plans: list[PlanRecord] = Field(default_factory=list)
    results: list[TaskResult] = Field(default_factory=list)
    reviews: list[ReviewOutput] = Field(default_factory=list)
    retry_used: bool = False
    retry_accepted: bool | None = None
    retry_rejection_reason: str = ""
    clarification: ClarifyOutput | None = None
    notes: list[str] = Field(default_factory=list)


def read_ledger(ctx: WorkflowContext) -> RunLedger:
    ledger = ctx.get_state(LEDGER_KEY)
    if ledger is None:
        raise RuntimeError("the run ledger is missing: store_query must run first")
    return ledger


def write_ledger(ctx: WorkflowContext, ledger: RunLedger) -> None:
    ctx.set_state(LEDGER_KEY, ledger)
