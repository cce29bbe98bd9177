"""Blueprint: the OpenAI-compatible API (``/v1/chat/completions``, ``/v1/models``).

Models: ``opsagent`` (the default workflow: triage, or dynamic with ``DYNAMIC_PLAN=true``),
``opsagent-dynamic`` and ``opsagent-triage``. A client sends the whole conversation each time
(as with OpenAI), so nothing is stored server-side here. Streaming sends progress as it happens,
then the answer, then ``finish_reason: stop`` with usage; a failure during a stream (deadline,
model provider unavailable, internal) arrives as an OpenAI error frame, which the OpenAI SDKs raise as ``APIError``.
Where progress goes (``reasoning_content``, ``<think>`` tags, content, or nowhere) is ``OPENAI_PROGRESS``
(``openai_format``); the content is only the answer unless progress is asked for there.
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, jsonify, request

from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.errors import RequestError
from opsagent.service.auth import check_api_key
from opsagent.service.bodies import OPENAI_MODELS, ChatCompletionRequest
from opsagent.service.chats import default_workflow, raise_for_error, run_answer, start_stream
from opsagent.service.errors import answer_error_body
from opsagent.service.openai_format import ChunkWriter, completion, model_list
from opsagent.service.sse import sse_event, sse_response
from opsagent.service.state import ServiceState, get_state
from opsagent.service.validation import check_messages, parse_body
from opsagent.workflows.runner import StreamItem

openai_api = Blueprint("openai_api", __name__, url_prefix="/v1")


@openai_api.before_request
def _require_api_key() -> None:
    check_api_key(request.headers.get("Authorization"), get_state().settings.opsagent_api_keys)


def _workflow_for(model: str, state: ServiceState) -> WorkflowKind:
    if model not in OPENAI_MODELS:
        raise RequestError(404, "model_not_found", f"The model '{model}' does not exist; use one of: "
                           f"{', '.join(OPENAI_MODELS)}.", param="model")
    return {"opsagent-dynamic": "dynamic", "opsagent-triage": "triage"}.get(model, default_workflow(state))


@openai_api.get("/models")
def models() -> Response:
    runtime = get_state().runtime
    return jsonify(model_list(OPENAI_MODELS, created=int(runtime.clock().timestamp()),
                              backing_model=runtime.models.model, provider=runtime.models.provider))


@openai_api.post("/chat/completions")
def chat_completions() -> Response:
    state = get_state()
    body = parse_body(ChatCompletionRequest)
    workflow = _workflow_for(body.model, state)
    messages = [message.to_message() for message in body.messages]
    check_messages(messages, state.settings)
    chat = WorkflowInput(messages=messages)
    if body.stream:
        items, slot = start_stream(state, chat, workflow)
        writer = ChunkWriter(body.model, body.include_usage, progress_mode=state.settings.openai_progress)
        return sse_response(_stream_frames(items, writer), on_close=slot.release)
    answer = raise_for_error(run_answer(state, chat, workflow))
    return jsonify(completion(answer, body.model))


def _stream_frames(items: Iterator[StreamItem], writer: ChunkWriter) -> Iterator[str]:
    yield sse_event(writer.start())
    for item in items:
        if not isinstance(item, Answer):
            if (chunk := writer.progress(item)) is not None:
                yield sse_event(chunk)
        elif (failed := answer_error_body(item)) is not None:
            yield sse_event(failed)
        else:
            yield sse_event(writer.answer(item))
            yield from (sse_event(chunk) for chunk in writer.finish(item))
    yield sse_event("[DONE]")
