"""Runtime: settings + model provider + backends + every agent, built once per process.

Agents and chat clients are shared by all requests (they hold no per-request state); workflows
and their executors are built fresh for every request (see ``workflows/``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from opsagent.agents.factory import AgentLimits, ConfiguredAgent
from opsagent.agents.roles import (
    create_clarify_agent,
    create_dynamic_triage_agent,
    create_review_agent,
    create_triage_agent,
)
from opsagent.agents.specialists import (
    SPECIALISTS,
    SpecialistProfile,
    SpecialistSpec,
    create_specialist_agent,
    describe_specialists,
)
from opsagent.agents.model_provider import ModelProvider
from opsagent.backends.base import Backends, Clock
from opsagent.contracts.role_inputs import SpecialistInfo
from opsagent.intake import QuestionAnalyzer
from opsagent.intake.runbooks import load_runbooks
from opsagent.llm.providers import make_model_provider
from opsagent.settings import Settings
from opsagent.telemetry import configure_tracing


logger = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class AgentSet:
    """Every agent of one runtime. ``specialists`` is the registry the planner plans over."""

    dynamic_triage: ConfiguredAgent
    triage: ConfiguredAgent
    review: ConfiguredAgent
    clarify: ConfiguredAgent
    specialists: Mapping[str, ConfiguredAgent]
    profiles: tuple[SpecialistProfile, ...]


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    models: ModelProvider
    backends: Backends
    agents: AgentSet
    clock: Clock
    intake: QuestionAnalyzer
    owns_models: bool = True
    """Whether closing the runtime closes the model clients: not when they were handed in (shared by several)."""

    @property
    def specialist_names(self) -> frozenset[str]:
        return frozenset(self.agents.specialists)

    @property
    def specialist_infos(self) -> list[SpecialistInfo]:
        return [profile.as_info() for profile in self.agents.profiles]

    @property
    def specialist_titles(self) -> dict[str, str]:
        return {name: agent.config.title or name for name, agent in self.agents.specialists.items()}

    async def aclose(self) -> None:
        try:
            await self.backends.aclose()
        finally:
            if self.owns_models:
                await self.models.aclose()


def agent_limits(settings: Settings, role: Literal["planner", "review", "clarify", "specialist"]) -> AgentLimits:
    """The settings' limits for one kind of role (the model profile's values unless set explicitly)."""
    max_tokens = {"planner": settings.planner_max_tokens, "review": settings.review_max_tokens,
                  "clarify": settings.clarify_max_tokens, "specialist": settings.specialist_max_tokens}[role]
    return AgentLimits(max_tokens=max_tokens, tool_choice=settings.specialist_tool_choice,
                       prompt_budget_tokens=settings.prompt_budget_tokens)


def make_default_backends(settings: Settings, clock: Clock) -> Backends:
    """Real backends where their settings are present, the demo data set elsewhere."""
    from opsagent.backends.demo import make_demo_backends
    from opsagent.backends.selection import make_backends

    return make_backends(settings, clock=clock, demo_factory=make_demo_backends)


def build_agents(
    settings: Settings,
    models: ModelProvider,
    *,
    backends: Backends,
    clock: Clock,
    specialists: Sequence[SpecialistSpec] = SPECIALISTS,
) -> AgentSet:
    """Load every YAML file and build every agent; any config error surfaces here, at start-up."""
    config_dir = settings.agent_config_dir
    built = [
        create_specialist_agent(
            spec, models, backends=backends, clock=clock, max_rows=settings.tool_max_rows, config_dir=config_dir,
            limits=agent_limits(settings, "specialist"),
        )
        for spec in specialists
    ]
    profiles = tuple(profile for _, profile in built)
    agent_list = describe_specialists(profiles)
    names = [profile.name for profile in profiles]
    planner = {"config_dir": config_dir, "specialists": agent_list, "agent_names": names,
               "max_tasks": settings.max_plan_tasks, "limits": agent_limits(settings, "planner")}
    return AgentSet(
        dynamic_triage=create_dynamic_triage_agent(models, **planner),
        triage=create_triage_agent(models, **planner),
        review=create_review_agent(models, config_dir=config_dir, specialists=agent_list,
                                   limits=agent_limits(settings, "review")),
        clarify=create_clarify_agent(models, config_dir=config_dir, specialists=agent_list,
                                     limits=agent_limits(settings, "clarify")),
        specialists={agent.name: agent for agent, _ in built},
        profiles=profiles,
    )


def build_runtime(
    settings: Settings,
    *,
    models: ModelProvider | None = None,
    backends: Backends | None = None,
    clock: Clock = utc_now,
    specialists: Sequence[SpecialistSpec] = SPECIALISTS,
) -> Runtime:
    """Assemble a runtime; tests pass scripted models, fake backends or a fixed clock."""
    configure_tracing(settings)
    if settings.deadline_shortfall:
        logger.warning("%s", settings.deadline_shortfall)
    owns_models = models is None
    models = models or make_model_provider(settings)
    backends = backends or make_default_backends(settings, clock)
    agents = build_agents(settings, models, backends=backends, clock=clock, specialists=specialists)
    runbooks = load_runbooks(settings.runbooks_dir, specialists=[spec.name for spec in specialists])
    intake = QuestionAnalyzer(backends=backends, clock=clock, runbooks=runbooks)
    return Runtime(settings=settings, models=models, backends=backends, agents=agents, clock=clock, intake=intake,
                   owns_models=owns_models)
