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
