"""The Teams bot's turn logic (an Agents SDK ``Agent``): progress, the workflow, history, follow-ups.

In a 1:1 chat the turn streams (``teams_stream``): progress as informative updates, then the
answer card as the stream's final message. Group chats, channels and ``expectReplies`` callers
(tests, some channels: every reply in the HTTP response) get a typing indicator and then the
card as a message (``teams_messages``). Answers without facts or evidence (a question back, a
refusal, a failure) are plain text.

Teams waits about 15 s for a bot's HTTP answer. So a turn waits at most the reply window
(``TEAMS_REPLY_WINDOW_SECONDS``) for the answer; a slower answer is announced ("still working",
which also ends a stream) and sent later as a proactive follow-up message in the same
conversation (``follow_ups``, which also keeps that promise across a restart). ``expectReplies``
callers wait for the end.
History is stored per conversation so a clarifying question and its answer meet on the next turn;
a turn is stored only after its answer was delivered, and a turn that fails or times out cancels
its unfinished work.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING

from microsoft_agents.activity import Activity, ActivityTypes, DeliveryModes
from microsoft_agents.hosting.core import TurnContext

from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.runtime import Runtime
from opsagent.service.admission import Admission
from opsagent.service.history import ConversationStore, conversation_key
from opsagent.service.teams_messages import send_answer
from opsagent.service.teams_stream import ProgressStream, can_stream
from opsagent.workflows.runner import stream_chat

if TYPE_CHECKING:
    from opsagent.service.follow_ups import FollowUps

logger = logging.getLogger(__name__)

TYPING_INTERVAL_SECONDS = 3.0
STILL_WORKING = "Still working on it: this one takes a little longer. I'll post the answer here when it's ready."
EMPTY_MESSAGE = "Send me a question about incidents, changes, pipeline runs or platform health."
TURN_FAILED = "Sorry, something went wrong while answering. It has been logged."
BUSY = "I'm answering as many questions as I can right now; please ask again in a minute."
FAILURE_SAID = "opsagent.failure_said"
"""``turn_state`` key: the turn's stream already ended with ``TURN_FAILED``."""


async def _keep_typing(context: TurnContext) -> None:
    while True:
        await context.send_activity(Activity(type=ActivityTypes.typing))
        await asyncio.sleep(TYPING_INTERVAL_SECONDS)


