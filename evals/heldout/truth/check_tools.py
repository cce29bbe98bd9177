"""Re-derive every expectation of out/cases/tools.yaml from the JSON data and compare.
Each entry returns the exact answer_first / conclusion / facts / forbidden the YAML must hold
(compared as sets). Run: python3 check_tools.py"""
import os, sys, re, yaml, collections
from truth import *

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, '..', '..', 'pending', 'tools.yaml')

def hhmm(s): return s[11:16]
def day(s): return s[:10]

def open_sorted_by_opened(rows): return [i['number'] for i in sorted(rows, key=lambda i: i['opened_at'])]

def briefing():
    p12 = nums(incidents(open_=True, prio=2))
    failing = [p for p in pipelines() if runs(p)[0]['status'] == 'Failed']
    degraded = sorted({c['platform'] for c in COMP if c['status'] == 'degraded'})
    inflight = [c['number'] for c in CHG if c['state'] not in CHG_CLOSED and T(c['start']) <= NOW + timedelta(hours=2) and T(c['end']) > NOW]
    top = by_priority(incidents(open_=True, prio=2))[0]['number']
    assert set(p12) == {'INC0010052', 'INC0010042', 'INC0010049', 'INC0010050'}, p12
    assert set(failing) == {'pl_ingest_sales', 'pl_load_finance_dwh', 'pl_transform_customer360', 'pl_export_marketing'}, failing
    assert degraded == ['Azure', 'Databricks', 'Snowflake'], degraded
    assert set(inflight) == {'CHG0030015', 'CHG0030022'}, inflight
    return top, p12, failing, degraded, inflight

def usual_is(pipeline, run_id, slow):
    r = RUN_BY[run_id]; lo, hi = usual_range(pipeline)
    lo2, hi2 = usual_range(pipeline, exclude=run_id)
    lo, hi = min(lo, lo2), max(hi, hi2)
    if slow: assert dur(r) > 1.5 * hi, (pipeline, dur(r), lo, hi)
    else: assert dur(r) <= 1.1 * hi, (pipeline, dur(r), lo, hi)
    return dur(r), lo, hi

