"""Answers that pair records (dev16: "which P1/P2s have a change", "does the ticket link a change"): a ticket said to
link no change is backed by its own look-up, whose "links" list the change raised for it, the one that caused it and
the tickets its text names; a time written after a status page's name is that platform's, not the ticket's. Evidence
comes from the real tools on the demo data; each oracle is computed from the rows, and each shape's lie (a ticket
whose links hold a change, a time neither the ticket nor the page shows) is caught."""

from __future__ import annotations

from opsagent.contracts.evidence import TaskResult
from opsagent.intake.analyzer import analyse_question
from opsagent.intake.inventory import InventorySnapshot
from opsagent.workflows.grounding_check import evaluate
from tests.workflows.test_claim_kinds import NOW, evidence
from tests.workflows.test_claims_read_from_rows import failed, rows_of

QUESTION = "which open p1/p2 tickets have a change linked?"


def looked_up() -> tuple[list[TaskResult], list[str], list[str]]:
    """Every open P1/P2 looked up: (the evidence, the ones linking a change, the ones linking none)."""
    listing = evidence("list_incidents", priority=2)
    numbers = [row["number"] for row in rows_of(listing)]
    lookups = [result for number in numbers for result in evidence("get_incident", number=number)]
    linking, bare = [], []
    for result in lookups:
        [row] = result.evidence[0].rows
        (linking if any(link["kind"] == "change" for link in row["links"]) else bare).append(row["number"])
    assert linking and bare, "the demo data has both"
    return [*listing, *lookups], linking, bare


def test_a_ticket_whose_links_hold_no_change_links_no_change() -> None:
    results, linking, bare = looked_up()
    for said in (f"{bare[0]} → no change", f"No change on {' or '.join(bare)}.",
                 f"{bare[0]} is In Progress. It links no change."):
        assert not failed(QUESTION, said, results, "negative_claim"), said
    assert failed(QUESTION, f"{linking[0]} → no change", results, "negative_claim")
    assert failed(QUESTION, f"No change on {bare[0]} or {linking[0]}.", results, "negative_claim")
    assert failed(QUESTION, f"{bare[0]} has no incident.", results, "negative_claim")  # denies the record itself


def test_a_share_of_the_tickets_looked_up_without_a_change_is_counted_from_their_links() -> None:
    results, linking, bare = looked_up()
    total = len(linking) + len(bare)
    assert not failed(QUESTION, f"So {len(bare)} of the {total} have no change.", results, "negative_claim")
    assert failed(QUESTION, f"So {len(bare) + 1} of the {total} have no change.", results, "negative_claim")


def test_a_listing_row_says_nothing_of_links() -> None:
    """Without the look-up a ticket's links are unknown: a listing's row has none."""
    listing = evidence("list_incidents", priority=2)
    number = rows_of(listing)[0]["number"]
    assert failed(QUESTION, f"{number} → no change", listing, "negative_claim")


def test_a_time_written_after_a_status_pages_name_is_that_platforms() -> None:
    """"INC… (opened 03:50) matches Jobs in Azure West Europe, degraded since 02:00": the 02:00 is the component's."""
    question = "is the databricks status behind the open P2s?"
    listing, health = evidence("list_incidents", priority=2), evidence("check_databricks_health")
    component = next(row for row in rows_of(health) if row.get("kind") == "component")
    since = component["since"][11:16]
    ticket = next(row for row in rows_of(listing) if row["opened_at"][11:16] != since)
    opened, results = ticket["opened_at"][11:16], [*listing, *health]
    told = (f"{ticket['number']} (opened {opened}) matches {component['name']} in {component['region']}, "
            f"{component['status']} since {{}} UTC.")
    assert not failed(question, told.format(since), results, "placement")
    later = f"{(int(since[:2]) + 1) % 24:02d}{since[2:]}"
    assert later != opened and failed(question, told.format(later), results, "placement")
    # the record's own time is still its own
    assert failed(question, told.format(since).replace(f"opened {opened}", f"opened {later}"), results, "placement")


