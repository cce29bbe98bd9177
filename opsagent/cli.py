"""Command line: ``ask`` a question, preview the ``plan`` for one, or ``serve`` the HTTP API.

    python -m opsagent ask "Which pipelines failed in the last 24 hours?" [--workflow dynamic|triage] [--json]
    python -m opsagent plan "Is Databricks degraded?"
    python -m opsagent plan - < questions.txt      # one question (or {"question", "history"} JSON) per line
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Iterable
from typing import TextIO

from pydantic import ValidationError

from opsagent.contracts.requests import MessageData, WorkflowInput
from opsagent.contracts.results import Answer, ProgressEvent
from opsagent.errors import OpsAgentError
from opsagent.runtime import Runtime, build_runtime
from opsagent.settings import load_settings
from opsagent.workflows.plan_preview import preview_plan
from opsagent.workflows.runner import stream_chat


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="opsagent", description="OpsAgent: ask operations questions.")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", help="answer one question and print the answer")
    ask.add_argument("question")
    ask.add_argument("--workflow", choices=["dynamic", "triage"], default="dynamic",
                     help="the step-based dynamic workflow (default) or the single-step triage workflow")
    ask.add_argument("--json", action="store_true", help="print one JSON object: answer plus metadata")
    plan = commands.add_parser("plan", help="print the planner's decision as JSON, without executing it")
    plan.add_argument("question", help='a question, or "-" to read one per line from stdin')
    serve = commands.add_parser("serve", help="serve the HTTP API, OpenAI-compatible API, Teams endpoint and chat page")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    return parser.parse_args(argv)


def _input_from_line(line: str) -> WorkflowInput:
    """A plain question, or ``{"question": ..., "history": [{"role", "content"}, ...]}``."""
    stripped = line.strip()
    if stripped.startswith("{"):
        data = json.loads(stripped)
        history = [MessageData.model_validate(item) for item in data.get("history", [])]
        return WorkflowInput.from_question(str(data["question"]), history)
    return WorkflowInput.from_question(stripped)


async def _ask(runtime: Runtime, question: str, *, workflow: str, as_json: bool, out: TextIO) -> int:
    answer: Answer | None = None
    async for item in stream_chat(runtime, WorkflowInput.from_question(question), workflow=workflow,
                                  deadline_seconds=runtime.settings.request_timeout_seconds):
        if isinstance(item, ProgressEvent):
            if not as_json:
                print(f"· {item.message}", file=sys.stderr)
        else:
            answer = item
    assert answer is not None
    if as_json:
        out.write(json.dumps({"answer": answer.text, **answer.metadata.model_dump(mode="json")}) + "\n")
    else:
        meta = answer.metadata
        out.write(f"{answer.text}\n\n— {meta.model} ({meta.provider}), {meta.llm_calls} model call(s), "
                  f"{meta.duration_ms / 1000:.2f} s\n")
    return 1 if answer.metadata.route == "error" else 0


async def _plan(runtime: Runtime, lines: Iterable[str], out: TextIO) -> int:
    status = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            chat = _input_from_line(line)
        except (ValueError, KeyError, ValidationError) as error:
            out.write(json.dumps({"error": f"bad input line: {error}"[:300]}) + "\n")
            status = 1
            continue
        preview = await preview_plan(runtime, chat)
        out.write(preview.model_dump_json() + "\n")
        out.flush()
    return status


async def _run(args: argparse.Namespace) -> int:
    settings = load_settings()
    runtime = build_runtime(settings)
    try:
        if args.command == "ask":
            workflow = args.workflow or "dynamic"
            return await _ask(runtime, args.question, workflow=workflow, as_json=args.json, out=sys.stdout)
        lines = sys.stdin if args.question == "-" else [args.question]
        return await _plan(runtime, lines, sys.stdout)
    finally:
        await runtime.aclose()


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "serve":
            from opsagent.service.server import serve

            return serve(host=args.host, port=args.port)
        return asyncio.run(_run(args))
    except OpsAgentError as error:
        print(f"opsagent: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
