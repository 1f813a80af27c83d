"""`droidharness export`: a run's episodes as something to show or to train on (docs/export.md).

- `episodes`: which episode `--episode ID` names (its folder under `episodes/`, or a task id with one episode),
  and `ExportError`;
- `animation`: an episode as a GIF or an MP4 (imageio; PyAV for MP4): each frame the screen with the action
  drawn on it (`harness.report.draw.draw_action`), the step number, the action, typed text, keys, the answer and
  the milestones the step hit;
- `sft_schema`: the record of one supervised fine-tuning sample (pydantic; `sft_sample.schema.json` ships next to
  it) and the validation of a written JSONL;
- `sft`: one sample per step, from a run (read through `harness.trajectory.reader`, scored by
  `harness.scoring`) or from a dataset's episodes (`tasks.datasets.registry`), in the chat-message form the
  `openai` agent sends (`harness.modelio.prompting`) with the target in an output format
  (`harness.modelio.parsers.formatters`).

Nothing below imports the CLI; the run directory is only read.
"""
