"""What the model calls of one answer cost, per role: for the answer's metadata and the evals."""

from __future__ import annotations

from pydantic import BaseModel, Field


class RoleUsage(BaseModel):
    """The model calls one role (an agent's YAML name) made for one answer.

    Tokens are the provider's counts when it reports them, else estimates (4 characters a token).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    largest_prompt_tokens: int = 0
    """The biggest single prompt: what has to fit the model's context (and ``PROMPT_BUDGET_TOKENS``)."""
    prompt_sizes: list[int] = Field(default_factory=list)
    """Each call's prompt tokens, in order: the per-role p50/p95 of ``make eval-real``."""
    cut_off_calls: int = 0
    """Calls cancelled or timed out before a reply: counted with their prompt, without output."""
    trimmed_calls: int = 0
    """Calls whose prompt lost data rows to fit the prompt budget."""

    def add(self, *, input_tokens: int, output_tokens: int, cut_off: bool = False, trimmed: bool = False) -> None:
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.largest_prompt_tokens = max(self.largest_prompt_tokens, input_tokens)
        self.prompt_sizes.append(input_tokens)
        self.cut_off_calls += int(cut_off)
        self.trimmed_calls += int(trimmed)
