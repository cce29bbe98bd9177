"""Redaction: secrets, tokens and URL query strings taken out of text before it is logged.

Provider and backend error text is the usual leak: a model 401 may echo the API key, an error
page may quote a bearer token, and a backend URL carries the user's question in its query
string. ``redact`` removes the known secret values verbatim (from settings) and anything that
looks like a credential; ``RedactingFilter`` applies it to every record on the root handler,
exception text included, so no logging call site has to remember it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

MASK = "[REDACTED]"
_STANDARD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
_MIN_SECRET_CHARS = 4  # shorter "secrets" would blank out ordinary words
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Authorization header values: "Bearer eyJ...", "Basic dXNlcjpwdw=="
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"), rf"\1 {MASK}"),
    # key=value / "key": "value" pairs whose name says they are secret
    (re.compile(r"""(?ix)\b((?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret
                   |password|passwd|pwd|secret|token|sig|signature|subscription[_-]?key)["']?\s*[:=]\s*["']?)
                   [^\s"'&,;}]+"""), rf"\1{MASK}"),
    # "Incorrect API key provided: <key>" (OpenAI and compatible servers echo keys like this)
    (re.compile(r"(?i)(api key provided:?\s*)\S+"), rf"\1{MASK}"),
    # OpenAI-style and similar prefixed keys anywhere
    (re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}"), MASK),
    # user:password@ in URLs
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), rf"\1{MASK}@"),
    # URL query strings (ServiceNow sysparm_query holds words from the user's question)
    (re.compile(r"(?i)\b(https?://[^\s?#\"'<>]+)\?[^\s#\"'<>]*"), rf"\1?{MASK}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value and every credential-looking part replaced by ``[REDACTED]``."""
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Redacts a record's message, its exception and stack text, and string extras, in place.

    Attached to the root handler, so it sees every record that is written. The message is
    rendered first (``msg % args``) so secrets passed as arguments are caught too.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(secrets)
        self._formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage(), self._secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self._secrets)
            record.exc_info = None  # formatters would render the raw exception again
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self._secrets)
        for key, value in list(vars(record).items()):
            if key not in _STANDARD_FIELDS and isinstance(value, str):  # extras, e.g. extra={"url": ...}
                setattr(record, key, redact(value, self._secrets))
        return True
