"""The two MAF workflows, one module per box of the DESIGN diagram, in flow order.

    input ─▶ store_query ─▶ dynamic_triage ─▶ parse_triage_output ─┬─▶ reject_query
                                 ▲                                  ├─▶ clarify
                                 │ (review mode, once)              ├─▶ orchestrator ─▶ review ─┬─▶ aggregate
                                 └──────────────────────────────────┼───────────────────────────┘ (retry)
                                                                    └─▶ aggregate (re-plan declined)

    store_query          intake.py          records the question and history (the run ledger)
    dynamic_triage       triage.py          the planner; user-mode and review-mode handlers
    parse_triage_output  decision.py        repairs/validates the plan (contracts/repair.py)
    (routing)            routing.py         select_execution_path, select_review_outcome
    orchestrator         orchestration.py   steps in order, a step's tasks at once (execution.py)
    review               review.py          complete, or one retry
    reject_query         reject.py          a direct answer that declines
    clarify              clarify.py         a question back with interpretations
    aggregate            answer.py          the answer and its limitations, no facts added
    wiring               dynamic_workflow.py, triage_workflow.py (store_query ─▶ triage ─▶ specialists
                         in parallel via specialist_task.py ─▶ aggregate); runner.py runs either one.
"""
