"""Read access to the demo SQLite file, shared by the three demo backends.

Sits between ``seed.py`` (which builds the file on first use) and the readers
(``servicenow.py``, ``pipelines.py``, ``health.py``). Stored times are minute offsets from "now";
``DemoStore`` turns them into datetimes with the injected clock, and datetimes from queries back
into offsets. Queries are tiny and local, so they run synchronously on the caller's loop.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from opsagent.backends.base import Clock
from opsagent.backends.demo.seed import ensure_database
from opsagent.backends.pipeline_records import squashed
from opsagent.errors import BackendResponseError

ModelT = TypeVar("ModelT", bound=BaseModel)


class DemoStore:
    """One demo database file plus the clock that anchors its offsets."""

    def __init__(self, data_dir: Path, clock: Clock, *, backend: str = "demo data") -> None:
        self._data_dir = data_dir
        self._clock = clock
        self._backend = backend
        self._path: Path | None = None
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def now(self) -> datetime:
        now = self._clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run one read query; a broken or unreadable file is a ``BackendResponseError``."""
        try:
            with self._lock:
                return self._open().execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as error:
            raise BackendResponseError(f"demo database error: {error}", backend=self._backend) from error

    def page(self, table: str, where: Where, *, order: str, limit: int) -> tuple[list[sqlite3.Row], int]:
        """At most ``limit`` matching rows in ``order``, and the number of all matching rows."""
        total = self.rows(f"SELECT COUNT(*) FROM {table} {where.sql}", where.params)[0][0]
        rows = self.rows(f"SELECT * FROM {table} {where.sql} ORDER BY {order} LIMIT ?", [*where.params, limit])
        return rows, int(total)

    def _open(self) -> sqlite3.Connection:
        """One read-only connection per store, opened (and the file built) on first use.

        Reused because opening costs more than the tiny queries; callers hold ``_lock``, so the
        connection is never used by two threads at once.
        """
        if self._connection is None:
            self._path = ensure_database(self._data_dir)
            self._connection = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True, check_same_thread=False)
            self._connection.row_factory = sqlite3.Row
            self._connection.create_function("squashed", 1, squashed, deterministic=True)
        return self._connection

    async def aclose(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def at(now: datetime, minutes: float | None) -> datetime | None:
    """The datetime ``minutes`` from ``now`` (``None`` stays ``None``)."""
    return None if minutes is None else now + timedelta(minutes=minutes)


def offset(now: datetime, moment: datetime) -> float:
    """Minutes from ``now`` to ``moment`` (negative in the past)."""
    return (moment - now).total_seconds() / 60


def to_record(
    model: type[ModelT], row: sqlite3.Row, now: datetime, *, times: dict[str, str], json_columns: Sequence[str] = ()
) -> ModelT:
    """A record from a row: same-named columns copied, ``times`` maps offset columns to datetime fields,
    ``json_columns`` hold JSON text."""
    values = {key: row[key] for key in row.keys() if key in model.model_fields}
    values |= {field_name: at(now, row[column]) for column, field_name in times.items()}
    values |= {column: json.loads(row[column]) for column in json_columns}
    return model.model_validate(values)


def normalise(text: str) -> str:
    """Lower case letters and digits only: "West Europe" and "westeurope" compare equal."""
    return "".join(char for char in text.lower() if char.isalnum())


@dataclass
class Where:
    """A WHERE clause built from optional filters, with its parameters in order."""

    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> Where:
        self.clauses.append(clause)
        self.params.extend(params)
        return self

    def one_of(self, column: str, values: Sequence[object] | None) -> Where:
        """``column IN (values)``; ``None`` adds no condition."""
        if values is not None:
            self.add(f"{column} IN ({', '.join('?' * len(values))})", *values)
        return self

    def between(self, column: str, now: datetime, start: datetime | None, before: datetime | None) -> Where:
        """``start <= column < before`` on an offset column, for the bounds that are given."""
        if start is not None:
            self.add(f"{column} >= ?", offset(now, start))
        if before is not None:
            self.add(f"{column} < ?", offset(now, before))
        return self

    def contains(self, columns: Sequence[str], text: str | None) -> Where:
        """Every word of ``text`` in any of ``columns``, case-insensitive ("SHIR upgrade" finds
        "Upgrade the SHIR …"); no LIKE wildcards to escape."""
        for word in (text or "").split():
            tests = " OR ".join(f"instr(lower({column}), lower(?)) > 0" for column in columns)
            self.add(f"({tests})", *([word] * len(columns)))
        return self

    def contains_any(self, columns: Sequence[str], words: Sequence[str] | None) -> Where:
        """At least one of ``words`` in one of ``columns`` (any case): one condition; ``None`` adds none."""
        pairs = [(column, word) for word in words or [] for column in columns]
        if pairs:
            self.add(f"({' OR '.join('instr(lower(' + column + '), lower(?)) > 0' for column, _ in pairs)})",
                     *(word for _, word in pairs))
        return self

    @property
    def sql(self) -> str:
        return f"WHERE {' AND '.join(self.clauses)}" if self.clauses else ""
