"""The demo data set: seeding, versioned rebuilds, times relative to the clock, and the readers' contracts."""

from __future__ import annotations

import os
import re
import sqlite3
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from opsagent.backends.base import Backends, ChangeQuery, ComponentInfo, IncidentQuery, PipelineInfo
from opsagent.backends.demo import make_demo_backends
from opsagent.backends.demo.seed import DATABASE_NAME, ensure_database, parse_offset, seed_version
from opsagent.errors import BackendNotFoundError, BackendResponseError
from opsagent.settings import Settings

NOW = datetime(2025, 1, 10, 9, 30, tzinfo=UTC)
OPEN = ["New", "In Progress", "On Hold"]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo-backends")


def backends_at(data_dir: Path, now: datetime) -> Backends:
    return make_demo_backends(Settings(data_dir=data_dir), lambda: now)


def rows(data_dir: Path, sql: str) -> list[tuple]:
    connection = sqlite3.connect(data_dir / DATABASE_NAME)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("-6h20m", -380.0), ("+1d2h", 1560.0), ("-13d", -18720.0), ("-25m", -25.0), ("0", 0.0)],
)
def test_parse_offset(text: str, minutes: float) -> None:
    assert parse_offset(text) == minutes


@pytest.mark.parametrize("text", ["6h", "-", "-1x", "yesterday"])
def test_parse_offset_rejects_bad_text(text: str) -> None:
    with pytest.raises(ValueError, match="Bad time offset"):
        parse_offset(text)


def test_ensure_database_builds_once_and_rebuilds_on_version_change(tmp_path: Path) -> None:
    path = ensure_database(tmp_path)
    assert rows(tmp_path, "SELECT value FROM meta WHERE key = 'seed_version'") == [(seed_version(),)]
    os.utime(path, (0, 0))
    assert ensure_database(tmp_path) == path and path.stat().st_mtime == 0  # same version: untouched
    connection = sqlite3.connect(path)
    connection.execute("UPDATE meta SET value = 'old' WHERE key = 'seed_version'")
    connection.commit()
    connection.close()
    ensure_database(tmp_path)
    assert rows(tmp_path, "SELECT value FROM meta WHERE key = 'seed_version'") == [(seed_version(),)]
    assert [p.name for p in tmp_path.iterdir()] == [DATABASE_NAME]  # no temporary files left behind


def test_ensure_database_replaces_a_corrupt_file(tmp_path: Path) -> None:
    (tmp_path / DATABASE_NAME).write_bytes(b"not a database")
    ensure_database(tmp_path)
    assert rows(tmp_path, "SELECT COUNT(*) FROM incidents") == [(42,)]


def test_seed_contents(data_dir: Path) -> None:
    ensure_database(data_dir)
    assert rows(data_dir, "SELECT COUNT(*) FROM incidents") == [(42,)]
    assert rows(data_dir, "SELECT COUNT(*) FROM change_requests") == [(21,)]
    assert rows(data_dir, "SELECT COUNT(DISTINCT pipeline_name), COUNT(DISTINCT factory) FROM pipeline_runs") == [(15, 2)]
    statuses = dict(rows(data_dir, "SELECT status, COUNT(*) FROM pipeline_runs GROUP BY status"))
    assert statuses.keys() == {"Succeeded", "Failed", "Cancelled", "InProgress", "Queued"}
    assert 300 <= sum(statuses.values()) <= 1000 and statuses["Succeeded"] > 0.85 * sum(statuses.values())
    assert rows(data_dir, "SELECT MIN(start_min) > -14 * 1440, MAX(start_min) < 0 FROM pipeline_runs") == [(1, 1)]


