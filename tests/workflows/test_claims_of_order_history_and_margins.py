"""Claims a model makes when it reasons over a history, an order of events or two numbers: the last failure before
the ones just said, a none of failures of one kind, a streak, a share placed on a day and its rest, which came
first, a margin between two lengths, a bare difference, a window inside a complete search, a ticket's notes told
again. Each oracle is computed from the demo rows; each test failed on the code before its reading was added."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from opsagent.tools.timewindow import iso_moment
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import combined, failed, only_the_right, rows_of


def _failure_starts(history: list) -> list:
    return sorted(iso_moment(start) for group in rows_of(history)[0]["failure_groups"] for start in group["starts"])


def test_the_last_failure_before_the_ones_just_said_is_the_latest_before_them() -> None:
    # "Two are today (03:21 and 07:20); before that it last happened on <day>": the latest failure before today's
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    starts = _failure_starts(history)
    today = [moment for moment in starts if moment.date() == NOW.date()]
    earlier = [moment for moment in starts if moment.date() < NOW.date()]
    assert len(today) > 1 and len(earlier) > 1  # a right day and a wrong (older) one to say
    said = " and ".join(f"{moment:%H:%M}" for moment in today)
    only_the_right("has c360 failed like this before?", f"Yes. It failed today ({said} UTC); before that it last "
                   "happened on {}.", f"{earlier[-1]:%a %d %b}", f"{earlier[0]:%a %d %b}", history, "history")
    only_the_right("has c360 failed like this before?", f"{len(starts)} failures with this error, today's "
                   f"{len(today)} included. The previous one before today's {len(today)} was on {{}}.",
                   f"{earlier[-1]:%a %d %b}", f"{earlier[0]:%a %d %b}", history, "history")


def test_a_history_without_failures_backs_a_none_and_denies_any_count_before() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_archive_logs")
    [row] = rows_of(history)
    assert row["failure_groups"] == [] and row["last_failure"] is None
    question = "does archive logs fail a lot?"
    assert not failed(question, "No — it has no failures at all in the 14 days of history.", history)
    assert failed(question, "It was cancelled last night, but it has failed twice before in the last 14 days.",
                  history, "history")
    busy = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    assert rows_of(busy)[0]["failure_groups"]
    assert failed("does c360 fail a lot?", "No — it has no failures at all in the 14 days of history.", busy)


def test_a_none_of_one_kind_of_failure_is_read_against_the_histories_groups() -> None:
    # "no <kind> failures": backed when no failure group holds all the kind's words, denied when one does
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    groups = rows_of(history)[0]["failure_groups"]
    message = " ".join(group["error_message"].lower() for group in groups)
    assert groups and "import" in message and "launch" not in message
    question = "has pricing model ever failed with cluster launch errors?"
    assert not failed(question, f"Its {len(groups)} kind of failure is a library import error. No cluster-launch "
                                "failures in that history.", history, "negative_claim")
    assert failed(question, "No import failures in that history.", history, "negative_claim")


def test_a_streak_of_failures_is_counted_since_the_last_other_run() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    success = iso_moment(rows_of(history)[0]["last_success"]["start"])
    streak = sum(moment > success for moment in _failure_starts(history))
    assert streak > 1
    only_the_right("is c360 still failing?", "It has now failed {} times in a row, which fits the capacity problem.",
                   streak, streak + 1, history, "number")


def test_a_share_placed_on_a_day_and_its_rest_are_counted_from_the_listed_moments() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    starts = _failure_starts(history)
    today = sum(moment.date() == NOW.date() for moment in starts)
    assert 0 < today < len(starts) - 1
    question = "has c360 done this before?"
    only_the_right(question, f"Not new: {len(starts)} failures in 14 days, though {{}} of the {len(starts)} are today.",
                   today, today + 1, history, "number")
    only_the_right(question, f"{len(starts)} failures in 14 days. {{}} are today.", today, today + 1, history, "number")
    assert not failed(question, f"{today} of the {len(starts)} are today; the other {len(starts) - today} were "
                                "one-offs days apart.", history, "number")
    # "N of those M are today": the share is N (M is its whole, not a count said to be today's)
    only_the_right(question, f"{len(starts)} failures in 14 days; {{}} of those {len(starts)} are today.", today,
                   today + 1, history, "number")


def test_which_came_first_is_read_from_both_events_times() -> None:
    # "the failures started right after the change went in": the first failed run shown against the change's start
    runs = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="last 24 hours")
    change = evidence("get_change_request", number="CHG0030015")
    change[0].evidence[0] = change[0].evidence[0].model_copy(update={"call_id": "call_2"})
    first = min(iso_moment(row["start"]) for row in rows_of(runs))
    went_in = iso_moment(rows_of(change)[0]["start_date"])
    right, wrong = ("before", "right after") if first < went_in else ("right after", "before")
    only_the_right("could the firewall change be why sales ingest is failing?",
                   "It fits: the pl_ingest_sales failures started {} the firewall change went in.", right, wrong,
                   runs + change, "placement")
    # a ticket opened before or after the status page's incident
    ticket = evidence("get_incident", number="INC0010050")
    health = evidence("check_databricks_health", region="west europe")
    health[0].evidence[0] = health[0].evidence[0].model_copy(update={"call_id": "call_2"})
    opened = iso_moment(rows_of(ticket)[0]["opened_at"])
    posted = {iso_moment(row["started_at"]) for row in rows_of(health) if row.get("kind") == "incident"}
    assert len(posted) == 1
    right, wrong = ("after", "before") if opened > posted.pop() else ("before", "after")
    only_the_right("did we catch the dbx problem before databricks posted it?",
                   "INC0010050 was opened {} Databricks posted the status incident.", right, wrong, ticket + health,
                   "placement")


def test_clauses_joined_by_a_semicolon_each_keep_their_own_records_times() -> None:
    ticket = evidence("get_incident", number="INC0010050")
    health = evidence("check_databricks_health", region="west europe")
    health[0].evidence[0] = health[0].evidence[0].model_copy(update={"call_id": "call_2"})
    [incident] = [row for row in rows_of(health) if row.get("kind") == "incident"]
    posted, opened = iso_moment(incident["started_at"]), iso_moment(rows_of(ticket)[0]["opened_at"])
    wrong = opened + timedelta(hours=1)
    assert posted != opened and wrong not in (posted, opened)
    only_the_right("did we catch it before databricks posted it?",
                   f"Databricks' incident \"{incident['title']}\" started at {{}} UTC; INC0010050 was opened at "
                   f"{opened:%H:%M} UTC.", f"{posted:%H:%M}", f"{wrong:%H:%M}", ticket + health, "placement")


def test_a_state_advice_would_put_a_ticket_in_is_no_claim_of_its_state() -> None:
    ticket = evidence("get_incident", number="INC0010054")
    state = rows_of(ticket)[0]["state"]
    assert state != "In Progress"
    question = "ack it and put it on me"
    assert not failed(question, "To take it, open INC0010054 in ServiceNow, set Assigned to to yourself and move it to "
                                "In Progress.", ticket, "value")
    assert failed(question, "INC0010054 has been set to In Progress.", ticket, "value")
    assert failed(question, "Database Administration set INC0010054 to In Progress this morning.", ticket, "value")


@pytest.mark.parametrize("pipeline", ["pl_load_inventory_snapshot", "pl_export_marketing"])
def test_no_earlier_failures_sets_the_latest_one_aside(pipeline: str) -> None:
    # "first time? — no earlier failures before today's run": true only when the history holds that one failure
    history = evidence("get_pipeline_history", pipeline_name=pipeline)
    starts = _failure_starts(history)
    said = f"First time in the history kept — no earlier failures before the {starts[-1]:%H:%M} UTC run of {pipeline}."
    complaints = failed(f"{pipeline} failed - first time?", said, history, "negative_claim")
    assert bool(complaints) == (len(starts) > 1)


def test_how_long_ago_after_a_time_and_its_aside_is_counted_from_that_time() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    last = rows_of(history)[0]["last_success"]
    start, end = iso_moment(last["start"]), iso_moment(last["end"])
    hours = round((NOW - start).total_seconds() / 3600)
    assert hours > 5
    only_the_right("when was the last good run?", f"Last good run was {start:%a %d %b %H:%M} UTC (finished "
                   f"{end:%H:%M}, {last['duration_min']:g} min) — about {{}} hours ago.", hours, hours - 4, history,
                   "number")


def test_a_margin_beside_two_lengths_is_their_difference() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    row = rows_of(history)[0]
    took, median, runs = row["run"]["duration_min"], row["durations"]["median_min"], row["durations"]["successful_runs"]
    margin = took - median
    assert abs(runs - margin) > 0.1 * margin + 1  # a wrong margin that is a value of the rows (a count of runs)
    only_the_right("slower than usual?", f"Yes: it took {took:g} min vs a usual median of {median:g} min — about {{}} "
                   "minutes longer.", f"{margin:g}", f"{runs:g}", history, "number")


def test_a_share_opened_since_a_time_is_counted_from_the_openings() -> None:
    tickets = evidence("list_incidents", priority=2)
    rows = rows_of(tickets)
    new = sum(iso_moment(row["opened_at"]) >= NOW.replace(hour=0, minute=0) for row in rows)
    assert 0 < new < len(rows) and not any(row["state"] == "New" for row in rows)
    question = "shift briefing pls - open p1/p2s, and how many came in overnight"
    for said in (f"{len(rows)} open P1/P2s, {{}} of them new since midnight.",
                 f"There are {len(rows)} open P1/P2 incidents, and {{}} of them were opened since midnight."):
        only_the_right(question, said, new, new - 1, tickets, "number")


@pytest.mark.parametrize("pipeline", ["pl_export_marketing", "pl_copy_crm_accounts"])
def test_failed_on_both_days_needs_a_failed_run_inside_each_day(pipeline: str) -> None:
    runs = evidence("list_pipeline_runs", pipeline_name=pipeline, time_window="since yesterday")
    today = NOW.replace(hour=0, minute=0)
    failed_days = {iso_moment(row["start"]) >= today for row in rows_of(runs) if row["status"] == "Failed"}
    complaints = failed(f"did {pipeline} fail yesterday and today?", f"{pipeline} failed on both days.", runs, "placement")
    assert bool(complaints) == (failed_days != {True, False})


def test_caused_by_names_the_change_the_ticket_records_as_its_cause() -> None:
    ticket = evidence("get_incident", number="INC0010048")
    links = rows_of(ticket)[0]["links"]
    [cause] = [link["number"] for link in links if "caused_by" in link["via"]]
    [other] = [link["number"] for link in links if "caused_by" not in link["via"]]
    only_the_right("which change broke it?", "It was caused by {}, the SHIR upgrade on vm-shir-01.", cause, other,
                   ticket, "link")
    # the other change named beside the cause, or denied, is no cause said
    assert not failed("which change broke it?", f"It was caused by {cause}; the fix is {other}, scheduled for Saturday.",
                      ticket, "link")
    assert not failed("which change broke it?", f"It was caused by the SHIR upgrade ({cause}), not by {other}.", ticket,
                      "link")


def test_nothing_moved_since_it_was_opened_is_read_from_its_opening_and_last_update() -> None:
    ticket = evidence("get_incident", number="INC0010031")
    row = rows_of(ticket)[0]
    opened, updated = iso_moment(row["opened_at"]), iso_moment(row["updated_at"])
    assert opened.date() == updated.date() and updated > opened
    question = "how long has INC0010031 been open?"
    assert not failed(question, "INC0010031 is On Hold; nothing has moved on the ticket since the day it was opened.",
                      ticket, "negative_claim")
    assert failed(question, "INC0010031 is On Hold; nothing has moved on the ticket since it was opened.", ticket,
                  "negative_claim")


def test_a_days_own_count_is_counted_from_the_moments_on_that_day() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    starts = _failure_starts(history)
    today = sum(moment.date() == NOW.date() for moment in starts)
    only_the_right("has this happened before?", f"Yes — {len(starts)} failures with this same error in the 14 days "
                   "kept, today's {} included.", today, today + 1, history, "number")


def test_anything_new_is_no_state() -> None:
    ticket = evidence("get_incident", number="INC0010048")
    assert rows_of(ticket)[0]["state"] != "New"
    question = "is there a ticket for the crm failures?"
    assert not failed(question, "Add anything new as a note on INC0010048 rather than opening a duplicate.", ticket, "value")
    assert failed(question, "INC0010048 is new.", ticket, "value")


def test_a_change_said_after_it_keeps_its_window_and_a_necessity_is_no_none() -> None:
    # "It's an emergency change … planned for 10:00–11:00 — the mitigation for P1 INC…": the ticket named at the end
    # is only a link of the change (its row shows no time), so the window's times are the change's
    change = evidence("get_change_request", number="CHG0030022")
    row = rows_of(change)[0]
    start, end = iso_moment(row["start_date"]), iso_moment(row["end_date"])
    [ticket] = [link["number"] for link in row["links"] if link["kind"] == "incident"]
    question = "portal emergency change - approved yet? when does it go in"
    said = (f"**Not yet** — CHG0030022 is in {row['state']}. It's an emergency change planned for today "
            f"{{}}–{end:%H:%M} UTC — the mitigation for P1 {ticket}.")
    only_the_right(question, said, f"{start:%H:%M}", f"{start - timedelta(hours=3):%H:%M}", change, "placement")
    assert not failed(question, f"Chase the approvers; it can't go in at {start:%H:%M} without authorisation.", change,
                      "negative_claim")
    assert failed(question, "It has no linked incident.", change, "negative_claim")


def test_a_quiet_status_page_backs_nothing_on_it_and_a_region_left_unchecked_is_no_claim() -> None:
    health = evidence("check_databricks_health", region="north europe")
    rows = rows_of(health)
    quiet = all(row.get("kind") != "incident" and row.get("status") == "operational" for row in rows)
    question = "is dbx north europe ok? jobs/notebooks"
    said = "Nothing on the status page for that region. I only checked North Europe, not West Europe."
    assert bool(failed(question, said, health)) != quiet
    busy = evidence("check_databricks_health", region="west europe")
    assert not all(row.get("kind") != "incident" and row.get("status") == "operational" for row in rows_of(busy))
    assert failed("is dbx west europe ok?", "Nothing on the status page for that region.", busy, "negative_claim")
    assert failed(question, "North Europe is fine, and so is West Europe.", health, "identifier")
    # another platform's page was not fetched: nothing backs a none about it
    assert failed(question, "Nothing on the Snowflake status page either.", health, "negative_claim")


def test_a_none_over_the_range_it_says_is_backed_by_an_empty_search_of_that_range() -> None:
    question = "did any change go in around then that could have done it?"
    # beside a search of the factory's changes (rows at other times), the empty search of that range backs it
    empty = evidence("list_change_requests", window="2025-01-10T03:00Z to 2025-01-10T05:30Z")
    factory = evidence("list_change_requests", configuration_item="adf-prod-weu")
    factory[0].evidence[0] = factory[0].evidence[0].model_copy(update={"call_id": "call_2"})
    assert not rows_of(empty) and rows_of(factory)
    assert not failed(question, "No — no change window overlaps 03:00–05:30 UTC today.", empty + factory,
                      "negative_claim")
    busy = evidence("list_change_requests", window="2025-01-09T03:00Z to 2025-01-09T05:30Z")
    assert rows_of(busy)  # a range with a change in it: the none is false
    assert failed(question, "No — no change window overlaps 03:00–05:30 UTC yesterday.", busy, "negative_claim")


def test_a_window_inside_a_complete_searchs_window_is_covered_and_a_wider_one_is_not() -> None:
    runs = evidence("list_pipeline_runs", status="Cancelled", time_window="last 7 days")
    rows = rows_of(runs)
    assert rows and runs[0].evidence[0].total == len(rows)
    recent = sum(iso_moment(row["start"]) >= NOW - timedelta(hours=24) for row in rows)
    question = "how many runs got cancelled last 7 days?"
    def uncovered(said: str) -> list[str]:
        return [detail for detail in failed(question, said, runs, "number") if "no search covered" in detail]
    assert not uncovered(f"{len(rows)} cancelled runs in the last 7 days; only {recent} of them in the last 24 hours.")
    assert uncovered(f"{len(rows)} cancelled runs in the last 30 days.")
    # the count said of the narrower window is what the rows hold in it, for the pipeline named
    failures = evidence("list_failed_pipelines", time_window="last 24 hours")
    sales = sum(row["pipeline_name"] == "pl_ingest_sales" and iso_moment(row["start"]) >= NOW - timedelta(hours=6)
                for row in rows_of(failures))
    def uncovered_by(said: str) -> list[str]:
        return [detail for detail in failed("what failed?", said, failures, "number") if "no search covered" in detail]
    assert not uncovered_by(f"pl_ingest_sales failed {sales} times in the last 6 hours.")
    assert uncovered_by(f"pl_ingest_sales failed {sales + 1} times in the last 6 hours.")


def _two_weeks() -> tuple[list, dict[str, int], dict[str, int]]:
    this = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")
    last = evidence("count_pipeline_runs", status="Failed", time_window="2024-12-27T09:00Z to 2025-01-03T09:00Z")
    last[0].evidence[0] = last[0].evidence[0].model_copy(update={"call_id": "call_2"})
    per = [{row["pipeline_name"]: row["failed"] for row in rows_of(results)} for results in (this, last)]
    return this + last, per[0], per[1]


def test_a_name_counted_in_two_searches_may_be_said_with_either_count() -> None:
    results, this, last = _two_weeks()
    name = next(name for name in this if name in last and this[name] != last[name])
    wrong = next(count for count in range(1, 30) if count not in (this[name], last[name]))
    only_the_right("more failures than last week?", f"{name} is the big mover: {{}} failed vs {last[name]} the week "
                   "before.", this[name], wrong, results, "number")


def test_a_bare_difference_after_its_two_sides_and_its_relative_change() -> None:
    results, this, last = _two_weeks()
    now, before = sum(this.values()), sum(last.values())
    assert now != before
    gap, share = abs(now - before), round(100 * abs(now - before) / min(now, before))
    word = "more" if now > before else "fewer"
    only_the_right("more failures than last week?", f"{now} failed runs in the last 7 days vs {before} in the 7 days "
                   f"before — {{}} {word} (~{share}%).", gap, gap + 2, results, "number")


def test_a_description_beside_a_change_is_read_by_its_telling_words_and_a_version_does_not_end_it() -> None:
    changes = evidence("list_change_requests", configuration_item="vm-shir-01", state="open")
    titles = {row["number"]: row["short_description"] for row in rows_of(changes)}
    other = next(number for number in titles if number != "CHG0030017")
    question = "anything else planned on vm-shir-01?"
    assert not failed(question, "Also open: CHG0030017 — the original SHIR 5.44 upgrade (Thu 9 Jan), still in Review.",
                      changes, "value")
    assert failed(question, f"Also open: CHG0030017 — {titles[other]} (Thu 9 Jan), still in Review.", changes, "value")


def test_a_question_to_ask_places_nothing_and_another_failure_keeps_its_own_code() -> None:
    change = evidence("get_change_request", number="CHG0030012")
    question = "when is the dbx runtime upgrade?"
    assert not failed(question, "CHG0030012 runs tomorrow. Check with Priya whether the customer360 runs are paused "
                                "during the window.", change, "placement")
    assert failed(question, "CHG0030012 ran already. The customer360 runs failed during the window.", change,
                  "placement")
    history = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    row = rows_of(history)[0]
    latest, own = row["last_failure"]["run_id"], row["last_failure"]["error_code"]
    [other] = [group for group in row["failure_groups"] if group["error_code"] != own]
    question = "did the finance load go through?"
    said = f"Run {latest} failed with {own} in {row['last_failure']['failed_activity']}."
    assert not failed(question, f"{said} A different failure ({other['error_code']} in {other['failed_activity']}) on "
                                "an earlier day.", history, "value")
    assert failed(question, f"{said} It also failed with {other['error_code']} in {other['failed_activity']}.", history,
                  "value")


def test_a_tickets_notes_told_again_keep_their_words_about_a_pipeline() -> None:
    ticket = evidence("get_incident", number="INC0010048")
    runs = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 24 hours")
    runs[0].evidence[0] = runs[0].evidence[0].model_copy(update={"call_id": "call_2"})
    notes = rows_of(ticket)[0]["work_notes"]
    told = next(sentence for sentence in re.split(r"(?<=\.)\s+", notes) if "succeeded" in sentence)
    question = "and the 00:10 one? shir still down at that point?"
    assert rows_of(runs) and "pl_copy_crm_accounts" in told
    assert not failed(question, f"INC0010048 confirms the sequence. {told.replace(' on vm-shir-01', '')}",
                      ticket + runs, "value")
    assert failed(question, "INC0010048 confirms the sequence. pl_copy_crm_accounts succeeded.", ticket + runs, "value")


def test_a_share_of_a_day_said_of_one_pipeline_counts_that_pipelines_rows() -> None:
    failures = evidence("list_failed_pipelines", time_window="last 24 hours")
    rows = rows_of(failures)
    today = NOW.replace(hour=0, minute=0)
    mine = sum(row["pipeline_name"] == "pl_transform_customer360" and iso_moment(row["start"]) >= today for row in rows)
    every = sum(iso_moment(row["start"]) >= today for row in rows)
    assert 0 < mine < every
    question = "what failed overnight?"
    only_the_right(question, "pl_transform_customer360: {} failed today, both error 3200.", mine, every, failures, "number")
    only_the_right(question, "pl_transform_customer360 — today's {} failures are both error 3200.", mine, mine + 1,
                   failures, "number")


# Found by a second reading of these shapes: what each must not let through, and what it must not flag.

def test_a_none_of_a_kind_of_failure_reads_only_error_words_the_user_asked() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    starts = _failure_starts(history)
    assert any(moment.weekday() >= 5 for moment in starts) and any(moment.hour < 6 for moment in starts)
    for said in ("There were no weekend failures in its history.", "No overnight failures in the history.",
                 "It has had no Databricks failures in the 14 days of history."):
        assert failed("has it failed before?", said, history, "negative_claim"), said


def test_another_records_notes_back_a_status_only_with_the_sentences_own_run_and_time() -> None:
    ticket = evidence("get_incident", number="INC0010048")
    runs = combined(ticket, evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts",
                                  time_window="last 24 hours"))
    failed_at = sorted(iso_moment(row["start"]) for row in rows_of(runs[1:]))
    assert failed_at
    said = (f"The IR service on vm-shir-01 was restarted by hand after the first failure and the next "
            f"pl_copy_crm_accounts run at {failed_at[-1]:%H:%M} succeeded.")
    assert failed("and the 00:10 one?", said, runs, "value")


def test_an_order_in_words_reads_any_failure_for_failed_after_and_waits_for_a_search_reaching_back() -> None:
    runs = evidence("list_failed_pipelines", pipeline_name="pl_ingest_sales", time_window="last 24 hours")
    ticket = evidence("get_incident", number="INC0010049")
    starts = sorted(iso_moment(row["start"]) for row in rows_of(runs))
    opened = iso_moment(rows_of(ticket)[0]["opened_at"])
    assert starts[0] < opened < starts[-1]
    assert not failed("?", "pl_ingest_sales failed again later: it also failed after INC0010049 was opened.",
                      combined(runs, ticket), "placement")
    # a search of the last 12 hours does not reach back to a change of yesterday evening: no order is judged
    short = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 12 hours")
    change = evidence("get_change_request", number="CHG0030017")
    assert iso_moment(rows_of(change)[0]["start_date"]) < NOW - timedelta(hours=12)
    assert not failed("?", "The failures started right after CHG0030017 went in.", combined(short, change), "placement")


def test_both_days_is_each_pipeline_named_on_each_day() -> None:
    runs = evidence("list_failed_pipelines", time_window="since yesterday")
    today = NOW.replace(hour=0, minute=0)
    days = {name: {iso_moment(row["start"]) >= today for row in rows_of(runs) if row["pipeline_name"] == name}
            for name in ("pl_ingest_sales", "pl_copy_crm_accounts")}
    assert days["pl_copy_crm_accounts"] == {True, False} and days["pl_ingest_sales"] == {True}
    question = "what failed yesterday and today?"
    assert not failed(question, "pl_copy_crm_accounts failed on both days.", runs, "placement")
    assert failed(question, "pl_ingest_sales and pl_copy_crm_accounts failed on both days.", runs, "placement")


def test_a_past_streak_and_more_items_are_no_current_streak_or_difference() -> None:
    runs = evidence("list_pipeline_runs", pipeline_name="pl_copy_crm_accounts", time_window="last 3 days")
    ordered = sorted(rows_of(runs), key=lambda row: row["start"])
    statuses = [row["status"] for row in ordered]
    longest = max(len(streak) for streak in "".join("F" if status == "Failed" else "." for status in statuses).split("."))
    assert statuses[-1] != "Failed" and longest >= 2
    only_the_right("crm?", "Earlier it failed {} times in a row, then a run succeeded.", longest, longest + 1, runs,
                   "number")
    failures = evidence("list_failed_pipelines", time_window="last 24 hours")
    counts = {}
    for row in rows_of(failures):
        counts[row["pipeline_name"]] = counts.get(row["pipeline_name"], 0) + 1
    top = sorted(counts.items(), key=lambda pair: -pair[1])[:2]
    rest = sum(counts.values()) - top[0][1] - top[1][1]
    assert rest > 0
    assert not [detail for detail in failed("what failed?", f"{sum(counts.values())} failed runs: {top[0][0]} "
                                            f"{top[0][1]}, {top[1][0]} {top[1][1]} and {rest} more.", failures, "number")
                if "differ" in detail]


def test_a_person_is_let_off_only_in_the_sentence_that_says_it_was_not_looked_at() -> None:
    ticket = evidence("get_incident", number="INC0010050")
    assert "Nair" not in str(rows_of(ticket))
    assert failed("who is on it?", "Priya Nair acknowledged it this morning. I didn't check Priya Nair's calendar.",
                  ticket, "identifier")


def test_a_none_before_a_relative_clause_of_necessity_is_still_read() -> None:
    tickets = evidence("list_incidents", text="pl_ingest_sales")
    assert any(row["state"] not in ("Resolved", "Closed", "Canceled") for row in rows_of(tickets))
    assert failed("is there a ticket?", "No open incident covers pl_ingest_sales, which can't be fixed without someone "
                                        "owning it.", tickets, "negative_claim")


def test_an_approximate_margin_is_held_to_a_few_minutes() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    row = rows_of(history)[0]
    took, median = row["run"]["duration_min"], row["durations"]["median_min"]
    only_the_right("slower than usual?", f"It took {took:g} min vs a usual {median:g} min — about {{}} minutes longer.",
                   f"{took - median:g}", f"{took - median + 2:g}", history, "number")


def test_a_comparison_in_an_aside_that_tells_a_tickets_words_again_is_the_tickets() -> None:
    ticket = evidence("get_incident", number="INC0010054")
    description = rows_of(ticket)[0]["description"]
    assert "than usual" in description
    question = "ack it and put it on me"
    assert not failed(question, "INC0010054 is P3, New, unassigned (finance analysts seeing WH_FINANCE queries 5–10x "
                                "slower than usual this morning).", ticket, "comparison")
    assert failed(question, "INC0010054 is P3, New, unassigned; WH_FINANCE is slower than yesterday.", ticket,
                  "comparison")


def test_a_tool_named_in_advice_is_no_record_and_an_invented_one_still_fails() -> None:
    counts = evidence("count_pipeline_runs", group_by="factory", time_window="last 24 hours")
    question = "runs per factory in the last 24 hours?"
    assert not failed(question, "For the failed runs themselves, `list_failed_pipelines` for adf-prod-weu is the next "
                                "drill-down.", counts, "identifier")
    assert failed(question, "For the failed runs themselves, `list_failed_adf_runs` for adf-prod-weu is the next "
                            "drill-down.", counts, "identifier")


def test_what_a_run_is_compared_with_is_not_its_status() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    run = rows_of(history)[0]["run"]
    assert run["status"] == "Failed"
    question = "how long did finance dwh run before it died?"
    assert not failed(question, f"Run {run['run_id']} failed after {run['duration_min']:g} min, longer than any of the "
                                "recent successes.", history, "value")
    assert failed(question, f"Run {run['run_id']} succeeded after {run['duration_min']:g} min.", history, "value")


def test_how_many_had_none_is_the_rows_counting_none() -> None:
    status = evidence("query_pipeline_status", time_window="last 7 days")
    rows = rows_of(status)
    quiet = sum(row["failed"] == 0 for row in rows)
    assert 0 < quiet < len(rows) and status[0].evidence[0].total == len(rows)
    only_the_right("weekly numbers: how many of our pipelines failed?", "{} pipelines had no failures at all.", quiet,
                   quiet - 1, status, "negative_claim")


def test_a_share_of_those_just_counted_with_a_value_counts_within_them() -> None:
    tickets = evidence("list_incidents", state="all", opened_within="2025-01-09T18:00Z to 2025-01-10T06:00Z")
    rows = rows_of(tickets)
    still = [row for row in rows if row["state"] not in ("Resolved", "Closed", "Canceled")]
    nobody = sum(not row.get("assigned_to") for row in still)
    assert 0 < nobody < sum(not row.get("assigned_to") for row in rows) and len(still) < len(rows)
    question = "what came in overnight? 18:00-06:00 utc, all teams"
    only_the_right(question, f"{len(rows)} tickets came in. {len(still)} are still open and {{}} of those have nobody "
                   "on them.", nobody, nobody + 1, tickets, "number")
    only_the_right(question, f"{len(rows)} tickets came in. {{}} are still open and {nobody} of those have nobody on "
                   "them.", len(still), len(still) - 2, tickets, "number")


def test_records_listed_with_or_keep_their_own_asides() -> None:
    tickets = combined(evidence("get_incident", number="INC0010049"), evidence("get_incident", number="INC0010026"))
    assert "pl_ingest_sales" in str(rows_of(tickets[:1])) and "pl_ingest_sales" not in str(rows_of(tickets[1:]))
    question = "which dpo tickets have a change?"
    assert not failed(question, "No change on INC0010049 (P2, pl_ingest_sales file not found) or INC0010026 (P4, "
                                "supplier API 429s).", tickets, "link")
    assert failed(question, "INC0010026 (P4) tracks the pl_ingest_sales failures.", tickets, "link")


@pytest.mark.parametrize("ticket", ["INC0010055", "INC0010048"])
def test_nothing_linked_is_read_from_the_tickets_links(ticket: str) -> None:
    found = evidence("get_incident", number=ticket)
    links = rows_of(found)[0]["links"]
    complaints = failed("anyone picked it up?", f"{ticket} is in the queue. Nothing is linked to it yet.", found,
                        "negative_claim")
    assert bool(complaints) == bool(links)
