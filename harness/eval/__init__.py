"""Datasets against their official metrics (the pure metrics are `harness.metrics`): offline teacher-forced
evaluation (`offline`, the loop; `steps`, `collect*`, `metric_kinds`, `predictions`, `render`), offline ScreenQA
evaluation (`qa_offline`), and replaying recorded episodes on live devices (`replay`, by the rules of
`replay_rules`). Datasets are told apart only through their adapters (`tasks.datasets.registry`).
"""
