"""Export the demo data at the eval's clock (Fri 2025-01-10 09:00 UTC) as JSON with absolute times:
what the blind writers of the held-out cases read. Run from the repository root:
``PYTHONPATH=. .venv/bin/python evals/heldout/truth/export_demo.py`` (then the check scripts here)."""

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from opsagent.backends.demo.seed import ensure_database

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
OUT = Path(__file__).resolve().parent / "demo-data-at-2025-01-10T0900Z"
TABLES = ["incidents", "change_requests", "pipeline_runs", "activity_runs", "health_components", "health_incidents"]


def moment(minutes: float | None) -> str | None:
    return None if minutes is None else (NOW + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%MZ")


def main() -> None:
    connection = sqlite3.connect(ensure_database(Path("var")))
    connection.row_factory = sqlite3.Row
    OUT.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        rows = []
        for row in connection.execute(f"SELECT * FROM {table}"):
            record = dict(row)
            for key in [key for key in record if key.endswith("_min")]:
                stem = key[:-4]
                record[stem if stem.startswith(("start", "end")) else f"{stem}_at"] = moment(record.pop(key))
            rows.append(record)
        (OUT / f"{table}.json").write_text(json.dumps(rows, indent=1))
        print(table, len(rows))


if __name__ == "__main__":
    main()
