"""Official offline metrics of the datasets DroidHarness reads, vectorized with numpy.

- `aitw`: AitW action matching (per-episode partial accuracy, subset means, overall).
- `odyssey`: GUI Odyssey AMS / SR / action-type and text accuracy, aggregations `"pooled"` and
  `"per_category_mean"`, click rules `"box_or_distance"` (latest release) and `"distance_only"` (earlier release).
- `agentcpm`: the AgentCPM-GUI static evaluator (TM, EM, SR, goal progress, per-type figures, hit rate, text and
  point distance; modes `"default"` and `"android_control"`), used for AndroidLens / AITZ steps.
- `androidlens`: ATP / SR from milestone hit lists.
- `screenqa`: SQA-S, SQA-UIC, SQA-UIC-BB and the paper's avg nDCG_v / avg F1.
- `boxes`: ragged per-step ground-truth box lists as padded arrays (shared by `aitw` and `agentcpm`).
- `reference`: plain per-step implementations the vectorized code is tested and benchmarked against.

The rules and constants are in each module's docstring; docs/datasets.md tabulates, per rule, what the official
code does, what these modules do and how it was checked.
"""

from harness.metrics import agentcpm, aitw, androidlens, boxes, odyssey, reference, screenqa

__all__ = ["agentcpm", "aitw", "androidlens", "boxes", "odyssey", "reference", "screenqa"]
