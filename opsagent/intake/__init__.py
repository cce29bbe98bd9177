"""Intake: understand the question before any model runs (product code, deterministic).

``QuestionAnalyzer.analyse`` turns the question and its history into a ``QuestionAnalysis``
(``contracts/analysis.py``). ``store_query`` runs it; planners receive it as hints.
"""

from opsagent.intake.analyzer import QuestionAnalyzer, analyse_question, task_analysis

__all__ = ["QuestionAnalyzer", "analyse_question", "task_analysis"]
