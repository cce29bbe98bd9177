"""The one retry helper every real backend uses, and the HTTP status -> ``BackendError`` map.

Flow: a backend builds one *attempt* (an httpx request or an Azure SDK call) and hands it to
``with_retries``. Each attempt either returns, raises a final ``BackendError`` (401/403/404/other
4xx/unreadable body), or raises ``RetryableFailure`` (429, 5xx, timeouts, connection errors).
Retryable failures are repeated with exponential backoff and full jitter, honouring
``Retry-After``, until ``max_attempts`` or the overall deadline runs out; then the last failure
becomes ``BackendUnavailableError``. Sleep, clock and random are injected so tests never wait.

Bodies are read as a stream and never past ``RetryPolicy.max_response_bytes``
(BACKEND_MAX_RESPONSE_BYTES): a larger reply is a ``BackendResponseTooLargeError``, not a
worker's memory. An error body is for operators only: its most useful line is logged (the
log handler redacts secrets), and the exception the user's answer is built from names the
backend and the status, never the body (it may hold internal host names or echoed input).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx
from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ServiceRequestError,
    ServiceResponseError,
)

from opsagent.errors import (
    BackendAuthError,
    BackendError,
    BackendNotFoundError,
    BackendResponseError,
    BackendResponseTooLargeError,
    BackendUnavailableError,
)
from opsagent.redaction import redact
from opsagent.settings import Settings

T = TypeVar("T")
logger = logging.getLogger(__name__)

_DETAIL_CHARS = 300


class RetryableFailure(Exception):
    """One attempt failed in a way that may pass if repeated (429, 5xx, timeout, connection)."""

    def __init__(self, reason: str, *, status_code: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status_code = status_code
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts, an overall deadline in seconds, the backoff curve, and the most
    bytes one response body may have.

    ``clock`` is monotonic seconds; ``sleep`` and ``random`` are injectable for tests.
    """

    max_attempts: int = 4
    deadline_seconds: float = 20.0
    max_response_bytes: int = 5_000_000
    base_delay_seconds: float = 0.25
    max_delay_seconds: float = 8.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    random: Callable[[], float] = field(default=random.random, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        """Attempts, deadline and body cap: BACKEND_MAX_ATTEMPTS / _TIMEOUT_SECONDS / _MAX_RESPONSE_BYTES."""
        return cls(max_attempts=settings.backend_max_attempts, deadline_seconds=settings.backend_timeout_seconds,
                   max_response_bytes=settings.backend_max_response_bytes)

    def backoff(self, attempt: int) -> float:
        """Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2**(n-1)))."""
        ceiling = min(self.max_delay_seconds, self.base_delay_seconds * 2 ** (attempt - 1))
        return self.random() * ceiling


async def with_retries(
    attempt: Callable[[], Awaitable[T]], *, policy: RetryPolicy, backend: str, query: str | None = None
) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or the retry budget is spent.

    Each attempt is bounded by the time left before the deadline, so one slow call cannot
    outlive the whole budget.

    Raises:
        BackendUnavailableError: the last retryable failure once attempts or time ran out.
        BackendError: whatever final error an attempt raised, unchanged.
    """
    started = policy.clock()
    number = 0
    while True:
        number += 1
        remaining = policy.deadline_seconds - (policy.clock() - started)
        try:
            async with asyncio.timeout(max(remaining, 0.001)):
                return await attempt()
        except RetryableFailure as failure:
            last = failure
        except TimeoutError:
            last = RetryableFailure(f"timed out after {max(remaining, 0):.1f}s")
        delay = last.retry_after if last.retry_after is not None else policy.backoff(number)
        remaining = policy.deadline_seconds - (policy.clock() - started)
        if number >= policy.max_attempts or delay >= remaining:
            raise BackendUnavailableError(
                f"{backend} is unavailable after {number} attempt(s) within {policy.deadline_seconds:g}s: {last.reason}",
                backend=backend,
                status_code=last.status_code,
                query=query,
            ) from last
        logger.warning("%s attempt %d failed (%s); retrying in %.2fs", backend, number, last.reason, delay)
        await policy.sleep(delay)


def retry_after_seconds(value: str | None) -> float | None:
    """Parse ``Retry-After``: delta-seconds or an HTTP date; ``None`` when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(text).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def error_for_status(
    status: int, *, backend: str, detail: str, query: str | None, retry_after: str | None = None
) -> BackendError | RetryableFailure:
    """The exception a non-2xx status means: retryable (408/429/5xx) or a final ``BackendError`` leaf.

    ``detail`` (from the error body) is logged, not put in the exception: see the module docstring.
    """
    if detail:  # redacted here too, for hosts that log without the service's RedactingFilter
        logger.warning("%s answered HTTP %d: %s", backend, status, redact(detail))
    if status in (408, 429) or status >= 500:
        return RetryableFailure(f"HTTP {status}", status_code=status, retry_after=retry_after_seconds(retry_after))
    if status in (401, 403):
        message = f"not authorised for {backend} (check credentials; HTTP {status})"
        return BackendAuthError(message, backend=backend, status_code=status, query=query)
    if status == 404:
        return BackendNotFoundError(f"{backend}: not found (HTTP 404)", backend=backend, status_code=status, query=query)
    return BackendError(f"{backend} rejected the request (HTTP {status})", backend=backend, status_code=status, query=query)


def error_detail(body: Any) -> str:
    """The most useful line of an error body: ServiceNow ``error.message/detail``, Azure's innermost message."""
    if isinstance(body, Mapping):
        error = body.get("error")
        if isinstance(error, Mapping):
            inner = error
            while isinstance(inner.get("innererror"), Mapping):
                inner = inner["innererror"]
            first = error.get("innererror")
            codes = [error.get("code"), first.get("code") if isinstance(first, Mapping) else None]
            code = "/".join(str(c) for c in codes if c)
            parts = [f"{code}:" if code else "", str(inner.get("message") or error.get("message") or "")]
            if error.get("detail"):
                parts.append(str(error["detail"]))
            return " ".join(p for p in parts if p)[:_DETAIL_CHARS]
        if isinstance(error, str):
            return " ".join(str(v) for v in (error, body.get("error_description")) if v)[:_DETAIL_CHARS]
        if body.get("message"):
            return str(body["message"])[:_DETAIL_CHARS]
    return str(body or "").strip()[:_DETAIL_CHARS]


@dataclass(frozen=True)
class JsonResponse:
    """A parsed JSON body plus the response headers (paging lives there for ServiceNow)."""

    body: Any
    headers: httpx.Headers


async def request_json(
    client: httpx.AsyncClient,
    request: Callable[[], Awaitable[httpx.Request]],
    *,
    policy: RetryPolicy,
    backend: str,
    query: str | None = None,
) -> JsonResponse:
    """Send a request built fresh per attempt (so auth can change) and return its JSON body.

    Raises:
        BackendResponseTooLargeError: the body is over ``policy.max_response_bytes`` (not retried).
        BackendResponseError: 2xx whose body is not JSON (an HTML login page, a proxy error page).
        BackendAuthError, BackendNotFoundError, BackendUnavailableError, BackendError: see ``error_for_status``.
    """

    async def attempt() -> JsonResponse:
        try:
            response = await client.send(await request(), stream=True)
            try:
                content = await _read_capped(response, policy.max_response_bytes, backend=backend, query=query)
            finally:
                await response.aclose()
        except httpx.TimeoutException as error:
            raise RetryableFailure(f"timed out ({type(error).__name__})") from error
        except httpx.TransportError as error:
            raise RetryableFailure(f"connection failed ({type(error).__name__})") from error
        return _parse_json_from_response(response, content, backend=backend, query=query)

    return await with_retries(attempt, policy=policy, backend=backend, query=query)


async def _read_capped(response: httpx.Response, limit: int, *, backend: str, query: str | None) -> bytes:
    """The whole body, read chunk by chunk and abandoned as soon as it passes ``limit`` bytes."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(backend, limit, query)
    content = bytearray()
    async for chunk in response.aiter_bytes():
        content.extend(chunk)
        if len(content) > limit:
            raise _too_large(backend, limit, query)
    return bytes(content)


def _too_large(backend: str, limit: int, query: str | None) -> BackendResponseTooLargeError:
    return BackendResponseTooLargeError(
        f"{backend} sent more than {limit / 1_000_000:g} MB (BACKEND_MAX_RESPONSE_BYTES), so the reply was not "
        "read; ask for fewer rows or a shorter time window", backend=backend, query=query)


def _parse_json_from_response(response: httpx.Response, content: bytes, *, backend: str, query: str | None) -> JsonResponse:
    content_type = response.headers.get("content-type", "")
    try:
        body: Any = json.loads(content) if "json" in content_type else None
    except (ValueError, RecursionError):
        body = None
    if not response.is_success:
        detail = error_detail(body if body is not None else content.decode(response.encoding or "utf-8", "replace"))
        raise error_for_status(
            response.status_code, backend=backend, detail=detail, query=query,
            retry_after=response.headers.get("retry-after"),
        )
    if body is None:
        shown = content_type or "no content-type"
        raise BackendResponseError(
            f"{backend} answered HTTP {response.status_code} with {shown}, not JSON",
            backend=backend, status_code=response.status_code, query=query,
        )
    return JsonResponse(body=body, headers=response.headers)


async def call_azure(
    operation: Callable[[], Awaitable[T]], *, policy: RetryPolicy, backend: str, query: str | None = None
) -> T:
    """Run one Azure SDK call under ``with_retries``.

    The SDK clients are built with ``retry_total=0`` so this is the only retry loop: one deadline,
    the same Retry-After and jitter rules as the httpx backends, and tests can inject ``sleep``.
    """

    async def attempt() -> T:
        try:
            return await operation()
        except ClientAuthenticationError as error:  # also credential failures that never reached HTTP
            logger.warning("%s refused the credentials: %s", backend, redact(_azure_detail(error)))
            raise BackendAuthError(
                f"not authorised for {backend} (check credentials)",
                backend=backend, status_code=error.status_code, query=query,
            ) from error
        except (ServiceRequestError, ServiceResponseError) as error:
            raise RetryableFailure(f"connection failed ({type(error).__name__})") from error
        except HttpResponseError as error:
            headers = error.response.headers if error.response is not None else {}
            raise error_for_status(
                error.status_code or 0, backend=backend, detail=_azure_detail(error), query=query,
                retry_after=headers.get("Retry-After"),
            ) from error

    return await with_retries(attempt, policy=policy, backend=backend, query=query)


def _azure_detail(error: HttpResponseError) -> str:
    """Azure's innermost error message (the SemanticError text), not the whole multi-line dump."""
    if error.response is not None:
        try:
            return error_detail(error.response.json())
        except (ValueError, TypeError, AttributeError):  # body not loaded or not JSON
            pass
    return (error.message or "").splitlines()[0][:_DETAIL_CHARS] if error.message else type(error).__name__
