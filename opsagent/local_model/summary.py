"""The local summarizer: the direct answer written from structured evidence, never from prose.

Part by part, in the question's order: a part answered in a later step is first tried as a
conclusion across results (``correlation.py``); otherwise its own evidence answers it by family
(``part_answers.py``). A part nobody could answer gets one honest sentence. Facts are the rows that
support the sentences, capped; the limitations are written by the workflow, not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from opsagent.contracts.evidence import TaskResult, ToolEvidence
from opsagent.contracts.plans import QuestionPart
from opsagent.contracts.role_inputs import ReviewInput
from opsagent.local_model.correlation import correlate, window_overlaps
from opsagent.local_model.part_answers import PartAnswer, group_totals, health_answer, listing_answer, record_answer
from opsagent.local_model.shapes import Shape, shape_of

MAX_FACTS = 10
LOOKUPS = ("get_incident", "get_change_request", "get_pipeline_run_details")


def _tasks_for(part: QuestionPart, results: Sequence[TaskResult]) -> list[TaskResult]:
    return [result for result in results if part.id in [item.strip() for item in result.part.split(",")]]


def _unanswered(part: QuestionPart, results: Sequence[TaskResult]) -> PartAnswer:
    reason = results[-1].error if results else "no specialist was asked"
    return PartAnswer(f"I could not check \"{part.text.rstrip('?. ')}\" ({reason}).")


def describe(text: str, shape: Shape, evidence: Sequence[ToolEvidence], *, question: str = "", now: str = "") -> PartAnswer:
    """A part answered from its own evidence, by family: health, single records, listings."""
    health = [item for item in evidence if item.tool.startswith("check_")]
    if health and len(health) == len(evidence):
        return health_answer(shape, text, health, question=question)
    grouped = group_totals(text, shape, evidence)
    if grouped is not None:
        return grouped
    answers = [health_answer(shape, text, health, question=question)] if health else []
    for item in evidence:
        if item.tool.startswith("check_"):
            continue
        answers.append(record_answer(text, shape, item) if item.tool in LOOKUPS
                       else listing_answer(text, shape, item, now=now))
    # the one that answers yes or no leads ("Yes — CHG… is approved"); the records it came through follow
    answers.sort(key=lambda answer: not answer.sentence.startswith(("Yes —", "No —")))
    sentences = list(dict.fromkeys(answer.sentence for answer in answers))
    return PartAnswer(" ".join(sentences), [fact for answer in answers for fact in answer.facts])


def answer_part(part: QuestionPart, results: Sequence[TaskResult], everything: Sequence[TaskResult],
                question: str = "", now: str = "") -> PartAnswer:
    succeeded = [result for result in results if result.succeeded]
    if not succeeded:
        return _unanswered(part, results)
    shape = shape_of(part.text)
    if any(result.step > 1 for result in succeeded):
        found = correlate(part.text, shape, succeeded, everything)
        if found is not None:
            return replace(found, concludes=True)
    evidence = [item for result in succeeded for item in result.evidence if item.answered]
    # A search repeated verbatim (a deduplicated call) says nothing new.
    unique = list({(item.tool, str(sorted(item.arguments.items()))): item for item in evidence if not item.repeated}.values())
    return describe(part.text, shape, unique, question=question, now=now)


def _ended(sentence: str) -> str:
    """A part's sentence closed with a full stop, so the next part starts a sentence of its own (an error
    message quoted at the end would otherwise run into "No — …")."""
    sentence = sentence.rstrip()
    return sentence if sentence.endswith((".", "!", "?", "…")) else f"{sentence}."


def write_summary(review: ReviewInput) -> tuple[str, list[str]]:
    """(summary, key facts) for the question, from the tasks' evidence."""
    parts = review.parts or [QuestionPart(id="p1", text=review.question)]
    question = review.analysis.resolved_question
    answers = [answer_part(part, _tasks_for(part, review.results) or review.results, review.results, question,
                           review.analysis.now.strftime("%Y-%m-%dT%H:%MZ"))
               for part in parts]
    # One ask split into producer and consumer ("did anything fail before CHG… started?"): the
    # conclusion answers it; the record it was drawn from supports it, so the conclusion leads.
    parallel = len(parts) > 1 and all(result.step == 1 for result in review.results)  # chained ones conclude per part
    overlap = window_overlaps(question, review.results) if parallel else None
    if overlap is not None:  # the comparison the question asks for leads; each part's own result follows
        answers = [overlap, *answers]
    texts = [part.text.strip().lower() for part in parts]
    leads = [index for index, answer in enumerate(answers) if answer.concludes and texts.count(texts[index]) > 1]
    answers = [answers[index] for index in leads] + [a for index, a in enumerate(answers) if index not in leads]
    summary = " ".join(dict.fromkeys(_ended(answer.sentence) for answer in answers if answer.sentence))
    facts = list(dict.fromkeys(fact for answer in answers for fact in answer.facts))
    return summary, facts[:MAX_FACTS]
