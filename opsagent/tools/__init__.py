"""LLM-facing tools: typed MAF function tools over the backends, one module per specialist.

Each factory has the signature ``factory(backends, *, clock, max_rows) -> list[FunctionTool]`` and
closes over its backend (no globals). The specialist registry (``agents/specialists.py``) names
them. Every tool returns the ``ToolResult`` envelope as text (``contracts/tool_result.py``), shaped
by ``rendering.py``; time phrases are resolved by ``timewindow.py``.
"""
