"""The offline rules model (``LLM_PROVIDER=local``), off the product's import path: only
``opsagent/llm/providers.py`` imports it (docs/local-model.md)."""

from opsagent.local_model.client import MODEL_ID, LocalChatClient

__all__ = ["MODEL_ID", "LocalChatClient"]
