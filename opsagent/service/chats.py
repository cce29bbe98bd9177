"""Running a chat for any HTTP surface: admit it, pick the workflow, add stored history, enforce the deadline.

A chat first takes an admission slot (``admission.py``: past MAX_CHATS_IN_FLIGHT it is a 503 at
once). Its deadline (``REQUEST_TIMEOUT_SECONDS``) runs from the request's *arrival*, so time spent
waiting for a worker thread counts; a request whose time is already up is a 504 without running.
The runner's own deadline produces a polite timeout answer and cancels the work; the loop-thread
timeout a few seconds later is only a safety net.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.errors import RequestError
from opsagent.service.admission import Slot
from opsagent.service.errors import AnswerFailedError, answer_failure
from opsagent.service.history import conversation_key
from opsagent.service.requestlog import REQUEST_ID, add_log_fields
from opsagent.service.scope import request_age
from opsagent.service.state import ServiceState
from opsagent.workflows.runner import StreamItem, answer_chat, stream_chat

SAFETY_MARGIN_SECONDS = 5.0

logger = logging.getLogger(__name__)


def default_workflow(state: ServiceState) -> WorkflowKind:
    """``/api/chat`` and the ``opsagent`` model: dynamic when ``DYNAMIC_PLAN=true``, else triage."""
    return "dynamic" if state.settings.dynamic_plan else "triage"


def _remaining_seconds(state: ServiceState) -> float:
    """Time left of this request's deadline, counted from its arrival.

    Raises:
        RequestError: 504 ``timeout`` when nothing is left (the chat is not started).
    """
    age = request_age()
    remaining = state.settings.request_timeout_seconds - age
    if remaining <= 0:
        raise RequestError(504, "timeout", f"No answer in time: the request waited {age:.0f} s before it could "
                           "start. Please try again.")
    return max(round(remaining, 1), 0.1)  # tenths: the timeout answer quotes it ("no answer within 240 s")


def run_answer(state: ServiceState, chat: WorkflowInput, workflow: WorkflowKind) -> Answer:
    """Run to the end on the loop thread; the answer may be an error answer (see ``raise_for_error``).

    Raises:
        RequestError: 504 when the deadline passed before the start; ``OverloadedError`` (503) when full.
    """
    deadline = _remaining_seconds(state)
    with state.admission.enter():
        coro = answer_chat(state.runtime, chat, workflow=workflow, deadline_seconds=deadline)
        answer, _events = state.loop.submit(coro, timeout=deadline + SAFETY_MARGIN_SECONDS)
    note_answer(answer)
    return answer


def start_stream(state: ServiceState, chat: WorkflowInput, workflow: WorkflowKind) -> tuple[Iterator[StreamItem], Slot]:
    """Admit the chat now (so refusals are plain 503/504 responses), then stream it lazily.

    Returns:
        Progress events as they happen, then one ``Answer`` (closing the iterator cancels the work);
        and the admission slot, released when the stream ends or the response is closed unread.
    """
    deadline = _remaining_seconds(state)
    slot = state.admission.enter()

    def items() -> Iterator[StreamItem]:
        try:
            work = stream_chat(state.runtime, chat, workflow=workflow, deadline_seconds=deadline)
            for item in state.loop.stream(work, timeout=deadline + SAFETY_MARGIN_SECONDS):
                if isinstance(item, Answer):  # the request's log line is already written when a stream ends
                    logger.info("answer streamed", extra={"request_id": REQUEST_ID.get(), **_answer_facts(item)})
                yield item
        finally:
            slot.release()

    return items(), slot


def _answer_facts(answer: Answer) -> dict[str, object]:
    meta = answer.metadata
    return {"workflow": meta.workflow, "route": meta.route, "error_code": meta.error_code, "llm_calls": meta.llm_calls,
            "input_tokens": meta.input_tokens, "output_tokens": meta.output_tokens}


def note_answer(answer: Answer) -> None:
    """Put the safe facts of an answer on the request's log line (never its text)."""
    add_log_fields(**_answer_facts(answer))


def raise_for_error(answer: Answer) -> Answer:
    """Failed answers (deadline, model provider, internal) become 5xx on non-streaming HTTP responses."""
    if answer_failure(answer) is not None:
        raise AnswerFailedError(answer)
    return answer


@dataclass(frozen=True)
class ApiConversation:
    """An HTTP API conversation: the id the client sees and the server-side key its turns live under."""

    id: str
    key: str


def with_history(state: ServiceState, messages: list[MessageData], conversation_id: str | None,
                 owner: str | None) -> tuple[WorkflowInput, ApiConversation]:
    """The workflow input (stored turns + new messages) and the conversation to answer with.

    ``owner`` is the caller's API-key scope (``None`` in dev mode); the stored key is namespaced
    by surface and owner (``history.conversation_key``), so a client's id only reaches its own turns.
    """
    cid = conversation_id or uuid.uuid4().hex
    conversation = ApiConversation(id=cid, key=conversation_key("api", cid, owner=owner))
    history = [] if conversation_id is None else state.store.recent(conversation.key,
                                                                      limit=state.settings.history_max_messages)
    return WorkflowInput(messages=[*history, *messages], conversation_id=cid), conversation


def remember(state: ServiceState, conversation: ApiConversation, messages: list[MessageData], answer: Answer) -> None:
    """Store the new turns with the answer; failed answers are not stored, so a retry starts clean."""
    if answer.metadata.route != "error":
        turn = answer.as_turn(max_chars=state.settings.max_turn_chars)
        state.store.append(conversation.key, [*messages, turn])
