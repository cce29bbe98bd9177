"""OpsAgent's evaluation suite: YAML cases run through the real workflows, checked deterministically.

    python -m evals                 # every case on the configured provider (default: local)
    python -m evals --tag clarify   # a subset (by tag)
    python -m evals --id sn-0       # a subset (by id prefix)
Reports go to evals/results/ (JSON, markdown, PNG).
"""
