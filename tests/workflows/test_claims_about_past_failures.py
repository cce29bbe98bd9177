"""Claims the tenth blind set of answers (dev9) still got past the checks: "it last failed on <day>" while the
history shows a later failure, "it has happened before, but only once" against the history's count, a status
incident's stage, a count of components not operational, a region no report shows. Evidence comes from the real
tools on the demo data; each oracle is computed from its rows."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, judged_lead, only_the_right, rows_of


def _failures(history: dict) -> list[datetime]:
    return sorted(datetime.fromisoformat(start.replace("Z", "+00:00"))
                  for group in history["failure_groups"] for start in group["starts"])


def _day(moment: datetime) -> str:
    return f"{moment:%a} {moment.day} {moment:%b} at {moment:%H:%M} UTC"


def test_a_last_failure_is_the_latest_before_the_bound_the_question_sets() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [history] = rows_of(results)
    today = NOW.replace(hour=0, minute=0)
    before_today = [moment for moment in _failures(history) if moment < today]
    assert len(before_today) >= 2 and _failures(history)[-1] >= today  # the oracle: a failure today, two before
    question = "before today when did the finance dwh load last fail?"
    said = "Before today it last failed on {}."
    assert not failed(question, said.format(_day(before_today[-1])), results, "history")
    assert failed(question, said.format(_day(before_today[-2])), results, "history")
    # without "before today", the last failure is today's, and an earlier one is no "last failure"
    question = "when did pl_load_finance_dwh last fail?"
    assert not failed(question, f"pl_load_finance_dwh last failed on {_day(_failures(history)[-1])}.", results,
                      "history")
    assert failed(question, f"pl_load_finance_dwh last failed on {_day(before_today[-1])}.", results, "history")


def test_a_last_failure_placed_against_another_bound_is_left_to_the_other_checks() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [history] = rows_of(results)
    earliest = _failures(history)[0]
    # "before that" points at something this check cannot place: it says nothing of it
    assert not failed("and before that?", f"Before that, its last failure was on {_day(earliest)}.", results, "history")


def test_times_a_failure_happened_before_are_counted_from_the_history() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    [history] = rows_of(results)
    starts = _failures(history)
    today = NOW.replace(hour=0, minute=0)
    earlier = sum(moment < today for moment in starts)
    assert earlier >= 2 and len(starts) - 1 != earlier - 1  # the oracle: more than one, and "once" is neither count
    words = {1: "once", 2: "twice"}
    question = "has customer360 failed like this before?"
    said = "It has happened before, but only {}: the same 3200 in Notebook_Build_Customer360."
    assert not failed(question, said.format(words.get(earlier, f"{earlier} times")), results, "history")
    assert failed(question, said.format(words.get(earlier - 1, f"{earlier - 1} times")), results, "history")
    assert not failed(question, f"pl_transform_customer360 failed {len(starts) - 1} times before its latest run.",
                      results, "history")


def test_a_status_incidents_stage_is_the_one_its_row_shows() -> None:
    from opsagent.workflows.health_claims import STAGES

    results = evidence("check_snowflake_health")
    [incident] = [row for row in rows_of(results) if row["kind"] == "incident"]
    other = next(stage for stage in STAGES if stage != incident["status"])
    question = "where's the snowflake incident at now?"
    said = "It's still in {} status, although Snowflake says a fix has been applied."
    assert not failed(question, said.format(incident["status"]), results, "value")
    assert failed(question, said.format(other), results, "value")
    # the stage word as a verb is no stage: "identified" as what the provider did
    assert not failed(question, "Snowflake identified the cause earlier and applied a fix.", results, "value")


def test_a_count_of_components_not_operational_is_the_reports() -> None:
    results = evidence("check_azure_service_health")
    down = [row for row in rows_of(results) if row["kind"] == "component" and row["status"] != "operational"]
    assert len(down) >= 2  # the oracle: the rows list what is not operational
    question = "how many azure components aren't fully healthy?"
    said = "{} of the Azure components we track {} operational."
    assert not failed(question, said.format(len(down), "aren't"), results, "number")
    assert failed(question, said.format(len(down) - 1, "isn't" if len(down) == 2 else "aren't"), results, "number")
    snowflake = evidence("check_snowflake_health")
    [one] = [row for row in rows_of(snowflake) if row["kind"] == "component" and row["status"] != "operational"]
    # "16" counts every component, not the ones down: only the count before "of" is judged
    assert not failed("is snowflake ok?", f"{one['name']} is the only one of Snowflake's 16 components that isn't "
                      "operational.", snowflake, "number")


def test_a_region_beside_a_full_health_listing_is_one_it_shows() -> None:
    from opsagent.intake.vocabulary import REGIONS
    from opsagent.workflows.health_claims import regions_in

    results = evidence("check_snowflake_health", component="Query Processing")
    rows = [row for row in rows_of(results) if row["kind"] == "component"]
    assert any(row["status"] == "operational" for row in rows)  # a full listing, not only what is down
    shown = set().union(*(regions_in(row["region"]) for row in rows))
    unshown = next(name for name in REGIONS if name not in shown)
    operational = next(row["region"] for row in rows if row["status"] == "operational")
    question = "is query processing ok in every region?"
    assert not failed(question, f"Query Processing is operational in {operational}.", results, "identifier")
    assert failed(question, f"Query Processing is operational in {operational} and Azure - {unshown}.", results,
                  "identifier")
    # a listing of only what is down leaves every other region fine: naming one is no invention
    down_only = evidence("check_snowflake_health")
    assert not failed("is snowflake ok?", f"Snowflake is fine in {unshown}.", down_only, "identifier")


def test_times_before_count_the_error_the_sentence_names() -> None:
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [history] = rows_of(results)
    [group] = [group for group in history["failure_groups"] if group["like_the_run"]]
    others = sum(item["count"] for item in history["failure_groups"] if not item["like_the_run"])
    assert group["count"] == 2 and others  # the oracle: once before with this error, other errors besides
    words = {1: "once", 2: "twice", 3: "three times"}
    said = f"Yes, {{}} before: it failed with the same code, {group['error_code']} in {group['failed_activity']}."
    question = f"has the finance load died in {group['failed_activity']} before?"
    assert not failed(question, said.format(words[group["count"] - 1]), results, "history")
    assert failed(question, said.format(words[group["count"] + others]), results, "history")  # every error's


def test_hasnt_failed_since_a_day_is_judged_by_the_last_failure_not_the_status() -> None:
    """"it hasn't failed since 31 Dec" is history after a moment: true when the last failure is on or before that
    day (the status check had flagged it for the failure itself), false for a day before the last failure."""
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [history] = rows_of(results)
    last = datetime.fromisoformat(history["last_failure"]["start"].replace("Z", "+00:00"))
    question = "when did pricing model last fail?"
    said = "pl_transform_pricing_model hasn't failed since {}."
    only_the_right(question, said, f"{last.day} {last:%b}", f"{(last - timedelta(days=1)).day} "
                   f"{last - timedelta(days=1):%b}", results, None)


def test_finished_in_its_normal_time_is_judged_by_the_runs_length_against_its_usual() -> None:
    """"did it finish in its normal time?": the lead is read from the run's minutes placed among its recent
    successful runs (the history's spread), not from whether it finished."""
    results = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    [history] = rows_of(results)
    run = history["run"]
    longer = run["duration_min"] > history["durations"]["p75_min"]  # (the demo run is a slow one)
    judged_lead("pricing model this morning — did it finish in its normal time?", not longer, results,
                f" — the {run['start'][11:16]} UTC run took {run['duration_min']:g} min.")


def test_what_runs_usually_take_is_the_historys_middle_half_not_its_shortest() -> None:
    """"successful runs usually take about 37 min" when 37 is the shortest of them: any minutes the rows hold had
    passed; the usual length is the middle half of the history's successful runs (the median when so named)."""
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [history] = rows_of(results)
    spread = history["durations"]
    assert spread["shortest_min"] < spread["p25_min"]
    question = "finance load this morning — slow for it or normal?"
    said = "Slow: successful runs usually take about {:g} min."
    only_the_right(question, said, spread["median_min"], spread["shortest_min"], results, "number")
    only_the_right(question, "Its median is {:g} min.", spread["median_min"], spread["p25_min"] - 1, results, "number")


def test_a_run_compared_with_normal_and_a_combined_median_are_not_a_usual_length() -> None:
    """"much longer than normal: 62 min" gives the run's length; "a combined median of 112 min" sums the medians."""
    results = [item for name in ("pl_load_finance_dwh", "pl_transform_pricing_model")
               for item in evidence("get_pipeline_history", pipeline_name=name)]
    histories = rows_of(results[:1]) + rows_of(results[1:])
    took = histories[0]["run"]["duration_min"]
    combined = sum(history["durations"]["median_min"] for history in histories)
    question = "how far off their normal run time were they?"
    assert not failed(question, f"Much longer than normal: {took:g} min.", results, "number")
    medians = " and ".join(f"{history['durations']['median_min']:g}" for history in histories)
    only_the_right(question, f"Their medians are {medians} min, so a combined median of {{:g}} min.", combined,
                   combined + 10, results, "number")


def test_none_since_a_period_allows_the_last_one_inside_that_period() -> None:
    """"no good run since last night" when the last success was at 23:10 last night: the period's last record is
    the bound; "since Wednesday" is wrong for the same history."""
    results = evidence("get_pipeline_history", pipeline_name="pl_ingest_sales")
    [history] = rows_of(results)
    success = datetime.fromisoformat(history["last_success"]["start"].replace("Z", "+00:00"))
    assert success.date() == (NOW - timedelta(days=1)).date() and success.hour >= 18  # the oracle: last night
    question = "pl_ingest_sales when did it last fail and last work"
    only_the_right(question, "pl_ingest_sales: so no good run since {}.", "last night", "Wednesday", results,
                   "negative_claim")
