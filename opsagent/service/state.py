"""What one app instance owns: settings, runtime, loop thread, conversation store, admission, Teams bot.

Kept in ``app.extensions["opsagent"]`` (never in module globals), so two apps in one process,
as in tests, share nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask, current_app

from opsagent.runtime import Runtime
from opsagent.service.admission import Admission
from opsagent.service.history import ConversationStore
from opsagent.service.loop import LoopThread
from opsagent.settings import Settings

if TYPE_CHECKING:
    from opsagent.service.teams_bot import TeamsBot

EXTENSION_KEY = "opsagent"


@dataclass
class ServiceState:
    settings: Settings
    runtime: Runtime
    loop: LoopThread
    store: ConversationStore
    admission: Admission
    bot: TeamsBot | None = None
    owns_runtime: bool = True

    def close(self) -> None:
        """Close HTTP pools on the loop that opened them, then stop the loop."""
        self.loop.close(self.runtime.aclose() if self.owns_runtime else None)


def get_state(app: Flask | None = None) -> ServiceState:
    return (app or current_app).extensions[EXTENSION_KEY]