def test_a_table_row_pairing_a_ticket_and_its_change_gives_each_its_own_title() -> None:
    """Models shorten a ticket's title in a table ("portal API 503s"); the change's title in the next cell is not it."""
    _, linking, bare = looked_up()
    listing = evidence("list_incidents", priority=2)
    rows = {row["number"]: row for row in rows_of(listing)}
    ticket, other = rows[linking[0]], rows[bare[0]]
    [change] = [link for result in evidence("get_incident", number=ticket["number"])
                for link in result.evidence[0].rows[0]["links"] if link["kind"] == "change"][:1]
    results = [*listing, *evidence("get_change_request", number=change["number"])]
    table = "| Incident | Pri | Change |\n|---|---|---|\n| {} — {} | P{} | {} — {} |"
    short = " ".join(ticket["short_description"].split()[1:3])
    paired = table.format(ticket["number"], short, ticket["priority"], change["number"], change["short_description"])
    assert not failed(QUESTION, paired, results, "value")
    swapped = table.format(ticket["number"], other["short_description"], ticket["priority"], change["number"],
                           change["short_description"])
    assert failed(QUESTION, swapped, results, "value")


def test_a_ticket_the_user_named_earlier_is_still_checked_against_the_data() -> None:
    """"what about INC0010099?" then "is it still open?": "Yes, INC0010099 is still open" for a ticket no row shows
    must not pass on the user's word (a review of this change found it did)."""
    listing = evidence("list_incidents", state="open")
    unknown = f"INC{int(max(row['number'] for row in rows_of(listing))[3:]) + 100:07d}"
    question, earlier = "is it still open?", f"what about {unknown}?"
    analysis = analyse_question(question, now=NOW, inventory=InventorySnapshot())
    checks = evaluate(f"Yes, {unknown} is still open (P2).", listing, analysis=analysis, question=question,
                      earlier=earlier)
    assert any(check.kind == "identifier" and not check.passed for check in checks)


def test_a_window_of_one_ask_does_not_narrow_another_asks_records() -> None:
    """"what's scheduled over the weekend? anything open on those CIs already?": the incidents are open now, opened
    whenever; the weekend is the changes' window."""
    question = "what's scheduled over the weekend? anything open on those CIs already?"
    changes = evidence("list_change_requests", window="this weekend")
    items = sorted({row["configuration_item"] for row in rows_of(changes)})
    tickets = [result for item in items for result in evidence("list_incidents", configuration_item=item)]
    open_now = [row for result in tickets for row in result.evidence[0].rows]
    assert items and open_now and all(row["state"] in ("New", "In Progress", "On Hold") for row in open_now)
    results = [*changes, *tickets]
    said = f"{len(items)} changes on {', '.join(items)}. {{}} — {len(open_now)} open incidents on those CIs."
    assert not failed(question, said.format("Yes"), results, "lead")
    assert failed(question, said.format("No"), results, "lead")


def test_a_link_offered_as_an_inference_still_needs_a_row_linking_the_two() -> None:
    """"CHG… looks like the fix for INC…" on the same CI: a CI is coarse (several tickets, months apart); a hedge
    does not make a link the rows do not show."""
    question = "changes this weekend and the incidents on their CIs?"
    changes = evidence("list_change_requests", window="this weekend")
    change = rows_of(changes)[0]
    on_its_ci = evidence("list_incidents", configuration_item=change["configuration_item"], state="all")
    same = next(row for row in rows_of(on_its_ci) if change["number"] not in str(row))
    results = [*changes, *on_its_ci]
    assert failed(question, f"{change['number']} looks like the fix for {same['number']}.", results, "link")


def test_a_count_of_different_pipelines_reads_run_counts_and_run_listings_alike() -> None:
    """Runs, pipelines and run counts are one kind: "24 failed runs over 8 distinct pipelines" counts the names of
    a per-pipeline count beside a listing of one factory's failures."""
    question = "failed runs per factory last week, and how many different pipelines"
    counts = evidence("count_pipeline_runs", status="Failed", time_window="last 7 days")
    neu = evidence("list_failed_pipelines", factory="adf-prod-neu", time_window="last 7 days")
    names = {row["pipeline_name"] for result in (*counts, *neu) for row in result.evidence[0].rows}
    runs = sum(row["count"] for row in rows_of(counts))
    results = [*counts, *neu]
    assert len(names) > len({row["pipeline_name"] for row in rows_of(neu)})
    assert not failed(question, f"{runs} failed runs over {len(names)} distinct pipelines in all.", results, "number")
    assert failed(question, f"{runs} failed runs over {len(names) + 1} distinct pipelines in all.", results, "number")


