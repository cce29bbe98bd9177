"""clarify: ask the user back, politely, with concrete interpretations to pick from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.messages import ClarifyRequest
from opsagent.contracts.plans import ClarifyOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import Answer
from opsagent.contracts.role_inputs import ClarifyInput, SpecialistInfo
from opsagent.intake.candidates import ClarifyCandidates
from opsagent.workflows.answer import build_metadata
from opsagent.workflows.ids import CLARIFY
from opsagent.workflows.prompts import clarify_messages
from opsagent.workflows.role_call import ask_for_reply

FALLBACK = ClarifyOutput(
    clarification_request=(
        "I'd like to help, but I'm not sure what you want me to look at. "
        "Which system, ticket, pipeline or service do you mean, and for what time window?"
    ),
    possible_interpretations=[
        "Which Data Factory pipelines failed in the last 24 hours?",
        "Show me the open P1 and P2 incidents.",
        "Is Databricks or Snowflake degraded right now?",
    ],
)
FindCandidates = Callable[[QuestionAnalysis], Awaitable[ClarifyCandidates]]


async def no_candidates(analysis: QuestionAnalysis) -> ClarifyCandidates:
    return ClarifyCandidates()


def clarification_text(output: ClarifyOutput) -> str:
    options = "\n".join(f"- {item}" for item in output.possible_interpretations)
    return f"{output.clarification_request}\n\n{options}" if options else output.clarification_request


class ClarifyExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, specialists: list[SpecialistInfo], timeout_seconds: float,
                 candidates: FindCandidates = no_candidates) -> None:
        super().__init__(id=CLARIFY)
        self.agent = agent
        self.specialists = specialists
        self.timeout_seconds = timeout_seconds
        self.candidates = candidates
        """Concrete options from the data for what the question leaves open (e.g. changes awaiting approval)."""

    @handler
    async def clarify(self, request: ClarifyRequest, ctx: WorkflowContext[Never, Answer]) -> None:
        trail = request.trail
        found = await self.candidates(trail.analysis)
        role_input = ClarifyInput(question=trail.question, history=trail.history, analysis=trail.analysis,
                                  reason=request.reason, candidates=found.questions, candidates_label=found.label,
                                  unread=request.offline_unread, specialists=self.specialists)
        text, error = await ask_for_reply(self.agent, clarify_messages(role_input), timeout_seconds=self.timeout_seconds)
        parsed = parse_model_output(text, ClarifyOutput) if error is None else None
        output = parsed.value if parsed is not None and parsed.value is not None else FALLBACK
        if output is FALLBACK:
            trail = trail.extended(notes=[f"clarify fell back to a generic question: {error or parsed.error}"])
        answer_text = clarification_text(output)
        await ctx.yield_output(Answer(text=answer_text, summary=answer_text,
                                      metadata=build_metadata(trail, route="clarify", clarification=output,
                                                               lookups=found.evidence,
                                                               offline_unread=request.offline_unread)))