@asynccontextmanager
async def typing_indicator(context: TurnContext, *, enabled: bool) -> AsyncIterator[None]:
    """Show "typing…" while the block runs (Teams hides it after a few seconds, so it is renewed)."""
    task = asyncio.create_task(_keep_typing(context)) if enabled else None
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class OpsTeamsAgent:
    """Answers Teams messages through the runner; one instance per app, no per-turn state on it."""

    def __init__(self, runtime: Runtime, store: ConversationStore, *, workflow: WorkflowKind,
                 reply_window_seconds: float, history_limit: int, admission: Admission, follow_ups: FollowUps,
                 stream_interval: float | None = None) -> None:
        """``stream_interval``: the pause after each streamed send; ``None`` keeps the SDK's (1 s in Teams,
        as Teams asks). Tests set it shorter."""
        self.runtime = runtime
        self.stream_interval = stream_interval
        self.admission = admission
        self.store = store
        self.workflow = workflow
        self.reply_window_seconds = reply_window_seconds
        self.history_limit = history_limit
        self.follow_ups = follow_ups

    async def on_turn(self, context: TurnContext) -> None:
        if context.activity.type == ActivityTypes.message:
            await self._on_message(context)

    async def _on_message(self, context: TurnContext) -> None:
        activity = context.activity
        question = (activity.remove_recipient_mention() or activity.text or "").strip()
        if not question:
            await context.send_activity(EMPTY_MESSAGE)
            return
        slot = self.admission.try_enter()
        if slot is None:  # past MAX_CHATS_IN_FLIGHT: say so in the conversation (Teams shows no HTTP status)
            await context.send_activity(BUSY)
            return
        key = conversation_key("teams", activity.conversation.id)
        stream = self._stream_for(context)
        expect_replies = activity.delivery_mode == DeliveryModes.expect_replies
        work = asyncio.create_task(self._answer(key, question, on_progress=stream.update if stream else None))
        work.add_done_callback(lambda _done: slot.release())
        handed_off = delivered = False
        try:
            if stream is not None:
                stream.start()
            async with typing_indicator(context, enabled=stream is None and not expect_replies):
                done, _ = await asyncio.wait({work}, timeout=None if expect_replies else self.reply_window_seconds)
            if done:
                await self._deliver(context, stream, work.result())
                delivered = True
                await self._remember(key, question, work.result())
                return
            if stream is not None:
                await stream.finish_text(STILL_WORKING)
            else:
                await context.send_activity(STILL_WORKING)
            delivered = True
            await self.follow_ups.promise(context, work, partial(self._remember, key, question))
            handed_off = True
        except Exception:
            if stream is not None and not delivered and await stream.fail(TURN_FAILED):
                context.turn_state[FAILURE_SAID] = True  # the stream ended with the apology: on_turn_error only logs
            raise
        finally:  # the turn failed, timed out or was cancelled: nobody will deliver (or store) this answer
            if not handed_off and not work.done():
                work.cancel()
            if stream is not None:
                await stream.abandon()

    def _stream_for(self, context: TurnContext) -> ProgressStream | None:
        """A progress stream for a 1:1 chat the SDK will stream in, else ``None`` (typing + message)."""
        if not can_stream(context.activity):
            return None
        stream = ProgressStream(context, interval=self.stream_interval)
        return stream if stream.is_streaming else None

    @staticmethod
    async def _deliver(context: TurnContext, stream: ProgressStream | None, answer: Answer) -> None:
        if stream is not None:
            await stream.finish(answer)
        else:
            await send_answer(context, answer)

    async def _answer(self, key: str, question: str, *, on_progress: Callable[[str], None] | None) -> Answer:
        """Run the workflow on the stored history; each progress message goes to ``on_progress``."""
        history = await asyncio.to_thread(self.store.recent, key, limit=self.history_limit)
        chat = WorkflowInput.from_question(question, history)
        answer: Answer | None = None
        async for item in stream_chat(self.runtime, chat, workflow=self.workflow,
                                      deadline_seconds=self.runtime.settings.request_timeout_seconds):
            if isinstance(item, Answer):
                answer = item
            elif on_progress is not None:
                on_progress(item.message)
        if answer is None:  # pragma: no cover - stream_chat always ends with an Answer
            raise RuntimeError("the workflow ended without an answer")
        logger.info("teams answer", extra={"route": answer.metadata.route, "llm_calls": answer.metadata.llm_calls})
        return answer

    async def _remember(self, key: str, question: str, answer: Answer) -> None:
        """Store a turn once its answer was delivered, so a redelivered (retried) activity is not stored twice
        and a lost answer is not remembered. Error answers are not stored: a retry starts clean."""
        if answer.metadata.route == "error":
            return
        turns = [MessageData(role="user", content=question), answer.as_turn(max_chars=self.runtime.settings.max_turn_chars)]
        try:
            await asyncio.to_thread(self.store.append, key, turns)
        except Exception:  # the user has the answer; only the history is lost, which must not look like a failed turn
            logger.exception("could not store a delivered Teams turn")


async def on_turn_error(context: TurnContext, error: Exception) -> None:
    """Replaces the SDK default, which would send the exception text to the user. Never raises: when
    the reply cannot be delivered either (e.g. an unreachable serviceUrl), that is logged too."""
    logger.error("Teams turn failed: %s", type(error).__name__, exc_info=error)
    if context.turn_state.get(FAILURE_SAID):
        return
    try:
        await context.send_activity(TURN_FAILED)
    except Exception as send_error:
        logger.error("could not tell the Teams user that the turn failed: %s", type(send_error).__name__,
                     exc_info=send_error)
