"""The two MAF workflows, one module per box of the DESIGN diagram, in flow order.

    input ─▶ store_query ─▶ dynamic_triage ─▶ parse_triage_output ─┬─▶ reject_query
                                 ▲                                  ├─▶ clarify
                                 │ (review mode, once)              ├─▶ orchestrator ─▶ review ─┐
                                 └──────────────────────────────────┼─────────────(re-plan)────┤
                                                                    │                          ▼
                                                                    └─▶ grounding ◀── (draft) ─┘
                                                                          │  ▲ regenerate once
                                                                          ▼  └─▶ review
                                                                        aggregate

    store_query          intake.py          runs the intake analysis (opsagent/intake/), starts the RunTrail
    dynamic_triage       planner.py         the planner (user and review mode) and parse_triage_output
    (decisions)          decisions.py       planner reply → reject / clarify / plan (repair, confidence)
    (routing)            routing.py         select_execution_path, select_review_outcome
    orchestrator         orchestration.py   steps in order, a step's tasks at once (execution.py)
    review               review.py          coverage.py (missing parts) + one call: verdict and answer
    grounding            grounding.py       grounding_check.py over evidence_index.py: pass / regenerate / block
                                            (claims by kind: negative_claims.py, lead_claims.py, claim_checks.py…)
    aggregate            answer.py          the answer, its limitations (presentation.py, stated_filters.py)
    reject_query         reject.py          a direct answer that declines
    clarify              clarify.py         a question back with options from the data
    wiring               dynamic_workflow.py, triage_workflow.py (store_query ─▶ triage ─▶ specialists
                         in parallel (triage.py) ─▶ review ─▶ grounding ─▶ aggregate); runner.py runs either.
    shared               prompts.py (role inputs → prompt text), role_call.py, progress.py, ids.py, plan_preview.py
"""
