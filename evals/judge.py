"""Optional LLM judge (strict: every expected element must be present), for real model providers.

The local rules model cannot judge prose, so with ``LLM_PROVIDER=local`` the judge is skipped and
only the deterministic checks count.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent_framework import Agent
from evals.case import EvalCase
from opsagent.contracts.repair import extract_json_object
from opsagent.agents.model_provider import ModelProvider

JUDGE_INSTRUCTIONS = """You grade an operations assistant's answer strictly.
You get the user's question, the answer, and a list of expected elements.
PASS only if EVERY expected element is clearly present in the answer (same ids, counts, states)
and the answer claims nothing that contradicts them. Otherwise FAIL.
Answer with JSON only: {"passed": bool, "missing": [str], "reason": str}"""


class JudgeVerdict(BaseModel):
    passed: bool = False
    missing: list[str] = Field(default_factory=list)
    reason: str = ""


def judge_available(models: ModelProvider) -> bool:
    return models.provider != "local"


async def judge_answer(models: ModelProvider, case: EvalCase, answer_text: str) -> JudgeVerdict:
    agent = Agent(client=models.client_for("judge"), instructions=JUDGE_INSTRUCTIONS, name="judge",
                  default_options={"temperature": 0})
    expected = "\n".join(f"- {fact}" for fact in case.expect.facts) or "- (the answer addresses the question)"
    prompt = f"Question: {case.question}\n\nAnswer:\n{answer_text}\n\nExpected elements:\n{expected}"
    response = await agent.run(prompt)
    data = extract_json_object(response.text or "")
    return JudgeVerdict.model_validate(data) if data else JudgeVerdict(reason="judge reply was not JSON")
