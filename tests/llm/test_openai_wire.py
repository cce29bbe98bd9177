"""The real OpenAI / Azure OpenAI paths, over HTTP, against a loopback server speaking Chat Completions.

Nothing here is mocked on our side: the runtime builds MAF's ``OpenAIChatCompletionClient`` from
settings, the workflow runs, MAF sends real requests (structured output, tool definitions, tool
results) and executes the tool calls the "model" returns against the demo backends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from evals.loopback import chat_completions_server, completion
from opsagent.contracts.requests import WorkflowInput
from opsagent.contracts.results import Answer, WorkflowKind
from opsagent.runtime import build_runtime
from opsagent.settings import load_settings
from opsagent.workflows.runner import answer_chat

PLAN = {"should_reject": False, "reject_reason": "", "clarify": False, "plan_reason": "one domain",
        "plan": [{"step": 1, "agent": "servicenow", "question": "Show me INC0010049"}]}
REVIEW = {"is_complete": True, "summary": "INC0010049 is open: ADF pl_ingest_sales failing: source file not found.",
          "key_facts": [], "missing_aspects": [], "suggested_approach": "", "confidence": 0.9}


def reply_to(body: dict[str, Any]) -> dict[str, Any]:
    """Play each role from what the request carries: a response schema, tools, or tool results."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    if schema in ("UserModeOutput", "ReviewOutput"):
        content = json.dumps(PLAN if schema == "UserModeOutput" else REVIEW)
        return completion({"role": "assistant", "content": content}, "stop")
    tool_results = [m for m in body["messages"] if m["role"] == "tool"]
    if body.get("tools") and not tool_results:
        call = {"id": "call_1", "type": "function",
                "function": {"name": "get_incident", "arguments": json.dumps({"number": "INC0010049"})}}
        return completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    summary = json.loads(tool_results[-1]["content"])["items"][0]["short_description"]
    return completion({"role": "assistant", "content": f"INC0010049: {summary}"}, "stop")


@pytest.fixture
def fake_openai() -> Iterator[ThreadingHTTPServer]:
    with chat_completions_server(lambda body: (200, reply_to(body))) as server:
        yield server


def runtime_for(tmp_path, **env: str):
    return build_runtime(load_settings(env, env_file=None, data_dir=tmp_path / "var"))


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


async def ask_openai(server: ThreadingHTTPServer, tmp_path, question: str = "Show me INC0010049", *,
                     workflow: WorkflowKind = "dynamic", **env: str) -> Answer:
    """One answer on the OpenAI path against the loopback ``server``; the runtime is closed afterwards."""
    runtime = runtime_for(tmp_path, LLM_PROVIDER="openai", OPENAI_API_KEY="sk-test", OPENAI_MODEL="fake-model",
                          OPENAI_BASE_URL=f"{base_url(server)}/v1", **env)
    try:
        answer, _ = await answer_chat(runtime, WorkflowInput.from_question(question), workflow=workflow)
    finally:
        await runtime.aclose()
    return answer


async def test_openai_compatible_server_answers_through_real_tool_calls(fake_openai, tmp_path):
    runtime = runtime_for(tmp_path, LLM_PROVIDER="openai", OPENAI_BASE_URL=f"{base_url(fake_openai)}/v1",
                          OPENAI_API_KEY="sk-test", OPENAI_MODEL="fake-model")
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("Show me INC0010049"))
    sdk = runtime.models.client.client
    assert not sdk.is_closed()
    await runtime.aclose()
    assert sdk.is_closed()  # its connections closed on this loop, not by the garbage collector after it is gone

    meta = answer.metadata
    assert meta.route == "execute" and (meta.provider, meta.model) == ("openai", "fake-model")
    assert answer.text.startswith(REVIEW["summary"]) and meta.grounding[0].verdict == "pass"
    task = meta.tasks[0]
    assert task.response.startswith("INC0010049: ADF pl_ingest_sales failing")  # from the demo data, via the tool
    assert task.evidence[0].tool == "get_incident" and task.evidence[0].rows[0]["number"] == "INC0010049"
    bodies = [request["body"] for request in fake_openai.requests]
    assert len(bodies) == meta.llm_calls == 4  # triage, specialist x2 (tool loop), review
    assert meta.input_tokens == 400 and meta.output_tokens == 80  # the provider's own usage counts
    assert all(request["path"] == "/v1/chat/completions" for request in fake_openai.requests)
    assert fake_openai.requests[0]["headers"]["authorization"] == "Bearer sk-test"


