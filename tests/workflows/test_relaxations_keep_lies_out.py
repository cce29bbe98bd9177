"""Each reading that lets a true answer through (a total worked out, a future value, a condition, a judgement,
advice, a sentence's first word before a name) must not let the lie of the same shape through: one lie per
relaxation, found by a review of this round's changes. Each lie is checked against its row first (the oracle)."""

from __future__ import annotations

from tests.workflows.test_claim_kinds import evidence
from tests.workflows.test_claims_read_from_rows import failed, rows_of


def test_numbers_that_agree_with_each_other_but_not_with_the_rows_are_caught() -> None:
    results = evidence("query_pipeline_status", time_window="last 7 days")
    row = next(row for row in rows_of(results) if row["pipeline_name"] == "pl_ingest_sales")
    wrong = row["failed"] * 2
    said = f"pl_ingest_sales had {row['runs']} runs this week: {row['runs'] - wrong} succeeded and {wrong} failed."
    assert failed("how did sales do this week?", said, results, "number")
    results = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [history] = rows_of(results)
    median, longest = history["durations"]["median_min"], history["durations"]["longest_min"]
    assert history["run"]["duration_min"] != median + longest
    said = (f"The failed run took {median + longest:g} minutes, against a median of {median:g} min and a longest of "
            f"{longest:g} min.")
    assert failed("how long did the finance load run?", said, results, "number")


def test_a_present_state_said_as_appearing_is_a_value_claim() -> None:
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    assert row["state"] != "Resolved"
    assert failed("status of INC0010048?", "INC0010048 appears to be resolved.", results, "value")


def test_a_platform_status_for_everything_or_after_a_condition_is_judged() -> None:
    results = evidence("check_databricks_health")
    bad = next(row for row in rows_of(results) if row["kind"] == "component" and row["status"] != "operational")
    question = "is databricks ok?"
    for said in ("Databricks is operational for all regions.", "If you mean Databricks, it is operational right now.",
                 f"{bad['name']} is operational like everything else.",
                 f"When I checked, {bad['name']} was operational in {bad['region']}."):
        assert failed(question, said, results, "value"), said


def test_a_none_before_a_prediction_and_a_none_said_as_nothing_matching_are_judged() -> None:
    results = evidence("list_failed_pipelines", time_window="last 24 hours")
    assert rows_of(results)  # the oracle: runs did fail
    assert failed("anything fail last 24h?", "No pipelines failed in the last 24 hours, so expect no late reports "
                                             "this morning.", results, "negative_claim")
    results = evidence("list_incidents", text="databricks")
    assert rows_of(results)
    assert failed("any ticket for the databricks slowness?",
                  "Nothing in ServiceNow matches the Databricks cluster slowness.", results, "negative_claim")


def test_a_link_confirmed_and_a_person_named_after_a_preposition_are_judged() -> None:
    results = evidence("get_incident", number="INC0010049")
    assert "CHG0030021" not in str(rows_of(results))
    assert failed("is INC0010049 linked to CHG0030021?", "We can confirm INC0010049 is linked to CHG0030021.",
                  results)
    results = evidence("get_incident", number="INC0010048")
    assert "Will Jensen" not in str(rows_of(results))
    assert failed("who owns INC0010048?", "It's assigned to Will Jensen.", results, "identifier")


def test_a_component_a_problems_only_report_does_not_list_is_operational() -> None:
    from opsagent.intake.analyzer import analyse_question
    from opsagent.workflows.grounding_check import evaluate
    from tests.workflows.test_claim_kinds import NOW

    results = evidence("check_databricks_health")
    listed = {row["name"] for row in rows_of(results) if row["kind"] == "component"}
    assert "Notebooks" not in listed  # the oracle: the report lists only what is not operational, not Notebooks
    question = "are notebooks ok?"
    analysis = analyse_question(question, now=NOW)

    def flagged(text: str) -> bool:
        return any(not check.passed and check.kind == "value" for check in evaluate(
            text, results, analysis=analysis, question=question, known_names={"Notebooks", *listed}))

    assert flagged("Notebooks are degraded too.")
    assert not flagged("Notebooks are operational; only Jobs is degraded.")


# ---- lies a review of the tenth session's relaxations wrote (each passed them; each checked against its rows)


def both(*results: list) -> list:
    return [item for result in results for item in result]


