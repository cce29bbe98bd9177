"""Claims good answers make in passing, read in general terms: a pronoun for the one record looked up, a quantifier
("every one of them"), a whole day written 09:00→09:00, advice opened by "Suggest", a
length from a moment a search was asked about, what has to happen (not what is), a none since a moment said as
"N hours ago", links of a kind, a record's fields in the paragraph it leads, a count right after a pipeline's name,
a ticket named by what it is about, the first or Nth failure of a kind, a row's share of its search's total, a part
answered with its measures, "those two pipelines", a margin past a table row the sentence names, "still need
approval", none of several words in a ticket's text, a candidate looked up for another ask, and a cause said as the
subject of what it broke. Each oracle is computed from the demo rows; each reading's test failed on the code before it
(checked in a worktree of f130da6); two guard against reading too much ("it needs sign-off" is no approval; a count
after a pipeline's name over some of its rows is not judged), and the last holds what a second reader found the first
version of these readings let through."""

from __future__ import annotations

import re
from datetime import timedelta

from opsagent.contracts.plans import QuestionPart
from opsagent.intake.analyzer import analyse_question
from opsagent.tools.timewindow import iso_moment
from opsagent.workflows.grounding_check import check_parts, evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import (
    INVENTORY,
    combined,
    failed,
    judged_lead,
    only_the_right,
    rows_of,
)


def test_it_in_a_yes_no_is_the_one_record_the_evidence_is_about() -> None:
    # "is it still failing?" after a look-up of one pipeline's history: judged on its latest runs, not on any failure
    history = evidence("get_pipeline_history", pipeline_name="pl_copy_crm_accounts")
    [row] = rows_of(history)
    still = iso_moment(row["last_failure"]["start"]) > iso_moment(row["last_success"]["start"])
    judged_lead("is it still failing?", still, history, f" — the latest run started {row['run']['start'][11:16]} UTC.")


def test_every_one_of_them_quantifies_and_counts_nothing() -> None:
    listing = evidence("list_incidents", assigned_to="unassigned")
    rows = rows_of(listing)
    assert len(rows) > 1 and {row["state"] for row in rows} == {"New"}
    assert not failed("how many open tix have no owner", f"{len(rows)} open incidents have no assignee — every one of "
                      "them is still New.", listing, "number")


def test_a_range_back_to_its_own_clock_time_is_a_whole_day() -> None:
    failures = evidence("list_failed_pipelines")
    count = len(rows_of(failures))
    clock = f"{NOW:%H:%M}"
    only_the_right("how many failed runs last 24h", f"{count} failed runs (last {{}}, {clock}→{clock} UTC).",
                   "24h", "12h", failures, "number")


def test_advice_opened_by_suggest_states_no_link() -> None:
    results = combined(evidence("get_incident", number="INC0010053"), evidence("get_incident", number="INC0010049"))
    [first], [second] = rows_of(results[:1]), rows_of(results[1:])
    assert first["assignment_group"] == "Service Desk" != second["assignment_group"]
    assert not {link["number"] for row in (first, second) for link in row["links"]} & {"INC0010053", "INC0010049"}
    question = "is INC0010053 linked to that one already?"
    analysis = analyse_question(question, now=NOW, inventory=INVENTORY)

    def links_failed(text: str) -> list[str]:
        return [check.detail for check in evaluate(text, results, analysis=analysis, question=question,
                                                   known_names=["Service Desk"]) if check.kind == "link" and not check.passed]

    advice = "Suggest Service Desk links INC0010053 to INC0010049 so the reporters get updated."
    assert not links_failed(advice)
    assert links_failed("Service Desk already handles INC0010049 too.")  # said as a fact: no row links them


def test_a_length_from_the_moment_a_search_was_asked_about() -> None:
    asked = NOW.replace(hour=4, minute=0)
    details = evidence("get_pipeline_run_details", pipeline_name="pl_transform_customer360",
                       around=f"{asked:%Y-%m-%dT%H:%MZ}")
    [row] = rows_of(details)
    start = iso_moment(row["start"])
    apart = round(abs((asked - start).total_seconds()) / 60)
    assert apart > 10
    only_the_right("customer360 4am run - why'd it die", f"The closest run to 04:00 started at {start:%H:%M} UTC, {{}} "
                   "min before.", apart, apart + 7, details, "number")


