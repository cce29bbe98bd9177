"""Test doubles that speak MAF's own interfaces: scripted chat clients and a per-role provider.

A ``ScriptedChatClient`` answers each model call from a script: a list of replies, or a function
of (messages, options) — the latter lets tests coordinate concurrent calls deterministically.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    SupportsChatGetResponse,
)

from opsagent.contracts.role_inputs import read_role_input
from opsagent.tools.catalog import tool_names, tools_of

Reply = ChatResponse | str | dict | Exception
Script = Sequence[Reply] | Callable[[list[Message], dict[str, Any]], Awaitable[Reply] | Reply]


def reply(text: str | dict) -> ChatResponse:
    body = json.dumps(text) if isinstance(text, dict) else text
    return ChatResponse(messages=Message("assistant", [body]))


def call(name: str, call_id: str = "call_1", **arguments: Any) -> ChatResponse:
    return ChatResponse(
        messages=Message("assistant", [Content.from_function_call(call_id=call_id, name=name, arguments=arguments)])
    )


def function_results(messages: Sequence[Message]) -> list[str]:
    return [str(c.result) for m in messages for c in m.contents if c.type == "function_result"]


def fetch_then(answer: str | Callable[[list[Message]], str], *, tool: str | None = None, **arguments: Any) -> Script:
    """A specialist script: first call a tool (the first one offered, or ``tool``), then answer.

    Every specialist must fetch before it answers (a reply without a tool call is "unsupported"),
    so scripted specialists that stand for a working one go through one real tool round.
    """
    def script(messages: list[Message], options: dict[str, Any]) -> Reply:
        if function_results(messages):
            return answer(messages) if callable(answer) else answer
        name = tool or options["tools"][0].name
        return call(name, **arguments)

    return script


def task_question(messages: Sequence[Message]) -> str:
    """The task a specialist was given (from the typed input the workflow attached)."""
    role_input = read_role_input(messages)
    return role_input.task.question if role_input is not None and hasattr(role_input, "task") else ""


class ScriptedChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):
    """Answers from a script and records every call's (messages, options)."""

    def __init__(self, script: Script, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = script if callable(script) else list(script)
        self.calls: list[tuple[list[Message], dict[str, Any]]] = []

    async def _next(self, messages: list[Message], options: dict[str, Any]) -> ChatResponse:
        if callable(self.script):
            result = self.script(messages, options)
            if isinstance(result, Awaitable):
                result = await result
        else:
            result = self.script.pop(0) if self.script else "(script exhausted)"
        if isinstance(result, Exception):
            raise result
        return result if isinstance(result, ChatResponse) else reply(result)

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any):
        self.calls.append((list(messages), dict(options)))
        pending = self._next(list(messages), dict(options))
        if stream:
            async def updates():
                response = await pending
                for message in response.messages:
                    yield ChatResponseUpdate(role=message.role, contents=message.contents)

            return self._build_response_stream(updates(), response_format=options.get("response_format"))
        return pending


@dataclass
class ScriptedModels:
    """A ModelProvider handing each role (by YAML name) its own scripted client."""

    scripts: dict[str, Script]
    provider: str = "scripted"
    model: str = "scripted-model"
    clients: dict[str, ScriptedChatClient] = field(default_factory=dict)

    def client_for(self, role: str) -> SupportsChatGetResponse:
        if role not in self.clients:
            self.clients[role] = ScriptedChatClient(self.scripts.get(role, []))
        return self.clients[role]

    def response_format(self, model: type, *, agents: Any = ()) -> type:
        return model

    async def aclose(self) -> None:
        return None

    def user_texts(self, name: str) -> list[str]:
        """The last user message of each call the named role received."""
        return [next((m.text for m in reversed(msgs) if m.role == "user"), "") for msgs, _ in self.clients[name].calls]


def recording_tools(*names: str, log: list[tuple[str, dict]] | None = None,
                    rows: Mapping[str, list[dict]] | None = None) -> Callable[..., list]:
    """A tool factory whose tools echo their name and arguments (and log each call).

    With ``rows``, a tool returns those rows (``no_data`` when it has none): enough evidence for
    the review and the grounding check to work on.
    """
    from agent_framework import tool

    def make(name: str):
        def run(query: str = "") -> str:
            if log is not None:
                log.append((name, {"query": query}))
            items = (rows or {}).get(name, [])
            status = "ok" if items or rows is None else "no_data"
            return json.dumps({"tool": name, "status": status, "query": {"query": query}, "items": items,
                               "total": len(items), "shown": len(items), "message": f"{len(items)} rows."})

        return tool(run, name=name, description=f"{name}: test tool.")

    def factory(backends: Any, *, clock: Any, max_rows: int) -> list:
        return [make(name) for name in names]

    return factory


TEST_SPECIALISTS_TOOLS = {
    specialist: tool_names(tools_of(specialist)) for specialist in ("servicenow", "log_analytics", "service_health")
}
"""Each specialist's tool names, as the catalog lists them (the YAML files name them)."""
