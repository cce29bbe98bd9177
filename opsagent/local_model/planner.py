"""The planner and clarify roles: refuse, ask back with what could not be read, or plan a task per ask.

Off-topic is refused and vague asked back (intake says which); a request to act gets the look-up of what it names,
an open investigation its runbook, every other ask its tools. One word unread or one constraint no tool applies
sends the question back with those words and nearby questions the model reads whole.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from opsagent.contracts.analysis import Ask, QuestionAnalysis, RecordRelation, Span
from opsagent.contracts.role_inputs import ClarifyInput, PlannerInput, ReplanInput, SpecialistInfo
from opsagent.intake.relations import FAMILIES
from opsagent.local_model.calls import CATALOG, Chosen, choose, constraints
from opsagent.local_model.knowledge import Lexicon
from opsagent.local_model.reading import Reading, entity_records, read_offer, read_question
from opsagent.local_model.templates import IDS
from opsagent.tools.catalog import TOOLS, tool_spec

OUT_OF_SCOPE = ("That is outside what OpsAgent does: I answer questions about ServiceNow incidents and changes, "
                "Data Factory pipeline runs and platform health (Databricks, Snowflake, Azure).")
VAGUE = "The question points at something it does not name."
UNREAD = "The offline demo model could not read every word of the question."
GENERAL = ("Which pipelines failed in the last 24 hours?", "Which open incidents have priority 1?",
           "Is Databricks healthy right now?", "Which changes are waiting for approval?")
ABOUT = {"pipeline": ("Why did {} fail?", "When did {} last fail?", "Has {} failed like this before?"),
         "incident": ("What is the status of {}?", "Have we seen incidents like {} before?"),
         "change": ("What is the status of {}?",), "configuration_item": ("Which open incidents are on {}?",),
         "assignment_group": ("Which open incidents does {} have?",)}
"""Questions about one thing the user named, offered when the words around it could not be read."""


@dataclass(frozen=True)
class Task:
    step: int
    agent: str
    question: str
    part: str


@dataclass(frozen=True)
class Decision:
    route: str
    reason: str = ""
    tasks: tuple[Task, ...] = ()
    parts: tuple[tuple[str, str], ...] = ()
    unread: tuple[str, ...] = ()


def decide(role_input: PlannerInput, lexicon: Lexicon) -> Decision:
    """Reject, ask back, or plan: the decision for the latest question."""
    analysis, tools = role_input.analysis, {item.name: set(item.tools) for item in role_input.specialists}
    if analysis.intent in ("off_topic", "unrecognised", "vague"):
        return Decision("clarify", VAGUE) if analysis.intent == "vague" else Decision("reject", OUT_OF_SCOPE)
    if analysis.action is not None:  # the product says it cannot act; the plan looks up what it names
        reading = action_reading(analysis)
        return plan([reading], tools) if reading else Decision("reject", "The request names no record to look up.")
    latest = next((item.content for item in reversed(role_input.history) if item.role == "user"), "")
    readings = read_question(analysis, lexicon, latest)
    asks = sum(not reading.scene and not reading.unread for reading in readings)  # specific asks it can read get
    followed = _runbook(analysis, tools) if analysis.runbooks and asks <= 1 else None  # their own; else the runbook
    return followed or plan(readings, tools, max_tasks=role_input.max_tasks, specialists=role_input.specialists)


def _vague(reading: Reading) -> bool:
    """Names a kind of record and nothing about which ("status?", "any issues?")."""
    return not (constraints(reading) or reading.unread or reading.after or reading.cues - {"state", "many"}
                or reading.rank)


def _uncatalogued(reading: Reading, specialists: Sequence[SpecialistInfo]) -> str | None:
    """A registered specialist the catalog does not describe, picked by two or more words of its description
    in an ask the catalog cannot read whole: adding one stays a YAML file, its tools and a registry line."""
    words, known = set(re.findall(r"[a-z]{4,}", reading.ask.text.lower())), {spec.specialist for spec in TOOLS}
    score, name = max(((len(words & set(re.findall(r"[a-z]{4,}", item.description.lower()))), item.name)
                       for item in specialists if item.name not in known and reading.unread), default=(0, ""))
    return name if score >= 2 else None


def plan(readings: Sequence[Reading], tools: Mapping[str, Collection[str]], *, max_tasks: int = 8,
         specialists: Sequence[SpecialistInfo] = ()) -> Decision:
    """A task per ask and specialist: step 1, or the step after the ask (or the record) it builds on."""
    if readings and all(_vague(reading) for reading in readings):
        return Decision("clarify", VAGUE)
    unread, tasks, steps, made = [reading.ask.text for reading in readings if _vague(reading)], [], {}, {}
    for reading in readings:
        if other := _uncatalogued(reading, specialists):
            tasks.append(Task(1, other, reading.ask.text, reading.id))
            continue
        chosen = choose(reading, tools)
        unread += [*reading.unread, *chosen.unapplied, *([] if chosen.choices or reading.unread else [reading.ask.text])]
        unread += [relation.words] if (relation := reading.ask.relation) and not _pairs(relation, chosen) else []
        base, producers = steps.get(reading.after, 0) + 1, any(not choice.needs_rows for choice in chosen.choices)
        for choice in chosen.choices:  # a task each, a platform check each; the same calls for two asks once
            step = base + 1 if choice.needs_rows and not reading.after and producers else base
            checks = [spec.platform for call in choice.calls if (spec := tool_spec(call.tool)) and spec.platform
                      in reading.entities("platform")]
            for platform in checks if len(checks) > 1 else [""]:
                key = (step, choice.specialist, platform or str([(call.tool, call.arguments) for call in choice.calls]))
                if key in made:
                    tasks[made[key]] = replace(tasks[made[key]], part=f"{tasks[made[key]].part},{reading.id}")
                else:
                    made[key] = len(tasks)
                    tasks.append(Task(step, choice.specialist, _task_text(reading, step > 1, platform), reading.id))
        steps[reading.id] = max((task.step for task in tasks if reading.id in task.part.split(",")), default=base)
    if unread or not tasks:
        return Decision("clarify", UNREAD, unread=tuple(dict.fromkeys(unread)))
    parts = tuple(dict.fromkeys((reading.id, reading.ask.text) for reading in readings
                                if any(reading.id in task.part.split(",") for task in tasks)))
    agents = ", ".join(dict.fromkeys(task.agent for task in tasks))
    return Decision("execute", f"Read every ask from the catalog's tools: {agents}, {len(tasks)} task(s).",
                    tuple(sorted(tasks, key=lambda task: task.step))[:max_tasks], parts)


def _pairs(relation: RecordRelation, chosen: Chosen) -> bool:
    """Whether the calls pair the two kinds ("the change INC… waits for": the one its text names, looked up);
    two lists side by side do not ("which failed pipelines have an open incident?")."""
    return any(FAMILIES.get(kind) == relation.other for choice in chosen.choices for kind in choice.deferred)


def _task_text(reading: Reading, later: bool, platform: str = "") -> str:
    """The ask, with what its pronoun points at when that came from an earlier turn, or the platform to check."""
    about = ", ".join(dict.fromkeys(item.value for item in reading.extra if item.span.end == 0)) or platform
    text = reading.ask.text.rstrip(" ?.") + (f" (about {about})" if about else "")
    return f"{text} (using the previous step's results)" if later else f"{text}?"


def action_reading(analysis: QuestionAnalysis) -> Reading | None:
    """A request to act, read as the look-up of the records it names (the latest state of each)."""
    action = analysis.action
    if not (targets := [item for item in analysis.entities if item.usable and action and item.value in action.targets]):
        return None
    scope = analysis.model_copy(update={"entities": targets, "filters": [], "times": [], "record_windows": []})
    records = tuple(entity_records(scope))
    return Reading(ask=Ask(id="p1", text=action.text, span=Span(start=0, end=0), shape="record"), scope=scope,
                   records=records, named=records, cues=frozenset({"latest"}))


def _runbook(analysis: QuestionAnalysis, tools: Mapping[str, Collection[str]]) -> Decision | None:
    """The matched runbook's steps as the plan, each step a part of its own."""
    runbook = analysis.runbooks[0]
    steps = [item for item in runbook.steps if item.specialist in tools]
    if not steps:
        return None
    first = min(item.step for item in steps)
    tasks = tuple(Task(item.step - first + 1, item.specialist, item.ask, f"r{index}")
                  for index, item in enumerate(steps, start=1))
    return Decision("execute", f"Following the runbook \"{runbook.title}\" ({runbook.intent})", tasks,
                    tuple((task.part, task.question) for task in tasks))


