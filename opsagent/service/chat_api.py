"""Blueprint: the JSON chat API (``/api/chat``, ``/api/chat_dynamic``, ``/api/chat/stream``) and
the probes (``/healthz``, ``/readyz``).

``/api/chat`` runs the triage workflow, or the dynamic one when ``DYNAMIC_PLAN=true``;
``/api/chat_dynamic`` always runs the dynamic one. ``/api/chat/stream`` is what the chat page
uses: server-sent ``progress`` events, then one ``answer`` (or ``error``) event.
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, g, jsonify, request

from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.service.auth import check_api_key
from opsagent.service.bodies import ChatRequest, ChatStreamRequest
from opsagent.service.chats import (ApiConversation, default_workflow, raise_for_error, remember, run_answer,
                                    start_stream, with_history)
from opsagent.service.errors import answer_error_body
from opsagent.service.sse import sse_event, sse_response
from opsagent.service.state import ServiceState, get_state
from opsagent.service.validation import check_messages, parse_body

chat_api = Blueprint("chat_api", __name__)


@chat_api.before_request
def _require_api_key() -> None:
    if request.path.startswith("/api/chat"):
        g.api_owner = check_api_key(request.headers.get("Authorization"), get_state().settings.opsagent_api_keys)


def _answer_body(answer: Answer, conversation: ApiConversation) -> dict:
    """The whole answer as markdown (``answer``), its parts for surfaces that lay them out (the chat page),
    the conversation id and the metadata."""
    return {"answer": answer.text, "summary": answer.summary, "facts": answer.facts,
            "limitations": answer.limitations, "evidence": [section.model_dump() for section in answer.evidence],
            "conversation_id": conversation.id, "metadata": answer.metadata.model_dump(mode="json")}


def _chat(state: ServiceState, body: ChatRequest, workflow: WorkflowKind) -> Response:
    messages = [message.to_message() for message in body.messages]
    check_messages(messages, state.settings)
    chat, conversation = with_history(state, messages, body.conversation_id, g.api_owner)
    answer = raise_for_error(run_answer(state, chat, workflow))
    remember(state, conversation, messages, answer)
    return jsonify(_answer_body(answer, conversation))


@chat_api.post("/api/chat")
def chat() -> Response:
    state = get_state()
    return _chat(state, parse_body(ChatRequest), default_workflow(state))


@chat_api.post("/api/chat_dynamic")
def chat_dynamic() -> Response:
    return _chat(get_state(), parse_body(ChatRequest), "dynamic")


@chat_api.post("/api/chat/stream")
def chat_stream() -> Response:
    """Validation errors are plain 4xx JSON; once streaming, failures arrive as an ``error`` event."""
    state = get_state()
    body = parse_body(ChatStreamRequest)
    messages = [message.to_message() for message in body.messages]
    check_messages(messages, state.settings)
    chat, conversation = with_history(state, messages, body.conversation_id, g.api_owner)
    items, slot = start_stream(state, chat, body.workflow or default_workflow(state))

    def frames() -> Iterator[str]:
        for item in items:
            if not isinstance(item, Answer):
                yield sse_event(item.model_dump(mode="json"), "progress")
            elif (failed := answer_error_body(item)) is not None:
                yield sse_event(failed, "error")
            else:
                remember(state, conversation, messages, item)
                yield sse_event(_answer_body(item, conversation), "answer")

    return sse_response(frames(), on_close=slot.release)


@chat_api.get("/healthz")
def healthz() -> Response:
    """Liveness: the process answers HTTP. Nothing else is checked."""
    return jsonify(status="ok")


@chat_api.get("/readyz")
def readyz() -> tuple[Response, int]:
    """Readiness: settings loaded, conversation store writable, which backends serve which domain."""
    state = get_state()
    store_ok = state.store.check_writable()
    body = {
        "status": "ok" if store_ok else "unavailable",
        "chats_in_flight": state.admission.in_flight,
        "max_chats_in_flight": state.admission.limit,
        "config": "loaded",
        "store": "writable" if store_ok else "not writable",
        "backends": state.runtime.backends.describe(),
        "model": {"provider": state.runtime.models.provider, "model": state.runtime.models.model},
        "workflow": default_workflow(state),
        "teams": "configured" if state.teams_configured else "not configured",
    }
    return jsonify(body), 200 if store_ok else 503
