"""The chat page in headless Chromium: type a question, see progress, the plan and the rendered answer."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.service.cdp import chromium_page, find_chromium
from tests.fakes import fetch_then
from tests.service.conftest import AppFactory, echo_scripts, serving

MARKDOWN_ANSWER = (
    "**1 failed run** since yesterday:\n\n"
    "| Pipeline | Status |\n|---|---|\n| pl_ingest_sales | Failed |\n\n"
    "- check `store_sales` permissions\n\n"
    "<script>window.pwned = true</script>"
)


def test_web_page_and_assets_are_served_without_a_cdn(live_url: str) -> None:
    page = httpx.get(live_url + "/")
    assert page.status_code == 200 and "<form id=\"ask\">" in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # every asset is local
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    for asset in ("/static/app.js", "/static/markdown.js", "/static/app.css"):
        assert httpx.get(live_url + asset).status_code == 200


@pytest.mark.browser
def test_web_page_streams_progress_and_renders_the_answer(make_app: AppFactory, tmp_path: Path) -> None:
    binary = find_chromium()
    if binary is None:
        pytest.skip("chromium is not installed (make test installs it where apt-get is available)")
    rows = {"list_incidents": [{"pipeline_name": "pl_ingest_sales", "status": "Failed", "table": "store_sales"}]}
    app = make_app(echo_scripts(servicenow=fetch_then(MARKDOWN_ANSWER)), dynamic_plan=True, tool_rows=rows)
    with serving(app) as url, chromium_page(binary, tmp_path / "profile") as page:
        page.send("Page.navigate", url=url + "/")
        page.wait_until("document.body && document.body.dataset.state === 'idle'")
        page.evaluate("document.getElementById('question').focus()")
        page.send("Input.insertText", text="Which pipelines failed?")
        page.evaluate("document.getElementById('send').click()")
        page.wait_until("document.querySelector('.answer') !== null && document.body.dataset.state === 'idle'")
        progress = page.evaluate("[...document.querySelectorAll('.progress li')].map(li => li.textContent)")
        plan = page.evaluate("[...document.querySelectorAll('.plan tbody td')].map(td => td.textContent)")
        answer_html = page.evaluate("document.querySelector('.answer').innerHTML")
        pwned = page.evaluate("window.pwned === true || document.querySelector('.answer script') !== null")
        meta = page.evaluate("document.querySelector('.meta').textContent")
    assert progress[0].startswith("Plan: 1 task(s)") and progress[-2:] == ["Review: complete", "Grounding: pass (score 1.00)"]
    assert plan == ["1", "servicenow", "Which pipelines failed?"]
    assert "<strong>1 failed run</strong>" in answer_html
    assert "<td>pl_ingest_sales</td>" in answer_html and "<code>store_sales</code>" in answer_html
    assert "&lt;script&gt;" in answer_html and not pwned
    assert "dynamic workflow" in meta and "route execute" in meta
