"""LLM-facing tools: typed MAF function tools over the backends, one module per specialist.

Each specialist's tools are one small class (``toolkit.Toolset``: one method per tool); its module
keeps the factory ``factory(backends, *, clock, max_rows) -> list[FunctionTool]`` (no globals).
What each tool and parameter is, with the values it accepts, is in the catalog (``catalog.py``,
``vocabularies.py``). The specialist registry (``agents/specialists.py``) names
them. Every tool returns the ``ToolResult`` envelope as text (``contracts/tool_result.py``), shaped
by ``rendering.py``; time phrases are resolved by ``timewindow.py``.
"""
