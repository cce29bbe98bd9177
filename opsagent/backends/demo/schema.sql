-- Demo data set for OpsAgent (built by seed.py on first use).
-- Every *_min column is an offset in minutes from "now" (negative = in the past); the readers turn
-- offsets into datetimes with the injected clock at query time, so "last 24 hours" always has data.

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE incidents (
    number TEXT PRIMARY KEY,
    short_description TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    priority INTEGER NOT NULL,
    impact INTEGER NOT NULL,
    urgency INTEGER NOT NULL,
    category TEXT NOT NULL DEFAULT '',
    assignment_group TEXT NOT NULL DEFAULT '',
    assigned_to TEXT NOT NULL DEFAULT '',
    configuration_item TEXT NOT NULL DEFAULT '',
    opened_min REAL NOT NULL,
    resolved_min REAL,
    updated_min REAL NOT NULL,
    close_notes TEXT NOT NULL DEFAULT '',
    work_notes TEXT NOT NULL DEFAULT '',
    rfc TEXT NOT NULL DEFAULT '',               -- the change raised for it (a change number)
    caused_by TEXT NOT NULL DEFAULT '',         -- the change that caused it
    parent_incident TEXT NOT NULL DEFAULT '',
    problem_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX incidents_opened ON incidents (opened_min);

CREATE TABLE change_requests (
    number TEXT PRIMARY KEY,
    short_description TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    type TEXT NOT NULL,
    state TEXT NOT NULL,
    risk TEXT NOT NULL,
    approval TEXT NOT NULL,
    start_min REAL,
    end_min REAL,
    configuration_item TEXT NOT NULL DEFAULT '',
    assignment_group TEXT NOT NULL DEFAULT '',
    assigned_to TEXT NOT NULL DEFAULT '',
    close_notes TEXT NOT NULL DEFAULT '',
    work_notes TEXT NOT NULL DEFAULT ''
);

CREATE TABLE pipeline_runs (
    run_id TEXT PRIMARY KEY,
    pipeline_name TEXT NOT NULL,
    factory TEXT NOT NULL,
    status TEXT NOT NULL,
    start_min REAL NOT NULL,
    end_min REAL,
    failure_type TEXT NOT NULL DEFAULT '',
    error_code TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    parameters TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX pipeline_runs_start ON pipeline_runs (start_min);
CREATE INDEX pipeline_runs_name ON pipeline_runs (pipeline_name, start_min);

CREATE TABLE activity_runs (
    activity_run_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES pipeline_runs (run_id),
    position INTEGER NOT NULL,
    activity_name TEXT NOT NULL,
    activity_type TEXT NOT NULL,
    status TEXT NOT NULL,
    start_min REAL NOT NULL,
    end_min REAL,
    error_code TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    failure_type TEXT NOT NULL DEFAULT ''
);
CREATE INDEX activity_runs_run ON activity_runs (run_id, position);

CREATE TABLE health_components (
    platform TEXT NOT NULL,
    region TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL,
    since_min REAL                               -- since when a non-operational component has had its status
);

CREATE TABLE health_incidents (
    platform TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    impact TEXT NOT NULL,
    started_min REAL,
    updated_min REAL,
    url TEXT NOT NULL DEFAULT '',
    latest_update TEXT NOT NULL DEFAULT '',
    components TEXT NOT NULL DEFAULT '[]'
);
