"""OpenAI wire shapes: ``chat.completion``, ``chat.completion.chunk`` and the model list.

Progress (``OPENAI_PROGRESS``) goes where chat front ends can fold it away, so the answer's
content is only the answer:

* ``reasoning_content`` (default): one line per event in ``delta.reasoning_content``, the field
  Open WebUI and LibreChat show as a collapsible "Thinking" section (the ``openai`` SDK keeps it in
  ``model_extra``; clients that do not know it ignore it);
* ``think_tags``: the lines inside ``<think>…</think>`` at the start of the content (Open WebUI
  folds these too, as do most front ends made for reasoning models);
* ``content``: a markdown block quote (``> - Plan: …``), a blank line, then the answer;
* ``off``: no progress at all.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from opsagent.contracts.results import Answer, ProgressEvent
from opsagent.settings import OpenAIProgress


def usage_of(answer: Answer) -> dict[str, int]:
    meta = answer.metadata
    return {"prompt_tokens": meta.input_tokens, "completion_tokens": meta.output_tokens,
            "total_tokens": meta.input_tokens + meta.output_tokens}


def completion(answer: Answer, model: str) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` with usage; OpsAgent's metadata rides along under ``opsagent``."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": usage_of(answer),
        "opsagent": answer.metadata.model_dump(mode="json"),
    }


def model_list(models: tuple[str, ...], created: int, *, backing_model: str, provider: str) -> dict[str, Any]:
    """The OpsAgent models, each saying honestly which model answers behind it."""
    backing = {"model": backing_model, "provider": provider}
    return {"object": "list",
            "data": [{"id": name, "object": "model", "created": created, "owned_by": "opsagent", "opsagent": backing}
                     for name in models]}


def progress_delta(event: ProgressEvent, mode: OpenAIProgress, *, first: bool) -> dict[str, str] | None:
    """The delta that carries one progress event, or ``None`` when progress is off."""
    if mode == "reasoning_content":
        return {"reasoning_content": f"{event.message}\n"}
    if mode == "think_tags":
        return {"content": ("<think>\n" if first else "") + f"{event.message}\n"}
    if mode == "content":
        return {"content": f"> - {event.message}\n"}
    return None


def answer_lead(mode: OpenAIProgress) -> str:
    """What separates streamed progress from the answer in the content."""
    return {"think_tags": "</think>\n\n", "content": "\n"}.get(mode, "")


@dataclass
class ChunkWriter:
    """Builds the chunks of one streamed completion (same id and timestamp throughout)."""

    model: str
    include_usage: bool
    progress_mode: OpenAIProgress = "reasoning_content"
    id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    created: int = field(default_factory=lambda: int(time.time()))
    progress_open: bool = False

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> dict[str, Any]:
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}], **extra}

    def start(self) -> dict[str, Any]:
        return self._chunk({"role": "assistant", "content": ""})

    def progress(self, event: ProgressEvent) -> dict[str, Any] | None:
        """The chunk for one progress event (``None``: nothing to send in this mode)."""
        delta = progress_delta(event, self.progress_mode, first=not self.progress_open)
        if delta is None:
            return None
        self.progress_open = True
        return self._chunk(delta)

    def answer(self, answer: Answer) -> dict[str, Any]:
        """The answer text, after whatever closes the progress in the content (``</think>``, a blank line)."""
        lead = answer_lead(self.progress_mode) if self.progress_open else ""
        return self._chunk({"content": lead + answer.text})

    def finish(self, answer: Answer) -> list[dict[str, Any]]:
        """``finish_reason: stop``; with ``include_usage`` OpenAI's extra usage-only chunk follows,
        otherwise the usage rides on the finishing chunk so clients that look there find it."""
        if not self.include_usage:
            return [self._chunk({}, "stop", usage=usage_of(answer))]
        usage_chunk = {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                       "model": self.model, "choices": [], "usage": usage_of(answer)}
        return [self._chunk({}, "stop", usage=None), usage_chunk]
