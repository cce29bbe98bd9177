"""One responder for every role: read the typed role input, apply that role's rules, reply.

The role comes from the input the workflow attached (``contracts/role_inputs.py``), never from
the prompt text. Planners and clarify get the registry in their input, so the knowledge used is
always the registry's (cached per registry: it never changes within a process).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import Content, Message

from opsagent.contracts.role_inputs import (
    ClarifyInput,
    PlannerInput,
    ReplanInput,
    ReviewInput,
    SpecialistInfo,
    SpecialistInput,
    read_role_input,
)
from opsagent.local_model.clarifier import clarify_output
from opsagent.local_model.detect import TypoFixer
from opsagent.local_model.knowledge import Knowledge, KnowledgeFile, SpecialistHints, knowledge_for
from opsagent.local_model.planner import decide, triage_output, user_mode_output
from opsagent.local_model.replan import review_mode_output
from opsagent.local_model.reviewer import review_output
from opsagent.local_model.specialist_reply import (
    call_results, call_rounds, capped_results, made_calls, reply_from_results, result_rows,
)
from opsagent.local_model.tool_calls import linked_record_calls, per_group_calls, plan_calls

Reply = str | list[Content]
NO_INPUT = "I am OpsAgent's offline rules model; I only answer requests that come through its workflow."


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


class Responder:
    def __init__(self, known: KnowledgeFile) -> None:
        self.known = known
        self._knowledge: dict[tuple[tuple[str, str], ...], tuple[Knowledge, TypoFixer]] = {}

    def _for(self, specialists: Sequence[SpecialistInfo]) -> tuple[Knowledge, TypoFixer]:
        registry = tuple((item.name, item.description) for item in specialists)
        if registry not in self._knowledge:
            knowledge = knowledge_for(self.known, registry)
            self._knowledge[registry] = (knowledge, TypoFixer(knowledge.vocabulary_words(), knowledge.protected_words()))
        return self._knowledge[registry]

    def reply(self, messages: Sequence[Message], options: Mapping[str, Any]) -> Reply:
        role_input = read_role_input(messages)
        match role_input:
            case PlannerInput():
                knowledge, fixer = self._for(role_input.specialists)
                decision = decide(role_input, knowledge, fixer)
                return _json(triage_output(decision) if role_input.mode == "triage" else user_mode_output(decision))
            case ReplanInput():
                knowledge, fixer = self._for(role_input.specialists)
                return _json(review_mode_output(role_input, knowledge, fixer))
            case ClarifyInput():
                knowledge, fixer = self._for(role_input.specialists)
                return _json(clarify_output(role_input, knowledge, fixer))
            case ReviewInput():
                return _json(review_output(role_input))
            case SpecialistInput():
                return self._specialist(role_input, messages, options)
        return NO_INPUT

    def _specialist(self, role_input: SpecialistInput, messages: Sequence[Message], options: Mapping[str, Any]) -> Reply:
        """Tool calls on the first turn, a short factual reply once the results are back."""
        results = call_results(messages)
        known = self.known.specialists.get(role_input.agent)
        hints = SpecialistHints.from_knowledge(role_input.agent, known) if known else SpecialistHints(
            name=role_input.agent, topic=role_input.agent, vocabulary={})
        tools = {tool.name: _properties(tool) for tool in options.get("tools") or () if getattr(tool, "name", None)}
        if results:
            made, first_round = made_calls(messages), call_rounds(messages) == 1
            linked = [*linked_record_calls(role_input, hints, tools, result_rows(results), made),
                      *per_group_calls(role_input, hints, made, capped_results(results))] if first_round else []
            if not linked:  # one follow-up round at most: then say what the tools found
                return reply_from_results(results)
            calls = linked
        else:
            calls = plan_calls(role_input, hints, tools)
        if not calls:
            return "I have no tool that can answer this task, so I cannot report any data for it."
        return [Content.from_function_call(call_id=f"local_{index}", name=call.name, arguments=call.arguments)
                for index, call in enumerate(calls, start=1)]


def _properties(tool: Any) -> dict[str, Any]:
    try:
        return dict(tool.parameters().get("properties", {}))
    except (AttributeError, TypeError):
        return {}
