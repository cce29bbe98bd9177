"""The analyzer on real (demo) backends: one inventory read per few minutes, a failed source read
again soon, and questions back whose options come from the specialists' own tools."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from opsagent.backends.base import Backends
from opsagent.backends.demo import make_demo_backends
from opsagent.errors import BackendUnavailableError
from opsagent.intake import QuestionAnalyzer
from opsagent.intake.inventory import INCOMPLETE_TTL_SECONDS
from opsagent.settings import Settings
from tests.conftest import FIXED_NOW


class CountingPipelines:
    """The demo pipelines backend, counting inventory reads; ``down`` makes them fail."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads = 0
        self.down = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def list_pipelines(self, *, since: Any) -> Any:
        self.reads += 1
        if self.down:
            raise BackendUnavailableError("Log Analytics unavailable", backend="Log Analytics", status_code=503)
        return await self.inner.list_pipelines(since=since)


@pytest.fixture
def demo(settings: Settings) -> tuple[Backends, CountingPipelines]:
    backends = make_demo_backends(settings, lambda: FIXED_NOW)
    pipelines = CountingPipelines(backends.pipelines)
    return dataclasses.replace(backends, pipelines=pipelines), pipelines


async def test_the_inventory_is_read_once_and_shared_by_questions(demo: tuple[Backends, CountingPipelines]) -> None:
    backends, pipelines = demo
    analyzer = QuestionAnalyzer(backends=backends, clock=lambda: FIXED_NOW)
    first = await analyzer.analyse("why did pl_load_finanse_dwh fail?")
    second = await analyzer.analyse("failed runs of pl_ingest_sales today")
    assert pipelines.reads == 1
    assert first.resolved_question == "why did pl_load_finance_dwh fail?"
    assert second.values("pipeline") == ["pl_ingest_sales"]
    assert "pl_ingest_sales" in analyzer.known_names()


async def test_a_source_that_failed_leaves_names_unverified_and_is_read_again_soon(
        demo: tuple[Backends, CountingPipelines], monkeypatch: pytest.MonkeyPatch) -> None:
    backends, pipelines = demo
    analyzer = QuestionAnalyzer(backends=backends, clock=lambda: FIXED_NOW)
    pipelines.down = True
    blind = await analyzer.analyse("why did pl_load_finanse_dwh fail?")
    assert [item.status for item in blind.entities] == ["unverified"] and blind.unresolved == []
    pipelines.down = False
    await analyzer.analyse("anything else")
    assert pipelines.reads == 1  # within the short retry time, the blind snapshot stands
    monkeypatch.setattr(analyzer.inventory, "_taken_at", analyzer.inventory._taken_at - INCOMPLETE_TTL_SECONDS - 1)
    seen = await analyzer.analyse("why did pl_load_finanse_dwh fail?")
    assert pipelines.reads == 2 and seen.resolved_question == "why did pl_load_finance_dwh fail?"


@pytest.mark.parametrize(("question", "tool", "label"), [
    ("is the fix approved yet?", "list_change_requests", "changes awaiting approval"),
    ("what's the ETA?", "list_incidents", "open P1 and P2 incidents"),
    ("why did that job break?", "list_failed_pipelines", "pipelines that failed in the last 24 hours"),
])
async def test_question_back_options_come_from_the_tools_with_their_evidence(
        demo: tuple[Backends, CountingPipelines], question: str, tool: str, label: str) -> None:
    backends, _ = demo
    analyzer = QuestionAnalyzer(backends=backends, clock=lambda: FIXED_NOW)
    found = await analyzer.clarify_candidates(await analyzer.analyse(question))
    [evidence] = found.evidence
    assert evidence.tool == tool and evidence.status == "ok" and found.label == label
    listed = {str(row.get("number") or row.get("pipeline_name")) for row in evidence.rows}
    assert found.questions and all(any(value in option for value in listed) for option in found.questions)


async def test_no_options_when_the_tool_fails(demo: tuple[Backends, CountingPipelines], settings: Settings) -> None:
    backends, _ = demo

    class Down:
        kind = "down"

        def __getattr__(self, name: str) -> Any:
            async def fail(*args: Any, **kwargs: Any) -> Any:
                raise BackendUnavailableError("ServiceNow unavailable", backend="ServiceNow", status_code=503)
            return fail

    analyzer = QuestionAnalyzer(backends=dataclasses.replace(backends, servicenow=Down()), clock=lambda: FIXED_NOW)
    found = await analyzer.clarify_candidates(await analyzer.analyse("is the fix approved yet?"))
    assert found.questions == [] and [item.status for item in found.evidence] == ["error"]
