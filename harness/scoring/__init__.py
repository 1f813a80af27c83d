"""Scoring: pure functions from results to scores, shared by every surface (docs/scoring.md).

- `episodes`: the one scoring function of task runs (`scoreboard`, SR / ATP, breakdowns, `headline`, exit codes).
- `questions`: ScreenQA scoring of one answer on the screen it was given on (`ground_truth`, `score_question`) and
  the QA summary of a set of answers (`summarize_questions`, `headline`).
- `probes`: the QA scores of the probes a task asks inside its episodes.

Below the run loop (probes are scored as they are asked) and the report; above the trajectory records.
"""
