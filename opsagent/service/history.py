"""Conversation history: the turns of each conversation, in SQLite under ``settings.data_dir``.

Teams sends one message per request and expects the bot to remember the conversation, so a
clarifying question and the user's answer to it must meet again on the next turn, even after a
restart. ``/api/chat`` uses the same store when a caller passes a ``conversation_id``.
One short-lived connection per operation keeps it safe across Flask threads and the loop thread.

Stored conversations are namespaced by the server (``conversation_key``), never by the caller:
``teams:<conversation.id>`` for Teams and ``api:<id>`` for the HTTP API, so no id an HTTP client
sends can address a Teams conversation. With ``OPSAGENT_API_KEYS`` set, an HTTP conversation is
also scoped to the caller's key (``api#<key scope>:<id>``): one key's client cannot read or extend
another key's conversation, even with the same id.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Literal

from opsagent.contracts.requests import MessageData

Surface = Literal["api", "teams"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at REAL NOT NULL,
    refs TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS turns_by_conversation ON turns (conversation_id, id);
"""
_ADD_REFS = "ALTER TABLE turns ADD COLUMN refs TEXT NOT NULL DEFAULT '[]'"
"""Stores created before answers kept their ids get the column on start-up."""


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """One short-lived connection in WAL mode, committed on success and rolled back on error."""
    with closing(sqlite3.connect(path, timeout=10)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL keeps the file consistent; no fsync per turn
        with db:  # commits, or rolls back on error
            yield db


def conversation_key(surface: Surface, conversation_id: str, *, owner: str | None = None) -> str:
    """Where a surface's conversation is stored. ``owner`` (an API key's scope) cannot collide with
    an unscoped key: ``#`` never occurs in an HTTP conversation id and Teams keys start ``teams:``."""
    return f"{surface}:{conversation_id}" if owner is None else f"{surface}#{owner}:{conversation_id}"


class ConversationStore:
    """Append-only turns per conversation id; reads return the most recent ones in order."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(_SCHEMA)
            if "refs" not in {row[1] for row in db.execute("PRAGMA table_info(turns)")}:
                db.execute(_ADD_REFS)

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def recent(self, conversation_id: str, *, limit: int) -> list[MessageData]:
        """The last ``limit`` turns of a conversation, oldest first."""
        if limit <= 0:
            return []
        with self._connect() as db:
            rows = db.execute(
                "SELECT role, content, refs FROM turns WHERE conversation_id = ? ORDER BY id DESC LIMIT ?",
                (conversation_id, limit),
            ).fetchall()
        return [MessageData(role=role, content=content, refs=tuple(json.loads(refs)))
                for role, content, refs in reversed(rows)]

    def append(self, conversation_id: str, messages: list[MessageData]) -> None:
        now = time.time()
        with self._connect() as db:
            db.executemany(
                "INSERT INTO turns (conversation_id, role, content, created_at, refs) VALUES (?, ?, ?, ?, ?)",
                [(conversation_id, m.role, m.content, now, json.dumps(list(m.refs))) for m in messages],
            )

    def check_writable(self) -> bool:
        """For /readyz: can we write (and roll back) right now?"""
        try:
            with closing(sqlite3.connect(self.path, timeout=2)) as db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("ROLLBACK")
            return True
        except sqlite3.Error:
            return False
