"""Calling a structured-output role (triage, review, clarify): bounded in time, never raising.

The caller parses the text with ``contracts/repair.py`` and falls back when there is an error.
"""

from __future__ import annotations

import asyncio
import logging

from agent_framework import Message

from opsagent.agents.config import TriageMode
from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.messages import TriageReply
from opsagent.contracts.results import PlanMode
from opsagent.llm.failures import describe_model_failure

logger = logging.getLogger(__name__)


async def ask_for_reply(
    agent: ConfiguredAgent,
    messages: list[Message] | str,
    *,
    mode: TriageMode | None,
    timeout_seconds: float,
) -> tuple[str, str | None]:
    """Run a structured-output role and return (text, error); never raises except on cancel."""
    try:
        async with asyncio.timeout(timeout_seconds):
            response = await agent.agent.run(messages, options=agent.run_options(mode))
    except TimeoutError:
        return "", f"{agent.name} gave no answer within {timeout_seconds:g} s"
    except asyncio.CancelledError:
        raise
    except Exception as error:  # model/transport failure: the caller falls back
        logger.warning("%s call failed: %s", agent.name, type(error).__name__, exc_info=True)
        return "", f"{agent.name} could not answer: {describe_model_failure(error)}"
    return response.text or "", None


async def ask_planner(
    agent: ConfiguredAgent,
    messages: list[Message] | str,
    *,
    mode: TriageMode | None,
    plan_mode: PlanMode,
    timeout_seconds: float,
) -> TriageReply:
    """A triage call (either kind), as the unparsed reply ``parse_triage_output`` expects."""
    text, error = await ask_for_reply(agent, messages, mode=mode, timeout_seconds=timeout_seconds)
    return TriageReply(mode=plan_mode, text=text, error=error)