def test_a_count_of_different_pipelines_within_one_factory_counts_that_factorys_rows() -> None:
    question = "failed runs per factory on 3 and 4 jan, and how many pipelines"
    listing = evidence("list_failed_pipelines", time_window="2025-01-03T00:00Z to 2025-01-05T00:00Z")
    rows = rows_of(listing)
    assert len(rows) == listing[0].evidence[0].total
    by_factory = {row["factory"]: set() for row in rows}
    for row in rows:
        by_factory[row["factory"]].add(row["pipeline_name"])
    factory, names = max(by_factory.items(), key=lambda pair: len(pair[1]))
    assert len(names) < len({row["pipeline_name"] for row in rows}), "another factory adds pipelines"
    said = "{}: failures across {} pipelines."
    assert not failed(question, said.format(factory, len(names)), listing, "number")
    assert failed(question, said.format(factory, len(names) + 1), listing, "number")


def test_a_ticket_pointed_back_at_by_its_kind_links_no_change() -> None:
    results, linking, bare = looked_up()
    said = "{} was opened this week. The ticket links no change."
    assert not failed(QUESTION, said.format(bare[0]), results, "negative_claim")
    assert failed(QUESTION, said.format(linking[0]), results, "negative_claim")


def test_no_incident_names_it_rests_on_the_search_for_the_record_it_points_at() -> None:
    """"- pl_a ran today. No open incident names it. - pl_b: INC… covers it.": pl_a's own search came back empty; the
    other search's rows are pl_b's."""
    runs = evidence("list_pipeline_runs", time_window="last 24 hours", limit=50)
    names = sorted({row["pipeline_name"] for row in rows_of(runs)})
    searches = {name: evidence("list_incidents", text=name) for name in names}
    quiet = next(name for name, result in searches.items() if not result[0].evidence[0].rows)
    ticketed = next(name for name, result in searches.items() if result[0].evidence[0].rows)
    ticket = searches[ticketed][0].evidence[0].rows[0]["number"]
    question = f"did {quiet} and {ticketed} run today, and are they ticketed?"
    results = [*runs, *searches[quiet], *searches[ticketed]]
    said = "- **{}** ran today. No open incident names it.\n- **{}** ran today; {} covers it."
    assert not failed(question, said.format(quiet, ticketed, ticket), results, "negative_claim")
    assert failed(question, said.format(ticketed, quiet, ticket), results, "negative_claim")


def test_a_claim_about_a_relation_no_search_looked_at_is_unbacked() -> None:
    """The real model's answers (Qwen2.5-Coder-1.5B, paraphrase sample) after a search of runs alone: "The failed
    pipelines with an open incident … are: <every failed pipeline>" and "… that already have an open incident: none"."""
    question = "which failed pipelines in the last 24h have an open incident?"
    runs = evidence("list_failed_pipelines", time_window="last 24 hours")
    names = sorted({row["pipeline_name"] for row in rows_of(runs)})
    listed = f"The failed pipelines with an open incident in the last 24 hours are: {', '.join(names)}."
    for said in (listed, "Failed pipelines in the last 24 hours that already have an open incident: none"):
        assert failed(question, said, runs, "link"), said
    honest = f"{len(names)} pipelines failed in the last 24 hours: {', '.join(names)}. I did not check the tickets."
    assert not failed(question, honest, runs, "link")
    tickets = [result for name in names for result in evidence("list_incidents", text=name)]
    paired = [name for name, result in zip(names, tickets) if result.evidence[0].rows]
    said = f"The failed pipelines with an open incident are: {', '.join(paired)}."
    assert paired and not failed(question, said, [*runs, *tickets], "link")