def test_every_failed_run_has_a_failed_activity_with_an_error(data_dir: Path) -> None:
    ensure_database(data_dir)
    orphans = rows(data_dir, """
        SELECT run_id FROM pipeline_runs r WHERE status = 'Failed' AND NOT EXISTS (
            SELECT 1 FROM activity_runs a WHERE a.run_id = r.run_id AND a.status = 'Failed'
            AND a.error_code != '' AND a.error_message != '')""")
    assert orphans == []
    assert rows(data_dir, "SELECT COUNT(*) FROM pipeline_runs WHERE status = 'Failed' AND error_code = ''") == [(0,)]


def test_run_ids_are_unique_uuids(data_dir: Path) -> None:
    ensure_database(data_dir)
    ids = [row[0] for row in rows(data_dir, "SELECT run_id FROM pipeline_runs")]
    assert len(set(ids)) == len(ids)
    assert all(str(uuid.UUID(run_id)) == run_id for run_id in ids)


def test_builds_are_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    ensure_database(first)
    ensure_database(second)
    for table in ("incidents", "change_requests", "pipeline_runs", "activity_runs", "health_components"):
        sql = f"SELECT * FROM {table} ORDER BY 1, 2"
        assert rows(first, sql) == rows(second, sql)


@pytest.mark.parametrize("now", [NOW, datetime(2031, 7, 1, 23, 59, tzinfo=UTC)], ids=["2025", "2031"])
async def test_times_follow_the_clock(data_dir: Path, now: datetime) -> None:
    backends = backends_at(data_dir, now)
    incident = await backends.servicenow.get_incident("INC0010049")
    assert now - incident.opened_at == timedelta(hours=6, minutes=20)
    recent = await backends.pipelines.list_failed_runs(start=now - timedelta(hours=24), end=now, limit=50)
    assert recent.total == 9
    report = await backends.health.databricks()
    assert report.checked_at == now and report.incidents[0].started_at == now - timedelta(hours=7)


async def test_list_incidents_filters_combine(data_dir: Path) -> None:
    servicenow = backends_at(data_dir, NOW).servicenow
    page = await servicenow.list_incidents(IncidentQuery(states=OPEN, priorities=[1, 2, 3], configuration_item="DBX", limit=1))
    [(total,)] = rows(data_dir, "SELECT COUNT(*) FROM incidents WHERE state IN ('New', 'In Progress', 'On Hold') "
                                "AND priority <= 3 AND configuration_item LIKE '%dbx%'")
    assert page.total == total > 1 and len(page.items) == 1
    assert all(i.is_active and i.priority <= 3 and i.configuration_item == "dbx-prod-weu" for i in page.items)


async def test_list_incidents_opened_window_is_half_open(data_dir: Path) -> None:
    servicenow = backends_at(data_dir, NOW).servicenow
    incident = await servicenow.get_incident("INC0010049")
    at = incident.opened_at
    inside = await servicenow.list_incidents(IncidentQuery(opened_from=at, opened_before=at + timedelta(minutes=1)))
    after = await servicenow.list_incidents(IncidentQuery(opened_from=at - timedelta(minutes=1), opened_before=at))
    assert "INC0010049" in [i.number for i in inside.items]
    assert "INC0010049" not in [i.number for i in after.items]


@pytest.mark.parametrize("field", ["states", "priorities", "types", "approvals"])
def test_query_sets_are_never_empty(field: str) -> None:
    """An empty set would mean "nothing" to one reader and "anything" to another: it is refused."""
    model = ChangeQuery if field in ("types", "approvals") else IncidentQuery
    with pytest.raises(ValidationError, match="at least 1 item"):
        model(**{field: []})


async def test_list_change_requests_window_overlap(data_dir: Path) -> None:
    servicenow = backends_at(data_dir, NOW).servicenow
    inside = await servicenow.list_change_requests(ChangeQuery(window_start=NOW - timedelta(hours=15), window_end=NOW - timedelta(hours=14, minutes=30)))
    assert [c.number for c in inside.items] == ["CHG0030017"]
    edge = await servicenow.list_change_requests(ChangeQuery(window_start=NOW - timedelta(hours=14), window_end=NOW - timedelta(hours=13)))
    assert edge.total == 0  # a window that only touches the end does not overlap