async def test_structured_output_schemas_are_strict_and_without_defaults(fake_openai, tmp_path):
    runtime = runtime_for(tmp_path, LLM_PROVIDER="openai", OPENAI_BASE_URL=f"{base_url(fake_openai)}/v1",
                          OPENAI_API_KEY="sk-test")
    await answer_chat(runtime, WorkflowInput.from_question("Show me INC0010049"))
    await runtime.aclose()
    formats = [r["body"]["response_format"] for r in fake_openai.requests if "response_format" in r["body"]]
    assert [f["json_schema"]["name"] for f in formats] == ["UserModeOutput", "ReviewOutput"]
    plan_item = formats[0]["json_schema"]["schema"]["$defs"]["PlanStep"]["properties"]["agent"]
    assert plan_item["enum"] == ["log_analytics", "service_health", "servicenow"]  # a grammar cannot invent an agent
    for response_format in formats:
        assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
        text = json.dumps(response_format)
        assert '"default"' not in text and "minLength" not in text  # Azure OpenAI rejects these in strict mode
    specialist = next(r["body"] for r in fake_openai.requests if r["body"].get("tools"))
    assert {tool["function"]["name"] for tool in specialist["tools"]} == {
        "list_incidents", "get_incident", "list_change_requests", "get_change_request", "find_similar_incidents"}


async def test_azure_openai_deployment_path_and_key_header(fake_openai, tmp_path):
    runtime = runtime_for(tmp_path, AZURE_OPENAI_ENDPOINT=base_url(fake_openai), AZURE_OPENAI_DEPLOYMENT="ops-gpt4o",
                          AZURE_OPENAI_API_KEY="azure-key-1")
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("Show me INC0010049"))
    await runtime.aclose()
    assert answer.metadata.provider == "azure_openai" and answer.metadata.route == "execute"
    first = fake_openai.requests[0]
    assert first["path"] == "/openai/deployments/ops-gpt4o/chat/completions?api-version=2024-10-21"
    assert first["headers"]["api-key"] == "azure-key-1"


async def test_provider_errors_reach_the_user_by_kind_only(fake_openai, tmp_path):
    secret = "Incorrect API key provided: sk-live-TOPSECRET. Internal host 10.9.8.7"
    fake_openai.respond = lambda body: (401, {"error": {"message": secret, "type": "invalid_request_error",
                                                        "code": "invalid_api_key"}})
    runtime = runtime_for(tmp_path, LLM_PROVIDER="openai", OPENAI_BASE_URL=f"{base_url(fake_openai)}/v1",
                          OPENAI_API_KEY="sk-live-TOPSECRET")
    answer, _ = await answer_chat(runtime, WorkflowInput.from_question("Show me INC0010049"))
    await runtime.aclose()
    assert answer.metadata.route == "error" and answer.metadata.error_code == "model_unavailable"
    assert "rejected the credentials" in answer.text
    dumped = answer.model_dump_json()
    assert "TOPSECRET" not in dumped and "10.9.8.7" not in dumped


async def test_a_plan_cut_off_at_its_token_cap_is_asked_for_once_more_shorter(fake_openai, tmp_path):
    """The first planner reply stops at the cap mid-JSON (finish_reason "length", as Qwen2.5-1.5B did on a
    recorded request to act); the planner is asked once more, shorter, and the answer is the plan's."""
    cut = json.dumps(PLAN)[:60]
    planner_requests: list[dict] = []

    def respond(body: dict) -> tuple[int, dict]:
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        if schema == "UserModeOutput":
            planner_requests.append(body)
            if len(planner_requests) == 1:
                return 200, completion({"role": "assistant", "content": cut}, "length")
        return 200, reply_to(body)

    fake_openai.respond = respond
    answer = await ask_openai(fake_openai, tmp_path, workflow="dynamic", DYNAMIC_PLAN="true")
    assert len(planner_requests) == 2 and answer.metadata.route == "execute", answer.text
    retry = planner_requests[1]["messages"]
    assert "cut off" in retry[-1]["content"] and all(message.get("content") != cut for message in retry)
    assert "INC0010049" in answer.summary and cut not in answer.text


