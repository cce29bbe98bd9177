"""Pydantic models passed between the parts of OpsAgent (input, plans, results, progress)."""
