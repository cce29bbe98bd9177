"""The README's promise: a new specialist is a YAML file, its tools and one registry line.

A "capacity" specialist (storage and quota figures) is added from a YAML file in a copy of the
config folder and one more ``SpecialistSpec``; nothing else changes. The local model picks it from
its description, calls its tool through MAF, and the answer states the tool's figures.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any

from agent_framework import tool
from pydantic import Field

from opsagent.agents.specialists import SPECIALISTS, SpecialistSpec
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.tool_result import ToolResult
from opsagent.runtime import build_runtime
from opsagent.settings import CONFIG_DIR, Settings
from opsagent.workflows.runner import answer_chat

CAPACITY_YAML = """\
name: capacity
role: specialist
title: Storage capacity
description: Storage capacity and quotas - used and free terabytes of the data lake storage accounts.
tools: [get_storage_capacity]
model:
  temperature: 0
instructions: |
  You report storage capacity. Always call get_storage_capacity first, then say the figures.
"""


def capacity_tools(backends: Any, *, clock: Any, max_rows: int) -> list:
    @tool
    def get_storage_capacity(account: Annotated[str | None, Field(description="Storage account name")] = None) -> str:
        """Used and free capacity of the data lake storage accounts."""
        rows = [{"account": "st-datalake-prod", "used_tb": 412, "quota_tb": 500, "free_pct": 17.6}]
        return ToolResult(tool="get_storage_capacity", status="ok", source="test", total=1, shown=1, items=rows,
                          message="1 storage account: st-datalake-prod uses 412 of 500 TB (17.6 % free).").to_text()

    return [get_storage_capacity]


async def test_a_fourth_specialist_is_a_yaml_file_its_tools_and_one_registry_line(settings: Settings,
                                                                                   tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, config)
    (config / "capacity_agent.yaml").write_text(CAPACITY_YAML)
    specialists = (*SPECIALISTS, SpecialistSpec("capacity", "capacity_agent.yaml", capacity_tools))

    runtime = build_runtime(settings.model_copy(update={"agent_config_dir": config, "llm_provider": "local"}),
                            specialists=specialists)
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(
            "How much storage capacity is left on the data lake accounts?"))
    finally:
        await runtime.aclose()

    assert [task.agent for task in answer.metadata.tasks] == ["capacity"]
    assert [item.tool for item in answer.metadata.tasks[0].evidence] == ["get_storage_capacity"]
    assert "412 of 500 TB" in answer.text
    assert answer.metadata.grounding[0].verdict == "pass"