def test_no_good_run_for_a_length_names_its_pipeline_by_the_one_listed() -> None:
    runs = evidence("list_pipeline_runs", pipeline_name="customer360")
    good = max(iso_moment(row["start"]) for row in rows_of(runs) if row["status"] == "Succeeded")
    hours = round((NOW - good).total_seconds() / 3600)
    only_the_right("when did customer360 start failing", "So no good customer360 build for about {} hours.",
                   hours, hours + 4, runs, "negative_claim")


def test_what_has_to_happen_to_a_record_is_not_its_state() -> None:
    changes = evidence("list_change_requests", type="emergency")
    waiting = [row for row in rows_of(changes) if row["approval"] == "requested"]
    assert len(waiting) == 1
    said = f"{waiting[0]['number']} opens in about an hour, so it {{}} approved before then."
    only_the_right("any emergency changes stuck waiting on approval?", said, "has to be", "is already", changes, "value")


def test_nothing_since_a_moment_said_as_hours_ago() -> None:
    failures = evidence("list_failed_pipelines", pipeline_name="pl_ingest_web_events", time_window="last 7 days")
    starts = sorted(iso_moment(row["start"]) for row in rows_of(failures))
    hours = round((NOW - starts[-1]).total_seconds() / 3600)
    # a moment at least two hours from every failure: nothing to point at there
    quiet = next(back for back in range(hours + 3, hours + 60) if all(
        abs((NOW - timedelta(hours=back) - start).total_seconds()) > 7200 for start in starts))
    only_the_right("web events one - has it failed at all this week?", "The latest failure was about {} hours ago "
                   "and nothing has failed since.", hours, quiet, failures, "negative_claim")
    crm = evidence("list_failed_pipelines", pipeline_name="pl_copy_crm_accounts", time_window="last 7 days")
    latest = max(iso_moment(row["start"]) for row in rows_of(crm))
    assert round((NOW - latest).total_seconds() / 3600) == 9  # said in words, as people say it
    assert not failed("crm accounts - still failing?", "The latest failure was about nine hours ago and nothing has "
                      "failed since.", crm, "negative_claim")


def test_no_link_of_the_kinds_named_is_read_from_the_tickets_links() -> None:
    ticket = evidence("get_incident", number="INC0010052")
    [row] = rows_of(ticket)
    kinds = {link["kind"] for link in row["links"]}
    vias = {via for link in row["links"] for via in link["via"]}
    assert "change" in kinds and "problem" not in kinds and "parent_incident" not in vias
    changes = [link["number"] for link in row["links"] if link["kind"] == "change"]
    question = "who's on the portal 503 thing and is there a change for it"
    assert not failed(question, f"Elif Demir has INC0010052. No problem record or parent incident is linked; "
                      f"{changes[0]} is the only link.", ticket, "negative_claim")
    assert failed(question, "Elif Demir has INC0010052. No change or parent incident is linked.", ticket,
                  "negative_claim")


def test_a_records_fields_in_the_paragraph_it_leads_are_its_own() -> None:
    change = evidence("get_change_request", number="CHG0030016")
    [row] = rows_of(change)
    other = next(risk for risk in ("Low", "Moderate", "High") if risk != row["risk"])
    only_the_right("the snowflake one - how risky?", "CHG0030016 — upgrade the Snowflake account. Risk: {}. Window: "
                   "Sunday.", row["risk"], other, change, "value")


def test_a_count_right_after_a_pipelines_name_is_its_count() -> None:
    failures = evidence("list_failed_pipelines")
    count = sum(row["pipeline_name"] == "pl_ingest_sales" for row in rows_of(failures))
    question = "how many failed runs last 24h and which pipelines"
    only_the_right(question, "pl_ingest_sales is the worst with {} (all Copy_Sales).", count, count + 1, failures,
                   "number")
    only_the_right(question, "- pl_ingest_sales – {} (Copy_Sales, file not found)", count, count + 1, failures, "number")


def test_a_ticket_named_by_what_it_is_about_is_the_one_whose_title_says_so() -> None:
    tickets = evidence("list_incidents", assignment_group="Network Operations")
    rows = rows_of(tickets)
    vpn = [row["number"] for row in rows if "vpn" in row["short_description"].lower()]
    others = [row["number"] for row in rows if "vpn" not in row["short_description"].lower()]
    assert len(vpn) == 1 and others
    question = "who owns the vpn packet loss ticket?"
    only_the_right(question, "VPN packet loss is {}.", vpn[0], others[0], tickets, "value")
    only_the_right(question, "{} is the VPN packet loss one.", vpn[0], others[0], tickets, "value")


