"""Streaming a Teams answer in a 1:1 chat: progress as informative updates, then the answer card.

Teams streams bot messages only in personal (1:1) chats; in group chats and channels a stream can
fail silently (a 403 the SDK reads as "the user stopped it", so the final message is never
sent). The Agents SDK does not check the conversation type, so ``can_stream`` does, and
expectReplies callers (which get every reply in the HTTP response) never stream.

The SDK pauses after every streamed send (1 s in Teams, as Teams asks: about one update per
second), and ``end_stream`` waits until everything queued has been sent. Queuing every progress
event would delay the answer by a second per event, so ``ProgressStream`` keeps at most one
update waiting: the events that arrive during a pause are sent together in the next update
("Review: complete · Grounding: pass"), nothing is skipped, and the answer goes out at most two
pauses after it is ready (the one running, and one for the progress that came with the answer).
"""

from __future__ import annotations

import asyncio
import logging

import aiohttp
from microsoft_agents.activity import Activity, Attachment, Channels, DeliveryModes
from microsoft_agents.hosting.core import StreamingResponse, TurnContext

from opsagent.contracts.results import Answer
from opsagent.service.teams_cards import card_message, has_card
from opsagent.service.teams_messages import TEAMS_MESSAGE_LIMIT, card_attachment, split_message

logger = logging.getLogger(__name__)

INFORMATIVE_LIMIT = 1_000
"""Teams refuses informative updates longer than 1,000 characters."""
FIRST_UPDATE = "Working on your question…"
JOINER = " · "


def can_stream(activity: Activity) -> bool:
    """A 1:1 Teams chat whose caller reads replies from the connector (not from the HTTP response)."""
    conversation = activity.conversation
    return (activity.channel_id == Channels.ms_teams and activity.delivery_mode != DeliveryModes.expect_replies
            and conversation is not None and conversation.conversation_type == "personal")


def _fit(text: str) -> str:
    """Within Teams' limit for an informative update, keeping the newest progress (the end)."""
    return text if len(text) <= INFORMATIVE_LIMIT else "…" + text[len(text) - INFORMATIVE_LIMIT + 1:]


class PacedStreamingResponse(StreamingResponse):
    """The SDK's ``StreamingResponse`` with our own pause between sends.

    The SDK has no public option for it (it picks 1 s for Teams in ``_set_defaults``); tests need a
    shorter one. ``None`` keeps the SDK's choice, which production uses. That hook and
    ``_handle_send_error`` (which mends how the SDK reads a refused send) are the two places we
    touch SDK internals. Constructed directly (a public constructor) instead of
    ``context.streaming_response``, so the TurnContext's own attribute stays untouched.
    """

    def __init__(self, context: TurnContext, *, interval: float | None) -> None:
        self._pace = interval
        super().__init__(context)

    def _set_defaults(self, context: TurnContext) -> None:
        super()._set_defaults(context)
        if self._pace is not None:
            self._interval = self._pace

    async def _handle_send_error(self, err: Exception) -> None:
        """The SDK's handling, shown the connector's error without its URL.

        The SDK reads a Teams 403 from "403" anywhere in the error's text, and aiohttp's text ends
        with the request URL: a conversation id, an activity id or a port holding those digits turned
        a 400 "streaming API is not enabled" into "the user stopped the stream", and the answer was
        never sent. The status and the connector's message are all the SDK needs to decide.
        """
        if not isinstance(err, aiohttp.ClientResponseError):
            await super()._handle_send_error(err)
            return
        try:
            await super()._handle_send_error(_ConnectorRefusal(f"{err.status}, message={err.message!r}"))
        except _ConnectorRefusal:
            raise err from None


class _ConnectorRefusal(Exception):
    """A connector's error reduced to its status and message (see ``_handle_send_error``)."""


class ProgressStream:
    """One turn's stream: informative updates (batched per pause) while the answer is built, then the answer."""

    def __init__(self, context: TurnContext, *, interval: float | None) -> None:
        self.context = context
        self.response = PacedStreamingResponse(context, interval=interval)
        self._waiting: list[str] = []
        self._wake = asyncio.Event()
        self._closed = False
        self._pump: asyncio.Task[None] | None = None

    @property
    def is_streaming(self) -> bool:
        """False when the SDK will not stream here (e.g. an agentic request): use plain messages."""
        return self.response.is_streaming_channel

    def start(self) -> None:
        self._pump = asyncio.create_task(self._send_updates())
        self.update(FIRST_UPDATE)

    def update(self, text: str) -> None:
        """Show ``text`` in the next informative update (with others that arrive first); a no-op once closed."""
        if self._closed or not text.strip():
            return
        self._waiting.append(text)
        self._wake.set()

    async def _send_updates(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            text, self._waiting = JOINER.join(self._waiting), []
            if text:
                self.response.queue_informative_update(_fit(text))
                await self.response.wait_for_queue()  # sent, and the SDK's pause after it is over
            if self._closed and not self._waiting:
                return

    async def _close(self) -> None:
        """Send what progress is waiting, then stop (never cancelled: that would cancel the SDK's send)."""
        self._closed = True
        self._wake.set()
        if self._pump is not None:
            await self._pump

    async def finish(self, answer: Answer) -> None:
        """End the stream with the answer: its card (text: the direct answer) or its plain text."""
        if has_card(answer):
            message = card_message(answer)
            await self.finish_text(message.text, attachment=card_attachment(message))
        else:
            await self.finish_text(answer.text)

    async def finish_text(self, text: str, *, attachment: Attachment | None = None) -> None:
        """End the stream with ``text`` (parts beyond one message follow as plain messages)."""
        await self._close()
        first, *rest = split_message(text, TEAMS_MESSAGE_LIMIT)
        self.response.queue_text_chunk(first)
        if attachment is not None:
            self.response.set_attachments([attachment])
        self.response.set_generated_by_ai_label(True)
        await self.response.end_stream()
        for part in rest:
            await self.context.send_activity(part)

    async def fail(self, text: str) -> bool:
        """The turn failed before the answer: end the stream with ``text`` if the stream still works."""
        self._waiting = []
        try:
            await self.finish_text(text)
        except Exception:  # the send that failed may be what made the turn fail; that is logged by the caller
            logger.debug("could not end the Teams stream with the failure", exc_info=True)
            return False
        return True

    async def abandon(self) -> None:
        """Stop sending updates, whatever happened (a no-op once the stream is finished)."""
        self._waiting = []
        try:
            await self._close()
        except Exception:  # the send that failed is what made the turn fail; it is logged there
            logger.debug("progress update failed while the turn was abandoned", exc_info=True)
