"""clarify: ask the user back, politely, with concrete interpretations to pick from."""

from __future__ import annotations

from agent_framework import Executor, WorkflowContext, handler
from typing_extensions import Never

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import TriageDecision
from opsagent.contracts.plans import ClarifyOutput
from opsagent.contracts.repair import parse_model_output
from opsagent.contracts.results import Answer
from opsagent.workflows.answer import build_metadata
from opsagent.workflows.ids import CLARIFY
from opsagent.workflows.ledger import read_ledger
from opsagent.workflows.prompts import conversation_messages
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


def clarification_text(output: ClarifyOutput) -> str:
    options = "\n".join(f"- {item}" for item in output.possible_interpretations)
    return f"{output.clarification_request}\n\n{options}" if options else output.clarification_request


class ClarifyExecutor(Executor):
    def __init__(self, agent: ConfiguredAgent, *, timeout_seconds: float) -> None:
        super().__init__(id=CLARIFY)
        self.agent = agent
        self.timeout_seconds = timeout_seconds

    @handler
    async def clarify(self, decision: TriageDecision, ctx: WorkflowContext[Never, Answer]) -> None:
        ledger = read_ledger(ctx)
        text, error = await ask_for_reply(
            self.agent, conversation_messages(ledger.query, ledger.history), mode=None,
            timeout_seconds=self.timeout_seconds,
        )
        parsed = parse_model_output(text, ClarifyOutput) if error is None else None
        output = parsed.value if parsed is not None and parsed.value is not None else FALLBACK
        if output is FALLBACK:
            ledger.notes.append(f"clarify fell back to a generic question: {error or parsed.error}")
        ledger.clarification = output
        await ctx.yield_output(Answer(text=clarification_text(output), metadata=build_metadata(ledger, route="clarify")))
