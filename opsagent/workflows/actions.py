"""Requests to act, answered as such: what OpsAgent cannot do, what the user can do instead.

The notice is product code, the same for every model, and goes before the answer about the records
the request names (which the plan looks up like any question). Nothing is ever executed.
"""

from __future__ import annotations

from opsagent.contracts.analysis import ActionRequest

WHERE: dict[str, str] = {
    "acknowledge": "in ServiceNow (open the incident and set it to In Progress, or use your paging tool's acknowledge)",
    "assign": "in ServiceNow (set the assignment group or Assigned to on the record)",
    "page": "through your paging tool or on-call rota (PagerDuty, Opsgenie, the Teams on-call channel)",
    "rerun": "in the Azure portal: Data Factory → Monitor → Pipeline runs → Rerun (or Debug for a test run)",
    "stop": "in the Azure portal: Data Factory → Monitor → Pipeline runs → Cancel",
    "resize": "in the platform's own console (Snowflake: ALTER WAREHOUSE … SET WAREHOUSE_SIZE; Databricks: the "
              "cluster or warehouse settings)",
    "approve": "in ServiceNow, as an approver of the change (Approvers tab of the change request)",
    "reject": "in ServiceNow, as an approver of the change (Approvers tab of the change request)",
    "create": "in ServiceNow (Incident → Create New, or your team's intake form)",
    "close": "in ServiceNow (resolve the record with close notes)",
    "update": "in ServiceNow (edit the record, or add a work note)",
    "deploy": "through your release pipeline or change process",
    "remove": "in the system that owns it, by someone with write access",
    "buy": "through your account team or procurement process",
}


OBJECTLESS = {"create": "create tickets", "page": "page anyone", "buy": "buy or provision anything"}
"""Actions whose named things are not what is acted on ("open an incident for pl_x" creates a ticket)."""


def _object(action: ActionRequest) -> str:
    """What the clause says after its verb ("up WH_FINANCE" → "WH_FINANCE"), kept short."""
    at = action.text.lower().find(action.verb.lower())
    rest = action.text[at + len(action.verb):].strip(" ?.!") if at >= 0 else ""
    words = [word for word in rest.split() if word.lower() not in ("up", "out", "down", "the", "a", "an", "please")]
    return " ".join(words[:6])


def action_notice(action: ActionRequest) -> str:
    """"I can't acknowledge INC… — OpsAgent is read-only. Do it in ServiceNow (…)." """
    what = OBJECTLESS.get(action.action) or f"{action.action} {', '.join(action.targets) or _object(action) or 'that'}"
    where = WHERE.get(action.action, "in the system that owns it")
    return (f"I can't {what}: OpsAgent is read-only and never changes tickets, pipelines or platforms. "
            f"You can do it {where}.")
