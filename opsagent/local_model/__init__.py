"""The offline rules model (``LLM_PROVIDER=local``), off the product's import path.

Only ``opsagent/llm/providers.py`` imports this package. It reads the typed role inputs the
workflow attaches to its messages (``contracts/role_inputs.py``) and its own validated knowledge
file (``knowledge.yaml``); nothing here calls a network or holds mutable state between requests.
"""

from opsagent.local_model.client import MODEL_ID, LocalChatClient

__all__ = ["MODEL_ID", "LocalChatClient"]
