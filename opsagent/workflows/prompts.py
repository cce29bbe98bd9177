"""The messages each role receives. Formats are stable: the local model and evals read them too.

- Triage (user mode) and clarify get the conversation as real chat messages, the question last.
- Specialists get their question, preceded by the previous step's results when there are any:
  ``Previous step results:\\n---\\nAgent: …\\nQuestion: …\\nResponse: …\\n---\\nYour task: …``.
- Review and triage (review mode) get one message with ``User question:``, the task results and,
  for triage, the reviewer's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_framework import Message

from opsagent.contracts.plans import ReviewOutput
from opsagent.contracts.requests import MessageData
from opsagent.contracts.results import TaskResult

RESULT_SEPARATOR = "---"


def conversation_messages(query: str, history: Sequence[MessageData]) -> list[Message]:
    """History (without system messages) followed by the question, as chat messages."""
    messages = [Message(item.role, [item.content]) for item in history if item.role in ("user", "assistant")]
    messages.append(Message("user", [query]))
    return messages


def result_response_text(result: TaskResult) -> str:
    if result.succeeded:
        return result.response.strip()
    return f"(task {result.status}: {result.error or 'no details'})"


def format_result_block(result: TaskResult) -> str:
    return f"Agent: {result.agent}\nQuestion: {result.question}\nResponse: {result_response_text(result)}"


def task_message(question: str, previous: Sequence[TaskResult]) -> str:
    """A specialist's input: its question, after every result of the previous step."""
    if not previous:
        return question
    blocks = f"\n{RESULT_SEPARATOR}\n".join(format_result_block(result) for result in previous)
    return f"Previous step results:\n{RESULT_SEPARATOR}\n{blocks}\n{RESULT_SEPARATOR}\nYour task: {question}"


def results_digest(results: Sequence[TaskResult]) -> str:
    """Every result with its status, for the reviewer and the review-mode planner."""
    if not results:
        return "(no results)"
    blocks = [
        f"Step: {result.step}\nAgent: {result.agent}\nQuestion: {result.question}\n"
        f"Status: {result.status}\nResponse: {result_response_text(result)}"
        for result in results
    ]
    return f"\n{RESULT_SEPARATOR}\n".join(blocks)


def review_message(query: str, results: Sequence[TaskResult]) -> str:
    return f"User question: {query}\n\nTask results:\n{RESULT_SEPARATOR}\n{results_digest(results)}\n{RESULT_SEPARATOR}"


def review_mode_message(query: str, results: Sequence[TaskResult], review: ReviewOutput) -> str:
    missing = "\n".join(f"- {aspect}" for aspect in review.missing_aspects) or "- (none listed)"
    return (
        f"{review_message(query, results)}\n\nReviewer verdict:\nSummary: {review.summary}\n"
        f"Missing aspects:\n{missing}\nSuggested approach: {review.suggested_approach}"
    )
