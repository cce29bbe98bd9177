"""What a failed model call may tell the user: the kind of failure, never the provider's own text.

Provider error messages can carry key fragments, internal host names or request bodies; they go to
the log (for operators), and the answer and its metadata get one of the sentences below.
"""

from __future__ import annotations

from collections.abc import Iterator

import openai
from agent_framework.exceptions import ChatClientInvalidAuthException

MODEL_SERVICE = "the model service"


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _describe_one(error: BaseException) -> str | None:
    match error:
        case openai.AuthenticationError() | openai.PermissionDeniedError() | ChatClientInvalidAuthException():
            return f"{MODEL_SERVICE} rejected the credentials (check the API key or identity)"
        case openai.RateLimitError():
            return f"{MODEL_SERVICE} is rate limiting requests"
        case openai.APITimeoutError():
            return f"{MODEL_SERVICE} timed out"
        case openai.APIConnectionError():
            return f"{MODEL_SERVICE} could not be reached"
        case openai.NotFoundError():
            return f"{MODEL_SERVICE} does not know the configured model or deployment"
        case openai.APIStatusError(status_code=status) if status >= 500:
            return f"{MODEL_SERVICE} failed (HTTP {status})"
        case openai.APIStatusError(status_code=status):
            return f"{MODEL_SERVICE} refused the request (HTTP {status})"
    if type(error).__name__ == "ClientAuthenticationError":  # azure-identity could not get a token
        return f"no token for {MODEL_SERVICE} (check the Azure identity)"
    return None


def describe_model_failure(error: BaseException) -> str:
    """A user-safe sentence for a failed model call, from the first recognised cause."""
    for cause in _causes(error):
        description = _describe_one(cause)
        if description is not None:
            return description
    return f"the model call failed ({type(error).__name__})"
