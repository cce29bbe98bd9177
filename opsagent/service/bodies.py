"""HTTP request bodies (pydantic) for ``/api/chat*`` and ``/v1/chat/completions``.

Bodies are strict: wrong types and unknown fields are refused with a message naming the field.
The OpenAI body accepts (and ignores) sampling knobs a chat front end sends by habit, but refuses
features OpsAgent cannot honour (tools, several choices, JSON mode, logprobs, audio), because
silently ignoring them would hand the client something other than what it asked for.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator
from pydantic_core import PydanticCustomError

from opsagent.contracts.requests import MessageData, Role
from opsagent.contracts.results import WorkflowKind

CONVERSATION_ID_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"
OPENAI_MODELS: tuple[str, ...] = ("opsagent", "opsagent-dynamic", "opsagent-triage")


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    content: StrictStr

    def to_message(self) -> MessageData:
        return MessageData(role=self.role, content=self.content)


class ChatRequest(BaseModel):
    """``POST /api/chat`` and ``/api/chat_dynamic``. With a ``conversation_id`` the server keeps
    the earlier turns, so send only the new message(s). The id names a conversation of this API
    (and, with ``OPSAGENT_API_KEYS``, of the caller's key) only: see ``history.conversation_key``."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage]
    conversation_id: str | None = Field(default=None, pattern=CONVERSATION_ID_PATTERN)


class ChatStreamRequest(ChatRequest):
    """``POST /api/chat/stream`` (the chat page): like ``ChatRequest``, with a workflow choice."""

    workflow: WorkflowKind | None = None


def _text_of(content: Any) -> Any:
    """OpenAI content is a string or a list of parts; only text parts are supported."""
    if not isinstance(content, list):
        return content
    texts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else type(part).__name__
        if kind != "text" or not isinstance(part.get("text"), str):
            raise PydanticCustomError("unsupported_content", "only text content parts are supported (got '{kind}')",
                                      {"kind": kind})
        texts.append(part["text"])
    return "\n".join(texts)


class OpenAIMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")  # e.g. "name"; harmless

    role: Literal["system", "developer", "user", "assistant"]
    content: StrictStr | None = None

    _text = field_validator("content", mode="before")(_text_of)

    def to_message(self) -> MessageData:
        return MessageData(role="system" if self.role == "developer" else self.role, content=self.content or "")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: StrictBool = False


def _unsupported(param: str, why: str) -> PydanticCustomError:
    return PydanticCustomError("unsupported_parameter", "'{param}' is not supported: {why}", {"param": param, "why": why})


class ChatCompletionRequest(BaseModel):
    """``POST /v1/chat/completions``: the subset of OpenAI's body that OpsAgent honours."""

    model_config = ConfigDict(extra="forbid")

    model: StrictStr
    messages: list[OpenAIMessage]
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1)
    # accepted and ignored: OpsAgent's agents pick their own sampling and length
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, Any] | None = None
    seed: int | None = None
    stop: str | list[str] | None = None
    user: str | None = None
    metadata: dict[str, Any] | None = None
    store: bool | None = None
    service_tier: str | None = None
    parallel_tool_calls: bool | None = None
    reasoning_effort: str | None = None
    verbosity: str | None = None
    safety_identifier: str | None = None
    prompt_cache_key: str | None = None
    top_logprobs: int | None = None
    # refused unless empty/default (checked below)
    tools: list[Any] | None = None
    tool_choice: Any = None
    functions: list[Any] | None = None
    function_call: Any = None
    response_format: dict[str, Any] | None = None
    logprobs: bool | None = None
    modalities: list[str] | None = None
    audio: Any = None

    @model_validator(mode="after")
    def _refuse_unsupported(self) -> ChatCompletionRequest:
        refusals = [
            ("n", (self.n or 1) > 1, "OpsAgent returns exactly one choice (use n=1)"),
            ("tools", bool(self.tools) or self.tool_choice not in (None, "none"), "OpsAgent calls its own tools"),
            ("functions", bool(self.functions) or self.function_call not in (None, "none"), "OpsAgent calls its own tools"),
            ("response_format", (self.response_format or {"type": "text"}).get("type") != "text",
             "answers are markdown text (use {'type': 'text'})"),
            ("logprobs", bool(self.logprobs), "no token log probabilities are available"),
            ("modalities", self.modalities not in (None, ["text"]), "answers are text only"),
            ("audio", self.audio is not None, "answers are text only"),
        ]
        for param, refused, why in refusals:
            if refused:
                raise _unsupported(param, why)
        return self

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)
