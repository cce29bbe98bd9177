"""OpsAgent's WSGI app: ``create_app()`` for servers and tests; ``python flask_app.py`` serves it.

    gunicorn 'flask_app:create_app()' --worker-class gthread --threads 16   # or: make run
"""

from __future__ import annotations

import sys

from opsagent.service.app import close_app, create_app

__all__ = ["close_app", "create_app"]

if __name__ == "__main__":
    from opsagent.service.server import serve

    sys.exit(serve())
