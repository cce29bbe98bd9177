"""Shapes an eleventh blind set of answers (dev10) showed the checks misread, most of them true answers blocked:
numbers an answer works out from its own ("9 of 49 runs = 18.4%", "217 more runs"), "the other 7 had no
failures", "nothing logged on it since <its last update>", advice ("no need for a new ticket"), "the only one
nobody is on", a count followed by its list after a colon, a port that is no count, and a time an earlier turn
gave. Evidence comes from the real tools on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

from datetime import datetime

from opsagent.intake.analyzer import analyse_question
from opsagent.contracts.messages import MessageData
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import INVENTORY, failed, rows_of


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_a_share_worked_out_from_the_answers_own_counts_is_backed() -> None:
    results = evidence("query_pipeline_status", time_window="last 24 hours")
    rows = rows_of(results)
    runs, failures = sum(row["runs"] for row in rows), sum(row["failed"] for row in rows)
    share = 100 * failures / runs
    assert round(share, 1) not in {row.get("success_rate_pct") for row in rows}  # the oracle: no row says it
    said = f"Failure rate: {failures} of {runs} runs = {{:.1f}}%."
    question = "whats the failure rate over the last 24h?"
    assert not failed(question, said.format(share), results, "number")
    assert failed(question, said.format(share + 1), results, "number")
    # a share of a status ("249 succeeded") is no share of the runs: only a count of records is a whole
    [busiest] = sorted(rows, key=lambda row: -row["runs"])[:1]
    wrong = 100 * busiest["failed"] / busiest["succeeded"]
    if abs(wrong - 100 * busiest["failed"] / busiest["runs"]) > 0.1:
        assert failed(question, f"{busiest['pipeline_name']}: {busiest['runs']} runs — {busiest['succeeded']} "
                      f"succeeded, {busiest['failed']} failed. Failure rate {wrong:.1f}%.", results, "number")


def test_a_difference_and_a_ratio_of_the_answers_own_numbers_are_backed() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    first, second = sorted(rows, key=lambda row: -row["runs"])[:2]
    if first["runs"] == second["runs"]:
        return  # nothing to compare (the demo data has a busiest pipeline)
    more = first["runs"] - second["runs"]
    said = (f"{first['pipeline_name']} ran {first['runs']} runs and {second['pipeline_name']} {second['runs']}, "
            f"so the first ran {{}} more runs.")
    question = "which pipelines ran most this week?"
    assert not failed(question, said.format(more), results, "number")
    assert failed(question, said.format(more + 7), results, "number")


def test_the_other_n_with_none_are_the_rows_counting_none() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(results)
    clean = sum(row["failed"] == 0 for row in rows)
    assert 0 < clean < len(rows)  # the oracle: some pipelines failed, some did not
    question = "how many pipelines had at least one failure in the last 7 days?"
    text = f"{len(rows) - clean} of the {len(rows)} pipelines had at least one failed run. The other {{}} had no failures."
    assert not failed(question, text.format(clean), results, "negative_claim")
    assert failed(question, text.format(clean + 1), results, "negative_claim")


def test_nothing_logged_since_a_records_last_update() -> None:
    results = evidence("get_incident", number="INC0010042")
    [row] = rows_of(results)
    updated = _moment(row["updated_at"])
    question = "any movement on INC0010042?"
    said = "Nothing has been logged on it since {}, so I'd ask the assignee for the carrier's status."
    assert not failed(question, said.format(f"{updated:%a %-d %b} {updated:%H:%M}"), results)
    # a day after the last update is no bound the record shows
    assert failed(question, said.format(f"{updated:%a %-d %b} {updated.hour - 1:02d}:{updated:%M}"), results)


def test_advice_and_a_bare_answer_are_no_search_results() -> None:
    results = evidence("list_incidents", text="pl_copy_crm_accounts")
    [row] = rows_of(results)
    question = "is there a ticket for pl_copy_crm_accounts already?"
    assert not failed(question, f"Yes — {row['number']}. No need for a new ticket; add anything new to that one.",
                      results, "negative_claim")
    assert not failed(question, f"And no: {row['number']} is the one to use.", results, "negative_claim")


def test_the_only_one_nobody_is_on_is_an_assignee_value() -> None:
    results = evidence("list_incidents", assignment_group="Database Administration")
    unowned = [row for row in rows_of(results) if not row.get("assigned_to")]
    assert len(unowned) == 1  # the oracle: one ticket without an assignee
    assert not failed("anything unowned for the DBAs?", f"Yes — {unowned[0]['number']}; it's the only one nobody is on.",
                      results, "negative_claim")


def test_a_count_followed_by_its_list_after_a_colon() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_copy_crm_accounts")
    [history] = rows_of(results)
    starts = sorted((_moment(start) for group in history["failure_groups"] for start in group["starts"]), reverse=True)
    assert len(starts) >= 4
    listed = ", ".join(f"{moment.day} {moment:%b %H:%M}" for moment in starts[:3])
    question = "has the crm copy failed like this before?"
    assert not failed(question, f"The three most recent: {listed}.", results, "number")


def test_a_port_is_no_count() -> None:
    results = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours")
    assert "443" in str(rows_of(results))  # the oracle: the error names the port
    assert not failed("why did the crm copy fail?", "The run failed: connection to crm.example.com:443 failed from "
                      "vm-shir-01.", results, "number")


def test_a_time_an_earlier_turn_gave_may_be_said_again_but_not_as_a_records_own() -> None:
    history = [MessageData(role="user", content="why did pl_copy_crm_accounts fail overnight?"),
               MessageData(role="assistant", content="It failed at 00:10 UTC: it couldn't connect from vm-shir-01.")]
    results = evidence("list_incidents", text="pl_copy_crm_accounts")
    [row] = rows_of(results)
    opened = _moment(row["opened_at"])
    question = "is there a ticket for that already?"
    analysis = analyse_question(question, history, now=NOW, inventory=INVENTORY)
    earlier = "\n".join(turn.content for turn in history)

    def fails(text: str) -> bool:
        return any(not check.passed and check.kind == "placement" for check in
                   evaluate(text, results, analysis=analysis, question=question, earlier=earlier))

    assert not fails(f"Yes — {row['number']}, opened today at {opened:%H:%M} UTC, half an hour after the 00:10 failure.")
    assert fails(f"Yes — {row['number']}, opened today at 00:10 UTC.")


def test_how_many_pipelines_failed_is_what_the_searches_show_failing() -> None:
    counts = evidence("query_pipeline_status", time_window="last 7 days")
    failing = sum(row["failed"] > 0 for row in rows_of(counts))
    question = "how many pipelines had at least one failure in the last 7 days?"
    said = "{} of the {} pipelines had at least one failed run."
    assert not failed(question, said.format(failing, len(rows_of(counts))), counts, "number")
    assert failed(question, said.format(failing - 1, len(rows_of(counts))), counts, "number")
    runs = evidence("list_failed_pipelines", time_window="last 24 hours")
    distinct = len({row["pipeline_name"] for row in rows_of(runs)})
    assert distinct < len(rows_of(runs))  # the oracle: more failed runs than pipelines
    assert not failed("what failed?", f"{distinct} pipelines failed in the last 24 hours.", runs, "number")
    assert failed("what failed?", f"{len(rows_of(runs))} pipelines failed in the last 24 hours.", runs, "number")


def test_a_none_read_from_rows_by_a_name_holds_only_for_that_name() -> None:
    results = evidence("list_pipeline_runs", status="active")
    active = rows_of(results)
    assert active and all(row["pipeline_name"] != "pl_ingest_sales" for row in active)  # the oracle
    question = "anything running or queued in adf right now? want to kick off a manual pl_ingest_sales run"
    assert failed(question, "Nothing is running or queued at the moment.", results, "negative_claim")
    assert not failed(question, "No pl_ingest_sales run is running or queued at the moment.", results,
                      "negative_claim")


def test_a_weekday_said_with_a_date_is_that_dates() -> None:
    results = evidence("get_change_request", number="CHG0030021")
    [row] = rows_of(results)
    start = _moment(row["start_date"])
    other = start.replace(day=start.day + 1)
    question = "when does CHG0030021 run?"
    said = f"CHG0030021 runs {{}} {start.day} {start:%b}, {start:%H:%M} UTC."
    assert not failed(question, said.format(f"{start:%A}"), results, "placement")
    assert failed(question, said.format(f"{other:%A}"), results, "placement")


def test_how_long_the_run_looked_up_took_is_its_own_length() -> None:
    results = evidence("get_pipeline_run_details", pipeline_name="pl_load_finance_dwh")
    [run] = rows_of(results)
    first = run["activities"][0]
    activity = (_moment(first["end"]) - _moment(first["start"])).total_seconds() / 60
    assert abs(activity - run["duration_min"]) >= 2  # the oracle: an activity's length is not the run's
    question = "how long did the finance dwh load run before it died?"
    assert not failed(question, f"It ran for {run['duration_min']:g} minutes.", results, "number")
    assert failed(question, f"It ran for {activity:g} minutes.", results, "number")
    assert not failed(question, f"{first['activity_name']} took {activity:g} minutes.", results, "number")


def test_how_long_a_ticket_has_been_open_is_its_age() -> None:
    results = evidence("get_incident", number="INC0010031")
    [row] = rows_of(results)
    days = (NOW - _moment(row["opened_at"])).total_seconds() / 86400
    question = "how long's INC0010031 been sitting there?"
    assert not failed(question, f"It's been open about {round(days)} days.", results, "value")
    assert not failed(question, f"It's been open just over {int(days)} days.", results, "value")
    assert failed(question, f"It's been open about {round(days) - 2} days.", results, "value")
    assert failed(question, f"It's been open for over {int(days) + 1} days.", results, "value")


def test_every_run_placed_inside_a_changes_window_is_inside_it() -> None:
    change = evidence("get_change_request", number="CHG0030017")
    [row] = rows_of(change)
    start, end = _moment(row["start_date"]), _moment(row["end_date"])
    runs = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="since yesterday")
    starts = [_moment(run["start"]) for run in rows_of(runs)]
    inside = [moment for moment in starts if start <= moment < end]
    assert inside and len(inside) < len(starts)  # the oracle: one inside, one after
    question = "were both crm accounts failures inside the SHIR upgrade window?"
    assert failed(question, "Yes — both fell inside CHG0030017's window.", change + runs, "placement")
    after = next(moment for moment in starts if moment >= end)
    gap = int((after - end).total_seconds() // 60)
    truth = (f"Only the first. The {after:%H:%M} run came {gap // 60} h {gap % 60} min after CHG0030017's window closed.")
    assert not failed(question, truth, change + runs)


def test_not_failed_in_the_days_of_history_is_a_first_failure() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    [history] = rows_of(results)
    [group] = [group for group in history["failure_groups"] if group["like_the_run"]]
    today = [start for start in group["starts"] if start.startswith(f"{NOW:%Y-%m-%d}")]
    assert group["count"] > len(today)  # the oracle: it failed like this before today
    question = "has customer360 failed like this before?"
    assert failed(question, f"Before today's {len(today)} runs it hadn't failed with this error in the 14 days of "
                  "history.", results, "history")


def test_a_title_quoted_beside_a_ticket_is_its_own() -> None:
    results = evidence("list_incidents", assignment_group="Analytics Engineering")
    first, second = rows_of(results)[:2]
    assert first["short_description"] != second["short_description"]  # the oracle: two titles
    question = "is there a ticket for the customer360 failures?"
    said = 'Yes — {}: "{}".'
    assert not failed(question, said.format(first["number"], first["short_description"]), results, "value")
    assert failed(question, said.format(first["number"], second["short_description"]), results, "value")


def test_no_approval_is_a_changes_approval_not_a_search_that_came_back_empty() -> None:
    requested = evidence("get_change_request", number="CHG0030016")
    approved = evidence("get_change_request", number="CHG0030021")
    assert rows_of(requested)[0]["approval"] != "approved" and rows_of(approved)[0]["approval"] == "approved"
    said = "With a High-risk change two days out and no approval, I'd check {} is on the next CAB agenda."
    assert not failed("is CHG0030016 approved?", said.format("CHG0030016"), requested)
    assert failed("is CHG0030021 approved?", said.format("CHG0030021"), approved, "value")


def test_what_the_user_is_told_to_do_is_no_link_the_data_must_show() -> None:
    results = evidence("get_incident", number="INC0010054")
    [row] = rows_of(results)
    assert not row.get("assigned_to")  # the oracle: nobody holds it yet
    question = "assign INC0010054 to marek novak pls"
    assert not failed(question, "I can't change tickets, so you'll need to set Assigned to = Marek Novak on INC0010054 "
                      "yourself.", results, "link")
    assert failed(question, "INC0010054 is assigned to Marek Novak.", results)
    assert failed(question, "INC0010054 is with Marek Novak now.", results, "value")


def test_a_comparison_over_time_is_backed_by_the_same_search_over_two_windows() -> None:
    day = evidence("query_pipeline_status", pipeline_name="pl_ingest_sales", time_window="last 24 hours")
    week = evidence("query_pipeline_status", pipeline_name="pl_ingest_sales", time_window="last 7 days")
    [today], [weekly] = rows_of(day), rows_of(week)
    assert today["success_rate_pct"] < weekly["success_rate_pct"]  # the oracle: worse today
    question = "is pl_ingest_sales worse than normal? compare last 24h vs the week"
    text = (f"Yes, clearly worse: {today['success_rate_pct']}% success in the last 24h against "
            f"{weekly['success_rate_pct']}% over the week.")
    assert not failed(question, text, day + week, "lead")
    assert failed(question, text, day, "lead")  # one side only


def test_an_empty_search_by_a_name_the_inventory_lacks_backs_no_none() -> None:
    by_ci = evidence("list_incidents", configuration_item="WH_FINANCE")
    by_text = evidence("list_incidents", text="WH_FINANCE")
    assert not rows_of(by_ci) and rows_of(by_text)  # the oracle: a ticket names it, none has it as its CI
    known = {row["configuration_item"] for row in rows_of(evidence("list_incidents", state="all"))}  # the CIs there are
    assert "WH_FINANCE" not in known
    question = "any open ticket on WH_FINANCE?"
    analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
    checks = evaluate("No open incident is logged against WH_FINANCE.", by_ci, analysis=analysis, question=question,
                      known_names=known)
    assert any(not check.passed and check.kind == "negative_claim" for check in checks)
    quiet = next(ci for ci in sorted(known) if not rows_of(evidence("list_incidents", configuration_item=ci, priority=1,
                                                                    priority_match="exactly")))
    empty = evidence("list_incidents", configuration_item=quiet, priority=1, priority_match="exactly")  # a CI there is
    question = f"any open P1 on {quiet}?"
    analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
    checks = evaluate(f"No open P1 is logged against {quiet}.", empty, analysis=analysis, question=question,
                      known_names=known)
    assert all(check.passed for check in checks if check.kind == "negative_claim")


def test_pipelines_failing_on_both_days_are_those_in_both_listings() -> None:
    yesterday = evidence("list_failed_pipelines", time_window="yesterday")
    today = evidence("list_failed_pipelines", time_window="today")
    before, now = ({row["pipeline_name"] for row in rows_of(results)} for results in (yesterday, today))
    both, only_today = before & now, sorted(now - before)
    assert both and len(only_today) >= 2  # the oracle: some failed both days, others only today
    question = "which pipelines failed both yesterday and today?"
    results = yesterday + today
    assert failed(question, f"{len(now)} pipelines failed both yesterday and today.", results, "number")
    assert not failed(question, f"{len(both)} pipelines failed both yesterday and today.", results, "number")
    truth = (f"The other {len(only_today)} pipelines that failed today had no failed runs yesterday: "
             f"{', '.join(only_today)}.")
    assert not failed(question, truth, results, "negative_claim")
    assert failed(question, f"The {len(now)} pipelines that failed today had no failed runs yesterday: "
                  f"{', '.join(sorted(now))}.", results, "negative_claim")


def test_what_a_review_found_the_new_checks_misread() -> None:
    """Sentences a second reader found the new checks flagging although true, or passing although false."""
    history = evidence("get_pipeline_history", pipeline_name="pl_copy_crm_accounts")
    incident = evidence("get_incident", number="INC0010052")
    [ticket] = rows_of(incident)
    opened = _moment(ticket["opened_at"])
    hours_old = round((NOW - opened).total_seconds() / 3600)
    # "around" after "opened" is no age; "hadn't failed in the previous 3 days" is no first failure
    assert not failed("when was it raised?", f"INC0010052 was opened around {hours_old + 3} hours after the first "
                      "failure.", incident, "value")
    assert not failed("has it failed before?", "pl_copy_crm_accounts hadn't failed in the previous 3 days before "
                      "Thursday.", history, "history")
    assert not failed("did it give up?", "pl_copy_crm_accounts was retried 3 times before it gave up.", history,
                      "history")
    # "Monitoring 9 Jan" names no weekday; "the cause is with Databricks" names no assignee
    assert not failed("what's the status?", "Monitoring 9 Jan 10:12: no change.", history, "placement")
    assert not failed("whose fault?", "The root cause of INC0010052 is with Databricks, not our pipeline.", incident,
                      "value")
    # the stage a status incident is in is the last one said
    snowflake = evidence("check_snowflake_health")
    [stage] = [row["status"] for row in rows_of(snowflake) if row["kind"] == "incident"]
    assert not failed("where's it at?", f"It's no longer in investigating status; it's now in {stage}.", snowflake,
                      "value")
    # a derived number excuses only itself: the same value said as a count elsewhere is still judged
    counts = evidence("query_pipeline_status", time_window="last 7 days")
    first, second = sorted(rows_of(counts), key=lambda row: -row["runs"])[:2]
    more = first["runs"] - second["runs"]
    if more not in {row["runs"] for row in rows_of(counts)} | {row["failed"] for row in rows_of(counts)}:
        assert failed("which ran most?", f"{first['pipeline_name']} ran {first['runs']} runs and "
                      f"{second['pipeline_name']} {second['runs']} runs, so {more} more runs. {more} runs were "
                      "cancelled.", counts, "number")


def test_an_earlier_turn_gives_times_but_no_ids_or_numbers() -> None:
    results = evidence("get_incident", number="INC0010052")
    question = "is it tracked anywhere else?"
    analysis = analyse_question(question, now=NOW, inventory=INVENTORY)
    earlier = "INC0099999 tracks it, with 17 customers affected."
    checks = evaluate("It's linked to INC0099999, and 17 customers are affected.", results, analysis=analysis,
                      question=question, earlier=earlier)
    assert {check.kind for check in checks if not check.passed} >= {"identifier"}
