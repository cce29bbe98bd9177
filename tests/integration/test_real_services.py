"""Against real services, when their settings are present; skipped otherwise (CI has none).

    LLM_PROVIDER=azure_openai AZURE_OPENAI_ENDPOINT=... AZURE_OPENAI_DEPLOYMENT=... \\
        .venv/bin/python -m pytest -m integration tests/integration -q

The default run (make test) deselects them, so a developer's .env never makes it call real services.
"""

from __future__ import annotations

import pytest

from opsagent.backends.base import IncidentQuery
from opsagent.contracts.requests import WorkflowInput
from opsagent.runtime import build_runtime
from opsagent.errors import ConfigError
from opsagent.settings import PROJECT_ROOT, Settings, load_settings
from opsagent.tools.timewindow import resolve_time_window
from opsagent.workflows.runner import answer_chat

pytestmark = pytest.mark.integration


def _configured_settings() -> Settings:
    try:
        return load_settings(env_file=PROJECT_ROOT / ".env")  # the developer's own .env, unlike the rest of the suite
    except ConfigError as error:  # a broken .env should fail these tests, not the collection of the suite
        return pytest.skip(f"settings do not load: {error}", allow_module_level=True)


SETTINGS = _configured_settings()


@pytest.mark.skipif(SETTINGS.provider == "local", reason="no real model provider configured (LLM_PROVIDER / AZURE_OPENAI_* / OPENAI_*)")
async def test_a_real_model_plans_calls_tools_and_answers():
    runtime = build_runtime(SETTINGS)
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question("Is Databricks or Snowflake degraded right now?"))
    finally:
        await runtime.aclose()
    assert answer.metadata.route == "execute", answer.text
    assert any(call.name.startswith("check_") for task in answer.metadata.tasks for call in task.tool_calls)


@pytest.mark.skipif(not SETTINGS.servicenow_instance_url, reason="SERVICENOW_INSTANCE_URL not set")
async def test_real_servicenow_lists_incidents():
    runtime = build_runtime(SETTINGS)
    try:
        page = await runtime.backends.servicenow.list_incidents(IncidentQuery(limit=1))
    finally:
        await runtime.aclose()
    assert page.total >= len(page.items)


@pytest.mark.skipif(not SETTINGS.log_analytics_workspace_id, reason="LOG_ANALYTICS_WORKSPACE_ID not set")
async def test_real_log_analytics_lists_failed_runs():
    runtime = build_runtime(SETTINGS)
    try:
        window = resolve_time_window("last 7 days", runtime.clock())
        page = await runtime.backends.pipelines.list_failed_runs(start=window.start, end=window.end, limit=5)
    finally:
        await runtime.aclose()
    assert all(run.status == "Failed" for run in page.items)
