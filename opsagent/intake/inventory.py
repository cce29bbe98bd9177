"""What exists: pipelines and their factories, configuration items, groups, people, platform components.

Intake checks the names in a question against it ("did you mean pl_load_finance_dwh?") and the
grounding check watches answers for its names. It is read from the backends and kept for a few
minutes per runtime (a snapshot, never per request); a backend that cannot be read contributes
nothing, so names it would have known are reported as "unverified" rather than "unknown".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TypeVar

from opsagent.backends.base import Backends, Clock, ComponentInfo, PipelineInfo

logger = logging.getLogger(__name__)

PIPELINE_HISTORY = timedelta(days=30)
TTL_SECONDS = 300.0
INCOMPLETE_TTL_SECONDS = 15.0
"""A snapshot missing a source is read again soon: one backend blip must not blind intake for minutes."""
SOURCES = frozenset({"pipelines", "servicenow", "health"})
T = TypeVar("T")


@dataclass(frozen=True)
class InventorySnapshot:
    """Names known at one moment, and which sources could be read."""

    pipelines: tuple[PipelineInfo, ...] = ()
    configuration_items: tuple[str, ...] = ()
    assignment_groups: tuple[str, ...] = ()
    components: tuple[ComponentInfo, ...] = ()
    people: tuple[str, ...] = ()
    complete: frozenset[str] = frozenset()
    """Sources read successfully: "pipelines", "servicenow", "health"."""

    @property
    def factories(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(item.factory for item in self.pipelines if item.factory))

    def names(self) -> frozenset[str]:
        """Every name worth watching for in an answer (multi-word and kebab names alike)."""
        found = {item.name for item in self.pipelines} | set(self.factories) | set(self.configuration_items)
        found |= set(self.assignment_groups) | {item.name for item in self.components if len(item.name) > 3}
        found |= set(self.people)
        return frozenset(found)


@dataclass
class Inventory:
    """A per-runtime cache of the inventory, refreshed at most every ``ttl_seconds``."""

    backends: Backends
    clock: Clock
    ttl_seconds: float = TTL_SECONDS
    _snapshot: InventorySnapshot | None = None
    _taken_at: float = 0.0
    _lock: asyncio.Lock | None = field(default=None, repr=False)

    @property
    def cached(self) -> InventorySnapshot:
        """The last snapshot (empty before the first read); never waits."""
        return self._snapshot or InventorySnapshot()

    def _fresh(self) -> bool:
        if self._snapshot is None:
            return False
        ttl = self.ttl_seconds if self._snapshot.complete >= SOURCES else min(self.ttl_seconds, INCOMPLETE_TTL_SECONDS)
        return time.monotonic() - self._taken_at < ttl

    async def snapshot(self) -> InventorySnapshot:
        if self._fresh():
            return self._snapshot  # type: ignore[return-value]
        self._lock = self._lock or asyncio.Lock()  # created on the loop that uses it
        async with self._lock:
            if not self._fresh():
                self._snapshot = await self._read()
                self._taken_at = time.monotonic()
        return self._snapshot  # type: ignore[return-value]

    async def _read(self) -> InventorySnapshot:
        backends = self.backends
        since = self.clock() - PIPELINE_HISTORY
        pipelines, items, groups, components, people = await asyncio.gather(
            _safely(lambda: backends.pipelines.list_pipelines(since=since), "pipelines"),
            _safely(lambda: backends.servicenow.list_configuration_items(), "configuration items"),
            _safely(lambda: backends.servicenow.list_assignment_groups(), "assignment groups"),
            _safely(lambda: backends.health.list_components(), "platform components"),
            _safely(lambda: backends.servicenow.list_people(), "people"),
        )
        complete = {name for name, value in (("pipelines", pipelines), ("servicenow", items), ("health", components))
                    if value is not None}
        return InventorySnapshot(
            pipelines=tuple(pipelines or ()), configuration_items=tuple(items or ()),
            assignment_groups=tuple(groups or ()), components=tuple(components or ()), people=tuple(people or ()),
            complete=frozenset(complete),
        )


async def _safely(read: Callable[[], Awaitable[list[T]]], what: str) -> list[T] | None:
    try:
        return await read()
    except Exception as error:  # an unreadable source (or a backend without it) leaves its names unverified
        logger.warning("inventory: %s could not be read (%s)", what, type(error).__name__)
        return None
