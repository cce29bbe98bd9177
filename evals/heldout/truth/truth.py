"""Shared helpers over the demo data at 2025-01-10T09:00Z (the eval clock).
Every expectation in out/cases/tools.yaml and out/heldout/frozen.yaml is re-derived by
check_tools.py / check_frozen.py with these helpers."""
import json, os, statistics, collections
from datetime import datetime, timedelta

DATA = os.environ.get('DEMO_EXPORT', os.path.join(os.path.dirname(__file__), 'demo-data-at-2025-01-10T0900Z'))
NOW = datetime(2025, 1, 10, 9, 0)
OPEN = {'New', 'In Progress', 'On Hold'}
CHG_CLOSED = {'Closed', 'Canceled'}

def T(s):
    return datetime.strptime(s, '%Y-%m-%dT%H:%MZ') if s else None

def load(name):
    with open(os.path.join(DATA, name + '.json')) as f:
        return json.load(f)

INC = load('incidents')
CHG = load('change_requests')
RUNS = load('pipeline_runs')
ACTS = load('activity_runs')
COMP = load('health_components')
HINC = load('health_incidents')
INC_BY = {i['number']: i for i in INC}
CHG_BY = {c['number']: c for c in CHG}
RUN_BY = {r['run_id']: r for r in RUNS}

# windows
H24 = (NOW - timedelta(hours=24), NOW)
TODAY = (datetime(2025, 1, 10), NOW)
YESTERDAY = (datetime(2025, 1, 9), datetime(2025, 1, 10))
THIS_WEEK = (datetime(2025, 1, 6), NOW)
LAST7 = (NOW - timedelta(days=7), NOW)
RETENTION = (NOW - timedelta(days=14), NOW)

def inwin(t, w):
    return t is not None and w[0] <= t < w[1]

# ---------------- incidents
def incidents(state=None, open_=None, prio=None, prio_exact=False, group=None, assignee=None,
              unassigned=None, ci=None, opened=None, opened_before=None, resolved=None, text=None):
    out = []
    for i in INC:
        if open_ is True and i['state'] not in OPEN: continue
        if open_ is False and i['state'] in OPEN: continue
        if state and i['state'] not in ([state] if isinstance(state, str) else state): continue
        if prio is not None:
            if prio_exact and i['priority'] != prio: continue
            if not prio_exact and i['priority'] > prio: continue
        if group and i['assignment_group'] != group: continue
        if assignee and i['assigned_to'] != assignee: continue
        if unassigned is True and i['assigned_to']: continue
        if ci and i['configuration_item'] != ci: continue
        if opened and not inwin(T(i['opened_at']), opened): continue
        if opened_before and not T(i['opened_at']) < opened_before: continue
        if resolved and not inwin(T(i['resolved_at']), resolved): continue
        if text and text.lower() not in (i['short_description'] + ' ' + i['description']).lower(): continue
        out.append(i)
    return out

def nums(rows, key='number'):
    return [r[key] for r in rows]

def oldest(rows):
    return min(rows, key=lambda i: i['opened_at'])

def newest(rows):
    return max(rows, key=lambda i: i['opened_at'])

def by_priority(rows):
    return sorted(rows, key=lambda i: (i['priority'], i['opened_at']))

# ---------------- changes
def changes(state=None, open_=None, type_=None, approval=None, ci=None, overlaps=None):
    out = []
    for c in CHG:
        if open_ is True and c['state'] in CHG_CLOSED: continue
        if state and c['state'] not in ([state] if isinstance(state, str) else state): continue
        if type_ and c['type'] != type_: continue
        if approval and c['approval'] != approval: continue
        if ci and c['configuration_item'] != ci: continue
        if overlaps and not (T(c['start']) < overlaps[1] and T(c['end']) > overlaps[0]): continue
        out.append(c)
    return out

# ---------------- runs
def runs(pipeline=None, factory=None, status=None, window=None):
    out = []
    for r in RUNS:
        if pipeline and r['pipeline_name'] != pipeline: continue
        if factory and r['factory'] != factory: continue
        if status and r['status'] not in ([status] if isinstance(status, str) else status): continue
        if window and not inwin(T(r['start']), window): continue
        out.append(r)
    return sorted(out, key=lambda r: r['start'], reverse=True)

def pipelines(factory=None):
    return sorted({r['pipeline_name'] for r in RUNS if not factory or r['factory'] == factory})

def latest(pipeline, status=None):
    rs = runs(pipeline, status=status)
    return rs[0] if rs else None

def dur(r):
    end = T(r['end']) if r['end'] else NOW
    return (end - T(r['start'])).total_seconds() / 60

def usual(pipeline, n=None, exclude=None):
    """median duration of successful runs (the n most recent; all when n is None)."""
    rs = [r for r in runs(pipeline, status='Succeeded') if r['run_id'] != exclude]
    if n: rs = rs[:n]
    return statistics.median(dur(r) for r in rs)

def usual_range(pipeline, exclude=None):
    vals = [usual(pipeline, n, exclude) for n in (5, 7, 10, 14, 20, None)]
    return min(vals), max(vals)

def short_error(r):
    m = r['error_message']
    for key in ('ErrorCode=', 'Reason: ', "self-hosted integration runtime", 'Response status code', 'ImportError', 'Execution Timeout', 'Statement reached'):
        if key in m:
            return r['error_code'] + ' ' + m[m.index(key):][:60]
    return r['error_code'] + ' ' + m[:60]

def same_error_before(run, by='message'):
    """earlier failed runs of the same pipeline with the same error (code+message signature or code)."""
    out = []
    for r in runs(run['pipeline_name'], status='Failed'):
        if r['start'] >= run['start']: continue
        if by == 'code' and r['error_code'] == run['error_code']: out.append(r)
        if by == 'message' and short_error(r) == short_error(run): out.append(r)
    return out

# ---------------- health
def components(platform=None, region=None, not_ok=False):
    out = []
    for c in COMP:
        if platform and c['platform'] != platform: continue
        if region and c['region'] != region: continue
        if not_ok and c['status'] == 'operational': continue
        out.append(c)
    return out

def health_incidents(platform=None):
    return [h for h in HINC if not platform or h['platform'] == platform]

# ---------------- similar past incidents
def past_like(ci=None, pipeline=None):
    out = []
    for i in INC:
        if i['state'] in OPEN: continue
        if ci and i['configuration_item'] == ci: out.append(i['number']); continue
        if pipeline and pipeline in (i['short_description'] + i['description']): out.append(i['number'])
    return out