def user_mode_output(decision: Decision) -> dict:
    """``UserModeOutput`` as a JSON-ready dict (``offline_unread`` is this model's own field)."""
    rejected = decision.route == "reject"
    return {"should_reject": rejected, "reject_reason": decision.reason if rejected else "",
            "clarify": decision.route == "clarify", "offline_unread": list(decision.unread),
            "parts": [{"id": part, "text": text} for part, text in decision.parts],
            "plan": [asdict(task) for task in decision.tasks], "plan_reason": "" if rejected else decision.reason}


def triage_output(decision: Decision) -> dict:
    """``TriageOutput``: one task per specialist, all at once; what needs an earlier step is left out."""
    if decision.route != "execute":
        reason = decision.reason if decision.route == "reject" or not decision.unread else _unread(decision.unread)
        return {"should_reject": True, "reject_reason": reason, "tasks": [], "reason": ""}
    merged: dict[str, list[Task]] = {}
    for task in (task for task in decision.tasks if task.step == 1):
        merged.setdefault(task.agent, []).append(task)
    return {"should_reject": False, "parts": [{"id": part, "text": text} for part, text in decision.parts],
            "tasks": [{"agent": agent, "question": " ".join(dict.fromkeys(task.question for task in items)),
                       "part": ",".join(dict.fromkeys(task.part for task in items))} for agent, items in merged.items()],
            "reason": decision.reason}


