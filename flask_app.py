"""OpsAgent's WSGI app: ``create_app()`` for servers and tests; ``python flask_app.py`` serves it.

Served in production by uvicorn through the ASGI root in ``opsagent/service/asgi.py`` (``make run``,
``python -m opsagent serve``), which buffers requests on its I/O loop before Flask gets a thread.
"""

from __future__ import annotations

import sys

from opsagent.service.app import close_app, create_app

__all__ = ["close_app", "create_app"]

if __name__ == "__main__":
    from opsagent.service.server import serve

    sys.exit(serve())
