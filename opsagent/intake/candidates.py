"""Concrete options for a question back: "Which fix? The changes awaiting approval are CHG…, CHG…".

When the planner decides it cannot resolve an in-scope question, the clarify step offers what the
data holds for the kind of thing the question is about: changes awaiting approval, open P1/P2
incidents, or pipelines that failed in the last day. They are read with the specialists' own
tools, so the options come with the same evidence as any answer (and the answer's grounding
check vouches for every id offered). A tool that fails offers nothing; the clarify role then
falls back to generic interpretations.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_framework import FunctionTool

from opsagent.backends.base import Backends, Clock
from opsagent.contracts.analysis import QuestionAnalysis
from opsagent.contracts.evidence import ToolEvidence
from opsagent.intake.asks import ENTITY_RECORDS
from opsagent.tools.catalog import TOOLS
from opsagent.tools.log_analytics import make_log_analytics_tools
from opsagent.tools.servicenow import make_servicenow_tools

logger = logging.getLogger(__name__)

MAX_CANDIDATES = 3
CHANGE_WORDS = re.compile(r"\b(?:fix|change|changes|approved|approval|deploy(?:ment)?|rollout|upgrade|patch|cab)\b", re.I)
INCIDENT_WORDS = re.compile(r"\b(?:incident|ticket|eta|outage|resolved|when will|fixed|status)\b", re.I)
PIPELINE_WORDS = re.compile(r"\b(?:pipeline|run|job|load|failed|failing|broke)\b", re.I)


@dataclass(frozen=True)
class CandidateSearch:
    """One search whose rows become questions the user can send back as they are."""

    words: re.Pattern[str]
    tool: str
    arguments: dict[str, Any]
    question: Callable[[dict[str, Any]], str]
    key: str
    """The row field that identifies an option (options are unique by it)."""
    label: str
    """What the options are, for the question back: "changes awaiting approval"."""


SEARCHES = (
    CandidateSearch(CHANGE_WORDS, "list_change_requests", {"state": "open", "approval": "requested"},
                    lambda row: f"Tell me about {row['number']} ({row['short_description']}).", "number",
                    "changes awaiting approval"),
    CandidateSearch(INCIDENT_WORDS, "list_incidents", {"state": "open", "priority": 2, "priority_match": "or_higher"},
                    lambda row: f"What is the status of {row['number']} ({row['short_description']})?", "number",
                    "open P1 and P2 incidents"),
    CandidateSearch(PIPELINE_WORDS, "list_failed_pipelines", {"time_window": "last 24 hours"},
                    lambda row: f"Why did {row['pipeline_name']} fail?", "pipeline_name",
                    "pipelines that failed in the last 24 hours"),
)


TOPIC_WORD = re.compile(r"[a-z][a-z0-9]{3,}")
GENERIC = frozenset("what when where which there this that with from have will about still fix fixed change changes "
                    "incident incidents ticket approved approval status the eta".split())


def _overlap(row: dict[str, Any], question: str) -> int:
    """How many of the question's own words ("the *portal* fix") the row's text has: those options first."""
    words = {word for word in TOPIC_WORD.findall(question.lower()) if word not in GENERIC}
    text = " ".join(str(value).lower() for value in row.values())
    return sum(1 for word in words if word in text)


def _lookup(kind: str, value: str) -> tuple[str, dict[str, str]] | None:
    """The look-up the catalog has for one named thing, its current state: by its id (a ticket, a run), else by its
    name (a pipeline: its latest run). Not a tool that always applies a value (past incidents like it)."""
    record = ENTITY_RECORDS.get(kind)
    for spec in (spec for spec in TOOLS if spec.is_lookup and not spec.fixed):
        key = next((item.parameter for item in spec.filters if item.kind == "lookup" and spec.record == record
                    or item.kind == "name" and item.inventory == kind), None)
        if key is not None:
            return spec.name, {key: value}
    return None


@dataclass(frozen=True)
class ClarifyCandidates:
    questions: list[str] = field(default_factory=list)
    label: str = ""
    evidence: list[ToolEvidence] = field(default_factory=list)


class CandidateFinder:
    """Runs the one search that fits the question, with the specialists' tools."""

    def __init__(self, backends: Backends, clock: Clock) -> None:
        tools = [*make_servicenow_tools(backends, clock=clock, max_rows=20),
                 *make_log_analytics_tools(backends, clock=clock, max_rows=20)]
        self._tools: dict[str, FunctionTool] = {tool.name: tool for tool in tools}

    async def examples(self) -> ClarifyCandidates:
        """Example questions about what the data holds now (an open P1/P2, a pipeline that failed today),
        with the searches they come from (an answer names nothing its evidence does not show)."""
        found = ClarifyCandidates()
        for search in SEARCHES[1:]:
            output = await self._tools[search.tool].invoke(arguments=search.arguments, skip_parsing=True)
            evidence = ToolEvidence.from_output(search.tool, search.arguments, str(output), call_id="examples")
            found.questions.extend(search.question(row) for row in evidence.rows[:1] if row.get(search.key))
            found.evidence.append(evidence)
        return found

    async def action_records(self, analysis: QuestionAnalysis) -> list[ToolEvidence]:
        """The records a request to act names, looked up (their latest state): shown with the refusal whatever
        the model planned ("restart pl_x": its latest run)."""
        action, found = analysis.action, []
        for item in analysis.entities:
            call = _lookup(item.kind, item.value) if action and item.usable and item.value in action.targets else None
            if call is not None and call[0] in self._tools:
                output = await self._tools[call[0]].invoke(arguments=call[1], skip_parsing=True)
                found.append(ToolEvidence.from_output(call[0], call[1], str(output), call_id="action_records"))
        return found[:MAX_CANDIDATES]

    async def find(self, analysis: QuestionAnalysis) -> ClarifyCandidates:
        search = next((item for item in SEARCHES if item.words.search(analysis.resolved_question)), None)
        if search is None:
            return ClarifyCandidates()
        output = await self._tools[search.tool].invoke(arguments=search.arguments, skip_parsing=True)
        evidence = ToolEvidence.from_output(search.tool, search.arguments, str(output), call_id="clarify_candidates")
        if evidence.status != "ok":  # no options is fine: the question back is still asked
            logger.warning("clarify candidates unavailable: %s", evidence.error_kind or evidence.status)
            return ClarifyCandidates(evidence=[evidence])
        # the question's own words first, then emergency changes (the fix people chase), then the tool's order
        ranked = sorted(evidence.rows, key=lambda row: (-_overlap(row, analysis.resolved_question),
                                                         row.get("type") != "emergency"))
        keys = list(dict.fromkeys(row[search.key] for row in ranked if row.get(search.key)))[:MAX_CANDIDATES]
        rows = {row[search.key]: row for row in reversed(evidence.rows) if row.get(search.key)}
        return ClarifyCandidates(questions=[search.question(rows[key]) for key in keys],
                                 label=search.label if keys else "", evidence=[evidence])
