"""Real-model conversations recorded as HTTP cassettes (vcrpy) and replayed in the tests.

``make record-real`` runs the cases of ``evals/subsets/recorded.yaml`` against the real model of
``../shared/tools/real-llm`` (or any OpenAI-compatible server at ``OPENAI_BASE_URL``) and records every
request and reply into ``tests/recorded/cassettes/<case id>.yaml``. ``make test`` replays them
(``tests/recorded/test_real_replies.py``): the real replies go through parsing, tool calls, repair,
coverage, grounding and the final answer on every change. Requests are matched on their body, so a
prompt change is noticed — the replay fails with "no recorded reply for this request" — instead of
being served an old reply; re-record then (README, "Recorded real-model replies").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import vcr
import yaml
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
CASSETTES_DIR = ROOT / "tests" / "recorded" / "cassettes"
SUBSET = Path(__file__).resolve().parent / "subsets" / "recorded.yaml"
RECORDED_BASE_URL = "http://127.0.0.1:8080/v1"
"""Where the recordings were made: replay settings point here so the request URLs match."""
RECORDED_MODEL = "qwen2.5-coder-1.5b-instruct"


class RecordedCase(BaseModel):
    id: str
    shape: str
    """The answer shape it stands for: existence, count, which, record, correlation, follow-up, clarify, refusal."""


def load_recorded_subset() -> list[RecordedCase]:
    return [RecordedCase.model_validate(item) for item in yaml.safe_load(SUBSET.read_text(encoding="utf-8"))]


def _body(request: Any) -> Any:
    raw = request.body or b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    try:
        return json.loads(text)
    except ValueError:
        return text


def _same_body(first: Any, second: Any) -> None:
    """vcrpy matcher: the JSON bodies are equal (key order aside); raises AssertionError otherwise."""
    assert _body(first) == _body(second), "the request body differs from the recorded one"


@contextmanager
def cassette(case_id: str, mode: Literal["none", "all"]) -> Iterator[Any]:
    """Replay (``none``: a request with no recorded twin fails) or record (``all``) one case's HTTP."""
    recorder = vcr.VCR(cassette_library_dir=str(CASSETTES_DIR), record_mode=mode,
                       match_on=["method", "scheme", "host", "port", "path", "json_body"],
                       filter_headers=["authorization", "api-key", "cookie"], decode_compressed_response=True)
    recorder.register_matcher("json_body", _same_body)
    with recorder.use_cassette(f"{case_id}.yaml") as recorded:
        yield recorded


def real_settings(data_dir: Path, base_url: str = RECORDED_BASE_URL, model: str = RECORDED_MODEL) -> Any:
    """The settings the recordings were made with: the OpenAI-compatible path, the local-small profile."""
    from opsagent.settings import load_settings

    return load_settings({"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "not-needed",
                          "OPENAI_MODEL": model, "MODEL_PROFILE": "local-small"}, env_file=None, data_dir=data_dir)


async def run_recorded(case_id: str, mode: Literal["none", "all"], data_dir: Path) -> tuple[Any, int, bool]:
    """One case of the subset, replayed or recorded: (its CaseResult, replies played, every reply played)."""
    from evals.case import load_cases
    from evals.harness import CaseRunner
    from opsagent.backends.demo import make_demo_backends
    from opsagent.llm.providers import make_model_provider

    [case] = [item for item in load_cases() if item.id == case_id]
    settings = real_settings(data_dir)
    with cassette(case_id, mode) as recorded:
        models = make_model_provider(settings)
        runner = CaseRunner(settings, make_backends=make_demo_backends, models=models)
        try:
            result = await runner.run(case)
        finally:
            await runner.aclose()
            await models.aclose()
        played = recorded.play_count if mode == "none" else len(recorded)
        return result, played, mode == "all" or recorded.all_played


def main() -> None:  # pragma: no cover - `make record-real`, needs the real model
    import asyncio
    import sys
    import tempfile

    wanted = set(sys.argv[1:])
    for item in load_recorded_subset():
        if wanted and item.id not in wanted:
            continue
        (CASSETTES_DIR / f"{item.id}.yaml").unlink(missing_ok=True)
        with tempfile.TemporaryDirectory() as directory:
            result, count, _ = asyncio.run(run_recorded(item.id, "all", Path(directory)))
        print(f"{item.id:<36} {item.shape:<12} {result.verdict:<7} route {result.route:<8} {count} replies recorded, "
              f"{result.duration_ms / 1000:.0f} s", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