async def test_a_call_written_as_text_gets_its_result_back_and_the_model_corrects_it(fake_openai, tmp_path):
    """Small models write tool calls as text (Qwen2.5-1.5B: 0 native, 49 as text). Such a call runs, and its
    result goes back to the model as a tool round: a wrong argument name is reported, the model retries with
    the right one, and the corrected call's rows are the evidence; the model's last reply is the task's answer."""
    specialist_requests: list[dict] = []
    wrong = {"name": "get_incident", "arguments": {"incident_id": "INC0010049"}}
    right = {"name": "get_incident", "arguments": {"number": "INC0010049"}}

    def respond(body: dict) -> tuple[int, dict]:
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        if schema or not body.get("tools"):
            return 200, reply_to(body)
        specialist_requests.append(body)
        tool_messages = [message for message in body["messages"] if message["role"] == "tool"]
        if len(tool_messages) == 0:
            return 200, completion({"role": "assistant", "content": json.dumps(wrong)}, "stop")
        if len(tool_messages) == 1:
            return 200, completion({"role": "assistant", "content": f"Retrying: {json.dumps(right)}"}, "stop")
        summary = json.loads(tool_messages[-1]["content"])["items"][0]["short_description"]
        return 200, completion({"role": "assistant", "content": f"INC0010049: {summary}"}, "stop")

    fake_openai.respond = respond
    answer = await ask_openai(fake_openai, tmp_path)

    task = answer.metadata.tasks[0]
    assert [item.arguments for item in task.evidence] == [wrong["arguments"], right["arguments"]]
    assert not task.evidence[0].answered and task.evidence[1].rows[0]["number"] == "INC0010049"
    assert task.status == "ok" and task.response.startswith("INC0010049: ADF pl_ingest_sales failing")
    assert len(specialist_requests) == 3 and len(task.notes) == 2
    second = specialist_requests[1]["messages"]
    calls = [call for message in second if message["role"] == "assistant" for call in message.get("tool_calls") or []]
    assert calls and calls[-1]["function"]["name"] == "get_incident"
    assert json.loads(calls[-1]["function"]["arguments"]) == wrong["arguments"]
    assert "did not fit get_incident" in [m for m in second if m["role"] == "tool"][-1]["content"]


async def test_text_calls_stop_after_the_bounded_rounds(fake_openai, tmp_path):
    """A model that answers every tool result with another call written as text is not asked forever: after
    the bounded rounds the last calls still run (evidence) and the task has no model text as its answer."""
    specialist_requests: list[dict] = []

    def respond(body: dict) -> tuple[int, dict]:
        if (body.get("response_format") or {}).get("json_schema") or not body.get("tools"):
            return 200, reply_to(body)
        specialist_requests.append(body)
        number = f"INC00100{49 - len(specialist_requests)}"
        call = {"name": "get_incident", "arguments": {"number": number}}
        return 200, completion({"role": "assistant", "content": json.dumps(call)}, "stop")

    fake_openai.respond = respond
    answer = await ask_openai(fake_openai, tmp_path)
    task = answer.metadata.tasks[0]
    assert len(specialist_requests) == len(task.evidence) == len(task.notes) >= 2
    assert all(item.recovered for item in task.evidence) and "{" not in task.response


@pytest.mark.parametrize(("question", "tool", "key"), [
    ("restart pl_ingest_sales", "get_pipeline_run_details", "pipeline_name"),
    ("close INC0010049 please", "get_incident", "number"),
])
async def test_a_refused_request_to_act_still_shows_the_records_it_names(fake_openai, tmp_path, question, tool, key):
    """A small model refused "restart pl_ingest_sales" outright (recorded: should_reject, no plan). The answer is
    the product's own: what OpsAgent cannot do, where to do it, and the record looked up by product code."""
    refusal = {"should_reject": True, "reject_reason": "Restarting is outside what this platform does.",
               "clarify": False, "plan": [], "plan_reason": ""}

    def respond(body: dict) -> tuple[int, dict]:
        if (body.get("response_format") or {}).get("json_schema", {}).get("name") == "UserModeOutput":
            return 200, completion({"role": "assistant", "content": json.dumps(refusal)}, "stop")
        return 200, reply_to(body)

    fake_openai.respond = respond
    answer = await ask_openai(fake_openai, tmp_path, question)
    meta = answer.metadata
    named = question.split()[1]
    assert meta.route == "action" and "read-only" in answer.text and not meta.tasks
    [lookup] = meta.lookups
    assert (lookup.tool, lookup.arguments) == (tool, {key: named}) and lookup.answered
    assert lookup.message in answer.text and named in lookup.message


async def test_a_model_provider_handed_to_several_runtimes_stays_open_until_its_owner_closes_it(fake_openai, tmp_path):
    """The eval runner builds a runtime per group of cases on one shared provider: closing one runtime must not
    close the shared client (every later case failed at once when it did)."""
    from opsagent.llm.providers import make_model_provider

    settings = load_settings({"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "fake-model",
                              "OPENAI_BASE_URL": f"{base_url(fake_openai)}/v1"}, env_file=None, data_dir=tmp_path / "var")
    shared = make_model_provider(settings)
    first, second = (build_runtime(settings, models=shared) for _ in range(2))
    await first.aclose()
    answer, _ = await answer_chat(second, WorkflowInput.from_question("Show me INC0010049"))
    await second.aclose()
    assert answer.metadata.route == "execute" and answer.metadata.error_code is None, answer.text
    assert not shared.client.client.is_closed()
    await shared.aclose()
    assert shared.client.client.is_closed()