def review_mode_output(role_input: ReplanInput) -> dict:
    """``ReviewModeOutput``: the retryable parts' tasks (and the later steps on them) again, else a reasoned refusal."""
    retry = {gap.part for gap in role_input.gaps if gap.retryable}
    again = [result for result in role_input.results if retry & set(result.part.split(","))]
    later = [result for result in role_input.results if again and result.step > min(r.step for r in again)]
    tasks = [result.model_dump(include={"step", "agent", "question", "part"})
             for result in {id(result): result for result in [*again, *later]}.values()]
    if tasks:
        return {"accept_review": True, "new_plan": tasks, "rejection_reason": ""}
    reasons = "; ".join(f"{gap.part}: {gap.reason}" for gap in role_input.gaps) or "no gap a retry can fill"
    return {"accept_review": False, "new_plan": [], "rejection_reason": f"Declined the retry: {reasons}."}


def nearby(analysis: QuestionAnalysis, lexicon: Lexicon) -> list[str]:
    """Questions about what the unread question names that this model reads whole (planned like the user's),
    those sharing most of its cues first ("hit this error before?" → "Has pl_x failed like this before?")."""
    cues = {cue for reading in read_question(analysis, lexicon) for cue in reading.cues}
    found = []
    for item in (item for item in analysis.entities if item.usable):
        for text in (template.format(item.value) for template in ABOUT.get(item.kind, ())):
            offered = read_offer(text, item, analysis.now, lexicon)
            if plan(offered, CATALOG).route == "execute":
                found.append((-len(cues & offered[0].cues), len(found), text))
    return [text for *_, text in sorted(found)]


def _unread(words: Sequence[str], options: str = "") -> str:
    said = ", ".join(dict.fromkeys(f"'{IDS.sub('…', word)}'" for word in words))
    return f"The offline demo model couldn't read {said}. {options}For free-form questions connect a model — see " \
           "Models in the README."


def clarify_output(role_input: ClarifyInput, lexicon: Lexicon) -> dict:
    """``ClarifyOutput`` as a JSON-ready dict."""
    if role_input.unread:
        request = _unread(role_input.unread, "It can answer questions like these, and searches the records' text for "
                                             "words in quotes ('…'). ")
    elif role_input.candidates:
        request = f"Which one do you mean? Name it, or pick one — {role_input.candidates_label or 'what the data holds now'}:"
    else:
        request = "Which record do you mean? Name it (a ticket number, a pipeline, a platform), for example:"
    offered = nearby(role_input.analysis, lexicon) if role_input.unread else list(role_input.candidates)
    return {"clarification_request": request, "possible_interpretations": list(dict.fromkeys([*offered, *GENERAL]))[:4]}