def test_a_usual_length_is_the_named_pipelines_in_any_wording() -> None:
    sales, c360 = (evidence("get_pipeline_history", pipeline_name=name)
                   for name in ("pl_ingest_sales", "pl_transform_customer360"))
    [own], [other] = rows_of(sales), rows_of(c360)
    mine, theirs = own["durations"], other["durations"]
    assert not mine["p25_min"] <= theirs["median_min"] <= mine["p75_min"]
    question = "how long do they usually take?"
    swapped = (f"pl_ingest_sales usually takes about {theirs['median_min']:g} min and pl_transform_customer360 about "
               f"{mine['median_min']:g} min.")
    assert failed(question, swapped, both(sales, c360), "number")
    for wording in ("is normally done in {:g} minutes", "usually finishes in about {:g} minutes",
                    "typically runs for {:g} minutes"):
        assert failed(question, f"pl_ingest_sales {wording.format(mine['longest_min'])}.", sales, "number")


def test_a_failure_placed_at_a_windows_end_is_a_failed_run_there() -> None:
    change = evidence("get_change_request", number="CHG0030024")
    runs = evidence("list_pipeline_runs", pipeline_name="pl_load_finance_dwh", time_window="last 7 days")
    [window] = rows_of(change)
    at_end = [row for row in rows_of(runs) if row["start"] == window["end_date"]]
    assert at_end and all(row["status"] != "Failed" for row in at_end)
    said = f"Yes — pl_load_finance_dwh failed at {window['end_date'][11:16]}, right as CHG0030024's window closed."
    assert failed("did CHG0030024 break the finance load?", said, both(change, runs), "placement")


def test_hasnt_since_is_read_as_history_only_for_run_statuses() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_customer360")
    assert failed("has c360 been ok lately?", "pl_transform_customer360 hasn't been failing since 7 Jan.", history)
    change = evidence("get_change_request", number="CHG0030016")
    [row] = rows_of(change)
    assert row["state"] == "Authorize"
    assert failed("where is CHG0030016?", "CHG0030016 hasn't been in Authorize since Monday — it's moved on.", change,
                  "value")


def test_a_consequence_about_the_ticket_is_the_tickets() -> None:
    results = evidence("get_incident", number="INC0010048")
    [row] = rows_of(results)
    assert row["state"] == "On Hold"
    said = f"INC0010048 is assigned to {row['assigned_to']}, so the ticket is In Progress."
    assert failed("status of INC0010048?", said, results, "value")


def test_a_fix_by_a_change_the_ticket_does_not_name_is_not_its_fix() -> None:
    results = evidence("get_incident", number="INC0010048")
    assert "firewall" not in str(rows_of(results)).lower()
    question = "which change fixes the proxy?"
    assert failed(question, "The proxy configuration will be fixed by the firewall change.", results, "link")
    assert failed(question, "INC0010048 is on hold until Monday's change is complete.", results, "link")


def test_or_lower_is_not_read_as_exactly() -> None:
    results = evidence("list_incidents", assigned_to="Noah Berger")
    assert rows_of(results) and all(row["priority"] > 3 for row in rows_of(results))
    assert failed("has noah got anything P3 or lower open?", "No — Noah has nothing at P3 or lower open.", results)


def test_a_count_narrowed_to_one_pipeline_backs_no_none_about_all() -> None:
    results = evidence("count_pipeline_runs", pipeline_name="pl_ingest_iot_telemetry", time_window="last night")
    assert failed("anything fail overnight?", "No — nothing failed or was cancelled overnight.", results)


def test_nothing_new_since_a_moment_before_the_last_update_is_caught() -> None:
    results = evidence("get_incident", number="INC0010050")
    [row] = rows_of(results)
    assert row["opened_at"] < row["updated_at"]
    said = f"INC0010050 was opened at {row['opened_at'][11:16]} — nothing new on the ticket since then."
    assert failed("any update on INC0010050?", said, results, "negative_claim")


def test_counts_in_a_share_of_a_named_row_are_not_its_status_counts() -> None:
    results = evidence("count_pipeline_runs", group_by="factory", time_window="last 7 days")
    row = max(rows_of(results), key=lambda item: item["failed"])
    question = "how did the factories do this week?"
    assert not failed(question, f"In {row['factory']} {row['failed']} of the {row['count']} runs failed.", results,
                      "number")
    assert not failed(question, f"In {row['factory']} {row['succeeded']} out of {row['count']} runs succeeded.",
                      results, "number")
