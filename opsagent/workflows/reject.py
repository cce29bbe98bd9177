"""reject_query: a direct answer — a greeting, help or thanks; a refusal (out of scope); a request to act
answered as one; or the explanation of a planner failure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import ToolEvidence
from opsagent.contracts.messages import DirectReply, Rejection
from opsagent.contracts.results import Answer
from opsagent.intake.candidates import ClarifyCandidates
from opsagent.workflows.actions import action_notice
from opsagent.workflows.answer import build_metadata
from opsagent.workflows.ids import REJECT_QUERY
from opsagent.workflows.welcome import CAPABILITIES, reply_text

FindExamples = Callable[[], Awaitable[ClarifyCandidates]]
FindRecords = Callable[[QuestionAnalysis], Awaitable[list[ToolEvidence]]]


async def no_examples() -> ClarifyCandidates:
    return ClarifyCandidates()


async def no_records(analysis: QuestionAnalysis) -> list[ToolEvidence]:
    return []


class RejectQueryExecutor(Executor):
    def __init__(self, examples: FindExamples = no_examples, records: FindRecords = no_records) -> None:
        super().__init__(id=REJECT_QUERY)
        self.examples = examples
        """Example questions about what the data holds now (for a greeting or "help")."""
        self.records = records
        """The records a request to act names, looked up: shown with the refusal whatever the model planned."""

    @handler
    async def reject(self, rejection: Rejection, ctx: WorkflowContext[Never, Answer]) -> None:
        action = rejection.trail.analysis.action
        if rejection.failure is not None:
            text = f"{rejection.reason} Please try again, or rephrase the question."
            metadata = build_metadata(rejection.trail, route="error", error_code=rejection.failure,
                                      reject_reason=rejection.reason)
        elif action is not None:  # a planner that refused a request to act: still answered as one, with the records
            found = await self.records(rejection.trail.analysis)
            shown = [item.message for item in found if item.answered and item.message]
            text = "\n\n".join([action_notice(action), *shown])
            metadata = build_metadata(rejection.trail, route="action", reject_reason=rejection.reason, lookups=found)
        else:
            text = f"{rejection.reason} {CAPABILITIES}"
            metadata = build_metadata(rejection.trail, route="reject", reject_reason=rejection.reason)
        await ctx.yield_output(Answer(text=text, summary=text, metadata=metadata))

    @handler
    async def reply(self, request: DirectReply, ctx: WorkflowContext[Never, Answer]) -> None:
        examples = await self.examples()
        text = reply_text(request.kind, examples.questions)
        metadata = build_metadata(request.trail, route="help", lookups=examples.evidence)
        await ctx.yield_output(Answer(text=text, summary=text, metadata=metadata))
