"""Input: the chat messages a question arrives with."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class MessageData(BaseModel):
    """One chat message, as every surface (HTTP, OpenAI API, Teams, CLI) hands it over."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: str
    refs: tuple[str, ...] = ()
    """For an assistant turn: the ids its answer listed, in order ("the second one" points into it)."""


class WorkflowInput(BaseModel):
    """What a workflow run starts from: the conversation so far, ending with the user's question."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: list[MessageData] = Field(min_length=1)
    conversation_id: str | None = None

    @property
    def query(self) -> str:
        """The last user message: the question being answered now."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return ""

    @property
    def history(self) -> list[MessageData]:
        """Everything before the last user message (earlier turns, for follow-ups)."""
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].role == "user":
                return list(self.messages[:index])
        return list(self.messages)

    @classmethod
    def from_question(cls, question: str, history: list[MessageData] | None = None) -> WorkflowInput:
        return cls(messages=[*(history or []), MessageData(role="user", content=question)])
