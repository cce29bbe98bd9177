"""Turn what a model said into a validated structure, repairing what is safe to repair.

Safe repairs: JSON inside prose or a code fence, step numbers given as strings ("2", "step 2"),
agent names in another case, unknown agents dropped (with a note), gaps in step numbers
renumbered, plans longer than the caps (tasks, sequential steps) cut. Anything else is a ``RepairedOutput`` with ``error``
set, which the caller treats as a failure of that step: never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)

PLAN_FIELDS = ("plan", "new_plan", "tasks")
_STEP_NUMBER = re.compile(r"\d+")
_OPENS_OBJECT = re.compile(r"\{\s*\"")


@dataclass
class RepairedOutput(Generic[ModelT]):
    value: ModelT | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``, whether bare, fenced or surrounded by prose."""
    return next(iter(_json_objects(text)), None)


def _coerce_step(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        match = _STEP_NUMBER.search(raw)
        return int(match.group()) if match else None
    return None


def _repair_tasks(
    items: Any, *, agents: Collection[str], has_steps: bool, max_tasks: int | None, notes: list[str],
    max_steps: int | None = None,
) -> list[dict[str, Any]]:
    if not isinstance(items, list):
        if items not in (None, ""):
            notes.append("the plan was not a list; ignored it")
        return []
    by_lower = {name.lower(): name for name in agents}
    kept: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            notes.append(f"dropped a plan entry that is not an object: {str(item)[:60]!r}")
            continue
        agent = by_lower.get(str(item.get("agent", "")).strip().lower())
        if agent is None:
            notes.append(f"dropped a task for unknown agent {item.get('agent')!r}")
            continue
        question = str(item.get("question") or "").strip()
        if not question:
            notes.append(f"dropped a task for {agent} with no question")
            continue
        task: dict[str, Any] = {"agent": agent, "question": question}
        if item.get("part") not in (None, ""):
            task["part"] = str(item["part"]).strip()
        if has_steps:
            step = _coerce_step(item.get("step", 1))
            if step is None or step < 1:
                notes.append(f"task for {agent} had step {item.get('step')!r}; treated it as step 1")
                step = 1
            task["step"] = step
        kept.append(task)
    if has_steps:
        kept = _renumber_steps(kept, notes)
        if max_steps is not None and kept and kept[-1]["step"] > max_steps:
            notes.append(f"the plan had {kept[-1]['step']} steps; kept the first {max_steps}")
            kept = [task for task in kept if task["step"] <= max_steps]
    if max_tasks is not None and len(kept) > max_tasks:
        notes.append(f"the plan had {len(kept)} tasks; kept the first {max_tasks}")
        kept = kept[:max_tasks]
    return kept


def _renumber_steps(tasks: list[dict[str, Any]], notes: list[str]) -> list[dict[str, Any]]:
    """Sort by step (stable) and close gaps, so steps run 1, 2, 3… in the planned order."""
    distinct = sorted({task["step"] for task in tasks})
    mapping = {old: new for new, old in enumerate(distinct, start=1)}
    if any(old != new for old, new in mapping.items()):
        notes.append(f"renumbered plan steps {distinct} to 1..{len(distinct)}")
    ordered = sorted(tasks, key=lambda task: task["step"])
    return [{**task, "step": mapping[task["step"]]} for task in ordered]


def parse_model_output(
    text: str,
    model: type[ModelT],
    *,
    agents: Collection[str] = (),
    max_tasks: int | None = None,
    max_steps: int | None = None,
) -> RepairedOutput[ModelT]:
    """Parse and validate ``text`` as ``model``, repairing plans on the way.

    Args:
        text: the model's reply.
        model: the expected output model (``UserModeOutput``, ``ReviewOutput``…).
        agents: the registered specialist names plans may use (only models with plans need them).
        max_tasks: cap on the number of tasks in a plan.
        max_steps: cap on the number of sequential steps in a plan (later steps are cut).
    """
    notes: list[str] = []
    data = extract_json_object(text or "")
    if data is None:
        snippet = (text or "").strip().replace("\n", " ")[:80]
        return RepairedOutput(error=f"no JSON object in the model's reply ({snippet!r})")
    for name in PLAN_FIELDS:
        if name in model.model_fields and name in data:
            has_steps = "step" in _plan_item_fields(model, name)
            data[name] = _repair_tasks(
                data[name], agents=agents, has_steps=has_steps, max_tasks=max_tasks, notes=notes,
                max_steps=max_steps,
            )
    try:
        value = model.model_validate(data, context={"agents": agents})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return RepairedOutput(notes=notes, error=f"{model.__name__} did not validate: {where}: {first['msg']}")
    return RepairedOutput(value=value, notes=notes)


def _plan_item_fields(model: type[BaseModel], field_name: str) -> Collection[str]:
    annotation = model.model_fields[field_name].annotation
    item_type = getattr(annotation, "__args__", (None,))[0]
    return getattr(item_type, "model_fields", {})


_CALL_NAME_KEYS = ("name", "function", "tool", "tool_name")
_CALL_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text`` (fenced, tagged or in prose), in order."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = 0
    while (start := text.find("{", position)) >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            if _OPENS_OBJECT.match(text, start):
                break  # a JSON object cut off (max_tokens): what is nested in it is not a top-level answer
            position = start + 1
            continue
        if isinstance(value, dict):
            found.append(value)
        elif isinstance(value, list):
            found.extend(item for item in value if isinstance(item, dict))
        position = end
    return found


def _as_call(data: dict[str, Any], tools: Collection[str]) -> tuple[str, dict[str, Any]] | None:
    nested = data.get("function")
    if isinstance(nested, dict):  # OpenAI's own shape: {"type": "function", "function": {"name", "arguments"}}
        return _as_call(nested, tools)
    name = next((data[key] for key in _CALL_NAME_KEYS if isinstance(data.get(key), str)), None)
    if name not in tools:
        return None
    arguments = next((data[key] for key in _CALL_ARGUMENT_KEYS if key in data), {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    return (name, arguments) if isinstance(arguments, dict) else None


def text_function_calls(text: str, tools: Collection[str]) -> list[tuple[str, dict[str, Any]]]:
    """Function calls a model wrote as text instead of calling: JSON objects naming one of ``tools``
    with an arguments object (``{"function": "list_incidents", "arguments": {...}}`` and similar).

    Anything else (a JSON answer, a call to a tool the agent does not have) is not a call.
    """
    calls = []
    for data in _json_objects(text or ""):
        call = _as_call(data, tools)
        if call is not None and call not in calls:
            calls.append(call)
    return calls
