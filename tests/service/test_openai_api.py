"""The OpenAI-compatible API, driven by the official ``openai`` SDK against a real loopback server."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest
from openai import OpenAI
from pydantic import SecretStr

from tests.service.conftest import AppFactory, echo_scripts, first_paragraph, model_down, serving


def client(url: str, key: str = "unused") -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=20)


def test_openai_models_lists_the_three_models(live_url: str) -> None:
    models = list(client(live_url).models.list())
    assert [model.id for model in models] == ["opsagent", "opsagent-dynamic", "opsagent-triage"]
    assert all(model.model_extra["opsagent"] == {"model": "scripted-model", "provider": "scripted"} for model in models)


def test_openai_non_stream_answer_has_usage_and_metadata(live_url: str) -> None:
    completion = client(live_url).chat.completions.create(
        model="opsagent-dynamic", messages=[{"role": "user", "content": "What incidents are there?"}], temperature=0.2, user="u1",
    )
    assert first_paragraph(completion.choices[0].message.content) == "Answer: What incidents are there?"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.total_tokens > 0
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    assert completion.model_extra["opsagent"]["workflow"] == "dynamic"


PROGRESS_LINES = ["Plan: 1 task(s) in 1 step(s) — servicenow", "Step 1: asking servicenow", "Step 1: servicenow ok in ",
                  "Review: complete", "Grounding: pass (score 1.00)"]


def assert_progress(lines: list[str]) -> None:
    """The five events of a one-task dynamic run, in order (the task's duration varies)."""
    assert len(lines) == len(PROGRESS_LINES), lines
    assert all(line.startswith(expected) if expected.endswith(" ") else line == expected
               for line, expected in zip(lines, PROGRESS_LINES, strict=True)), lines


def reasoning_of(delta: Any) -> str:
    """The extra ``reasoning_content`` field as the official SDK exposes it (``model_extra``)."""
    return (delta.model_extra or {}).get("reasoning_content") or ""


def test_openai_stream_sends_progress_as_reasoning_then_only_the_answer_then_usage(live_url: str) -> None:
    stream = client(live_url).chat.completions.create(
        model="opsagent-dynamic", messages=[{"role": "user", "content": "Is Databricks degraded?"}],
        stream=True, stream_options={"include_usage": True},
    )
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    content = "".join(delta.content or "" for delta in deltas)
    assert_progress("".join(reasoning_of(delta) for delta in deltas).splitlines())
    assert content.startswith("Answer: Is Databricks degraded?\n\n**Evidence**"), "the content is only the answer"
    first_answer = next(i for i, delta in enumerate(deltas) if delta.content)
    assert not any(reasoning_of(delta) for delta in deltas[first_answer:]), "reasoning ends before the answer"
    finishing = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert [c.choices[0].finish_reason for c in finishing] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def test_openai_stream_helper_accumulates_the_reasoning(live_url: str) -> None:
    """``client.chat.completions.stream`` (the SDK's accumulating helper) ends with both fields on the message."""
    with client(live_url).chat.completions.stream(
            model="opsagent-dynamic", messages=[{"role": "user", "content": "Is Snowflake up?"}]) as stream:
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert_progress(message.model_extra["reasoning_content"].splitlines())
    assert first_paragraph(message.content) == "Answer: Is Snowflake up?"


@pytest.mark.parametrize(("mode", "shape"), [
    ("think_tags", "<think>\n{progress}</think>\n\n{answer}"),
    ("content", "{quoted}\n{answer}"),
    ("off", "{answer}"),
], ids=["think-tags", "content", "off"])
def test_openai_progress_setting_moves_the_progress(make_app: AppFactory, mode: str, shape: str) -> None:
    with serving(make_app(openai_progress=mode)) as url:
        chunks = list(client(url).chat.completions.create(
            model="opsagent-dynamic", messages=[{"role": "user", "content": "What incidents are there?"}], stream=True))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    content = "".join(delta.content or "" for delta in deltas)
    assert not any(reasoning_of(delta) for delta in deltas)
    answer = content[content.index("Answer: What incidents are there?"):]
    progress = content[:content.index("Answer: What incidents are there?")]
    lines = [line.removeprefix("> - ") for line in progress.removeprefix("<think>\n").split("</think>")[0].splitlines()
             if line]
    if mode == "off":
        assert progress == ""
    else:
        assert_progress(lines)
    expected = shape.format(progress="".join(f"{line}\n" for line in lines),
                            quoted="".join(f"> - {line}\n" for line in lines), answer=answer)
    assert content == expected


def test_openai_stream_without_include_usage_puts_usage_on_the_stop_chunk(live_url: str) -> None:
    chunks = list(client(live_url).chat.completions.create(
        model="opsagent-triage", messages=[{"role": "user", "content": "any open incidents?"}], stream=True,
    ))
    assert chunks[-1].choices[0].finish_reason == "stop" and chunks[-1].usage.total_tokens > 0


def test_openai_async_client_streams_too(live_url: str) -> None:
    async def run() -> str:
        async with openai.AsyncOpenAI(base_url=f"{live_url}/v1", api_key="x", max_retries=0) as aclient:
            stream = await aclient.chat.completions.create(
                model="opsagent", messages=[{"role": "user", "content": "async?"}], stream=True)
            return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])

    assert asyncio.run(run()).startswith("Answer: async?\n\n**Evidence**")


