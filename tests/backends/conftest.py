"""Fixtures for the real-backend tests: a loopback fake server and a retry policy that never waits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from opsagent.backends.http import RetryPolicy
from tests.backends.fake_servers import FakeServer, ManualTime


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer().start()
    yield fake
    fake.stop()


@pytest.fixture
def manual_time() -> ManualTime:
    return ManualTime()


@pytest.fixture
def policy(manual_time: ManualTime) -> RetryPolicy:
    """Four attempts, a 10 s (manual) budget, mid-range jitter, and sleeps that only advance the clock."""
    return RetryPolicy(
        max_attempts=4, deadline_seconds=10.0, sleep=manual_time.sleep, clock=manual_time.clock, random=lambda: 0.5
    )
