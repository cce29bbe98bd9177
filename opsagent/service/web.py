"""Blueprint: the built-in chat page at ``/`` (plain HTML/CSS/JS in ``static/``; no build, no CDN).

The page posts to ``/api/chat/stream`` and renders progress events, the plan, and the answer: the
direct answer first, key facts, limitations, each specialist's evidence in a collapsed
``<details>``, and the grounding verdict (a warning when it blocked parts), through its own small
markdown renderer that escapes HTML first. Its CSP allows only its own scripts and styles.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC_DIR = Path(__file__).resolve().parent / "static"

web = Blueprint("web", __name__, static_folder=str(STATIC_DIR), static_url_path="/static")


@web.get("/")
def index() -> Response:
    response = send_from_directory(STATIC_DIR, "index.html", max_age=0)
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )
    return response
