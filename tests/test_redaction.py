"""Redaction of log text: configured secrets, credential-looking values and URL query strings."""

from __future__ import annotations

import logging
import sys

import pytest

from opsagent.redaction import MASK, RedactingFilter, redact


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ('{"error": {"message": "Incorrect API key provided: sk-live-0123456789abcdef."}}', "Incorrect API key", "sk-live"),
    ("Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig", "Authorization: Bearer", "eyJhbGci"),
    ("GET https://dev1.service-now.com/api/now/table/incident?sysparm_query=textLIKEpayroll", "/api/now/table/incident",
     "payroll"),
    ("token request failed: client_secret=abc123&grant_type=password", "grant_type=password", "abc123"),
    ('{"password": "hunter22", "user": "svc"}', '"user": "svc"', "hunter22"),
    ("proxy https://svc:pa55@proxy.corp:8080/ refused", "proxy.corp:8080", "pa55"),
], ids=["echoed-openai-key", "bearer", "url-query", "form-secret", "json-password", "url-credentials"])
def test_redact_removes_credentials_and_keeps_the_rest(text: str, kept: str, gone: str) -> None:
    redacted = redact(text)
    assert kept in redacted and gone not in redacted and MASK in redacted


def test_redact_removes_configured_secrets_verbatim() -> None:
    assert redact("upstream said: my-custom-key-value is wrong", ["my-custom-key-value"]) == f"upstream said: {MASK} is wrong"


def test_filter_redacts_arguments_extras_and_exception_text() -> None:
    try:
        raise RuntimeError("401 from provider: key s3cr3t-value rejected")
    except RuntimeError:
        record = logging.LogRecord("t", logging.WARNING, __file__, 1, "call failed for %s", ("s3cr3t-value",),
                                   exc_info=sys.exc_info())
    record.url = "https://example.com/x?q=s3cr3t-value"
    assert RedactingFilter(["s3cr3t-value"]).filter(record)
    assert "s3cr3t-value" not in record.getMessage() + record.exc_text + record.url
    assert record.exc_info is None and "RuntimeError: 401 from provider" in record.exc_text
