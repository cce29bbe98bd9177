"""The offline rules model (``LLM_PROVIDER=local``): one module per role plus shared text analysis.

Nothing here calls a network or holds mutable module state; every table is a constant or comes
from the ``local:`` section of an agent's YAML file (see ``knowledge.py``).
"""