async def test_list_change_requests_by_sets(data_dir: Path) -> None:
    servicenow = backends_at(data_dir, NOW).servicenow
    page = await servicenow.list_change_requests(ChangeQuery(types=["normal", "emergency"], approvals=["requested", "rejected"], limit=50))
    expected = rows(data_dir, "SELECT number FROM change_requests WHERE type IN ('normal', 'emergency') "
                              "AND approval IN ('requested', 'rejected') ORDER BY start_min DESC, number DESC")
    assert [c.number for c in page.items] == [number for (number,) in expected] and page.total == len(expected) > 1


async def test_servicenow_inventory_lists_the_names_incidents_and_changes_use(data_dir: Path) -> None:
    servicenow = backends_at(data_dir, NOW).servicenow
    items = rows(data_dir, "SELECT configuration_item FROM incidents UNION SELECT configuration_item FROM change_requests")
    groups = rows(data_dir, "SELECT assignment_group FROM incidents UNION SELECT assignment_group FROM change_requests")
    assert await servicenow.list_configuration_items() == sorted(name for (name,) in items if name)
    assert await servicenow.list_assignment_groups() == sorted(name for (name,) in groups if name)
    assert "vm-shir-01" in await servicenow.list_configuration_items()
    people = rows(data_dir, "SELECT assigned_to FROM incidents UNION SELECT assigned_to FROM change_requests")
    assert await servicenow.list_people() == sorted(name for (name,) in people if name)
    assert "Elif Demir" in await servicenow.list_people()
    assert len(await servicenow.list_configuration_items(limit=3)) == 3


async def test_pipeline_inventory_names_each_pipeline_with_its_factory(data_dir: Path) -> None:
    pipelines = backends_at(data_dir, NOW).pipelines
    everything = await pipelines.list_pipelines(since=NOW - timedelta(days=30))
    expected = rows(data_dir, "SELECT DISTINCT pipeline_name, factory FROM pipeline_runs ORDER BY 1, 2")
    assert [(p.name, p.factory) for p in everything] == expected
    assert PipelineInfo(name="pl_ingest_iot_telemetry", factory="adf-prod-neu") in everything
    recent = await pipelines.list_pipelines(since=NOW - timedelta(hours=6))
    expected_recent = rows(data_dir, "SELECT DISTINCT pipeline_name, factory FROM pipeline_runs WHERE start_min >= -360 "
                                     "ORDER BY 1, 2")
    assert [(p.name, p.factory) for p in recent] == expected_recent and len(recent) < len(everything)


async def test_health_inventory_is_every_component(data_dir: Path) -> None:
    components = await backends_at(data_dir, NOW).health.list_components()
    expected = rows(data_dir, "SELECT platform, name, region FROM health_components ORDER BY platform, position")
    assert [(c.platform, c.name, c.region) for c in components] == expected
    assert ComponentInfo(platform="Databricks", name="Jobs", region="Azure West Europe") in components


async def test_failed_runs_filter_by_factory_and_pipeline(data_dir: Path) -> None:
    pipelines = backends_at(data_dir, NOW).pipelines
    week = {"start": NOW - timedelta(days=7), "end": NOW, "limit": 50}
    neu = await pipelines.list_failed_runs(**week, factory="ADF-prod-NEU")
    sales = await pipelines.list_failed_runs(**week, pipeline_name="INGEST_SALES", factory="adf-prod-weu")
    assert neu.total == len(neu.items) > 0 and {r.factory for r in neu.items} == {"adf-prod-neu"}
    assert sales.total == len(sales.items) > 0 and {r.pipeline_name for r in sales.items} == {"pl_ingest_sales"}
    status = await pipelines.pipeline_status(**week, pipeline_name=None, factory="adf-prod-neu")
    assert {s.pipeline_name for s in status.items} == {r[0] for r in rows(
        data_dir, "SELECT DISTINCT pipeline_name FROM pipeline_runs WHERE factory = 'adf-prod-neu' AND start_min >= -10080")}


