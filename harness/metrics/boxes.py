"""Ragged per-step box lists as padded arrays: the ground-truth boxes the AitW and AgentCPM-GUI matchers look up
for a subset of steps (`boxes_for`)."""

from __future__ import annotations

from typing import Any

import numpy as np


def boxes_for(rows: np.ndarray, n: int, gt_boxes: Any, counts: Any, offsets: Any) -> tuple[np.ndarray, np.ndarray]:
    """Padded boxes [len(rows), M, 4] + validity [len(rows), M] of the steps `rows` (of `n`).

    `gt_boxes` is either flat [sum of counts, 4] with `offsets` (n + 1 entries: step i's boxes are
    `flat[offsets[i]:offsets[i + 1]]`), or padded [n, M, 4] with optional per-step `counts` (else NaN rows are
    padding). ValueError when the shapes do not fit."""
    if offsets is not None:
        flat = np.asarray(gt_boxes).reshape(-1, 4)
        offsets = np.asarray(offsets, dtype=np.int64)
        if len(offsets) != n + 1:
            raise ValueError(f"gt_box_offsets must have {n + 1} entries, got {len(offsets)}")
        cnt = offsets[rows + 1] - offsets[rows]
        m = int(cnt.max(initial=0))
        idx = offsets[rows][:, None] + np.arange(m)[None, :]
        valid = np.arange(m)[None, :] < cnt[:, None]
        idx = np.where(valid, idx, 0)
        boxes = flat[idx] if len(flat) else np.zeros((len(rows), m, 4))
        return boxes, valid
    arr = np.asarray(gt_boxes)
    if arr.ndim != 3 or arr.shape[0] != n or arr.shape[2] != 4:
        raise ValueError(
            f"gt_boxes must be a padded [N={n}, M, 4] array (or flat with gt_box_offsets), got {arr.shape}"
        )
    boxes = arr[rows]
    m = arr.shape[1]
    if counts is not None:
        cnt = np.asarray(counts, dtype=np.int64)[rows]
        valid = np.arange(m)[None, :] < cnt[:, None]
    else:
        valid = ~np.isnan(boxes.astype(np.float64)).any(axis=2)
    return boxes, valid
