"""The end of a run, from what is on disk: summary.json and the self-contained report.html.

- `summary`: the numbers (task runs through `harness.scoring.episodes`, QA runs through
  `harness.scoring.questions`); `run_scoreboard` is what the final line of `droidharness run` prints.
- `page`: what every HTML page shares (escaping, style, the one script and its CSP hash, header, number formats).
- `tasks` / `questions`: the pages of task runs and QA runs; `draw`: actions and answer boxes on screenshots.
- `render`: `write_report(run_dir)`, and `finish_run(writer)` - the end of every run (close the episodes, write
  summary.json and report.html).
"""
