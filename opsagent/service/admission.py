"""Admission control: at most ``MAX_CHATS_IN_FLIGHT`` chats per process, the rest refused at once.

During a model outage every chat waits out its deadline while holding a request thread. Without
a bound, enough such chats take every thread and ``/healthz`` stops answering, so a liveness probe
restarts a healthy process. Past the bound a chat gets an immediate 503 with ``Retry-After``
(OpenAI's error shape on ``/v1``) and the threads above the bound stay free for probes and cheap
requests (settings require ``SERVER_THREADS > MAX_CHATS_IN_FLIGHT``). HTTP views and Teams turns
(on the loop thread) share one ``Admission`` per app, hence the lock.
"""

from __future__ import annotations

import threading

from opsagent.errors import RequestError

RETRY_AFTER_SECONDS = 5


class OverloadedError(RequestError):
    """503: this process already runs as many chats as it may; carries the ``Retry-After`` to send."""

    def __init__(self, limit: int) -> None:
        super().__init__(503, "overloaded", f"OpsAgent is answering as many questions as it can ({limit} at once); "
                         f"please retry in {RETRY_AFTER_SECONDS} s.")
        self.retry_after = RETRY_AFTER_SECONDS


class Slot:
    """One admitted chat; ``release`` may be called any number of times, from any thread."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission
        self._released = False

    def release(self) -> None:
        self._admission._release(self)

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Admission:
    """A counter of chats in flight with a hard limit (never a queue: a queue would hide the overload)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_flight = 0
        self._lock = threading.Lock()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def try_enter(self) -> Slot | None:
        """A slot when one is free, else ``None`` (for callers that answer "busy" their own way)."""
        with self._lock:
            if self._in_flight >= self.limit:
                return None
            self._in_flight += 1
            return Slot(self)

    def enter(self) -> Slot:
        """A slot, or ``OverloadedError`` (503 + Retry-After) when all are taken."""
        slot = self.try_enter()
        if slot is None:
            raise OverloadedError(self.limit)
        return slot

    def _release(self, slot: Slot) -> None:
        with self._lock:
            if not slot._released:
                slot._released = True
                self._in_flight -= 1
