"""The chat page in headless Chromium, driven by Playwright: progress, the plan, the direct answer first,
facts, limitations, collapsible evidence per specialist and the grounding verdict.

Playwright drives the system Chromium (``executable_path``): its pip wheel downloads no browser, and
``make test`` installs Debian's ``chromium`` where it can. Without one the browser tests skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes import fetch_then
from tests.service.conftest import AppFactory, echo_scripts, serving

MARKDOWN_ANSWER = (
    "**pl_ingest_sales failed** since yesterday:\n\n"
    "| Pipeline | Status |\n|---|---|\n| pl_ingest_sales | Failed |\n\n"
    "- check `store_sales` permissions\n\n"
    "<script>window.pwned = true</script>"
)
ROWS = {"list_incidents": [{"pipeline_name": "pl_ingest_sales", "status": "Failed", "table": "store_sales"}]}
CHROMIUM = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser")
"""Debian's real binary first: /usr/bin/chromium is a shell wrapper that adds flags of its own."""


def find_chromium() -> str | None:
    for candidate in CHROMIUM:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.access(path, os.X_OK):
            return path
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    binary = find_chromium()
    if binary is None:
        pytest.skip("chromium is not installed (make test installs it where apt-get is available)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=binary, headless=True, args=["--disable-gpu"])
        yield launched
        launched.close()


def ask_on_the_page(browser: object, url: str, question: str) -> object:
    """Open the page, type ``question``, send it and wait for the answer; returns the page."""
    page = browser.new_page()  # type: ignore[attr-defined]
    page.csp_violations = []
    page.on("console", lambda message: "Content Security Policy" in message.text and page.csp_violations.append(message.text))
    page.goto(url + "/")
    page.locator("body[data-state='idle']").wait_for()  # selectors, not wait_for_function: the CSP forbids eval
    page.fill("#question", question)
    page.click("#send")
    page.locator(".answer").wait_for()
    page.locator("body[data-state='idle']").wait_for()
    return page


def test_web_page_and_assets_are_served_without_a_cdn(live_url: str) -> None:
    page = httpx.get(live_url + "/")
    assert page.status_code == 200 and "<form id=\"ask\">" in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # every asset is local
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    for asset in ("/static/app.js", "/static/markdown.js", "/static/app.css"):
        assert httpx.get(live_url + asset).status_code == 200


@pytest.mark.browser
def test_web_page_streams_progress_then_the_answer_facts_evidence_and_grounding(make_app: AppFactory,
                                                                              browser: object) -> None:
    app = make_app(echo_scripts(servicenow=fetch_then(MARKDOWN_ANSWER)), dynamic_plan=True, tool_rows=ROWS)
    with serving(app) as url:
        page = ask_on_the_page(browser, url, "Which pipelines failed?")
        progress = page.locator(".progress li").all_text_contents()
        plan = page.locator(".plan tbody td").all_text_contents()
        direct = page.inner_html(".answer .direct-answer")
        children = page.eval_on_selector(".answer", "answer => [...answer.children].map(child => child.className)")
        evidence = page.locator("details.evidence")
        sections = evidence.count()
        closed = evidence.evaluate("details => details.open")
        page.click("details.evidence summary")
        evidence_table = page.locator("details.evidence .evidence-body td").all_text_contents()
        visible = page.is_visible("details.evidence .evidence-body table")
        grounding = page.text_content(".answer .grounding")
        pwned = page.evaluate("window.pwned === true || document.querySelector('.answer script') !== null")
        meta = page.text_content(".meta")
        violations = page.csp_violations
        page.close()
    assert progress[0].startswith("Plan: 1 task(s)") and progress[-2:] == ["Review: complete", "Grounding: pass (score 1.00)"]
    assert plan == ["1", "servicenow", "Which pipelines failed?"]
    assert children == ["direct-answer", "evidence", "grounding verdict-pass"], "the direct answer comes first"
    assert "<strong>pl_ingest_sales failed</strong>" in direct and "<td>pl_ingest_sales</td>" in direct
    assert "<code>store_sales</code>" in direct and "&lt;script&gt;" in direct and not pwned
    assert sections == 1 and closed is False and visible
    assert evidence_table == ["pl_ingest_sales", "Failed", "store_sales"]
    assert grounding == "Grounding: pass (score 1.00)"
    assert "dynamic workflow" in meta and "route execute" in meta
    assert violations == [], "the page runs under its strict CSP"


def claims_an_unseen_incident(messages, options) -> dict:
    """A reviewer whose answer names an incident no tool returned: the grounding check blocks it."""
    return {"is_complete": True, "summary": "INC0099999 is open and caused the failure.",
            "key_facts": ["INC0099999: P1, open"]}


@pytest.mark.browser
def test_web_page_shows_a_blocked_answer_as_a_warning(make_app: AppFactory, browser: object) -> None:
    app = make_app(echo_scripts(review=claims_an_unseen_incident), dynamic_plan=True, tool_rows=ROWS)
    with serving(app) as url:
        page = ask_on_the_page(browser, url, "Which incident caused the failure?")
        classes = page.get_attribute(".answer", "class")
        direct = page.text_content(".answer .direct-answer")
        grounding = page.text_content(".answer .grounding")
        colour = page.eval_on_selector(".answer .direct-answer", "node => getComputedStyle(node).color")
        sections = page.locator("details.evidence summary").all_text_contents()
        page.close()
    assert classes.split() == ["answer", "blocked"]
    assert direct.startswith("⚠️ Parts of this answer could not be verified") and "INC0099999" not in direct
    assert grounding.startswith("Grounding: block") and "left out" in grounding
    assert colour == "rgb(166, 27, 27)" and sections == ["Evidence: ServiceNow"]
