"""The service's edges over a real loopback server in dev mode (no API keys, TEAMS_ANONYMOUS_DEV):
JSON-only POSTs, the cross-site Origin and DNS-rebinding Host policy, and security headers."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from flask import Flask

from opsagent.service.edges import host_name, is_allowed_host
from opsagent.settings import Settings
from tests.service.conftest import AppFactory, model_calls, serving
from tests.service.test_teams_bot import activity

CHAT = {"messages": [{"role": "user", "content": "any open incidents?"}]}
POSTS = [
    ("/api/chat", CHAT), ("/api/chat_dynamic", CHAT), ("/api/chat/stream", CHAT),
    ("/v1/chat/completions", {"model": "opsagent", **CHAT}), ("/api/messages", activity("any open incidents?")),
]


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str]]:
    from flask_app import close_app, create_app
    from opsagent.settings import load_settings
    from tests.conftest import scripted_runtime
    from tests.service.conftest import echo_scripts

    settings = load_settings({}, env_file=None, data_dir=tmp_path_factory.mktemp("var"), teams_anonymous_dev=True)
    runtime, _ = scripted_runtime(settings, echo_scripts())
    app = create_app(settings, runtime=runtime)
    with serving(app) as url:
        yield app, url
    close_app(app)


def _post_as_text(url: str, path: str, body: dict, content_type: str | None, **headers: str) -> httpx.Response:
    import json

    if content_type is not None:
        headers["Content-Type"] = content_type
    return httpx.post(url + path, content=json.dumps(body), headers=headers, timeout=20)


@pytest.mark.parametrize(("path", "body"), POSTS, ids=[p for p, _ in POSTS])
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None],
                         ids=["text-plain", "form", "none"])
def test_edges_post_bodies_must_be_json(dev_server: tuple[Flask, str], path: str, body: dict,
                                        content_type: str | None) -> None:
    """A web page can send text/plain or a form cross-site without a preflight; JSON it cannot."""
    app, url = dev_server
    before = model_calls(app)
    response = _post_as_text(url, path, body, content_type)
    assert response.status_code == 415, response.text
    assert response.json()["error"]["code"] == "unsupported_media_type"
    assert model_calls(app) == before


def test_edges_json_with_charset_is_accepted(dev_server: tuple[Flask, str]) -> None:
    _, url = dev_server
    response = _post_as_text(url, "/api/chat", CHAT, "application/json; charset=utf-8")
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(("path", "body"), POSTS, ids=[p for p, _ in POSTS])
@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1"],
                         ids=["other-site", "null-origin", "other-port"])
def test_edges_cross_site_posts_are_refused(dev_server: tuple[Flask, str], path: str, body: dict, origin: str) -> None:
    app, url = dev_server
    before = model_calls(app)
    response = httpx.post(url + path, json=body, headers={"Origin": origin}, timeout=20)
    assert response.status_code == 403 and response.json()["error"]["code"] == "cross_site_request"
    assert model_calls(app) == before


def test_edges_same_origin_page_may_post(dev_server: tuple[Flask, str]) -> None:
    _, url = dev_server
    response = httpx.post(url + "/api/chat", json=CHAT, headers={"Origin": url}, timeout=20)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io"])
def test_edges_foreign_host_is_refused_on_a_loopback_server(dev_server: tuple[Flask, str], host: str) -> None:
    """DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 sends Host: evil.example."""
    _, url = dev_server
    for method, path in (("GET", "/healthz"), ("POST", "/api/chat")):
        response = httpx.request(method, url + path, json=CHAT, headers={"Host": host}, timeout=20)
        assert response.status_code == 403 and response.json()["error"]["code"] == "host_not_allowed"


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8000", "[::1]:8000", "app.localhost"])
def test_edges_loopback_names_are_served(dev_server: tuple[Flask, str], host: str) -> None:
    _, url = dev_server
    assert httpx.get(url + "/healthz", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(("bound", "allowed", "host", "accepted"), [
    ("127.0.0.1", [], "evil.example", False),
    ("0.0.0.0", [], "ops.example.com", True),
    ("0.0.0.0", ["ops.example.com"], "evil.example", False),
    ("0.0.0.0", ["ops.example.com"], "OPS.example.com:443", True),
    ("127.0.0.1", ["*"], "evil.example", True),
], ids=["loopback-default", "public-default", "listed-other", "listed", "star"])
def test_edges_host_policy_table(bound: str, allowed: list[str], host: str, accepted: bool) -> None:
    settings = Settings(host=bound, allowed_hosts=allowed)
    assert is_allowed_host(host, settings) is accepted
    assert host_name("[::1]:8000") == "::1"


def test_edges_allowed_origins_setting_admits_a_listed_site(make_app: AppFactory) -> None:
    with serving(make_app(allowed_origins=["https://ops.example.com"])) as url:
        listed = httpx.post(url + "/api/chat", json=CHAT, headers={"Origin": "https://ops.example.com"}, timeout=20)
        other = httpx.post(url + "/api/chat", json=CHAT, headers={"Origin": "https://evil.example"}, timeout=20)
    assert (listed.status_code, other.status_code) == (200, 403)


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/static/app.css", "/healthz", "/nothing-here"])
def test_edges_security_headers_on_every_response(dev_server: tuple[Flask, str], path: str) -> None:
    _, url = dev_server
    headers = httpx.get(url + path).headers
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]


def test_edges_chat_page_keeps_its_own_policy(dev_server: tuple[Flask, str]) -> None:
    _, url = dev_server
    csp = httpx.get(url + "/").headers["Content-Security-Policy"]
    assert csp.startswith("default-src 'self'; script-src 'self'") and "frame-ancestors 'none'" in csp
