"""The retry helper against a real loopback server: backoff, Retry-After, deadline, status map."""

from __future__ import annotations

import httpx
import pytest
from azure.core.exceptions import ClientAuthenticationError, ServiceRequestError

from opsagent.backends.http import (
    JsonResponse,
    RetryPolicy,
    call_azure,
    request_json,
    retry_after_seconds,
)
from opsagent.errors import (
    BackendAuthError,
    BackendError,
    BackendNotFoundError,
    BackendResponseError,
    BackendUnavailableError,
)
from tests.backends.fake_servers import FakeServer, ManualTime, Reply, json_reply

OK = json_reply({"result": []})


async def _get(server: FakeServer, policy: RetryPolicy, path: str = "/thing") -> JsonResponse:
    async with httpx.AsyncClient() as client:

        async def build() -> httpx.Request:
            return client.build_request("GET", server.url + path)

        return await request_json(client, build, policy=policy, backend="Thing", query="q")


async def test_retry_after_on_429_is_honoured(server: FakeServer, policy: RetryPolicy, manual_time: ManualTime) -> None:
    server.script("GET", "/thing", json_reply({"error": {"message": "Rate limit"}}, 429, Retry_After="3"), OK)
    response = await _get(server, policy)
    assert response.body == {"result": []}
    assert manual_time.sleeps == [3.0]
    assert len(server.requests) == 2


async def test_5xx_retries_with_exponential_full_jitter(server: FakeServer, policy: RetryPolicy, manual_time: ManualTime) -> None:
    server.script("GET", "/thing", Reply(500), Reply(502), Reply(503), OK)
    await _get(server, policy)
    # random()=0.5 -> half of 0.25, 0.5, 1.0
    assert manual_time.sleeps == [0.125, 0.25, 0.5]


async def test_gives_up_after_max_attempts(server: FakeServer, policy: RetryPolicy) -> None:
    server.script("GET", "/thing", Reply(503, body="busy"))
    with pytest.raises(BackendUnavailableError, match=r"after 4 attempt\(s\).*HTTP 503") as caught:
        await _get(server, policy)
    assert caught.value.status_code == 503 and caught.value.query == "q"
    assert len(server.requests) == 4


async def test_retry_after_beyond_deadline_gives_up_without_sleeping(
    server: FakeServer, policy: RetryPolicy, manual_time: ManualTime
) -> None:
    server.script("GET", "/thing", json_reply({}, 429, Retry_After="60"))
    with pytest.raises(BackendUnavailableError, match="HTTP 429"):
        await _get(server, policy)
    assert manual_time.sleeps == [] and len(server.requests) == 1


async def test_slow_server_times_out_within_deadline(server: FakeServer) -> None:
    """A real (tiny) deadline: each attempt is cut at the time left, then the helper gives up."""
    server.script("GET", "/thing", Reply(200, body={"late": True}, delay=0.5))
    policy = RetryPolicy(max_attempts=5, deadline_seconds=0.2, base_delay_seconds=0.01)
    with pytest.raises(BackendUnavailableError, match="timed out"):
        await _get(server, policy)


async def test_connection_refused_is_retried_then_unavailable(policy: RetryPolicy, manual_time: ManualTime) -> None:
    dead = FakeServer()
    url = dead.url
    dead.stop()  # never started: nothing listens on the port any more
    async with httpx.AsyncClient() as client:

        async def build() -> httpx.Request:
            return client.build_request("GET", url + "/x")

        with pytest.raises(BackendUnavailableError, match="connection failed"):
            await request_json(client, build, policy=policy, backend="Thing")
    assert len(manual_time.sleeps) == 3


@pytest.mark.parametrize(
    ("status", "error_type", "message"),
    [
        (401, BackendAuthError, r"^not authorised for Thing \(check credentials; HTTP 401\)$"),
        (403, BackendAuthError, r"^not authorised for Thing \(check credentials; HTTP 403\)$"),
        (404, BackendNotFoundError, r"^Thing: not found \(HTTP 404\)$"),
        (400, BackendError, r"^Thing rejected the request \(HTTP 400\)$"),
    ],
    ids=["401", "403", "404", "400"],
)
async def test_final_statuses_map_to_the_error_tree(
    server: FakeServer, policy: RetryPolicy, status: int, error_type: type[BackendError], message: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The error body (here naming an internal host) goes to the log only, never into the message."""
    body = {"error": {"message": "User Not Authenticated at db-7.corp.internal (10.1.2.3)", "detail": None}}
    server.script("GET", "/thing", json_reply(body, status))
    with pytest.raises(error_type, match=message) as caught:
        await _get(server, policy)
    assert type(caught.value) is error_type and caught.value.status_code == status
    assert len(server.requests) == 1, "final statuses are not retried"
    assert f"Thing answered HTTP {status}: User Not Authenticated at db-7.corp.internal" in caplog.text


async def test_retryable_failure_keeps_the_body_out_of_the_message(server: FakeServer, policy: RetryPolicy) -> None:
    server.script("GET", "/thing", Reply(503, body="upstream db-7.corp.internal (10.1.2.3) refused"))
    with pytest.raises(BackendUnavailableError) as caught:
        await _get(server, policy)
    assert caught.value.message.endswith(": HTTP 503") and "10.1.2.3" not in caught.value.message


@pytest.mark.parametrize(
    "reply",
    [Reply(200, body=b"{not json", headers={"Content-Type": "application/json"}), Reply(200, body="<html>login</html>")],
    ids=["malformed-json", "html"],
)
async def test_unreadable_body_is_a_response_error(server: FakeServer, policy: RetryPolicy, reply: Reply) -> None:
    server.script("GET", "/thing", reply)
    with pytest.raises(BackendResponseError, match="not JSON"):
        await _get(server, policy)


@pytest.mark.parametrize(
    ("header", "expected"),
    [(None, None), ("5", 5.0), ("-1", 0.0), ("soon", None), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)],
)
def test_retry_after_parsing(header: str | None, expected: float | None) -> None:
    assert retry_after_seconds(header) == expected


async def test_call_azure_retries_transport_errors_then_succeeds(policy: RetryPolicy, manual_time: ManualTime) -> None:
    outcomes: list[Exception | str] = [ServiceRequestError("refused"), "done"]

    async def operation() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert await call_azure(operation, policy=policy, backend="Azure") == "done"
    assert len(manual_time.sleeps) == 1


async def test_call_azure_maps_credential_failure_to_auth_error(policy: RetryPolicy,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    async def operation() -> str:
        raise ClientAuthenticationError("DefaultAzureCredential failed to retrieve a token")

    with pytest.raises(BackendAuthError, match=r"^not authorised for Azure \(check credentials\)$"):
        await call_azure(operation, policy=policy, backend="Azure")
    assert "Azure refused the credentials: DefaultAzureCredential failed" in caplog.text
