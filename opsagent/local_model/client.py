"""``LLM_PROVIDER=local``: a deterministic rules model behind MAF's ordinary chat-client interface.

It plays every role through the same agents, workflows and tools as a real model: plans and
verdicts are JSON text that validates against the role's output model, specialists emit real
function calls that MAF's function-invocation layer executes, then answer from the results.
It reads only the typed role input the workflow attaches to its messages, never the prompt text.
No network, no weights, no randomness; it names itself ``local-rules`` in every response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    FunctionInvocationLayer,
    Message,
)

from opsagent.local_model.knowledge import KNOWLEDGE_FILE, load_knowledge_file
from opsagent.local_model.roles import Responder

MODEL_ID = "local-rules"


class LocalChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):
    """One client for every role; the role comes from the typed input on the messages."""

    OTEL_PROVIDER_NAME = "local"

    def __init__(self, *, knowledge_file: Path = KNOWLEDGE_FILE, **kwargs: Any) -> None:
        """
        Args:
            knowledge_file: the validated rules file (``knowledge.yaml``); a bad key fails here.
        """
        super().__init__(**kwargs)
        self.model_id = MODEL_ID
        self.responder = Responder(load_knowledge_file(knowledge_file))

    def respond(self, messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse:
        """The whole model: deterministic, synchronous and fast (about a millisecond)."""
        reply = self.responder.reply(list(messages), options)
        contents = reply if isinstance(reply, list) else [reply]
        return ChatResponse(
            messages=Message("assistant", contents), model=MODEL_ID,
            finish_reason="tool_calls" if isinstance(reply, list) else "stop",
        )

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any):
        response = self.respond(messages, options)
        if stream:
            async def updates():
                for message in response.messages:
                    yield ChatResponseUpdate(role=message.role, contents=message.contents, model=MODEL_ID)

            return self._build_response_stream(updates(), response_format=options.get("response_format"))

        async def get() -> ChatResponse:
            return response

        return get()
