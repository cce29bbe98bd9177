"""Model profiles: named sets of defaults for the model-facing limits (timeouts, output caps, budgets).

``MODEL_PROFILE=hosted`` (the default) suits a hosted model (Azure OpenAI, OpenAI): answers in
seconds, large context. ``MODEL_PROFILE=local-small`` suits a small model on a few CPU cores
(measured with Qwen2.5-Coder-1.5B on llama.cpp, 2 cores: 5-110 s per call, 20-250 s per answer):
generous timeouts, no SDK retries after a timeout, smaller output caps and prompt budget.

A profile only fills settings that are not set: an explicit value (environment, ``.env`` or a
keyword) always wins. The request deadline, when not set, is derived so that it can hold the
longest single pass: the planner call, every plan step, and the review (``required_request_seconds``).
"""

from __future__ import annotations

from typing import Any, Literal

ModelProfile = Literal["hosted", "local-small"]

LOCAL_SMALL: dict[str, Any] = {
    # One call: a 2k-token review prompt on 2 cores took 101 s before the prefix cache was warm.
    "model_timeout_seconds": 240.0,
    # A retry after a timeout queues again behind the same slow model: fail at the task timeout instead.
    "model_max_retries": 0,
    "task_timeout_seconds": 300.0,
    "max_plan_steps": 2,
    # First measured replies: a plan 126 tokens, reviews 182-210, a call written as text 44 (README figures).
    "planner_max_tokens": 450,
    "review_max_tokens": 600,
    "clarify_max_tokens": 300,
    "specialist_max_tokens": 300,
    "prompt_budget_tokens": 6_000,
    # llama.cpp's "required" grammar lets Qwen2.5 write the call as text and then forbids it to stop:
    # every first specialist turn ran to max_tokens. With "auto" it stops, and the text call is recovered.
    "specialist_tool_choice": "auto",
}

PROFILES: dict[ModelProfile, dict[str, Any]] = {"hosted": {}, "local-small": LOCAL_SMALL}
"""Per profile, the settings it changes from the field defaults (which are the hosted values)."""

DEADLINE_FIELDS = ("request_timeout_seconds", "task_timeout_seconds", "max_plan_steps")


def required_request_seconds(*, task_timeout_seconds: float, max_plan_steps: int) -> float:
    """The shortest deadline that holds one full pass: planner + every step + review.

    The planner and the reviewer are bounded by the task timeout too (``workflows/role_call.py``).
    A re-plan after the review is not included: when it does not fit, the deadline answer keeps
    what finished.
    """
    return (max_plan_steps + 2) * task_timeout_seconds


def with_profile_defaults(values: dict[str, Any], *, field_defaults: dict[str, Any]) -> dict[str, Any]:
    """``values`` (raw, as given) completed with the profile's settings and a derived deadline.

    An unknown profile or an unreadable number is left as given, so field validation reports it
    naming the variable.
    """
    profile = values.get("model_profile") or "hosted"
    if profile not in PROFILES:
        return values
    completed = {**PROFILES[profile], **values}
    if completed.get("request_timeout_seconds") in (None, ""):
        try:
            task = float(completed.get("task_timeout_seconds", field_defaults["task_timeout_seconds"]))
            steps = int(completed.get("max_plan_steps", field_defaults["max_plan_steps"]))
        except (TypeError, ValueError):
            return completed
        completed["request_timeout_seconds"] = required_request_seconds(task_timeout_seconds=task, max_plan_steps=steps)
    return completed