@pytest.mark.parametrize(("dynamic_plan", "model", "workflow"), [
    (False, "opsagent", "triage"),
    (True, "opsagent", "dynamic"),
    (False, "opsagent-dynamic", "dynamic"),
    (True, "opsagent-triage", "triage"),
], ids=["default-triage", "default-dynamic", "explicit-dynamic", "explicit-triage"])
def test_openai_model_picks_workflow_honouring_dynamic_plan(
    make_app: AppFactory, dynamic_plan: bool, model: str, workflow: str
) -> None:
    with serving(make_app(dynamic_plan=dynamic_plan)) as url:
        completion = client(url).chat.completions.create(model=model, messages=[{"role": "user", "content": "q"}])
    assert completion.model_extra["opsagent"]["workflow"] == workflow


def test_openai_deadline_gives_clean_504_and_stream_error(make_app: AppFactory) -> None:
    async def too_slow(messages, options) -> str:
        await asyncio.sleep(5)
        return "never"

    app = make_app(echo_scripts(servicenow=too_slow), request_timeout_seconds=0.3)
    with serving(app) as url:
        with pytest.raises(openai.InternalServerError) as caught:
            client(url).chat.completions.create(model="opsagent", messages=[{"role": "user", "content": "slow"}])
        assert caught.value.status_code == 504 and caught.value.body["code"] == "timeout"
        with pytest.raises(openai.APIError, match="no answer within 0.3 s"):
            list(client(url).chat.completions.create(
                model="opsagent", messages=[{"role": "user", "content": "slow"}], stream=True))


def test_openai_model_unavailable_gives_502_and_stream_error(make_app: AppFactory) -> None:
    app = make_app(echo_scripts(triage=model_down, dynamic_triage=model_down))
    with serving(app) as url:
        with pytest.raises(openai.APIStatusError) as caught:
            client(url).chat.completions.create(model="opsagent", messages=[{"role": "user", "content": "q"}])
        assert caught.value.status_code == 502 and caught.value.body["code"] == "model_unavailable"
        assert caught.value.body["type"] == "server_error"
        chunks: list[str] = []
        with pytest.raises(openai.APIError) as streamed:
            for chunk in client(url).chat.completions.create(
                    model="opsagent-dynamic", messages=[{"role": "user", "content": "q"}], stream=True):
                chunks.extend(choice.delta.content or "" for choice in chunk.choices)
        assert streamed.value.body["code"] == "model_unavailable"
        assert "".join(chunks) == "", "no 'Route: reject' progress before the error frame"


def test_openai_auth_required_when_keys_configured(make_app: AppFactory) -> None:
    with serving(make_app(opsagent_api_keys=[SecretStr("k-one"), SecretStr("k-two")])) as url:
        with pytest.raises(openai.AuthenticationError) as caught:
            client(url, "wrong").models.list()
        assert caught.value.body["code"] == "invalid_api_key"
        assert [m.id for m in client(url, "k-two").models.list()][0] == "opsagent"


def test_openai_progress_setting_is_read_from_the_environment_and_checked(tmp_path) -> None:
    from opsagent.errors import ConfigError
    from opsagent.settings import load_settings

    dotenv = tmp_path / ".env"
    dotenv.write_text("OPENAI_PROGRESS=think_tags\n")
    assert load_settings({}, env_file=dotenv).openai_progress == "think_tags"
    assert load_settings({"OPENAI_PROGRESS": "off"}, env_file=dotenv).openai_progress == "off"
    assert load_settings({}, env_file=None).openai_progress == "reasoning_content"
    with pytest.raises(ConfigError, match=r"OPENAI_PROGRESS='thinking'"):
        load_settings({"OPENAI_PROGRESS": "thinking"}, env_file=None)