"""Trajectories: what a run records and how it is read back (docs/trajectory-format.md).

- `result`: `EpisodeResult`, the one record of an episode's result (the loop returns it, episode.json stores it).
- `records`: the JSON models of a run directory (step lines, episode.json, manifest.json, summary.json), its
  file names and schema versions.
- `reader`: a run directory read back (`load_run`, `Run`, `EpisodeRecord`, `iter_steps`).
- `sink`: the `TrajectorySink` seam the episode loop records into (`Frame`, `StepEvent`), and `QueueSink`, which
  streams the same events to another process's writer.
- `frames`: screenshots and hierarchies stored once per run, named by a hash (`FrameStore`, `WriterOptions`).
- `writer`: `RunWriter` (a run directory); `episode_writer`: `EpisodeWriter` (one episode; a `TrajectorySink`).

Nothing here imports the scoring, the report or the run: the run's end (`harness.report.render.finish_run`)
closes the writer and writes summary.json and report.html.
"""
