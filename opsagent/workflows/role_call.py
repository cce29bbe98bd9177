"""Calling a structured-output role (planner, review, clarify): bounded in time, never raising.

The caller parses the text with ``contracts/repair.py`` and falls back when there is an error.
"""

from __future__ import annotations

import asyncio
import logging

from agent_framework import Message

from opsagent.agents.factory import ConfiguredAgent
from opsagent.contracts.evidence import PlanMode
from opsagent.llm.failures import describe_model_failure

logger = logging.getLogger(__name__)


async def ask_for_reply(
    agent: ConfiguredAgent,
    messages: list[Message],
    *,
    mode: PlanMode | None = None,
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
