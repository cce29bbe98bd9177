"""Runbooks: validated at start-up, matched to questions, their steps filled with the question's names."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from opsagent.agents.specialists import SPECIALISTS
from opsagent.errors import ConfigError
from opsagent.intake import analyse_question
from opsagent.intake.runbooks import load_runbooks
from opsagent.settings import PROJECT_ROOT

NOW = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
REGISTERED = [spec.name for spec in SPECIALISTS]
GOOD = """\
name: {name}
title: Disk pressure
intent: Check a VM running out of disk.
when: {{any_of: [disk, space]}}
needs: [configuration_item]
steps:
  - {{step: 1, specialist: servicenow, ask: "Open incidents on {{configuration_item}}"}}
"""


@pytest.fixture(scope="module")
def shipped() -> tuple:
    return load_runbooks(PROJECT_ROOT / "runbooks", specialists=REGISTERED)


def test_the_shipped_runbooks_load_and_cover_the_common_investigations(shipped: tuple) -> None:
    assert {runbook.name for runbook in shipped} >= {
        "pipeline-failure-triage", "change-impact", "platform-degradation", "incident-context"}


@pytest.mark.parametrize(("question", "runbook", "first_steps"), [
    ("why does pl_ingest_sales keep failing?", "pipeline-failure-triage", ["log_analytics"]),
    ("did CHG0030017 break anything?", "change-impact", ["servicenow"]),
    ("Databricks is degraded - what is affected?", "platform-degradation", ["service_health"]),
    ("give me the full context of INC0010048", "incident-context", ["servicenow"]),
])
def test_a_question_matches_its_runbook_with_its_names_filled_in(shipped: tuple, question: str, runbook: str,
                                                                  first_steps: list[str]) -> None:
    [match] = analyse_question(question, now=NOW, runbooks=shipped).runbooks
    assert match.name == runbook
    assert [step.specialist for step in match.steps if step.step == 1] == first_steps
    named = [word for word in question.replace("?", " ").split() if word[:3] in ("pl_", "CHG", "INC")]
    assert all(any(name in step.ask for step in match.steps) for name in named)


def test_a_question_about_something_else_matches_no_runbook(shipped: tuple) -> None:
    assert analyse_question("list the open P1 incidents", now=NOW, runbooks=shipped).runbooks == []


def test_a_new_runbook_is_one_file(tmp_path: Path) -> None:
    (tmp_path / "disk-pressure.yaml").write_text(GOOD.format(name="disk-pressure"))
    runbooks = load_runbooks(tmp_path, specialists=REGISTERED)
    [match] = analyse_question("is vm-shir-01 running out of disk space?", now=NOW, runbooks=runbooks).runbooks
    assert match.steps[0].ask == "Open incidents on vm-shir-01"


@pytest.mark.parametrize(("content", "complaint"), [
    (GOOD.format(name="disk-pressure").replace("intent:", "intnet:"), "intnet"),
    (GOOD.format(name="disk-pressure").replace("servicenow", "cmdb"), "unknown specialist(s) cmdb"),
    (GOOD.format(name="disk-pressure").replace("{configuration_item}", "{host}"), "unknown placeholder {host}"),
    (GOOD.format(name="other-name"), "must match the file name"),
    ("name: [unclosed", "(file)"),
])
def test_a_broken_runbook_stops_start_up_naming_the_file(tmp_path: Path, content: str, complaint: str) -> None:
    path = tmp_path / "disk-pressure.yaml"
    path.write_text(content)
    with pytest.raises(ConfigError) as error:
        load_runbooks(tmp_path, specialists=REGISTERED)
    assert str(error.value).startswith(str(path)) and complaint in str(error.value)


def test_a_region_the_question_names_reaches_the_runbooks_health_step(shipped: tuple) -> None:
    [match] = analyse_question("Databricks in North Europe looks degraded - what does it affect?", now=NOW,
                               runbooks=shipped).runbooks
    health = next(step for step in match.steps if step.specialist == "service_health")
    assert "Databricks in North Europe" in health.ask
    [plain] = analyse_question("Databricks is degraded - what is affected?", now=NOW, runbooks=shipped).runbooks
    assert "Is Databricks degraded?" in next(step.ask for step in plain.steps if step.specialist == "service_health")