def C():
    t = {}
    # ---- assignee
    t['tl-001-priya-working-on'] = dict(af=nums(incidents(open_=True, assignee='Priya Raman')), concl='af')
    t['tl-002-tomas-still-open'] = dict(af=nums(incidents(open_=True, assignee='Tomás Ortega')), concl='af', facts=['Tomás Ortega'])
    u = nums(incidents(open_=True, unassigned=True))
    t['tl-003-nobody-picked-up'] = dict(af=[str(len(u))], concl=u)
    t['tl-004-open-p3-unassigned'] = dict(af=nums(incidents(open_=True, unassigned=True, prio=3, prio_exact=True)), concl='af')
    dba_un = nums(incidents(group='Database Administration', unassigned=True))
    assert dba_un == nums(incidents(group='Database Administration', unassigned=True, open_=True))
    t['tl-005-dba-unassigned'] = dict(af=dba_un, concl='af')
    # ---- age
    o2 = nums(incidents(open_=True, opened_before=NOW - timedelta(days=2)))
    t['tl-010-open-older-than-2-days'] = dict(af=[str(len(o2))], concl=o2)
    assert incidents(open_=True, opened_before=NOW - timedelta(days=7)) == []
    t['tl-011-open-more-than-a-week'] = dict(af=['No'])
    t['tl-012-dpo-open-more-than-a-day'] = dict(af=nums(incidents(open_=True, group='Data Platform Ops', opened_before=NOW - timedelta(days=1))), concl='af')
    t['tl-013-opened-before-monday-still-open'] = dict(af=nums(incidents(open_=True, opened_before=datetime(2025, 1, 6))), concl='af')
    ci3 = nums(incidents(open_=True, group='Cloud Infrastructure', opened_before=NOW - timedelta(days=3)))
    assert ci3 == nums(incidents(open_=True, group='Cloud Infrastructure', opened_before=datetime(2025, 1, 7)))  # calendar reading agrees
    t['tl-014-cloud-infra-open-3-days'] = dict(af=ci3, concl='af')
    # ---- order
    t['tl-020-oldest-open-ticket'] = dict(af=[oldest(incidents(open_=True))['number']], concl='af')
    assert newest(incidents(prio=3, prio_exact=True)) == newest(incidents(prio=3, prio_exact=True, open_=True))
    t['tl-021-newest-p3'] = dict(af=[newest(incidents(prio=3, prio_exact=True))['number']], concl='af')
    ci = nums(by_priority(incidents(open_=True, group='Cloud Infrastructure')))
    t['tl-022-cloud-infra-highest-priority-first'] = dict(af=ci[:1], concl=ci)
    t['tl-023-open-p2-around-longest'] = dict(af=[oldest(incidents(open_=True, prio=2, prio_exact=True))['number']], concl='af')
    assert set(nums(incidents(open_=True, assignee='Elif Demir'))) == {'INC0010052', 'INC0010044'}
    t['tl-024-fu-elif-which-oldest'] = dict(af=[oldest(incidents(open_=True, assignee='Elif Demir'))['number']], concl='af')
    # ---- states / windows
    assert incidents(resolved=YESTERDAY) == []
    t['tl-030-resolved-yesterday'] = dict(af=['No'])
    rw = nums(incidents(resolved=THIS_WEEK))
    t['tl-031-resolved-this-week'] = dict(af=rw, concl='af')
    can7 = [i['number'] for i in incidents(state='Canceled') if inwin(T(i['opened_at']), LAST7) and inwin(T(i['updated_at']), LAST7)]
    assert can7 == [i['number'] for i in incidents(state='Canceled') if inwin(T(i['opened_at']), LAST7) or inwin(T(i['updated_at']), LAST7)]
    t['tl-032-canceled-last-7-days'] = dict(af=['Yes'], concl=can7)
    t['tl-033-p2-resolved-this-week'] = dict(af=nums(incidents(resolved=THIS_WEEK, prio=2, prio_exact=True)), concl='af')
    assert incidents(group='Network Operations', resolved=THIS_WEEK) == []
    t['tl-034-netops-resolved-this-week'] = dict(af=['No'])
    # ---- record text (the required word must occur in the record's own text)
    def rec(num, *words, extra=()):
        i = INC_BY[num]; txt = (i['short_description'] + ' ' + i['description']).lower()
        for w in words: assert w.lower() in txt, (num, w)
        return dict(facts=[num, *extra, *words])
    t['tl-040-why-inc45-canceled'] = rec('INC0010045', 'CHG0030017', 'planned')
    t['tl-041-what-does-inc31-say'] = rec('INC0010031', 'exemption')
    t['tl-042-why-inc29-cancelled'] = rec('INC0010029', 'catalog')
    t['tl-043-inc39-dedup-change'] = rec('INC0010039', 'CHG0030024')
    t['tl-044-how-was-inc32-fixed'] = rec('INC0010032', '30 min')
    # ---- runs by status
    cw = runs(status='Cancelled', window=THIS_WEEK)
    t['tl-050-cancelled-runs-this-week'] = dict(af=['Yes', str(len(cw))], facts=[r['pipeline_name'] for r in cw])
    q = runs(status='Queued'); assert len(q) == 1
    t['tl-051-whats-queued'] = dict(af=[q[0]['pipeline_name']])
    assert runs(factory='adf-prod-neu', status=['InProgress', 'Queued']) == []
    t['tl-052-neu-anything-running'] = dict(af=['No'], facts=['adf-prod-neu'])
    t['tl-053-cancelled-last-7-days-count'] = dict(af=[str(len(runs(status='Cancelled', window=LAST7)))])
    wc = runs('pl_ingest_web_events', status='Cancelled')
    t['tl-054-web-events-cancelled'] = dict(af=['Yes', str(len(wc))], facts=[day(r['start']) for r in wc])
    # ---- last failure / success
    r = latest('pl_sync_hr_workday', 'Failed'); t['tl-060-hr-workday-last-fail'] = dict(af=[day(r['start']), hhmm(r['start'])])
    r = latest('pl_ingest_sales', 'Succeeded'); t['tl-061-sales-last-success'] = dict(af=[day(r['start']), hhmm(r['start'])])
    assert runs('pl_dq_checks_daily', status='Failed') == []
    t['tl-062-dq-checks-ever-failed'] = dict(af=['No'])
    r = latest('pl_copy_erp_orders', 'Failed'); assert 'vm-shir-02' in r['error_message']
    t['tl-063-erp-last-failure-why'] = dict(af=[day(r['start'])], facts=['vm-shir-02'])
    r = latest('pl_transform_pricing_model', 'Failed')
    assert runs('pl_transform_pricing_model')[0]['run_id'] == '94a4d46b-0def-4771-ab6b-75998618fce1'
    t['tl-064-fu-pricing-last-fail'] = dict(af=[day(r['start'])], facts=['pl_transform_pricing_model'])
    # ---- duration vs usual
    lp = runs('pl_transform_pricing_model')[0]; d, _, _ = usual_is('pl_transform_pricing_model', lp['run_id'], True)
    t['tl-070-pricing-latest-slow'] = dict(af=['Yes'], facts=['%d' % d])
    lw = runs('pl_ingest_web_events')[0]; assert lw['status'] == 'InProgress'
    usual_is('pl_ingest_web_events', lw['run_id'], False)
    t['tl-071-web-events-current-run-slow'] = dict(af=['No'], facts=['pl_ingest_web_events'])
    lf = runs('pl_load_finance_dwh')[0]; lo, hi = usual_range('pl_load_finance_dwh')
    assert int(lo) == int(hi) == 45
    t['tl-072-finance-duration-vs-normal'] = dict(af=['%d' % dur(lf)], facts=['45'])
    le = runs('pl_copy_erp_orders')[0]; assert le['status'] == 'Succeeded'; d, lo, hi = usual_is('pl_copy_erp_orders', le['run_id'], False)
    assert lo <= d <= hi
    t['tl-073-erp-last-run-normal'] = dict(af=['Yes'], facts=['pl_copy_erp_orders'])
    li = runs('pl_ingest_iot_telemetry')[0]; d, lo, hi = usual_is('pl_ingest_iot_telemetry', li['run_id'], False); assert d <= lo
    t['tl-074-iot-latest-slow'] = dict(af=['No'])
    # ---- error history
    lc = runs('pl_transform_customer360', status='Failed')[0]
    sm, sc = same_error_before(lc, 'message'), same_error_before(lc, 'code'); assert sm == sc
    t['tl-080-c360-failed-like-this-before'] = dict(af=['Yes'], facts=[day(sm[1]['start'])])
    ls = runs('pl_ingest_sales', status='Failed')[0]
    before_today = lambda rs: [x for x in rs if T(x['start']) < TODAY[0]]
    bm, bc = before_today(same_error_before(ls, 'message')), before_today(same_error_before(ls, 'code'))
    assert bm[0]['start'] in [x['start'] for x in bc] and day(bm[0]['start']) == '2025-01-05'
    t['tl-081-sales-file-not-found-before-today'] = dict(af=['Yes'], facts=[day(bm[0]['start'])])
    lm = runs('pl_export_marketing', status='Failed')[0]; sm = same_error_before(lm, 'message'); assert sm == same_error_before(lm, 'code')
    t['tl-082-marketing-timeout-seen-before'] = dict(af=['Yes'], facts=[day(sm[0]['start'])])
    lerp = runs('pl_copy_erp_orders', status='Failed')[0]; assert same_error_before(lerp, 'code') == []
    t['tl-083-erp-shir-offline-before'] = dict(af=['No'])
    r18 = RUN_BY['18b8104f-06e8-4af7-ba52-fa300d8046f7']; sm = same_error_before(r18)
    t['tl-084-fu-c360-failed-like-that'] = dict(af=['Yes'], facts=[day(sm[1]['start']), day(sm[2]['start'])])
    # ---- counts
    n = runs(factory='adf-prod-neu', window=H24); assert all(x['status'] == 'Succeeded' for x in n)
    t['tl-090-neu-runs-24h'] = dict(af=[str(len(n))])
    pf = collections.Counter(x['factory'] for x in runs(status='Failed', window=LAST7))
    t['tl-091-failed-per-factory-7d'] = dict(af=[str(pf['adf-prod-weu'])], facts=['adf-prod-weu', 'adf-prod-neu'])
    pp = collections.Counter(x['pipeline_name'] for x in runs(status='Failed', window=THIS_WEEK))
    top = pp.most_common(1)[0]; assert top[1] > pp.most_common(2)[1][1]
    t['tl-092-failures-per-pipeline-this-week'] = dict(af=[top[0]], concl=list(pp))
    t['tl-093-web-events-runs-today'] = dict(af=[str(len(runs('pl_ingest_web_events', window=TODAY)))])
    tc = collections.Counter(i['assignment_group'] for i in incidents(opened=THIS_WEEK)).most_common(2)
    assert tc[0][1] > tc[1][1]
    t['tl-094-team-most-incidents-this-week'] = dict(af=[tc[0][0]], facts=[str(tc[0][1])])
    # ---- health since when
    h = health_incidents('Databricks')[0]; assert 'West Europe' in h['title']
    t['tl-100-dbx-weu-degraded-since'] = dict(af=[hhmm(h['started'])], facts=[components('Databricks', not_ok=True)[0]['name']])
    h = [x for x in health_incidents('Azure') if 'Databricks' in x['title']][0]
    t['tl-101-azure-dbx-weu-how-long'] = dict(af=[hhmm(h['started'])])
    h = [x for x in health_incidents('Azure') if 'SQL Managed Instance' in x['title']][0]
    assert components('Azure', 'North Europe', not_ok=True)[0]['status'] == 'maintenance'
    t['tl-102-sqlmi-neu-maintenance-start'] = dict(af=[hhmm(h['started'])], facts=['maintenance'])
    assert components('Databricks', 'AWS eu-west-1', not_ok=True) == [] and len(components('Databricks', 'AWS eu-west-1')) == 5
    t['tl-103-dbx-aws-eu-west-1'] = dict(af=['Yes'], facts=['eu-west-1'])
    bad = components('Azure', 'North Europe', not_ok=True); assert len(bad) == 1
    t['tl-104-azure-neu-not-operational-since'] = dict(af=[bad[0]['name']], facts=[hhmm(h['started'])])
    # ---- similar past incidents
    def sim(num, required, word=None):
        i = INC_BY[num]
        found = past_like(ci=i['configuration_item'])
        for req in required: assert req in found or req in past_like(pipeline=word or ''), (num, req, found)
        return found
    sim('INC0010052', ['INC0010035']); assert 'cache' in INC_BY['INC0010035']['description']
    t['tl-110-portal-seen-before-fix'] = dict(facts=['INC0010035', 'cache'])
    sim('INC0010042', ['INC0010016']); t['tl-111-vpn-similar'] = dict(facts=['INC0010016'])
    assert past_like(pipeline='pl_load_finance_dwh') == ['INC0010014'] and 'quota' in INC_BY['INC0010014']['description'].lower()
    t['tl-112-finance-what-fixed-last-time'] = dict(facts=['INC0010014', 'quota'])
    f = sim('INC0010050', ['INC0010019', 'INC0010032']); assert past_like(pipeline='pl_transform_customer360') == []
    t['tl-113-inc50-seen-before'] = dict(facts=['INC0010019', 'INC0010032'])
    assert sim('INC0010054', ['INC0010022']) == ['INC0010022']; t['tl-114-inc54-similar'] = dict(facts=['INC0010022'])
    assert sim('INC0010048', ['INC0010045']) == ['INC0010045']; t['tl-115-fu-inc48-happened-before'] = dict(facts=['INC0010045'])
    # ---- briefing
    top, p12, failing, degraded, inflight = briefing()
    t['tl-120-before-my-shift'] = dict(af=[top], facts=['INC0010049', 'INC0010050', 'INC0010042', 'pl_ingest_sales', 'pl_transform_customer360', 'Databricks', 'Snowflake', 'CHG0030015', 'CHG0030022'])
    t['tl-121-anything-on-fire'] = dict(af=['Yes', top], facts=['INC0010049', 'INC0010050', 'pl_ingest_sales', 'Databricks'])
    t['tl-122-took-over-pager'] = dict(af=[top], facts=['INC0010049', 'INC0010050', 'INC0010042', 'pl_ingest_sales', 'Snowflake', 'CHG0030015'])
    t['tl-123-morning-start-shift'] = dict(af=[top], facts=['INC0010049', 'INC0010050', 'pl_transform_customer360', 'Databricks', 'CHG0030022'])
    t['tl-124-whats-burning'] = dict(af=[top], facts=['INC0010049', 'INC0010050', 'pl_ingest_sales', 'Snowflake'])
    for k in ('tl-120-before-my-shift', 'tl-121-anything-on-fire', 'tl-122-took-over-pager', 'tl-123-morning-start-shift', 'tl-124-whats-burning'):
        for f_ in t[k]['facts']:
            assert f_ in p12 + failing + degraded + inflight, (k, f_)
    # ---- help / action: ids named must exist
    for k in ('tl-130-hi', 'tl-131-what-can-you-do', 'tl-132-thanks', 'tl-133-help', 'tl-134-new-here-what-to-ask', 'tl-141-page-portal-on-call'):
        t[k] = dict()
    for k, rid in (('tl-140-ack-inc52', 'INC0010052'), ('tl-142-rerun-sales', 'pl_ingest_sales'), ('tl-143-scale-up-wh-finance', 'WH_FINANCE'),
                   ('tl-144-approve-chg22', 'CHG0030022'), ('tl-145-close-inc45', 'INC0010045'), ('tl-146-fu-ack-the-p1', 'INC0010052')):
        assert rid in INC_BY or rid in CHG_BY or rid in pipelines() or any(rid in i['description'] for i in INC), rid
        t[k] = dict(facts=[rid])
    assert CHG_BY['CHG0030022']['approval'] == 'requested' and INC_BY['INC0010045']['state'] == 'Canceled'
    return t

