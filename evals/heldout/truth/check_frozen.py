"""Re-derive every expectation of out/heldout/frozen.yaml from the JSON data and compare
(answer_first / conclusion / facts as sets; forbidden strings must be false). Run: python3 check_frozen.py"""
import os, sys, yaml, collections
from truth import *
from check_tools import compare, briefing, usual_is, day, hhmm

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, '..', 'frozen.yaml')
TWO_WEEKS = RETENTION

def F():
    t = {}
    # ---- existence
    p1 = incidents(prio=1, prio_exact=True); assert [i['number'] for i in p1] == ['INC0010052'] and p1[0]['assigned_to']
    t['fz-001-p1-without-assignee'] = dict(af=['No'])
    assert runs('pl_copy_erp_orders', status='Failed', window=THIS_WEEK) == []
    t['fz-002-erp-failed-this-week'] = dict(af=['No'], facts=['pl_copy_erp_orders'])
    sp = [c for c in components('Snowflake', 'Azure - West Europe (Netherlands)') if c['name'] == 'Snowpipe'][0]; assert sp['status'] == 'operational'
    t['fz-003-snowpipe-weu'] = dict(af=['Yes'], facts=['Snowpipe'])
    w = [c['number'] for c in changes(ci='st-datalake-prod', open_=True) if c['approval'] == 'requested']
    assert w == ['CHG0030019']
    t['fz-004-datalake-change-awaiting-approval'] = dict(af=['Yes'] + w)
    assert runs(factory='adf-prod-neu', status='Cancelled', window=TWO_WEEKS) == []
    t['fz-005-neu-cancelled-2-weeks'] = dict(af=['No'], facts=['adf-prod-neu'])
    o = nums(incidents(text='openssl')); assert o == ['INC0010043'] and INC_BY[o[0]]['state'] in OPEN
    t['fz-006-openssl-ticket'] = dict(af=['Yes'] + o)
    # ---- count
    t['fz-010-open-p4-count'] = dict(af=[str(len(incidents(open_=True, prio=4, prio_exact=True)))])
    it = runs('pl_ingest_iot_telemetry', window=TODAY); assert all(r['status'] == 'Succeeded' for r in it)
    t['fz-011-iot-runs-today-any-fail'] = dict(af=[str(len(it))], facts=['pl_ingest_iot_telemetry'])
    nu = incidents(state='New', unassigned=True); assert len(nu) == len(incidents(state='New'))
    t['fz-012-new-and-unassigned-count'] = dict(af=[str(len(nu))])
    t['fz-014-web-events-failures-retention'] = dict(af=[str(len(runs('pl_ingest_web_events', status='Failed', window=TWO_WEEKS)))], facts=['pl_ingest_web_events'])
    pf = collections.Counter(r['factory'] for r in runs(status='Failed', window=THIS_WEEK)); assert pf['adf-prod-neu'] == 0
    t['fz-015-failed-per-factory-since-monday'] = dict(af=[str(pf['adf-prod-weu'])], facts=['adf-prod-weu', 'adf-prod-neu'])
    # ---- which
    oh = [i for i in incidents(state='On Hold') if 'CHG' in i['description']]
    import re
    chgs = [re.search(r'awaiting (?:change )?(CHG\d+)', i['description']).group(1) for i in oh]   # the change each one waits for
    t['fz-020-on-hold-blocked-on-change'] = dict(af=nums(oh), facts=chgs)
    op3 = oldest(incidents(open_=True, prio=3, prio_exact=True))
    t['fz-021-team-oldest-open-p3'] = dict(af=[op3['assignment_group']], facts=[op3['number']])
    p4t = nums(incidents(prio=4, prio_exact=True, opened=TODAY))
    t['fz-022-p4s-opened-today'] = dict(af=p4t, concl='af')
    bad = components('Databricks', not_ok=True); assert len(bad) == 1 and bad[0]['region'] == 'Azure West Europe'
    t['fz-023-dbx-regions-not-green'] = dict(af=['West Europe'], facts=[bad[0]['name']])
    ft = {r['pipeline_name'] for r in runs(status='Failed', window=TODAY)}
    cnt = {p: len(runs(p, status='Failed', window=TWO_WEEKS)) for p in ft}
    best = max(cnt, key=cnt.get); assert sorted(cnt.values())[-1] > sorted(cnt.values())[-2]
    t['fz-024-todays-failures-worst-history'] = dict(af=[best], facts=[str(cnt[best])])
    # ---- record
    i = INC_BY['INC0010041']; t['fz-030-inc41-latest'] = dict(facts=['INC0010041', i['state'], i['assigned_to']])
    eh = incidents(ci='eh-prod-weu'); assert len(eh) == 1 and 'auto-inflate' in eh[0]['description'].lower() and eh[0]['opened_at'].startswith('2025-01-05')
    t['fz-031-eh-throttling-fix'] = dict(facts=[eh[0]['number'], 'auto-inflate'])
    r = RUN_BY['302208e9-8310-458f-90fe-574ae932eea8']
    fa = [a for a in ACTS if a['run_id'] == r['run_id'] and a['status'] == 'Failed'][0]
    t['fz-032-run-302208e9-what-broke'] = dict(facts=[r['pipeline_name'], fa['activity_name'], fa['error_code']])
    ce = nums(incidents(text='api-gateway')); assert ce == ['INC0010044']; i = INC_BY[ce[0]]
    t['fz-033-cert-ticket-owner-state'] = dict(facts=[i['number'], i['assigned_to'], i['state']])
    # ---- correlation
    iot = nums(incidents(text='pl_ingest_iot_telemetry')); assert iot == ['INC0010040']
    t['fz-040-iot-ticket-and-status-now'] = dict(facts=iot + [runs('pl_ingest_iot_telemetry')[0]['status']])
    sf = T(health_incidents('Snowflake')[0]['started'])
    fs = []
    for r in sorted(runs(status='Failed', window=(sf, NOW)), key=lambda r: r['start']):
        if r['pipeline_name'] not in fs: fs.append(r['pipeline_name'])
    t['fz-041-failures-since-snowflake-incident'] = dict(af=fs, concl='af')
    ci = CHG_BY['CHG0030012']['configuration_item']
    t['fz-042-chg12-ci-open-tickets'] = dict(af=['Yes'], facts=[ci] + nums(incidents(open_=True, ci=ci)))
    c24 = CHG_BY['CHG0030024']; assert 'De-duplicate' in c24['short_description'] and T(c24['start']).weekday() == 3
    assert runs(status='Failed', window=(T(c24['start']), T(c24['end']) + timedelta(hours=1))) == []
    t['fz-044-dedup-change-broke-pipelines'] = dict(af=['No'], facts=['CHG0030024'])
    fut = [c['number'] for c in changes(ci='vm-shir-02') if T(c['start']) > NOW and c['state'] not in CHG_CLOSED]
    s2 = sorted({r['pipeline_name'] for r in runs(status='Failed', window=TWO_WEEKS) if 'vm-shir-02' in r['error_message']})
    t['fz-045-shir02-plans-and-failures'] = dict(facts=fut + s2)
    # ---- follow-ups
    t['fz-050-fu-on-hold-newest'] = dict(af=[newest(incidents(state='On Hold'))['number']], concl='af')
    inv = runs('pl_load_inventory_snapshot', status='Failed'); assert len(inv) == 1 and inv[0]['run_id'].startswith('4645c02c')
    t['fz-051-fu-inventory-first-time'] = dict(af=['Yes'])   # 'was that the first time?' -> yes
    dbx_start = T(health_incidents('Databricks')[0]['started'])
    launch = sorted({r['pipeline_name'] for r in runs(status='Failed', window=(dbx_start, NOW)) if 'CLOUD_PROVIDER_LAUNCH_FAILURE' in r['error_message']})
    assert launch == ['pl_transform_customer360']
    t['fz-052-fu-dbx-anything-of-ours'] = dict(af=launch, facts=['3200'])
    assert INC_BY['INC0010054']['assigned_to'] == ''
    t['fz-053-fu-assign-to-marek'] = dict(facts=['INC0010054'])
    arch = runs('pl_archive_logs', status='Cancelled', window=THIS_WEEK)[0]; assert arch['error_message'] == 'Pipeline run was cancelled by a user.'
    t['fz-055-fu-who-cancelled-archive'] = dict(facts=['pl_archive_logs', 'user'])
    # ---- clarify / reject / help
    for k in ('fz-060-did-it-work', 'fz-061-whos-on-it', 'fz-062-look-at-the-failing-one', 'fz-063-is-the-change-done',
              'fz-065-reset-mfa', 'fz-066-msft-stock', 'fz-067-haiku-on-call', 'fz-068-lunch-spot',
              'fz-070-yo', 'fz-071-what-kinda-stuff', 'fz-072-ty-thats-all', 'fz-075-silence-alerts', 'fz-076-kick-off-pbi-refresh'):
        t[k] = dict()
    assert len([p for p in pipelines() if runs(p)[0]['status'] == 'Failed']) > 1   # fz-062 really is ambiguous
    assert runs('pl_refresh_powerbi_datasets')[0]['status'] == 'Queued'
    # ---- action
    assert INC_BY['INC0010053']['state'] == 'New' and CHG_BY['CHG0030016']['approval'] == 'requested'
    t['fz-077-put-inc53-on-hold'] = dict(facts=['INC0010053'])
    t['fz-078-reject-chg16'] = dict(facts=['CHG0030016'])
    # ---- not found
    assert 'INC0010013' not in INC_BY; t['fz-080-inc13-not-found'] = dict(facts=['INC0010013'])
    assert 'CHG0030030' not in CHG_BY; t['fz-081-chg30-not-found'] = dict(facts=['CHG0030030'])
    rid = '5f3e2a10-9b7c-4c1d-9e8f-123456789abc'; assert rid not in RUN_BY and all(a['run_id'] != rid for a in ACTS)
    t['fz-082-run-not-found'] = dict(facts=[rid])
    assert not any('australia' in c['region'].lower() for c in COMP)
    t['fz-083-dbx-australia-east'] = dict(facts=['Australia East'])
    assert not any(x['configuration_item'] == 'adf-prod-eus' for x in INC + CHG)
    t['fz-085-ci-not-found'] = dict(facts=['adf-prod-eus'])
    # ---- new capabilities
    t['fz-090-unassigned-longest'] = dict(af=[oldest(incidents(open_=True, unassigned=True))['number']], concl='af')
    no = nums(incidents(open_=True, group='Network Operations', opened_before=NOW - timedelta(days=1)))
    t['fz-091-netops-open-over-a-day'] = dict(af=['Yes'] + no, concl=no)
    s = runs('pl_copy_supplier_invoices', status='Failed'); assert len(s) == 1 and 'Sftp' in s[0]['error_message']
    t['fz-092-supplier-last-fail-why'] = dict(af=[day(s[0]['start'])], facts=['SFTP'])
    r = RUN_BY['18b8104f-06e8-4af7-ba52-fa300d8046f7']; assert hhmm(r['start']) == '07:20'
    lo, hi = usual_range('pl_transform_customer360'); assert dur(r) < lo
    t['fz-094-c360-0720-duration'] = dict(af=['%d' % dur(r)])
    r = RUN_BY['96244fdd-c5d2-4f91-899e-56892ae19f56']; assert hhmm(r['start']) == '18:12'
    sm = same_error_before(r); assert len(sm) == 6
    t['fz-095-crm-shir-offline-seen-before'] = dict(af=['Yes'], facts=[day(sm[0]['start'])])
    assert past_like(ci=INC_BY['INC0010036']['configuration_item']) == ['INC0010020']
    t['fz-096-storage-quota-similar'] = dict(facts=['INC0010020'])
    top, p12, failing, degraded, inflight = briefing()
    t['fz-098-on-call-rundown'] = dict(af=[top], facts=['INC0010049', 'INC0010050', 'INC0010042', 'pl_ingest_sales', 'Databricks', 'Snowflake', 'CHG0030015'])
    for f_ in t['fz-098-on-call-rundown']['facts']: assert f_ in p12 + failing + degraded + inflight
    rc = collections.Counter(i['assignment_group'] for i in incidents(state=['Resolved', 'Closed'], resolved=TWO_WEEKS)).most_common(2)
    assert rc[0][1] > rc[1][1]
    rc2 = collections.Counter(i['assignment_group'] for i in incidents(open_=False)).most_common(2)
    assert rc2[0][0] == rc[0][0] and rc2[0][1] > rc2[1][1]   # still first when Canceled is counted
    t['fz-099-team-most-resolved-2-weeks'] = dict(af=[rc[0][0]], facts=[str(rc[0][1])])
    ov = runs(status='Cancelled', window=(datetime(2025, 1, 9, 18), datetime(2025, 1, 10, 6)))
    assert len(ov) == 1
    t['fz-101-cancelled-overnight'] = dict(af=['Yes', ov[0]['pipeline_name']])
    sq = nums(incidents(ci='sqlmi-prod-weu', resolved=THIS_WEEK))
    t['fz-102-sqlmi-resolved-this-week'] = dict(af=['Yes'] + sq)
    return t

if __name__ == '__main__':
    cases = yaml.safe_load(open(CASES))
    ok = compare(cases, F(), 'fz-')
    print('frozen.yaml truth check:', 'OK' if ok else 'FAILED', f'({len(cases)} cases)')
    sys.exit(0 if ok else 1)
