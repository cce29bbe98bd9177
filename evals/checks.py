"""Deterministic checks of one run (trace + answer), and the grounding check.

Grounding: every ticket number, run id and pipeline name in the answer must be vouched for by a
tool of the same run (see ``grounding_evidence``), matched as a whole token, in any case.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pydantic import BaseModel

from evals.case import Conclusion, EvalCase, Shape
from opsagent.contracts.results import Answer, PlanRecord

ENTITY_PATTERNS = (
    re.compile(r"\b(?:INC|CHG)\d{7,}\b", re.IGNORECASE),
    re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE),
    re.compile(r"\bpl_[a-z0-9_]+(?:-[a-z0-9_]+)*", re.IGNORECASE),
)


SEARCHED_NOUNS = {"incident": "list_incidents", "ticket": "list_incidents", "change": "list_change_requests",
                  "fail": "list_failed_pipelines", "run": "list_failed_pipelines"}
"""What a "no …" clause denies → the search that would contradict it ("pl_x has no incident": incidents)."""
NEGATIVE = re.compile(r"\b(?:no|none|nothing|not any|without)\b", re.IGNORECASE)
CLAUSE_BREAK = re.compile(r"[.;:]\s+|\s+[—–]\s+|\n+")


class Check(BaseModel):
    name: str
    passed: bool
    detail: str = ""


def plan_shape(plan: PlanRecord | None) -> Shape:
    if plan is None or not plan.steps:
        return "none"
    if len(plan.steps) == 1:
        return "single"
    return "parallel" if len({task.step for task in plan.steps}) == 1 else "sequential"


def entities_in(text: str) -> set[str]:
    """Ticket numbers, run ids and pipeline names, as whole tokens, in the case written."""
    return {match.group() for pattern in ENTITY_PATTERNS for match in pattern.finditer(text)}


def grounding_evidence(answer: Answer) -> set[str]:
    """Ids the run's tools vouched for (lower case): ids in the data rows they returned, ids they were
    asked about and reported as not there, and the ids the user wrote (repeating them invents nothing; what an
    answer says of them is judged by the case's other checks). A tool's echo of a search term in an ``ok``
    result is not evidence, so an answer cannot ground a made-up name by having searched for it."""
    evidence: set[str] = set()
    meta = answer.metadata
    for item in [*(item for task in meta.tasks for item in task.evidence), *meta.lookups]:
        evidence |= entities_in(json.dumps(item.rows) + " " + item.message if item.status == "error" else json.dumps(item.rows))
        if item.status != "ok":
            evidence |= entities_in(json.dumps([item.query, item.arguments]))
    if meta.analysis is not None:  # the user's own words quoted back claim nothing: an id they named (or the
        # earlier turn a follow-up points at), a misspelling read as another name ("read X as Y")
        evidence |= {item.text for item in meta.analysis.entities if item.status in ("corrected", "unknown")}
        evidence |= entities_in(f"{meta.analysis.question} {meta.analysis.resolved_question}")
    return {entity.lower() for entity in evidence}


def ungrounded_entities(answer: Answer) -> list[str]:
    """Ids in the answer text that no tool output of the run vouches for (exact, case-insensitive)."""
    evidence = grounding_evidence(answer)
    return sorted(entity for entity in entities_in(answer.text) if entity.lower() not in evidence)


def direct_answer(answer: Answer) -> str:
    """What the user reads first: the summary, or for answers without one the first paragraph."""
    return answer.summary.strip() or answer.text.strip().split("\n\n", 1)[0]


def false_nones(answer: Answer) -> list[str]:
    """Clauses of the direct answer and facts that say a named thing has nothing, while a search made
    for exactly that thing in the same run came back with rows ("pl_x has no open incident" after
    ``list_incidents(text=pl_x)`` found one)."""
    found: dict[str, set[str]] = {}
    for item in (item for task in answer.metadata.tasks for item in task.evidence):
        if not item.tool.startswith("list_"):
            continue  # summaries ("0 of 6 runs failed") and one-record lookups are not searches for what "none" denies
        if item.status == "ok" and (item.rows or item.total):
            for value in item.arguments.values():
                for entity in entities_in(str(value)):
                    found.setdefault(entity.lower(), set()).add(item.tool)
    text = "\n".join([direct_answer(answer), *answer.facts])
    wrong = []
    for clause in CLAUSE_BREAK.split(text):
        if NEGATIVE.search(clause):
            nouns = {tool for word, tool in SEARCHED_NOUNS.items() if word in clause.lower()}
            wrong += [f"{clause.strip()!r} ({', '.join(sorted(found[e.lower()]))} found rows)" for e in entities_in(clause)
                      if e.lower() in found and (not nouns or found[e.lower()] & nouns)]
    return wrong


def _conclusion_check(conclusion: Conclusion, direct: str) -> Check:
    scope = direct
    if conclusion.anchor:
        clauses = [clause for clause in CLAUSE_BREAK.split(direct) if conclusion.anchor.lower() in clause.lower()]
        if not clauses:
            return Check(name="conclusion", passed=False, detail=f"no clause with {conclusion.anchor!r} in the direct answer")
        scope = " ".join(clauses)
    named = {entity.lower() for entity in entities_in(scope)}
    expected = {name.lower() for name in conclusion.names}
    expected_ids = {name for name in expected if entities_in(name)}
    missing = sorted(name for name in expected if name not in scope.lower())
    extra = sorted(named - expected_ids)
    detail = "; ".join(part for part in (f"missing {missing}" if missing else "", f"also names {extra}" if extra else "") if part)
    return Check(name="conclusion", passed=not missing and not extra, detail=detail)


def _same(expected: object, actual: object) -> bool:
    return str(expected).strip().lower() == str(actual).strip().lower()


def _tool_checks(case: EvalCase, answer: Answer) -> Iterable[Check]:
    calls = [item for task in answer.metadata.tasks for item in task.evidence]
    for expected in case.expect.tools_called:
        matching = [
            call for call in calls
            if call.tool == expected.name
            and all(_same(value, call.arguments.get(key)) for key, value in expected.args.items())
        ]
        seen = [f"{call.tool}({call.arguments})" for call in calls if call.tool == expected.name]
        yield Check(name=f"tool {expected.name}", passed=bool(matching),
                    detail="" if matching else f"expected args {expected.args}; saw {seen or 'no call'}")
    called = {call.tool for call in calls}
    for name in case.expect.tools_not_called:
        yield Check(name=f"tool {name} not called", passed=name not in called)


def run_checks(case: EvalCase, answer: Answer, *, ungrounded: list[str] | None = None) -> list[Check]:
    """Every deterministic check the case asks for (``ungrounded``: when the caller computed it already)."""
    route = answer.metadata.route
    checks = [Check(name="route", passed=route == case.expect.route, detail=f"got {route}")]
    if not case.outcome_only:
        checks += _path_checks(case, answer)
    checks += _outcome_checks(case, answer)
    ungrounded = ungrounded_entities(answer) if ungrounded is None else ungrounded
    checks.append(Check(name="grounded", passed=not ungrounded, detail=", ".join(ungrounded)))
    return checks


def _path_checks(case: EvalCase, answer: Answer) -> list[Check]:
    """How the answer was reached: specialists, plan shape, tools, runbook, retry, model calls."""
    meta, expect = answer.metadata, case.expect
    first_plan = meta.plans[0] if meta.plans else None
    checks = []
    if expect.agents:
        agents = sorted({task.agent for task in first_plan.steps}) if first_plan else []
        checks.append(Check(name="agents", passed=agents == sorted(expect.agents), detail=f"got {agents}"))
    if expect.shape is not None:
        shape = plan_shape(first_plan)
        checks.append(Check(name="shape", passed=shape == expect.shape, detail=f"got {shape}"))
    checks.extend(_tool_checks(case, answer))
    if expect.runbook is not None:
        checks.append(Check(name="runbook", passed=expect.runbook in meta.runbooks, detail=f"got {meta.runbooks}"))
    if expect.retry_used is not None:
        used = bool(meta.review and meta.review.retry_used)
        checks.append(Check(name="retry used" if expect.retry_used else "no retry", passed=used == expect.retry_used))
    if expect.max_llm_calls is not None:
        checks.append(Check(name="llm calls", passed=meta.llm_calls <= expect.max_llm_calls,
                            detail=f"{meta.llm_calls} > {expect.max_llm_calls}" if meta.llm_calls > expect.max_llm_calls else ""))
    return checks


def _outcome_checks(case: EvalCase, answer: Answer) -> list[Check]:
    """What the answer says: facts, forbidden claims, the direct answer, and no false "none".
    The product's own grounding verdict is not among them: it is reported beside the checks."""
    meta, expect = answer.metadata, case.expect
    text = answer.text.lower()
    checks: list[Check] = []
    for fact in expect.facts:
        checks.append(Check(name=f"fact {fact!r}", passed=fact.lower() in text))
    for claim in expect.forbidden:
        checks.append(Check(name=f"no {claim!r}", passed=claim.lower() not in text))
    direct = direct_answer(answer)
    if expect.answer_first:
        absent = [part for part in expect.answer_first if part.lower() not in direct.lower()]
        checks.append(Check(name="answer first", passed=not absent,
                            detail=f"{absent} not in the direct answer: {direct[:160]!r}" if absent else ""))
    if expect.conclusion is not None:
        checks.append(_conclusion_check(expect.conclusion, direct))
    if meta.route in ("execute", "action"):
        wrong = false_nones(answer)
        checks.append(Check(name="no false none", passed=not wrong, detail="; ".join(wrong)))
    return checks