def test_review_findings_stay_caught() -> None:
    """Lies a review of the pairing checks made pass, each caught again."""
    # "no open incident names it" needs a ticket search: an empty search of its runs is not one
    runs = evidence("list_pipeline_runs", pipeline_name="pl_ingest_sales", time_window="last 30 minutes")
    tickets = evidence("list_incidents", state="open")
    assert not rows_of(runs) and any("pl_ingest_sales" in row["short_description"] for row in rows_of(tickets))
    said = "pl_ingest_sales had no runs in the last 30 minutes. No open incident names it."
    assert failed("anything on pl_ingest_sales lately?", said, [*runs, *tickets], "negative_claim")
    # a share with a subject of its own is not the share of the tickets looked up
    results, linking, bare = looked_up()
    total = len(linking) + len(bare)
    p1s = [row for result in results for row in result.evidence[0].rows if row.get("priority") == 1
           and "links" in row]
    assert len(p1s) != len(bare)
    assert failed(QUESTION, f"{len(bare)} of the {total} P1s have no change.", results, "negative_claim")


def test_a_relation_answered_from_ticket_look_ups_is_searched() -> None:
    """A ticket's look-up lists the changes it links: "which P1/P2 have a change linked?" answered from get_incident
    is not a relation left unsearched (coverage and the relation claims agree with the links reading)."""
    results, linking, bare = looked_up()
    said = f"{linking[0]} links a change. {bare[0]} → no change. So {len(bare)} of the {len(bare) + len(linking)} have no change."
    assert not failed(QUESTION, said, results, "link") and not failed(QUESTION, said, results, "negative_claim")


def test_a_record_an_earlier_answer_gave_may_be_named_again_but_not_given_a_new_value() -> None:
    """"whats INC…" answered, then "did any pipeline fail overnight?": the answer may place a failure "before INC…
    was opened" (the earlier, checked answer named it), but may not say the ticket is now in a state the earlier
    answer did not give — no row of this turn shows the ticket, so only the identifier check stands between."""
    [ticket] = rows_of(evidence("get_incident", number="INC0010054"))
    state = ticket["state"]
    other = next(name for name in ("Resolved", "Closed", "Canceled") if name != state)
    told = f"{ticket['number']} is a {state} P{ticket['priority']}: {ticket['short_description']}."
    runs = evidence("list_failed_pipelines", time_window="last night")
    failure = rows_of(runs)[0]
    question = "did any pipeline fail overnight?"
    analysis = analyse_question(question, now=NOW, inventory=InventorySnapshot())

    def identifier_failed(answer: str, **earlier: str) -> bool:
        checks = evaluate(answer, runs, analysis=analysis, question=question, **earlier)
        return any(check.kind == "identifier" and not check.passed for check in checks)

    retold = f"Yes, {failure['pipeline_name']} failed, a few hours before {ticket['number']} was opened."
    assert not identifier_failed(retold, earlier=f"whats {ticket['number']}\n{told}", told=told)
    assert identifier_failed(retold, earlier=f"whats {ticket['number']}")  # the user's word alone backs nothing
    assert identifier_failed(f"Yes, {failure['pipeline_name']} failed; {ticket['number']} is {other} now.",
                             earlier=f"whats {ticket['number']}\n{told}", told=told)
    assert not identifier_failed(f"Yes, {failure['pipeline_name']} failed; {ticket['number']} is still {state}.",
                                 earlier=f"whats {ticket['number']}\n{told}", told=told)


def test_a_name_an_earlier_answer_said_it_could_not_find_is_not_retold() -> None:
    """"I couldn't find INC0010099 — the closest is INC0010049 (In Progress)": INC0010099 was never shown, and
    INC0010049's state is not INC0010054's either."""
    runs = evidence("list_failed_pipelines", time_window="last night")
    question = "did anything fail overnight?"
    analysis = analyse_question(question, now=NOW, inventory=InventorySnapshot())
    told = "I couldn't find INC0010099 — the closest match is INC0010049 (P2, In Progress, Amira Haddad)."

    def unknown(answer: str, told: str) -> bool:
        return any(check.kind == "identifier" and not check.passed for check in evaluate(
            answer, runs, analysis=analysis, question=question, earlier=told, told=told))

    assert unknown("pl_ingest_sales failed at 02:11; INC0010099 is In Progress.", told)
    told = "INC0010054 is New and unassigned, and INC0010049 is In Progress with Amira Haddad."
    assert unknown("pl_ingest_sales failed at 02:11; INC0010054 is In Progress now.", told)
    assert not unknown("pl_ingest_sales failed at 02:11, before INC0010054 was opened.", told)
