"""OpsAgent: a multi-agent operations assistant on Microsoft Agent Framework.

Data flow: input -> triage -> routing -> execution -> review -> answer.
See ``opsagent/workflows/__init__.py`` for the map of executors to modules.
"""

__version__ = "0.1.0"
