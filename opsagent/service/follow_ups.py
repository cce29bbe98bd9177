"""Promised Teams follow-ups: delivered when ready, drained on shutdown, apologised for after a restart.

When an answer outlives the reply window the bot says "Still working…" and promises to post the
answer later. That promise is a task on the loop thread *and* a row in SQLite (``pending_follow_ups``,
in the conversation database under ``DATA_DIR``), removed once the follow-up has run:

* **SIGTERM** (``drain``): the follow-ups get the rest of the drain time to finish; any still
  running are cancelled and their conversations told ``RESTARTED``.
* **SIGKILL or a crash**: nothing runs at exit, but the rows remain. The next process
  (``recover``) claims the rows of processes that are gone and sends ``RESTARTED`` for each.

A row belongs to ``<run id>:<pid>``; all workers of one server run share the run id, so a worker
only claims rows of an earlier run or of a sibling whose process has died. One server per DATA_DIR.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from microsoft_agents.activity import Activity
from microsoft_agents.hosting.core import ChannelServiceAdapter, ClaimsIdentity, TurnContext

from opsagent.contracts.results import Answer
from opsagent.service.history import connect
from opsagent.service.teams_messages import send_answer, send_text

logger = logging.getLogger(__name__)

RESTARTED = "I was restarted before I could finish; please ask again."
SEND_TIMEOUT_SECONDS = 10.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending_follow_ups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    owner TEXT NOT NULL,
    continuation TEXT NOT NULL,
    claims TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class PendingFollowUp:
    """Where to reply (the continuation activity) and as whom (the turn's claims)."""

    row_id: int
    continuation: Activity
    identity: ClaimsIdentity


def _pid_is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


class PendingStore:
    """The ``pending_follow_ups`` table; one short-lived connection per operation, like the history."""

    def __init__(self, path: Path, *, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        path.parent.mkdir(parents=True, exist_ok=True)
        with connect(path) as db:
            db.executescript(_SCHEMA)

    def _owner(self) -> str:
        return f"{self.run_id}:{os.getpid()}"  # the pid at the time of writing: after any fork

    def add(self, continuation: Activity, identity: ClaimsIdentity) -> int:
        claims = {"claims": identity.claims, "authentication_type": identity.authentication_type}
        with connect(self.path) as db:
            cursor = db.execute(
                "INSERT INTO pending_follow_ups (owner, continuation, claims, created_at) VALUES (?, ?, ?, ?)",
                (self._owner(), continuation.model_dump_json(by_alias=True, exclude_none=True), json.dumps(claims),
                 time.time()))
            return int(cursor.lastrowid or 0)

    def remove(self, row_id: int) -> None:
        with connect(self.path) as db:
            db.execute("DELETE FROM pending_follow_ups WHERE id = ?", (row_id,))

    def claim_orphans(self, is_alive: Callable[[int], bool] = _pid_is_alive) -> list[PendingFollowUp]:
        """Take over the rows of earlier runs and of dead sibling workers (atomically: one claimer each)."""
        claimed: list[PendingFollowUp] = []
        with connect(self.path) as db:
            db.execute("BEGIN IMMEDIATE")
            for row_id, owner, continuation, claims in db.execute(
                    "SELECT id, owner, continuation, claims FROM pending_follow_ups ORDER BY id").fetchall():
                run_id, _, pid = owner.rpartition(":")
                if run_id == self.run_id and (int(pid) == os.getpid() or is_alive(int(pid))):
                    continue
                db.execute("UPDATE pending_follow_ups SET owner = ? WHERE id = ?", (self._owner(), row_id))
                claimed.append(_parse_pending(row_id, continuation, claims))
        return claimed


def _parse_pending(row_id: int, continuation: str, claims: str) -> PendingFollowUp:
    facts = json.loads(claims)
    identity = ClaimsIdentity(facts["claims"], facts.get("authentication_type"))
    return PendingFollowUp(row_id, Activity.model_validate_json(continuation), identity)


class FollowUps:
    """The follow-ups this process promised: their tasks (on the loop thread) and their rows."""

    def __init__(self, adapter: ChannelServiceAdapter, store: PendingStore) -> None:
        self._adapter = adapter
        self._store = store
        self._tasks: dict[asyncio.Task[None], PendingFollowUp] = {}  # strong references until each has run

    async def promise(self, context: TurnContext, work: asyncio.Task[Answer],
                      on_delivered: Callable[[Answer], Awaitable[None]]) -> None:
        """Record the promise, then post ``work``'s answer in the conversation when it is ready."""
        continuation = context.activity.get_conversation_reference().get_continuation_activity()
        identity = context.identity or ClaimsIdentity({})
        try:
            row_id = await asyncio.to_thread(self._store.add, continuation, identity)
        except Exception:  # the answer can still be delivered; only a restart could not apologise for it
            logger.exception("could not store a pending Teams follow-up")
            row_id = 0
        pending = PendingFollowUp(row_id, continuation, identity)
        task = asyncio.create_task(self._deliver(pending, work, on_delivered))
        self._tasks[task] = pending
        task.add_done_callback(lambda done: self._tasks.pop(done, None))

    async def _deliver(self, pending: PendingFollowUp, work: asyncio.Task[Answer],
                       on_delivered: Callable[[Answer], Awaitable[None]]) -> None:
        try:
            answer = await work
        except asyncio.CancelledError:  # drained: the row stays until the apology is sent
            work.cancel()
            raise
        delivered = await self._send(pending, answer)
        await self._forget(pending)
        if delivered:
            await on_delivered(answer)

    async def _send(self, pending: PendingFollowUp, message: Answer | str) -> bool:
        """Post the answer (its card) or a text as a new message in the conversation (a proactive turn,
        never streamed); ``False`` if it failed."""
        delivered = False

        async def send(proactive: TurnContext) -> None:
            nonlocal delivered
            if isinstance(message, Answer):
                await send_answer(proactive, message)
            else:
                await send_text(proactive, message)
            delivered = True  # a failed send goes to on_turn_error, which does not raise

        try:
            async with asyncio.timeout(SEND_TIMEOUT_SECONDS):
                await self._adapter.continue_conversation_with_claims(pending.identity, pending.continuation, send)
        except Exception:  # nobody is waiting on this: log, never lose it silently
            logger.exception("could not deliver a Teams follow-up")
        return delivered

    async def _forget(self, pending: PendingFollowUp) -> None:
        if pending.row_id:
            try:
                await asyncio.to_thread(self._store.remove, pending.row_id)
            except Exception:  # a leftover row means one needless apology after a restart, not a lost answer
                logger.exception("could not remove a pending Teams follow-up")

    async def _apologise(self, pending: PendingFollowUp) -> None:
        if await self._send(pending, RESTARTED):
            await self._forget(pending)

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float) -> None:
        """Let the follow-ups finish for ``timeout`` seconds; cancel the rest and apologise for them."""
        running = set(self._tasks)
        if running:
            await asyncio.wait(running, timeout=max(timeout, 0.0))
        leftovers = [(task, pending) for task, pending in list(self._tasks.items()) if not task.done()]
        for task, _ in leftovers:
            task.cancel()
        await asyncio.gather(*(task for task, _ in leftovers), return_exceptions=True)
        await asyncio.gather(*(self._apologise(pending) for _, pending in leftovers))
        if leftovers:
            logger.warning("drain: %d Teams follow-up(s) unfinished; told the users to ask again", len(leftovers))

    async def recover(self) -> None:
        """Apologise for follow-ups promised by processes that are gone (a SIGKILL, a crash)."""
        orphans = await asyncio.to_thread(self._store.claim_orphans)
        await asyncio.gather(*(self._apologise(pending) for pending in orphans))
        if orphans:
            logger.warning("told %d Teams conversation(s) that a restart lost their answer", len(orphans))
