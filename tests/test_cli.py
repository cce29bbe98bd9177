"""The command line: in-process through ``cli.main`` (argv, stdin, stdout, stderr, exit code), plus
one real ``python -m opsagent`` subprocess proving the entry point as users run it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from opsagent.cli import main

ROOT = Path(__file__).resolve().parent.parent
OUR_PREFIXES = ("OPENAI_", "AZURE_OPENAI_", "LLM_", "SERVICENOW_", "OPSAGENT_", "LOG_ANALYTICS_", "TEAMS_")


class CliResult(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


Cli = Callable[..., CliResult]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """``opsagent <args>`` in this process, on the local model and demo data (no model keys)."""
    for key in [key for key in os.environ if key.startswith(OUR_PREFIXES)]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.chdir(ROOT)

    def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> CliResult:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def run_cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(OUR_PREFIXES)}
    return subprocess.run([sys.executable, "-m", "opsagent", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**clean, "DATA_DIR": str(data_dir)})


def test_plan_prints_one_stable_json_decision(cli: Cli) -> None:
    result = cli("plan", "Which pipelines failed in the last 24 hours, and is there an open incident for any of them?")
    assert result.returncode == 0, result.stderr
    decision = json.loads(result.stdout)
    assert set(decision) == {"route", "parts", "plan", "plan_reason", "reject_reason", "runbooks"}
    assert decision["route"] == "execute"
    assert [(t["step"], t["agent"]) for t in decision["plan"]] == [(1, "log_analytics"), (2, "servicenow")]


def test_plan_reads_questions_and_history_from_stdin_in_order(cli: Cli) -> None:
    lines = [
        "What's the weather in Oslo?",
        json.dumps({"question": "is it degraded?", "history": [
            {"role": "user", "content": "Tell me about Databricks"}, {"role": "assistant", "content": "Databricks is a platform."}]}),
        "",
        "check it",
        '{"question": }',
    ]
    result = cli("plan", "-", stdin="\n".join(lines) + "\n")
    decisions = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d.get("route") for d in decisions] == ["reject", "execute", "clarify", None]
    assert decisions[0]["reject_reason"]
    assert decisions[1]["plan"][0]["agent"] == "service_health"
    assert decisions[3]["error"].startswith("bad input line")
    assert result.returncode == 1


def test_ask_json_has_the_answer_and_its_metadata(cli: Cli) -> None:
    result = cli("ask", "Show me INC0010049", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert "INC0010049" in payload["answer"]
    assert payload["route"] == "execute" and payload["provider"] == "local" and payload["model"] == "local-rules"
    assert payload["tasks"][0]["evidence"][0]["tool"] == "get_incident"
    assert payload["tasks"][0]["evidence"][0]["rows"][0]["short_description"].startswith("ADF pl_ingest_sales failing")
    assert payload["llm_calls"] >= 3


def test_ask_prints_progress_to_stderr_and_names_the_model(tmp_path: Path) -> None:
    """The one real subprocess: ``python -m opsagent`` as users type it."""
    result = run_cli("ask", "Is Snowflake degraded right now?", "--workflow", "triage", data_dir=tmp_path)
    assert result.returncode == 0
    assert "· Plan:" in result.stderr
    assert "— local-rules (local)" in result.stdout


@pytest.mark.parametrize(
    ("env", "message"),
    [
        pytest.param({"LLM_PROVIDER": "bogus"}, "opsagent: Invalid setting LLM_PROVIDER='bogus'", id="bad-setting"),
        pytest.param({"SERVICENOW_INSTANCE_URL": "https://dev1.service-now.com"}, "opsagent: ", id="half-configured-backend"),
    ],
)
def test_configuration_errors_are_one_line_and_exit_2(cli: Cli, env: dict[str, str], message: str) -> None:
    result = cli("plan", "Is Databricks degraded?", env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(message) and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def mermaid_edges(text: str) -> set[tuple[str, str]]:
    import re

    return {(a, b) for a, b in re.findall(r"^\s*(\w+)(?:\[.*?\])?\s*(?:-- [^>]*? )?-->\s*(\w+)", text, re.MULTILINE)}


def test_readme_diagram_matches_the_graph_maf_builds(cli: Cli) -> None:
    """The README's hand-labelled diagram has exactly the edges of the real dynamic workflow."""
    result = cli("diagram", "dynamic")
    assert result.returncode == 0, result.stderr
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```mermaid", 1)[1].split("```", 1)[0]
    assert mermaid_edges(block) == mermaid_edges(result.stdout)
    assert len(mermaid_edges(result.stdout)) == 13


def test_serve_refuses_a_separator_only_api_key_list(cli: Cli) -> None:
    """``OPSAGENT_API_KEYS=","`` must stop start-up, not serve without authentication."""
    result = cli("serve", "--port", "1", env={"OPSAGENT_API_KEYS": ","})
    assert result.returncode == 2
    assert result.stderr.startswith("opsagent: Invalid setting OPSAGENT_API_KEYS='***'")
