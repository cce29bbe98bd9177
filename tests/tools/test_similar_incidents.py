"""find_similar_incidents on the demo data: the same CI or pipeline first, then by words; what fixed each."""

from __future__ import annotations

import pytest

from opsagent.contracts.tool_result import ToolResult
from opsagent.tools.bm25 import BM25, stem, terms
from tests.tools.conftest import DemoSql, RunTool

CLOSED = "state IN ('Resolved', 'Closed', 'Canceled')"
TEXT = "lower(short_description || ' ' || description || ' ' || close_notes)"


def numbers(result: ToolResult) -> list[str]:
    return [row["number"] for row in result.items]


def closed_numbers(demo_sql: DemoSql, where: str, *params: object) -> set[str]:
    return {row[0] for row in demo_sql(f"SELECT number FROM incidents WHERE {CLOSED} AND {where}", *params)}


async def test_incidents_naming_the_pipeline_come_first_with_their_fix(run_tool: RunTool, demo_sql: DemoSql) -> None:
    naming = closed_numbers(demo_sql, f"instr({TEXT}, 'pl_copy_supplier_invoices') > 0")
    assert naming
    result = await run_tool("find_similar_incidents", pipeline_name="pl_copy_supplier_invoices", limit=20)
    assert set(numbers(result)[: len(naming)]) == naming
    notes = dict(demo_sql("SELECT number, close_notes FROM incidents"))
    for row in result.items[: len(naming)]:
        assert "names pipeline 'pl_copy_supplier_invoices'" in row["matched"]
        assert (row["fix"], row["fix_from"]) == (notes[row["number"]], "close_notes")


async def test_an_incidents_look_alikes_share_its_ci_first_and_never_include_it(run_tool: RunTool, demo_sql: DemoSql) -> None:
    [(ci,)] = demo_sql("SELECT configuration_item FROM incidents WHERE number = 'INC0010054'")
    same_ci = closed_numbers(demo_sql, "configuration_item = ?", ci)
    assert same_ci
    result = await run_tool("find_similar_incidents", incident_number="inc10054", limit=20)
    listed = numbers(result)
    assert set(listed[: len(same_ci)]) == same_ci and "INC0010054" not in listed
    states = dict(demo_sql("SELECT number, state FROM incidents"))
    assert {states[number] for number in listed} <= {"Resolved", "Closed", "Canceled"}
    assert result.query["incident_number"] == "INC0010054" and result.warnings == ["Read 'inc10054' as INC0010054."]
    assert result.message.startswith(f"{result.total} past incidents like INC0010054, the same CI or pipeline first")


async def test_words_alone_rank_the_incident_that_shares_the_most_telling_ones(run_tool: RunTool, demo_sql: DemoSql) -> None:
    both = closed_numbers(demo_sql, f"instr({TEXT}, 'wh_finance') > 0 AND instr({TEXT}, 'suspended') > 0")
    assert len(both) == 1
    result = await run_tool("find_similar_incidents", text="Warehouse WH_FINANCE suspended by a resource monitor")
    assert numbers(result)[0] in both
    assert "wh_finance" in result.items[0]["matched"][0] and result.items[0]["score"] > 0
    assert [row["score"] for row in result.items] == sorted((row["score"] for row in result.items), reverse=True)


async def test_one_shared_word_of_several_is_no_match(run_tool: RunTool) -> None:
    result = await run_tool("find_similar_incidents", text="the dashboard refresh looked odd")
    assert all(len(row["matched"][0].split(", ")) >= 2 for row in result.items)


async def test_a_search_for_one_word_finds_every_past_incident_with_it(run_tool: RunTool, demo_sql: DemoSql) -> None:
    having = closed_numbers(demo_sql, f"instr({TEXT}, 'timeout') > 0")
    assert having
    result = await run_tool("find_similar_incidents", text="timeout", limit=20)
    assert set(numbers(result)) == having


async def test_the_default_is_five_and_errors_are_results(run_tool: RunTool) -> None:
    many = await run_tool("find_similar_incidents", configuration_item="adf-prod", text="pipeline failed run")
    assert many.shown <= 5 and (many.total > 5) == many.truncated
    nothing = await run_tool("find_similar_incidents")
    assert (nothing.status, nothing.error_kind) == ("error", "bad_arguments")
    missing = await run_tool("find_similar_incidents", incident_number="INC0099999")
    assert (missing.error_kind, missing.message) == ("not_found", "No incident INC0099999 found in ServiceNow.")


def test_bm25_prefers_rare_shared_words_and_stems_alike_words() -> None:
    documents = [terms(text) for text in ("storage throttled during backfill", "storage account full",
                                          "warehouse suspended by monitor", "backfill throttling again")]
    bm25 = BM25(documents)
    query = terms("throttling on the storage backfill")
    scores = [bm25.score(query, index) for index in range(len(documents))]
    assert scores[0] > scores[3] > scores[1] > scores[2] == 0
    assert stem("throttling") == stem("throttled") == "throttl" and stem("pl_ingest_sales") == "pl_ingest_sales"
    assert bm25.idf("storage") > 0 and bm25.shared(query, 0) == ["backfill", "storage", "throttl"]
    assert bm25.idf("monitor") > bm25.idf("storage"), "a word fewer texts hold weighs more"
