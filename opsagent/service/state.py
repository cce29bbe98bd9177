"""What one app instance owns: settings, runtime, loop thread, conversation store, admission, surface settings.

Kept in ``app.extensions["opsagent"]`` (never in module globals), so two apps in one process,
as in tests, share nothing. The Teams bot keeps its own extension (``teams_bot.py``), so this
module needs no Teams types.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from opsagent.runtime import Runtime
from opsagent.service.admission import Admission
from opsagent.service.history import ConversationStore
from opsagent.service.loop import LoopThread
from opsagent.settings import Settings

EXTENSION_KEY = "opsagent"


@dataclass
class ServiceState:
    settings: Settings
    runtime: Runtime
    loop: LoopThread
    store: ConversationStore
    admission: Admission
    owns_runtime: bool = True
    teams_configured: bool = False

    def close(self) -> None:
        """Close HTTP pools on the loop that opened them, then stop the loop."""
        self.loop.close(self.runtime.aclose() if self.owns_runtime else None)


def get_state(app: Flask | None = None) -> ServiceState:
    return (app or current_app).extensions[EXTENSION_KEY]
