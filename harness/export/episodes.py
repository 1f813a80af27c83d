"""Which episode of a run `--episode ID` names, and the error every export raises for bad input.

ID is the episode's folder name under `episodes/` (`clock-world-time__en`), or a task id when the run has exactly
one episode of that task; anything else is an `ExportError` naming the run and what it has.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import HarnessError
from harness.trajectory.reader import EpisodeRecord, Run, load_run
from harness.trajectory.records import EPISODES_DIR

SHOWN = 8  # episode names an error lists before "..."


class ExportError(HarnessError):
    """Bad input to an export: a run, an episode, a format or an option (names which)."""


def open_run(run_dir: str | Path) -> Run:
    """The run at `run_dir`, read through the trajectory reader; an ExportError when it holds no episode."""
    run = load_run(run_dir, skip_bad=True)
    if not run.episodes:
        raise ExportError(f"{run_dir}: no episodes in this run directory (no {EPISODES_DIR}/<task_id>__<lang>/)")
    return run


def _listing(names: list[str]) -> str:
    return ", ".join(names[:SHOWN]) + (f", ... ({len(names)} in all)" if len(names) > SHOWN else "")


def find_episode(run: Run, ident: str) -> EpisodeRecord:
    """The episode `ident` names in `run` (module docstring)."""
    if ident in run.episodes:
        return run.episodes[ident]
    matches = [ep for ep in run.episodes.values() if ep.task_id == ident]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ExportError(
            f"{run.path}: task {ident!r} has {len(matches)} episodes ({_listing([m.key for m in matches])}); "
            "name one by its folder with --episode"
        )
    raise ExportError(f"{run.path}: no episode {ident!r}; the run has {_listing(list(run.episodes))}")


__all__ = ["ExportError", "open_run", "find_episode"]