def test_the_first_or_nth_failure_of_a_kind_against_the_history() -> None:
    finance = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    groups = rows_of(finance)[0]["failure_groups"]
    own = [group for group in groups if group["like_the_run"]]
    assert own and own[0]["count"] > 1  # the run's own kind of failure happened before
    assert failed("has the finance load timed out like this before?", "Not in the history — this is the first "
                  "Snowflake timeout.", finance, "history")
    ordinal = {2: "2nd", 3: "3rd", 4: "4th"}  # its own kind over the whole history, an aside's day no window
    only_the_right("how long did the finance load run, and is that normal?", "It's the {} time in the 14-day history it "
                   f"died this way (the first was {iso_moment(own[0]['first_seen']):%d %b}).", ordinal[own[0]["count"]],
                   ordinal[own[0]["count"] + 1], finance, "history")
    marketing = evidence("get_pipeline_history", pipeline_name="pl_export_marketing")
    monday = (NOW - timedelta(days=NOW.weekday())).replace(hour=0, minute=0)
    this_week = [start for group in rows_of(marketing)[0]["failure_groups"] if group["error_code"] == "2108"
                 for start in map(iso_moment, group["starts"]) if start >= monday]
    ordinal = {2: "second", 3: "third", 4: "fourth"}
    only_the_right("seen that before?", "Yes — this is its {} 2108 failure this week.", ordinal[len(this_week)],
                   ordinal[len(this_week) + 1], marketing, "history")


def test_a_rows_share_of_its_searchs_total() -> None:
    failed_runs = evidence("count_pipeline_runs", status="Failed", group_by="factory", time_window="last 7 days")
    counts = {row["factory"]: row["count"] for row in rows_of(failed_runs)}
    share = round(100 * counts["adf-prod-weu"] / sum(counts.values()))
    only_the_right("failures per factory this week?", "West Europe carries {} % of the failures.", share, share - 3,
                   failed_runs, "number")


def test_a_part_answered_with_its_measures_is_covered() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_transform_pricing_model")
    run = rows_of(history)[0]["run"]
    median = rows_of(history)[0]["durations"]["median_min"]
    part = [QuestionPart(id="p1", text="is that slow for it? by how much")]
    said = f"Yes, clearly: {run['duration_min']:g} min vs a median of {median:g}."
    assert all(check.passed for check in check_parts(said, part, history))
    assert not all(check.passed for check in check_parts("Yes, clearly.", part, history))


def test_those_n_records_are_the_ones_named_before() -> None:
    change = evidence("get_change_request", number="CHG0030012")
    [row] = rows_of(change)
    pipelines = sorted(set(re.findall(r"\bpl_\w+", row["description"])))
    assert len(pipelines) == 2
    only_the_right("CHG0030012 - how long is the window?", f"It affects {' and '.join(pipelines)}. Worth a heads-up "
                   "to whoever watches those {} pipelines.", "two", "three", change, "number")


def test_a_margin_past_a_table_row_the_sentence_names() -> None:
    history = evidence("get_pipeline_history", pipeline_name="pl_load_finance_dwh")
    [row] = rows_of(history)
    run, spread = row["run"]["duration_min"], row["durations"]
    table = "\n".join(f"| {label} | {value:g} |" for label, value in (  # the row named is not the line before
        ("this run", run), ("longest success", spread["longest_min"]),
        ("median of the recent successes", spread["median_min"]), ("middle half", spread["p25_min"])))
    margin = run - spread["longest_min"]
    said = [run, *(spread[name] for name in ("median_min", "p25_min", "longest_min"))]
    wrong = next(value for value in range(int(margin) + 1, 60) if all(
        abs(abs(first - second) - value) > 0.5 for first in said for second in said))
    only_the_right("finance one, how long did it run vs normal?", f"| | minutes |\n|---|---|\n{table}\n\nThat is "
                   "{} minutes past the longest recent success.", f"{margin:g}", wrong, history, "number")


def test_still_needing_approval_is_not_approved() -> None:
    changes = evidence("list_change_requests", window="next 7 days", order="next")
    rows = rows_of(changes)
    waiting = sum(row["approval"] != "approved" for row in rows)
    assert 1 < waiting < len(rows)
    only_the_right("changes coming up next 7 days, and which ones still need sign-off?", f"{len(rows)} changes start "
                   "in the next 7 days; {} of them still need approval.", waiting, waiting - 1, changes, "number")