async def test_run_details_around_a_time_point(data_dir: Path) -> None:
    pipelines = backends_at(data_dir, NOW).pipelines
    point = NOW - timedelta(hours=5)
    details = await pipelines.run_details(pipeline_name="pl_ingest_sales", around=point)
    starts = [NOW + timedelta(minutes=m) for (m,) in rows(
        data_dir, "SELECT start_min FROM pipeline_runs WHERE pipeline_name = 'pl_ingest_sales'")]
    assert abs(details.run.start - point) == min(abs(start - point) for start in starts)
    with pytest.raises(BackendNotFoundError, match="within 1 h of"):
        await pipelines.run_details(pipeline_name="pl_load_finance_dwh", around=NOW - timedelta(hours=15),
                                    within=timedelta(hours=1))


async def test_lookups_raise_not_found(data_dir: Path) -> None:
    backends = backends_at(data_dir, NOW)
    with pytest.raises(BackendNotFoundError, match="INC0099999"):
        await backends.servicenow.get_incident("INC0099999")
    with pytest.raises(BackendNotFoundError, match="CHG0099999"):
        await backends.servicenow.get_change_request("CHG0099999")
    with pytest.raises(BackendNotFoundError, match="pl_nothing"):
        await backends.pipelines.run_details(pipeline_name="pl_nothing")


async def test_run_details_latest_run_and_activity_order(data_dir: Path) -> None:
    details = await backends_at(data_dir, NOW).pipelines.run_details(pipeline_name="PL_LOAD_FINANCE_DWH")
    assert (details.run.status, details.run.duration_minutes) == ("Failed", 62.0)
    assert [a.activity_name for a in details.activities] == ["Lookup_Config", "Copy_Finance_Facts"]
    assert "statement or warehouse timeout" in details.activities[-1].error_message
    assert details.activities[0].start <= details.activities[1].start <= details.run.end


async def test_health_report_overall_is_the_worst_component(data_dir: Path) -> None:
    health = backends_at(data_dir, NOW).health
    assert (await health.azure(region="North Europe")).overall == "maintenance"
    assert (await health.azure(service="Key Vault")).overall == "operational"
    assert (await health.snowflake()).overall == "degraded"
    empty = await health.databricks(region="Antarctica")
    assert (empty.overall, empty.components, empty.incidents) == ("unknown", [], [])
    assert "Azure West Europe" in empty.warnings[0]


async def test_unreadable_database_is_a_backend_response_error(tmp_path: Path) -> None:
    backends = backends_at(tmp_path, NOW)
    await backends.servicenow.get_incident("INC0010049")  # builds the file
    (tmp_path / DATABASE_NAME).write_bytes(b"garbage" * 100)
    with pytest.raises(BackendResponseError, match="demo database error"):
        await backends.servicenow.get_incident("INC0010049")


def test_backends_describe_demo(data_dir: Path) -> None:
    assert backends_at(data_dir, NOW).describe() == {"servicenow": "demo", "log_analytics": "demo", "service_health": "demo"}


async def test_docs_list_the_failed_runs_of_the_last_24_hours(data_dir: Path) -> None:
    """docs/demo-data.md quotes run ids; they must stay true when the data set changes."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "demo-data.md").read_text(encoding="utf-8")
    table = doc.split("### Failed runs in the last 24 hours")[1].split("\n\n")[1]
    documented = re.findall(r"\| (pl_\w+) \| [^|]+ \| `([0-9a-f-]{36})` \| (\d+) \| (\w+) \|", table)
    page = await backends_at(data_dir, NOW).pipelines.list_failed_runs(start=NOW - timedelta(hours=24), end=NOW, limit=50)
    actual = [(run.pipeline_name, run.run_id, run.error_code, run.error_message.split()[3]) for run in page.items]
    assert documented == actual
