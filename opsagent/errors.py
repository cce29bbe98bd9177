"""The OpsAgent exception tree. Knows nothing about HTTP; ``service/errors.py`` maps it."""

from __future__ import annotations


class OpsAgentError(Exception):
    """Root of every domain failure OpsAgent raises on purpose."""


class ConfigError(OpsAgentError):
    """A setting or an agent YAML file is wrong; raised at start-up, never mid-request."""


class ModelOutputError(OpsAgentError):
    """A model answered with something that could not be turned into the expected structure."""


class RequestError(OpsAgentError):
    """A client sent a request we refuse; carries the HTTP status and a stable error code."""

    def __init__(self, status: int, code: str, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param


class BackendError(OpsAgentError):
    """A backend (ServiceNow, Log Analytics, a status page) failed.

    Attributes:
        backend: human name of the system, e.g. "ServiceNow".
        status_code: HTTP status when there was one.
        query: what was asked, so the message can say what was searched.
    """

    def __init__(
        self,
        message: str,
        *,
        backend: str,
        status_code: int | None = None,
        query: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.backend = backend
        self.status_code = status_code
        self.query = query


class BackendAuthError(BackendError):
    """401/403: the credentials are missing, wrong or lack a role."""


class BackendNotFoundError(BackendError):
    """404 or an empty lookup by id: the thing asked for does not exist."""


class BackendUnavailableError(BackendError):
    """429/5xx/timeouts that outlived the retry budget."""


class BackendResponseError(BackendError):
    """The backend answered, but not in a shape we can read."""


class BackendResponseTooLargeError(BackendResponseError):
    """The backend's reply was larger than BACKEND_MAX_RESPONSE_BYTES, so it was not read."""