def compare(cases, truth, prefix):
    ok = True
    ids = {c['id'] for c in cases}
    missing = ids ^ set(truth)
    if missing: print('truth/case id mismatch:', missing); ok = False
    for c in cases:
        tr = truth.get(c['id'])
        if tr is None: continue
        e = c['expect']
        af = tr.get('af', []); concl = af if tr.get('concl') == 'af' else tr.get('concl')
        checks = [('answer_first', set(e.get('answer_first', [])), set(af)),
                  ('facts', set(e.get('facts', [])), set(tr.get('facts', []) or []))]
        if concl is not None or 'conclusion' in e:
            checks.append(('conclusion', set((e.get('conclusion') or {}).get('names', [])), set(concl or [])))
        for name, got, want in checks:
            if got != want:
                print(f"{c['id']}: {name} yaml={sorted(got)} truth={sorted(want)}"); ok = False
        # forbidden ids must not be part of the truth
        for f in e.get('forbidden', []):
            if f in set(af) | set(concl or []) | set(tr.get('facts', [])):
                print(f"{c['id']}: forbidden {f} is true"); ok = False
    return ok

if __name__ == '__main__':
    cases = yaml.safe_load(open(CASES))
    ok = compare(cases, C(), 'tl-')
    print('tools.yaml truth check:', 'OK' if ok else 'FAILED', f'({len(cases)} cases)')
    sys.exit(0 if ok else 1)
