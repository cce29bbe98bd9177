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
    """Run a structured-output role and return (text, error); never raises except on cancel. A reply cut off at
    the token cap is asked for once more, shorter (a cut JSON object is no answer and is never shown)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_seconds
    for attempt in (1, 2):
        try:
            async with asyncio.timeout(max(deadline - loop.time(), 0.001)):
                response = await agent.agent.run(messages, options=agent.run_options(mode))
        except TimeoutError:
            return "", f"{agent.name} gave no answer within {timeout_seconds:g} s"
        except asyncio.CancelledError:
            raise
        except Exception as error:  # model/transport failure: the caller falls back
            logger.warning("%s call failed: %s", agent.name, type(error).__name__, exc_info=True)
            return "", f"{agent.name} could not answer: {describe_model_failure(error)}"
        if not _cut_off(response) or attempt == 2 or deadline - loop.time() < MIN_RETRY_SECONDS:
            break
        logger.info("%s reply was cut off at its token cap; asking once more for a shorter one", agent.name)
        # the instruction alone: the cut reply back would prime a small model to repeat itself and fill its context
        messages = [*messages, Message("user", [SHORTER])]
    if _cut_off(response):
        return "", f"{agent.name}'s reply was cut off at its token cap twice"
    return response.text or "", None


MIN_RETRY_SECONDS = 5.0
SHORTER = ("Your previous reply was cut off at the length limit, so it was not valid JSON. Answer with the JSON object "
           "only, shorter: fewer and shorter parts and questions, a one-line plan_reason, no other text.")


def _cut_off(response: object) -> bool:
    reason = getattr(response, "finish_reason", None)
    return str(getattr(reason, "value", reason) or "").lower() == "length"
