"""The service's edges: who may send what from where, and the headers every response carries.

* **JSON only.** A POST to any route must say ``Content-Type: application/json`` (or ``…+json``),
  else 415. Besides being honest about what we parse, this closes the cross-site hole: a web page
  can send a ``text/plain`` POST without a CORS preflight, but not a JSON one.
* **Origin.** A browser POST whose ``Origin`` is another site is refused (403), unless that
  origin is in ``ALLOWED_ORIGINS``. Clients that are not browsers send no ``Origin`` and pass.
* **Host.** Bound to loopback (the dev default), only loopback host names are accepted, so a DNS
  rebinding page (``Host: evil.example``) cannot reach a dev server; ``ALLOWED_HOSTS`` widens it.
* **Security headers** on every response: no framing, no MIME sniffing, no referrer, and a
  ``default-src 'none'`` CSP on anything that does not set its own (the chat page does).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from flask import Flask, Response, request

from opsagent.errors import RequestError
from opsagent.service.state import get_state
from opsagent.settings import Settings

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'"


def host_name(host_header: str) -> str:
    """``"[::1]:8000"`` -> ``"::1"``, ``"Example.com:80"`` -> ``"example.com"``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_allowed_host(host_header: str, settings: Settings) -> bool:
    """The Host policy: ``ALLOWED_HOSTS`` (``*`` = any), plus loopback names when bound to loopback."""
    allowed = {name.lower() for name in settings.allowed_hosts}
    if "*" in allowed or not (allowed or settings.is_loopback):
        return True
    name = host_name(host_header)
    return name in allowed or (settings.is_loopback and _is_loopback_name(name))


def _is_loopback_name(name: str) -> bool:
    """``localhost``, ``*.localhost`` (RFC 6761) or a loopback IP literal; never a DNS name like ``127.0.0.1.nip.io``."""
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_allowed_origin(origin: str | None, host_header: str, settings: Settings) -> bool:
    """Same-site (the Origin's host:port is our Host), no Origin at all, or listed in ``ALLOWED_ORIGINS``."""
    if origin is None:
        return True
    allowed = {entry.rstrip("/").lower() for entry in settings.allowed_origins}
    if "*" in allowed or origin.rstrip("/").lower() in allowed:
        return True
    return bool(host_header) and urlsplit(origin).netloc.lower() == host_header.strip().lower()


def _check_request_edges() -> None:
    settings = get_state().settings
    host = request.headers.get("Host", "")
    if not is_allowed_host(host, settings):
        raise RequestError(403, "host_not_allowed", f"The Host header {host!r} is not served here; set ALLOWED_HOSTS "
                           "to serve it (a dev server bound to loopback answers only to loopback names).")
    if request.method not in UNSAFE_METHODS:
        return
    if not is_allowed_origin(request.headers.get("Origin"), host, settings):
        raise RequestError(403, "cross_site_request", "Cross-site requests are refused; add the page's origin to "
                           "ALLOWED_ORIGINS to allow it.")
    if request.url_rule is not None and not is_json(request.mimetype):
        shown = request.mimetype or "none"
        raise RequestError(415, "unsupported_media_type", f"Send the body as JSON with 'Content-Type: "
                           f"application/json' (got {shown!r}).")


def is_json(mimetype: str) -> bool:
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def raw_security_headers() -> list[tuple[bytes, bytes]]:
    """The security headers (and the default CSP) as raw header pairs, for answers given before Flask runs."""
    pairs = [*SECURITY_HEADERS.items(), ("Content-Security-Policy", DEFAULT_CSP)]
    return [(name.lower().encode(), value.encode()) for name, value in pairs]


def _add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Content-Security-Policy", DEFAULT_CSP)
    return response


def register_edge_policies(app: Flask) -> None:
    """Host, Origin and content-type checks before any view; security headers on every response."""
    app.before_request(_check_request_edges)
    app.after_request(_add_security_headers)
