"""The hierarchy matches the pixels under every display condition (`walk.CONDITIONS`), in English and Chinese: on
the first screen of each app, the launcher, the shade, Overview and the in-call screen, every text node a client
reads in the dump (`hierarchy_xml`, the views in the same order) has its text drawn inside its bounds - the
screenshot is not one flat colour where the text's glyphs go."""

from __future__ import annotations

import re

import pytest

from emulator.virtual.ui.view import View
from tests.emulator.virtual.ui.walk import CONDITIONS, device, ink_box, starts

_NODE = re.compile(r'<node index="\d+" text="([^"]*)"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"')


def _covered(later: list[View], v: View, box: tuple[int, int, int, int]) -> bool:
    """Is `box` under a background drawn after `v` (a dialog, the shade over the app), not one of `v`'s own?"""
    own = set(map(id, v.walk()))
    return any(
        isinstance(u.style.get("bg"), tuple)
        and id(u) not in own
        and u.bounds[0] <= box[0]
        and u.bounds[1] <= box[1]
        and box[2] <= u.bounds[2]
        and box[3] <= u.bounds[3]
        for u in later
    )


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_each_text_is_drawn_inside_its_bounds(condition, locale):
    m = device(condition, locale)
    checked, bad = 0, []
    for name in starts(m):
        roots = m.view_roots()
        nodes = _NODE.findall(m.hierarchy_xml(max_depth=1000))
        views = [v for r in roots for v in r.walk()]
        assert len(nodes) == len(views), name  # the dump is the views, in order
        shot = m.screenshot()
        assert shot.size == m.display_size
        for i, (v, (text, *box)) in enumerate(zip(views, nodes, strict=True)):
            assert tuple(map(int, box)) == v.bounds, (name, text)
            ink = ink_box(v)
            if ink is None or ink[3] - ink[1] < 6 or ink[2] - ink[0] < 4 or _covered(views[i + 1 :], v, ink):
                continue
            l, t, r, b = v.bounds
            assert l <= ink[0] and t <= ink[1] and ink[2] <= r and ink[3] <= b, (name, v.text, ink, v.bounds)
            lo, hi = zip(*shot.crop(ink).getextrema(), strict=True)
            checked += 1
            if lo == hi:  # one flat colour: nothing drawn there
                bad.append(f"{name}: {v.text!r} at {ink} in {v.bounds}")
    assert checked > 100 and not bad, "\n".join(bad[:20])
