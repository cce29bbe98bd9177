"""The grounding evaluator on its own: what it accepts, what it catches, and how it scores."""

from __future__ import annotations

import pytest

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.workflows.grounding_check import Thresholds, evaluate, grounding_report, score, verdict

FAILED = ToolEvidence(tool="list_failed_pipelines", arguments={"time_window": "last 24 hours"}, status="ok", total=3,
                      shown=3, message="3 failed pipeline runs in last 24 hours.",
                      rows=[{"pipeline_name": "pl_ingest_sales", "run_id": "ff352a82-e82a-442a-a962-b3700363cea0",
                             "error_code": "2200", "duration_min": 3.0, "start": "2025-01-10T08:12Z"},
                            {"pipeline_name": "pl_ingest_sales", "run_id": "26967468-f9dd-49f1-b6bc-c45336672d9e",
                             "error_code": "2200", "duration_min": 4.0, "start": "2025-01-10T05:12Z"},
                            {"pipeline_name": "pl_export_marketing", "run_id": "a582f0ad-e199-4b41-9c76-bd399ef2514c",
                             "error_code": "2108", "duration_min": 12.0, "start": "2025-01-10T02:02Z"}])
FOUND = ToolEvidence(tool="list_incidents", arguments={"state": "open", "text": "pl_ingest_sales"}, status="ok",
                     total=1, shown=1, rows=[{"number": "INC0010049", "short_description": "ADF pl_ingest_sales failing",
                                              "state": "In Progress", "priority": 2}])
NONE = ToolEvidence(tool="list_incidents", arguments={"state": "open", "text": "pl_export_marketing"}, status="no_data",
                    message="No open incidents (text 'pl_export_marketing') found.")
RESULTS = [
    TaskResult(step=1, agent="log_analytics", question="failed?", status="ok", part="p1", evidence=[FAILED]),
    TaskResult(step=2, agent="servicenow", question="incidents?", status="ok", part="p2", evidence=[FOUND, NONE]),
]
PARTS = [QuestionPart(id="p1", text="Which pipelines failed in the last 24 hours"),
         QuestionPart(id="p2", text="is there an open incident for any of them")]
CORRECT = ("3 failed pipeline runs in the last 24 hours. 1 of the 2 pipelines has an open incident: pl_ingest_sales "
           "(INC0010049, P2); pl_export_marketing has none.")


def failures(text: str) -> list[tuple[str, str]]:
    return [(check.kind, check.claim) for check in evaluate(text, RESULTS, parts=PARTS, question="last 24 hours")
            if not check.passed]


def test_a_correct_summary_passes_every_check() -> None:
    checks = evaluate(CORRECT, RESULTS, parts=PARTS, question="Which pipelines failed in the last 24 hours?")
    assert checks and all(check.passed for check in checks)
    assert {check.kind for check in checks} >= {"identifier", "number", "negative_claim", "part_coverage", "link"}


@pytest.mark.parametrize(("text", "caught"), [
    (CORRECT.replace("INC0010049", "INC0010066"), ("identifier", "inc0010066")),
    (CORRECT.replace("pl_ingest_sales", "pl_ingest_salez"), ("identifier", "pl_ingest_salez")),
    (CORRECT.replace("3 failed", "4 failed"), ("number", "4")),
    (CORRECT + " The runs took 17 minutes in all.", ("number", "17")),
    (CORRECT.replace("pl_export_marketing has none", "pl_ingest_sales has none"), ("negative_claim", "pl_ingest_sales has none.")),
    ("3 failed pipeline runs in the last 24 hours. None of them has an open incident.", ("negative_claim", "None of them has an open incident.")),
], ids=["invented-ticket", "misspelt-name", "wrong-count", "number-not-in-evidence", "false-none-for-a-name",
        "false-none-overall"])
def test_wrong_claims_are_caught(text: str, caught: tuple[str, str]) -> None:
    assert caught in failures(text)


def test_a_dropped_part_is_caught_but_a_part_nobody_answered_is_not_held_against_the_answer() -> None:
    assert ("part_coverage", "p2: is there an open incident for any of them") in failures(
        "3 failed pipeline runs in the last 24 hours: pl_ingest_sales and pl_export_marketing.")
    unanswered = [RESULTS[0], TaskResult(step=2, agent="servicenow", question="?", status="failed", part="p2")]
    checks = evaluate("3 failed pipeline runs in the last 24 hours.", unanswered, parts=PARTS)
    assert all(check.passed for check in checks)


def test_quoted_negations_and_counts_of_rows_are_fine() -> None:
    quoted = ToolEvidence(tool="get_pipeline_run_details", status="ok", total=1, shown=1,
                          rows=[{"error_message": "Cannot find the file: source file not found"}])
    result = TaskResult(agent="log_analytics", question="why?", status="ok", part="p1", evidence=[quoted])
    assert all(check.passed for check in evaluate("It failed: source file not found.", [result]))
    counts = evaluate("pl_ingest_sales failed 2 times; 2 pipelines failed in all; 3 runs; 1 of the 2 has an incident.",
                      RESULTS, parts=PARTS)
    assert all(check.passed for check in counts if check.kind == "number")  # per value, distinct, total, cross


