"""What a run is busy with, from the progress events seen so far: the text of keep-alive events.

A slow model leaves long silences (44 s for one planner call on a small CPU model); a stream that
says nothing for that long looks dead to the person and to proxies. ``stream_chat`` asks this
tracker what is running and sends ``Still working: <that>…`` after each quiet interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opsagent.contracts.results import ProgressEvent


@dataclass
class RunActivity:
    """The phase of one run and the tasks started but not finished."""

    phase: str = "planning the answer"
    running: dict[tuple[int, str, str], str] = field(default_factory=dict)

    def observe(self, event: ProgressEvent) -> None:
        data = event.data
        match event.kind:
            case "plan" | "replan":
                self.phase = "starting the tasks"
            case "task_started":
                self.running[(data.get("step", 0), data.get("agent", ""), data.get("question", ""))] = data.get("agent", "")
            case "task_finished":
                result = data.get("result") or {}
                self.running.pop((data.get("step", 0), data.get("agent", ""), result.get("question", "")), None)
                if not self.running:
                    self.phase = "reviewing the results"
            case "review":
                self.phase = "re-planning the missing part" if data.get("wants_retry") else "checking the answer against the evidence"
            case "grounding":
                report = data.get("report") or {}
                self.phase = "rewriting the answer" if report.get("verdict") == "regenerate" else "writing the answer"
            case "clarify":
                self.phase = "writing a question back"
            case "reject":
                self.phase = "writing the answer"

    def describe(self) -> str:
        if self.running:
            agents = sorted(set(self.running.values()))
            return f"asking {', '.join(agents)}"
        return self.phase

    def keepalive(self, elapsed_seconds: float) -> ProgressEvent:
        """The event sent when nothing else happened for a while."""
        doing = self.describe()
        return ProgressEvent(kind="working", message=f"Still working: {doing}…",
                             data={"doing": doing, "elapsed_seconds": round(elapsed_seconds, 1),
                                   "running": sorted(set(self.running.values()))})
