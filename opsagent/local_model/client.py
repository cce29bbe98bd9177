"""``LLM_PROVIDER=local``: a deterministic rules model behind MAF's ordinary chat-client interface.

It plays every role through the same agents, workflows and tools as a real model (JSON plans and verdicts,
real function calls), reading only the typed role input on the messages, never the prompt text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_framework import (BaseChatClient, ChatMiddlewareLayer, ChatResponse, ChatResponseUpdate, Content,
                             FunctionInvocationLayer, Message)

from opsagent.contracts.role_inputs import (ClarifyInput, PlannerInput, ReplanInput, ReviewInput, SpecialistInput,
                                            read_role_input)
from opsagent.local_model.answer import review_output
from opsagent.local_model.knowledge import KNOWLEDGE_FILE, Lexicon, load_knowledge_file
from opsagent.local_model.planner import clarify_output, decide, review_mode_output, triage_output, user_mode_output
from opsagent.local_model.specialist import specialist_reply

MODEL_ID = "local-rules"
NO_INPUT = "I am OpsAgent's offline rules model; I only answer requests that come through its workflow."


class LocalChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):
    """One client for every role; the role comes from the typed input on the messages."""

    OTEL_PROVIDER_NAME = "local"

    def __init__(self, *, knowledge_file: Path = KNOWLEDGE_FILE, **kwargs: Any) -> None:
        """``knowledge_file``: the validated knowledge file (``knowledge.yaml``); a bad key fails here."""
        super().__init__(**kwargs)
        self.model_id = MODEL_ID
        self.lexicon = Lexicon(load_knowledge_file(knowledge_file))

    def reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str | list[Content]:
        """The role's reply to its typed input: JSON for planners, review and clarify; calls or lines for a specialist."""
        role_input, lexicon = read_role_input(messages), self.lexicon
        match role_input:
            case PlannerInput():
                decision = decide(role_input, lexicon)
                data = triage_output(decision) if role_input.mode == "triage" else user_mode_output(decision)
            case ReplanInput():
                data = review_mode_output(role_input)
            case ClarifyInput():
                data = clarify_output(role_input, lexicon)
            case ReviewInput():
                data = review_output(role_input, lexicon)
            case SpecialistInput():
                tools = {tool.name: dict(tool.parameters().get("properties", {})) for tool in options.get("tools") or ()
                         if hasattr(tool, "parameters")}  # MAF's function tools: name → declared parameters
                return specialist_reply(role_input, messages, tools, lexicon)
            case _:
                return NO_INPUT
        return json.dumps(data, ensure_ascii=False)

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any):
        """The whole model: deterministic, synchronous and fast (a few milliseconds)."""
        reply = self.reply(list(messages), options)
        response = ChatResponse(messages=Message("assistant", reply if isinstance(reply, list) else [reply]),
                                model=MODEL_ID, finish_reason="tool_calls" if isinstance(reply, list) else "stop")
        if stream:
            async def updates():
                for message in response.messages:
                    yield ChatResponseUpdate(role=message.role, contents=message.contents, model=MODEL_ID)

            return self._build_response_stream(updates(), response_format=options.get("response_format"))

        async def get() -> ChatResponse:
            return response

        return get()
