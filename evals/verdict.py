"""Each answer is right, honest or wrong — judged from the case's truth, never from the product's own verdicts.

- **right**: every check the case asks for passes.
- **wrong**: the answer states something the data contradicts, or goes the wrong way: a forbidden
  claim, a yes/no lead the other way round, a "none" a search of the same run contradicts, an id no
  tool vouched for, a direct answer naming ids outside the truth, a request to act or an off-topic
  message answered as a read, a vague question answered by guessing.
- **honest**: neither — it asked back, said what it could not read or do, or left a part out while
  saying nothing false.

A lead counts as the other way round only when the direct answer *starts* with it ("No — …" where
the truth is yes), so "I can't … ; no changes match" is not read as a lead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from evals.case import EvalCase
from evals.checks import Check, direct_answer
from opsagent.contracts.results import Answer

Verdict = Literal["right", "honest", "wrong"]
LEAD = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
ACTING_ROUTES = frozenset({"reject", "action", "help"})
"""Expected routes whose answer must not be a plain read of the data."""
WRONG_CHECKS = ("no ", "no false none", "grounded")
"""Check names whose failure is a false statement (forbidden claims start with "no '")."""


def _lead(text: str) -> str | None:
    match = LEAD.match(text.strip())
    return match.group(1).lower() if match else None


def _lead_flipped(case: EvalCase, answer: Answer) -> bool:
    expected = next((_lead(item) for item in case.expect.answer_first if _lead(item)), None)
    said = _lead(direct_answer(answer))
    return expected is not None and said is not None and said != expected


def _names_outside_truth(checks: Sequence[Check]) -> bool:
    return any(check.name == "conclusion" and "also names" in check.detail for check in checks)


def _wrong_way(case: EvalCase, route: str) -> bool:
    expected = case.expect.route
    if route == "execute" and expected in ACTING_ROUTES:
        return True  # a request to act, a greeting or an off-topic message answered with data
    return route == "execute" and expected == "clarify"  # a guess at what a vague question meant


def verdict_of(case: EvalCase, answer: Answer, checks: Sequence[Check]) -> tuple[Verdict, list[str]]:
    """The verdict and, for a wrong answer, why."""
    why = [f"{check.name} {check.detail}".strip() for check in checks
           if not check.passed and check.name.startswith(WRONG_CHECKS) and check.name != "no retry"]
    if _lead_flipped(case, answer):
        why.append(f"leads with the other answer: {direct_answer(answer)[:80]!r}")
    if _names_outside_truth(checks):
        why.append("the direct answer names ids outside the truth")
    if _wrong_way(case, answer.metadata.route):
        why.append(f"answered as a read where {case.expect.route} was right")
    if why:
        return "wrong", why
    return ("right" if all(check.passed for check in checks) else "honest"), []
