import asyncio, sys, json
from datetime import datetime, timezone
from opsagent.contracts.requests import WorkflowInput
from opsagent.workflows.runner import answer_chat
from opsagent.settings import load_settings
from opsagent.runtime import build_runtime
NOW = datetime(2025, 1, 10, 9, 0, tzinfo=timezone.utc)
async def main():
    s = load_settings()
    for q in sys.argv[1:]:
        rt = build_runtime(s, clock=lambda: NOW)
        try:
            a, _ = await answer_chat(rt, WorkflowInput.from_question(q), workflow="dynamic")
        finally:
            await rt.aclose()
        m = a.metadata
        print("Q:", q, "| route", m.route, "| unread", getattr(m, "offline_unread", None))
        for t in m.tasks: print("  task", t.agent, [ (c.tool, c.arguments) for c in getattr(t,'tool_calls',[]) ] if hasattr(t,'tool_calls') else t)
        print(a.text[:1200]); print("-----")
asyncio.run(main())
