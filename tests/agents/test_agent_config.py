"""Agent YAML files: the shipped ones load; every kind of mistake fails at start-up, naming the file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from opsagent.agents.config import load_agent_config
from opsagent.errors import ConfigError
from opsagent.settings import CONFIG_DIR
from tests.conftest import scripted_runtime


def test_every_shipped_yaml_loads_and_names_its_role():
    roles = {path.name: load_agent_config(path).role for path in sorted(CONFIG_DIR.glob("*.yaml"))}
    assert roles == {
        "clarify_agent.yaml": "clarify", "dynamic_triage_agent.yaml": "dynamic_triage",
        "log_analytics_agent.yaml": "specialist", "review_agent.yaml": "review",
        "service_health_agent.yaml": "specialist", "servicenow_agent.yaml": "specialist",
        "triage_agent.yaml": "triage",
    }


def test_planner_prompts_are_generated_from_the_registry(make_scripted_runtime):
    runtime, _ = make_scripted_runtime({})
    config = runtime.agents.dynamic_triage.config
    for mode in ("user", "review"):
        text = config.instructions_for(mode)
        assert "{specialists}" not in text and "{max_tasks}" not in text
        for name in ("servicenow", "log_analytics", "service_health"):
            assert f"- {name}: " in text
        assert "list_failed_pipelines" not in text  # small models copy tool syntax they see into task questions
    assert "only retry" in config.instructions_for("review").lower()


def _broken_config_dir(tmp_path: Path, file_name: str, old: str, new: str) -> Path:
    target = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, target)
    path = target / file_name
    text = path.read_text()
    assert old in text, f"fixture text {old!r} not in {file_name}"
    path.write_text(text.replace(old, new, 1))
    return target


@pytest.mark.parametrize(
    ("file_name", "old", "new", "message"),
    [
        pytest.param("review_agent.yaml", "output_model: ReviewOutput", "output_model: Verdict",
                     r"review_agent\.yaml: output_model: .*unknown output model 'Verdict'", id="unknown-output-model"),
        pytest.param("servicenow_agent.yaml", "find_similar_incidents]", "find_similar_incidents, reboot_server]",
                     r"servicenow_agent\.yaml: tools: unknown tool\(s\) reboot_server", id="unknown-tool"),
        pytest.param("clarify_agent.yaml", "description:", "summary:",
                     r"clarify_agent\.yaml: description: field is required", id="missing-field"),
        pytest.param("dynamic_triage_agent.yaml", "  review_mode:", "  replay_mode:",
                     r"dynamic_triage_agent\.yaml: modes\.replay_mode", id="unknown-mode"),
        pytest.param("triage_agent.yaml", "name: triage", "name: [triage", r"triage_agent\.yaml: not valid YAML",
                     id="bad-yaml"),
        pytest.param("log_analytics_agent.yaml", "name: log_analytics", "name: logs",
                     r"expected 'log_analytics' \(the registry name\)", id="name-not-in-registry"),
    ],
)
def test_yaml_errors_fail_at_start_up_with_file_and_field(settings, tmp_path, file_name, old, new, message):
    config_dir = _broken_config_dir(tmp_path, file_name, old, new)
    with pytest.raises(ConfigError, match=message):
        scripted_runtime(settings, {}, agent_config_dir=config_dir)


def test_missing_yaml_file_is_a_clear_error(settings, tmp_path):
    config_dir = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, config_dir)
    (config_dir / "review_agent.yaml").unlink()
    with pytest.raises(ConfigError, match=r"review_agent\.yaml: agent config file not found"):
        scripted_runtime(settings, {}, agent_config_dir=config_dir)
