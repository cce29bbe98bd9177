"""Builds the demo SQLite database from the hand-written files in ``data/`` (first step of the demo backends).

The database holds minute offsets from "now", never absolute times: the readers add the clock's
"now" at query time, so the data set is always fresh and tests can fix "now". The file is
rebuilt when its seed version (a hash of the schema, the data files and the generator code)
changes; a build writes a temporary file and renames it into place, so concurrent processes
never see a half-built database.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from opsagent.backends.demo import runs

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
SCHEMA_FILE = PACKAGE_DIR / "schema.sql"
DATABASE_NAME = "demo.sqlite"

_OFFSET = re.compile(r"^([+-])(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$")
_INCIDENT_TEXTS = ("close_notes", "work_notes", "rfc", "caused_by", "parent_incident", "problem_id")
"""Optional incident fields, in table order (absent in a record = empty)."""
# ServiceNow's default priority matrix: (impact, urgency) -> priority.
_PRIORITY = {(1, 1): 1, (1, 2): 2, (2, 1): 2, (1, 3): 3, (2, 2): 3, (3, 1): 3, (2, 3): 4, (3, 2): 4, (3, 3): 5}


def seed_version() -> str:
    """Hash of everything the database is built from; a change to any of it triggers a rebuild."""
    digest = hashlib.sha256()
    sources = [SCHEMA_FILE, Path(__file__), Path(runs.__file__), *sorted(DATA_DIR.glob("*.json"))]
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def parse_offset(text: str) -> float:
    """``"-6h20m"`` -> -380.0 minutes; ``"+1d2h"`` -> 1560.0; ``"0"`` -> 0.0."""
    if text.strip() == "0":
        return 0.0
    match = _OFFSET.match(text.strip())
    if match is None or not any(match.groups()[1:]):
        raise ValueError(f"Bad time offset {text!r} in the demo data; use e.g. '-6h20m' or '+1d2h'.")
    sign, days, hours, minutes = match.groups()
    total = int(days or 0) * 1440 + int(hours or 0) * 60 + int(minutes or 0)
    return float(-total if sign == "-" else total)


def ensure_database(data_dir: Path) -> Path:
    """The path of an up-to-date demo database under ``data_dir``, building it if needed."""
    path = data_dir / DATABASE_NAME
    version = seed_version()
    if _stored_version(path) != version:
        build_database(path, version=version)
    return path


def build_database(path: Path, *, version: str | None = None) -> None:
    """Write a fresh database to ``path`` (atomically replacing any old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=".demo-", suffix=".sqlite", dir=path.parent)
    os.close(handle)
    try:
        with sqlite3.connect(temp_name) as connection:
            connection.executescript(SCHEMA_FILE.read_text(encoding="utf-8"))
            _insert_all(connection, version or seed_version())
        connection.close()
        os.chmod(temp_name, 0o644)  # mkstemp makes it owner-only; the demo data is not secret
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _stored_version(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            row = connection.execute("SELECT value FROM meta WHERE key = 'seed_version'").fetchone()
        connection.close()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])


def _load(name: str) -> Any:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


def _insert_all(connection: sqlite3.Connection, version: str) -> None:
    pipelines = _load("pipelines.json")
    run_rows: list[tuple[Any, ...]] = []
    activity_rows: list[tuple[Any, ...]] = []
    for run, activities in runs.generate_runs(pipelines):
        run_rows.append(run)
        activity_rows.extend(activities)
    _insert(connection, "incidents", [_incident_row(item) for item in _load("incidents.json")["incidents"]])
    _insert(connection, "change_requests", [_change_row(item) for item in _load("changes.json")["changes"]])
    _insert(connection, "pipeline_runs", run_rows)
    _insert(connection, "activity_runs", activity_rows)
    platforms = _load("health.json")["platforms"]
    components, incidents = _health_rows(platforms)
    _insert(connection, "health_components", components)
    _insert(connection, "health_incidents", incidents)
    sources = [(f"health_source:{name}", spec["source"]) for name, spec in platforms.items()]
    history = ("pipeline_history_days", str(pipelines["history_days"]))
    _insert(connection, "meta", [("seed_version", version), history, *sources])


def _insert(connection: sqlite3.Connection, table: str, rows: Iterable[tuple[Any, ...]]) -> None:
    rows = list(rows)
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        connection.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def _optional_offset(text: str | None) -> float | None:
    return None if text is None else parse_offset(text)


def _incident_row(item: Mapping[str, Any]) -> tuple[Any, ...]:
    opened = parse_offset(item["opened"])
    resolved = _optional_offset(item.get("resolved"))
    updated = resolved if resolved is not None else min(opened + 20, -1.0)
    priority = _PRIORITY[(item["impact"], item["urgency"])]
    return (item["number"], item["short"], item["description"], item["state"], priority, item["impact"],
            item["urgency"], item["category"], item["group"], item["assigned_to"], item["ci"], opened,
            resolved, updated, *(item.get(name, "") for name in _INCIDENT_TEXTS))


def _change_row(item: Mapping[str, Any]) -> tuple[Any, ...]:
    return (item["number"], item["short"], item["description"], item["type"], item["state"], item["risk"],
            item["approval"], _optional_offset(item.get("start")), _optional_offset(item.get("end")), item["ci"],
            item["group"], item["assigned_to"], item.get("close_notes", ""), item.get("work_notes", ""))


def _health_rows(platforms: Mapping[str, Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    components: list[tuple[Any, ...]] = []
    incidents: list[tuple[Any, ...]] = []
    for platform, spec in platforms.items():
        overrides = {(item["region"], item["component"]): item for item in spec["overrides"]}
        for region in spec["regions"]:
            for name in spec["components"]:
                override = overrides.get((region, name), {})
                row = (platform, region, name, override.get("status", "operational"), override.get("detail", ""),
                       len(components), _optional_offset(override.get("since")))
                components.append(row)
        for item in spec["incidents"]:
            incidents.append((platform, item["title"], item["status"], item["impact"],
                              _optional_offset(item.get("started")), _optional_offset(item.get("updated")),
                              item["url"], item["latest_update"], json.dumps(item["components"])))
    return components, incidents
