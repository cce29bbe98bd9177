"""Overload on the production stack: a model that never answers, and many chats at once.

The bound (MAX_CHATS_IN_FLIGHT=4 here) admits four chats, which wait out their 5 s deadline;
every other chat is refused at once with 503 + Retry-After, while /healthz, /readyz and cheap
requests keep answering (well under a second when the machine is idle; the test allows 3 s, still
well before the deadline a request that waited for a slot would hit).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from flask import Flask

from tests.service.conftest import echo_scripts, model_calls, poll, serving_for_real
from tests.service.test_teams_bot import activity

BOUND = 4
DEADLINE = 5.0
AT_ONCE = 3.0
"""Refusals and probes answer well within the deadline (the bound leaves room for a loaded 2-core CI box)."""
CHAT = {"messages": [{"role": "user", "content": "anything"}]}
COMPLETION = {"model": "opsagent", **CHAT}


async def never_answers(messages: list[Any], options: dict[str, Any]) -> str:
    await asyncio.sleep(3600)
    return "never"


@pytest.fixture(scope="module")
def hanging_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str]]:
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings
    from tests.conftest import scripted_runtime

    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), server_threads=8,
                             max_chats_in_flight=BOUND, request_timeout_seconds=DEADLINE, drain_timeout_seconds=1.0,
                             teams_anonymous_dev=True)
    runtime, _ = scripted_runtime(settings, echo_scripts(triage=never_answers, dynamic_triage=never_answers))
    app = create_app(settings, runtime=runtime)
    with serving_for_real(app) as url:
        yield app, url
    close_app(app)


Timed = tuple[httpx.Response, float]


def _timed(call: Callable[[], httpx.Response]) -> Timed:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def _chat_calls(url: str) -> list[Callable[[], httpx.Response]]:
    """Every chat surface: JSON, streamed JSON, OpenAI plain and streamed."""
    return [
        lambda: httpx.post(url + "/api/chat", json=CHAT, timeout=20),
        lambda: httpx.post(url + "/api/chat_dynamic", json=CHAT, timeout=20),
        lambda: httpx.post(url + "/api/chat/stream", json=CHAT, timeout=20),
        lambda: httpx.post(url + "/v1/chat/completions", json=COMPLETION, timeout=20),
        lambda: httpx.post(url + "/v1/chat/completions", json={**COMPLETION, "stream": True}, timeout=20),
    ]


def test_overload_refuses_past_the_bound_and_probes_keep_answering(hanging_server: tuple[Flask, str]) -> None:
    app, url = hanging_server
    admission = app.extensions["opsagent"].admission
    calls = _chat_calls(url)
    with ThreadPoolExecutor(max_workers=40) as pool:
        admitted: list[Future[Timed]] = [pool.submit(_timed, calls[i % 2]) for i in range(BOUND)]
        poll(lambda: admission.in_flight == BOUND, timeout=10, what="the first chats to be admitted")
        ready = httpx.get(url + "/readyz").json()
        busy_teams = httpx.post(url + "/api/messages", json=activity("are you there?"), timeout=10)
        refused = [pool.submit(_timed, calls[i % len(calls)]) for i in range(30)]
        for _ in range(3):  # while the model hangs and the bound is full
            for probe in ("/healthz", "/readyz"):
                response, seconds = _timed(lambda: httpx.get(url + probe, timeout=5))
                assert response.status_code == 200 and seconds < AT_ONCE, f"{probe} took {seconds:.2f} s"
            bad, seconds = _timed(lambda: httpx.post(url + "/api/chat", content=b"{not json",
                                                     headers={"Content-Type": "application/json"}, timeout=5))
            assert bad.status_code == 400 and seconds < AT_ONCE, f"a bad request took {seconds:.2f} s"
        refused_results = [future.result() for future in refused]
        admitted_results = [future.result() for future in admitted]

    assert (ready["chats_in_flight"], ready["max_chats_in_flight"]) == (BOUND, BOUND)
    for response, seconds in refused_results:
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"] == "5"
        assert seconds < AT_ONCE, f"a refusal took {seconds:.2f} s"
        error = response.json()["error"]
        assert error["code"] == "overloaded"
        assert ("type" in error) == response.url.path.startswith("/v1/")  # OpenAI's shape on /v1
    for response, seconds in admitted_results:
        assert response.status_code == 504 and response.json()["error"]["code"] == "timeout"
        assert seconds < DEADLINE + 2.0, f"a queued chat ended after {seconds:.1f} s against a {DEADLINE} s deadline"
    assert [a["text"] for a in busy_teams.json()["activities"] if a["type"] == "message"] == [
        "I'm answering as many questions as I can right now; please ask again in a minute."]
    poll(lambda: admission.in_flight == 0, timeout=10, what="every slot to be freed")


def test_deadline_runs_from_arrival_not_from_pick_up(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A request that waited past its deadline before a thread ran it is a 504 without a model call."""
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings
    from tests.conftest import scripted_runtime

    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), request_timeout_seconds=0.5,
                             drain_timeout_seconds=1.0)
    runtime, _ = scripted_runtime(settings, echo_scripts())
    app = create_app(settings, runtime=runtime)

    @app.before_request
    def _busy_server() -> None:  # stands in for time spent queued behind busy worker threads
        time.sleep(0.6)

    try:
        with serving_for_real(app) as url:
            response, seconds = _timed(lambda: httpx.post(url + "/api/chat", json=CHAT, timeout=20))
    finally:
        close_app(app)
    assert response.status_code == 504 and response.json()["error"]["code"] == "timeout"
    assert "before it could start" in response.json()["error"]["message"]
    assert model_calls(app) == 0 and seconds < 2.0