def test_score_caps_any_failure_below_the_pass_mark_and_verdicts_follow_the_thresholds() -> None:
    report = grounding_report(CORRECT.replace("INC0010049", "INC0010066"), RESULTS, attempt=1, thresholds=Thresholds(),
                              can_regenerate=True, parts=PARTS)
    assert report.score <= 0.6 and report.verdict == "regenerate"
    assert "INC0010066 appears in no tool output".lower() in report.failures[0].detail.lower()
    again = grounding_report(CORRECT.replace("INC0010049", "INC0010066"), RESULTS, attempt=2, thresholds=Thresholds(),
                             can_regenerate=False, parts=PARTS)
    assert again.verdict == "partial"  # the sentence with the invented id goes, the supported one stays
    assert again.kept == "3 failed pipeline runs in the last 24 hours." and "INC0010066" not in again.kept
    assert grounding_report("", RESULTS, attempt=1, thresholds=Thresholds(), can_regenerate=True).verdict == "block"
    assert score([]) == 1.0
    assert verdict(0.2, attempt=1, thresholds=Thresholds(), can_regenerate=True, kept="") == "block"
    assert verdict(0.2, attempt=1, thresholds=Thresholds(), can_regenerate=True, kept="A backed sentence.") == "partial"
    assert verdict(0.5, attempt=1, thresholds=Thresholds(pass_at=0.4), can_regenerate=True, kept="") == "pass"


def test_a_count_restating_a_tool_summary_line_must_be_that_lines_count() -> None:
    """"4 failed pipeline runs in …" is wrong when the tool said 3, even though 4 counts other rows."""
    assert ("number", "4 failed pipeline runs in") in failures(CORRECT.replace("3 failed", "4 failed"))
    other = ToolEvidence(tool="list_change_requests", status="ok", total=4, shown=4, message="4 change requests (state 'scheduled').",
                         rows=[{"number": f"CHG003001{i}"} for i in range(4)])
    results = [*RESULTS, TaskResult(step=1, agent="servicenow", question="changes?", status="ok", evidence=[other])]
    checks = evaluate("4 change requests (state 'scheduled'): CHG0030010 to CHG0030013. 3 failed pipeline runs in "
                      "the last 24 hours.", results)
    assert all(check.passed for check in checks if check.kind == "number")
    wrong = evaluate("3 change requests (state 'scheduled').", results)
    assert [check.claim for check in wrong if not check.passed] == ["3 change requests state scheduled"]


def test_a_record_said_to_be_missing_while_a_lookup_returned_it_is_caught() -> None:
    record = ToolEvidence(tool="get_incident", arguments={"number": "INC0010050"}, status="ok", total=1, shown=1,
                          rows=[{"number": "INC0010050", "state": "In Progress"}])
    health = ToolEvidence(tool="check_databricks_health", status="ok", total=1, shown=1,
                          rows=[{"component": "Jobs", "status": "degraded"}])
    results = [TaskResult(agent="servicenow", question="?", status="ok", evidence=[record, health])]
    checks = evaluate("INC0010050 has no incident.", results)
    assert [check.kind for check in checks if not check.passed] == ["negative_claim"]


def test_a_topic_counts_as_a_whole_word_only() -> None:
    """"runtime" does not show that an answer talks about runs."""
    checks = evaluate("The self-hosted integration runtime was upgraded.", RESULTS,
                      parts=[QuestionPart(id="p1", text="which ones failed?")])
    assert [check.kind for check in checks if not check.passed] == ["part_coverage"]
    assert all(check.passed for check in evaluate("Two runs failed overnight.", RESULTS,
                                                  parts=[QuestionPart(id="p1", text="which ones failed?")]))


def test_a_partial_negation_is_backed_by_that_many_rows_counting_zero() -> None:
    status = ToolEvidence(tool="query_pipeline_status", status="ok", total=3, shown=3, rows=[
        {"pipeline_name": "pl_a", "failed": 0, "cancelled": 0}, {"pipeline_name": "pl_b", "failed": 0, "cancelled": 0},
        {"pipeline_name": "pl_c", "failed": 2, "cancelled": 0}])
    results = [TaskResult(agent="log_analytics", question="?", status="ok", evidence=[status])]
    assert all(check.passed for check in evaluate("2 of the 3 pipelines had no failed run: pl_a, pl_b.", results))
    wrong = evaluate("3 of the 3 pipelines had no failed run.", results)
    assert [check.kind for check in wrong if not check.passed] == ["negative_claim"]


def test_a_report_over_no_claims_says_nothing_was_checked_not_a_perfect_score() -> None:
    empty = grounding_report("Hello! Ask me about incidents, changes, pipelines or platform health.", [], attempt=1,
                             thresholds=Thresholds(), can_regenerate=True)
    assert not empty.checks and empty.describe() == "nothing to check (no claim about the data)"
    checked = grounding_report(CORRECT, RESULTS, attempt=1, thresholds=Thresholds(), can_regenerate=True, parts=PARTS)
    assert checked.checks and checked.describe() == f"pass (score {checked.score:.2f})"


def test_a_check_that_breaks_blocks_the_answer_instead_of_publishing_it_or_failing_the_request(monkeypatch, caplog) -> None:
    """A bug in one reading (a division by a count of zero, say) must neither let the answer through unchecked nor
    turn the request into an error: the answer is blocked (the evidence is shown) and the traceback logged."""
    import opsagent.workflows.grounding_check as module

    def broken(*_: object, **__: object) -> list:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(module, "evaluate", broken)
    report = grounding_report(CORRECT, RESULTS, attempt=1, thresholds=Thresholds(), can_regenerate=True, parts=PARTS)
    assert report.verdict == "block" and report.kept == "" and not report.failures[0].passed
    assert "could not read" in report.failures[0].detail
    assert "ZeroDivisionError" in caplog.text
