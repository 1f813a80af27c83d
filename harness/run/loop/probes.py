"""Probes inside episodes: screen questions a task asks on the live screen when one of its milestones is first
hit (`Task.probes`, docs/screenqa.md), scored with the ScreenQA metrics beside ATP / SR.

A probe never touches the device: it is asked on the observation the milestone was hit on, so the agent's
course is the same with or without probes. The QA agent's failures (an exception, malformed output, unknown
element indices) are its own and scored as the answer it gave ("no answer" on an exception); an
`InfrastructureError` (its endpoint down) propagates like the agent's own. A probe whose ground truth cannot be
resolved on that screen (a locator finds nothing) is a task-authoring error: recorded with the error and left
out of the QA scores (`tasks check` fails such a task).

Every probe of a scored episode appears in its result: asked (with the QA result) or `reached: false` (the
agent never hit its milestone: nothing to ask, and not scored as a QA answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.errors import ActionValidationError
from harness.observation import Observation
from harness.qa_agent import QAAgent
from harness.run.loop.questions import call_agent
from harness.scoring.questions import ground_truth, score_question
from tasks.schema import Probe


class ProbeAsker:
    """Asks a task's probes as the episode's milestones are hit; `records()` gives every probe's record."""

    def __init__(self, probes: Iterable[Probe], agent: QAAgent | None, lang: str, timeout: float) -> None:
        self.probes = [p for p in probes if lang in p.question]
        self.agent, self.lang, self.timeout = agent, lang, timeout
        self._done: dict[str, dict[str, Any]] = {}

    def on_hits(self, hit_ids: Iterable[str], obs: Observation, step: int) -> None:
        if self.agent is None:
            return
        hits = set(hit_ids)
        for p in self.probes:
            if p.at in hits and p.id not in self._done:
                self._done[p.id] = self._ask(p, obs, step)

    def _ask(self, probe: Probe, obs: Observation, step: int) -> dict[str, Any]:
        head: dict[str, Any] = {"probe_id": probe.id, "at": probe.at, "step": step, "reached": True}
        try:
            gt = ground_truth(probe, obs, self.lang)
        except ActionValidationError as e:
            return {**head, "asked": False, "error": f"the probe's ground truth is not on this screen: {e}"}
        assert self.agent is not None
        ans, raised, seconds = call_agent(self.agent, obs, probe.question[self.lang], self.lang, self.timeout)
        result = score_question(probe, self.lang, obs, gt, ans, raised)
        return {**head, "asked": True, "seconds": round(seconds, 3), **result.to_json()}

    def records(self) -> list[dict[str, Any]]:
        """Every probe of the task in this language, in task order: asked, or not reached ([] with no QA agent:
        probes switched off)."""
        if self.agent is None:
            return []
        out = []
        for p in self.probes:
            out.append(self._done.get(p.id) or {"probe_id": p.id, "at": p.at, "reached": False, "asked": False})
        return out