def test_none_of_the_words_a_tickets_text_is_said_not_to_mention() -> None:
    results = combined(evidence("list_incidents", text="pl_load_finance_dwh"), evidence("get_incident", number="INC0010054"))
    assert not rows_of(results[:1])  # no open ticket mentions the pipeline
    [candidate] = rows_of(results[1:])
    written = " ".join(str(value) for value in candidate.values()).lower()
    assert "adf" not in written and "load" not in written and "queries" in written
    question = "is there a ticket for the finance load failure? INC0010054 maybe?"
    only_the_right(question, "INC0010054 is about slow Snowflake queries. It says nothing about {} or the load.",
                   "ADF", "queries", results, "negative_claim")


def test_a_candidate_looked_up_for_another_ask_answers_no_existence() -> None:
    # "is there a ticket for X? INC… maybe?": the candidate looked up is no ticket for X; the empty search answers
    results = combined(evidence("list_incidents", text="pl_load_finance_dwh"), evidence("get_incident", number="INC0010054"))
    [candidate] = rows_of(results[1:])
    assert not rows_of(results[:1]) and "pl_load_finance_dwh" not in str(candidate)
    judged_lead("is there a ticket for the finance load failure? INC0010054 maybe?", False, results,
                " — no open ticket mentions pl_load_finance_dwh.")


def test_a_cause_said_as_the_subject_of_what_it_broke() -> None:
    details = evidence("get_pipeline_run_details", pipeline_name="pl_transform_customer360", around="2025-01-10T04:00Z")
    written = " ".join(str(value) for row in rows_of(details) for value in row.values()).lower()
    assert "capacity" in written and "cloud" in written and not {"library", "version", "conflict"} & set(
        re.findall(r"[a-z]+", written))
    only_the_right("customer360 4am run - why'd it die", "It failed in the notebook step with 3200 — {} broke the "
                   "cluster start.", "a cloud capacity shortage", "a library version conflict", details, "link")


def test_what_a_change_needs_is_not_its_approval() -> None:
    # "still in Authorize, so it needs sign-off": what has to happen, not an approval the rows would have to show
    ticket = evidence("get_incident", number="INC0010052")
    [change] = [link for row in rows_of(ticket) for link in row["links"] if link["kind"] == "change"]
    assert "approval" not in change and change["state"] == "Authorize"
    question = "portal P1 - when's the emergency change?"
    said = f"{change['number']} is planned for 10:00 UTC but it's still in Authorize, so it {{}} before then."
    only_the_right(question, said, "needs sign-off", "is approved", ticket, "value")


def test_a_count_after_a_pipelines_name_is_not_judged_on_some_of_its_rows() -> None:
    # 7 of 24 failed runs shown: how many each pipeline had is not in them (a real model's "pl_x: 3" key facts)
    failures = evidence("list_failed_pipelines", time_window="last 7 days", limit=7)
    [item] = failures[0].evidence
    assert item.total > len(item.rows)
    name = item.rows[0]["pipeline_name"]
    shown = sum(row["pipeline_name"] == name for row in item.rows)
    judged = failed("and for the last 7 days?", f"- {name}: {shown + 2}", failures, "number")
    assert not [detail for detail in judged if "has no count of" in detail]  # (no per-pipeline count to hold it to)


def test_what_a_second_reader_found_the_new_readings_let_through() -> None:
    # a rate is no share of a whole; "those N" excuses only its own mention; a title given to a change relates it
    counts = evidence("count_pipeline_runs", group_by="factory", time_window="last 7 days")
    [weu] = [row for row in rows_of(counts) if row["factory"] == "adf-prod-weu"]
    share_of_runs = round(100 * weu["count"] / sum(row["count"] for row in rows_of(counts)))
    assert abs(share_of_runs - 100 * weu["failed"] / weu["count"]) > 5
    assert failed("failure rate per factory this week?", f"adf-prod-weu had a failure rate of {share_of_runs}% this "
                  "week.", counts, "number")
    failures = evidence("list_failed_pipelines")
    sales = sum(row["pipeline_name"] == "pl_ingest_sales" for row in rows_of(failures))
    named = sorted({row["pipeline_name"] for row in rows_of(failures)})[:4]  # four of them, a count no row gives
    assert len(named) != sales
    assert failed("which pipelines failed in the last 24h?", f"{', '.join(named)} failed; those {len(named)} pipelines "
                  f"need a look. Copy_Sales alone saw {len(named)} failures.", failures, "number")
    ticket = evidence("get_incident", number="INC0010052")
    assert not failed("portal P1 - is there a change for it?", "Yes — the change for the portal 503 errors is "
                      "CHG0030022, still in Authorize.", ticket, "value")
