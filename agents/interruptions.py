"""Interruptions on a live screen, and the action that dismisses each (used by the `reference` agent).

Two kinds are recognised from the UI tree alone:

- a heads-up notification: SystemUI's card floating over the app (`com.android.systemui:id/heads_up_notification`,
  or a notification row, `expandableNotificationRow`, of package `com.android.systemui` outside the expanded
  notification shade). Android puts a heads-up away when it is swiped up (or when it times out); the dismissal is a
  SWIPE from the card's centre up past its top edge.
- a dialog window of the system (`android`: "app isn't responding", ...) or of the permission controller
  (`com.google.android.permissioncontroller`): a CLICK on its dismissing button ("Wait", "Cancel", "Don't allow",
  "OK", "Close app", and the same in Chinese), in that order of preference ("Wait" keeps the app and what was done
  in it), or BACK when it has none of them.
- an in-app popup: a window of an app's own package over that app's window (a second root of the package, not a
  system package's) holding a button that only a popup has - "Not now", "No thanks", "Close" (and 以后再说, 不用了,
  关闭), by text or content description: a CLICK on it, in that order of preference. A task's own dialogs (confirm,
  pickers) have none of these labels, so they are never taken for one.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.actions import Action, Back, Click, Point, Swipe
from harness.hierarchy import UIElement, UITree

SYSTEMUI = "com.android.systemui"
DIALOG_PACKAGES = ("android", "com.google.android.permissioncontroller")
HEADS_UP_IDS = ("heads_up_notification",)
ROW_ID = "expandableNotificationRow"
SHADE_IDS = ("notification_panel", "notification_shade", "quick_settings_panel")
# a dialog's dismissing buttons, most preferred first (compared case-insensitively, whitespace collapsed)
DISMISS_LABELS = (
    "wait",
    "等待",
    "cancel",
    "取消",
    "don't allow",
    "don’t allow",
    "deny",
    "不允许",
    "拒绝",
    "ok",
    "确定",
    "好",
    "close app",
    "关闭应用",
)
# an in-app popup's dismissing buttons (a rating prompt, a promo), most preferred first
POPUP_LABELS = ("not now", "以后再说", "no thanks", "不用了", "close", "关闭")
SYSTEM_PACKAGES = (*DIALOG_PACKAGES, SYSTEMUI, "com.google.android.inputmethod.latin")


@dataclass(frozen=True)
class Interruption:
    """What interrupts the screen: `kind` ("heads-up", "dialog" or "popup"), the root element of its window (`root`, an
    index of the tree), every element index inside it (`members`), a short description, and the action that
    dismisses it."""

    kind: str
    root: int
    members: frozenset[int]
    what: str
    action: Action


def _norm(s: str) -> str:
    return " ".join(s.split()).casefold()


def _subtree(tree: UITree, root: UIElement) -> list[UIElement]:
    out: list[UIElement] = []
    stack = [root.index]
    while stack:
        e = tree[stack.pop()]
        out.append(e)
        stack.extend(e.children)
    return out


def _in_shade(tree: UITree, e: UIElement) -> bool:
    return any(a.resource_name in SHADE_IDS for a in tree.ancestors(e.index))


def _heads_up(tree: UITree, size: tuple[int, int]) -> Interruption | None:
    for e in tree.visible():
        if e.package != SYSTEMUI:
            continue
        if e.resource_name in HEADS_UP_IDS or (e.resource_name == ROW_ID and not _in_shade(tree, e)):
            if e.resource_name == ROW_ID:  # the row's outermost SystemUI ancestor outside the shade is the card
                for a in tree.ancestors(e.index):
                    if a.package == SYSTEMUI and a.resource_name in HEADS_UP_IDS:
                        e = a
                        break
            members = _subtree(tree, e)
            title = next((m.text for m in members if m.resource_name == "title" and m.text), "")
            l, t, r, b = e.bounds
            w, h = size
            cx = min(max((l + r) / 2, 0), w - 1)
            cy = min(max((t + b) / 2, 0), h - 1)
            end_y = max(t - (b - t) / 2, 0)  # from the card's centre to above its top edge
            swipe = Swipe(
                start=Point(x=cx / w, y=cy / h),
                end=Point(x=cx / w, y=end_y / h),
                duration=0.2,
            )
            what = f'the heads-up notification "{title}"' if title else "a heads-up notification"
            return Interruption("heads-up", e.index, frozenset(m.index for m in members), what, swipe)
    return None


def _dialog(tree: UITree) -> Interruption | None:
    for i in reversed(tree.roots):  # the topmost first: it takes the input
        root = tree[i]
        if root.package not in DIALOG_PACKAGES or not root.is_visible:
            continue
        members = _subtree(tree, root)
        buttons: dict[str, UIElement] = {}
        for m in members:
            label = _norm(m.text or m.content_desc)
            if label in DISMISS_LABELS and m.is_visible and m.enabled and label not in buttons:
                buttons[label] = m
        texts = [m.text for m in members if m.text and m.is_visible]
        title = texts[0] if texts else root.package
        what = f'the {root.package} dialog "{title}"'
        for label in DISMISS_LABELS:
            if label in buttons:
                b = buttons[label]
                return Interruption(
                    "dialog",
                    root.index,
                    frozenset(m.index for m in members),
                    f'{what} with its "{b.text or b.content_desc}" button',
                    Click(element=b.index),
                )
        return Interruption("dialog", root.index, frozenset(m.index for m in members), f"{what} with BACK", Back())
    return None


def _popup_button(members: list[UIElement]) -> UIElement | None:
    for label in POPUP_LABELS:
        for m in members:
            if _norm(m.text or m.content_desc) == label and m.is_visible and m.enabled:
                return m
    return None


def _popup(tree: UITree) -> Interruption | None:
    seen: set[str] = set()
    found: Interruption | None = None  # the topmost popup
    for i in tree.roots:
        root = tree[i]
        if root.package in SYSTEM_PACKAGES or not root.package:
            continue
        if root.package not in seen:  # the app's own window, under its popups
            seen.add(root.package)
            continue
        members = _subtree(tree, root)
        b = _popup_button(members) if root.is_visible else None
        if b is not None:
            texts = [t.text for t in members if t.text and t.is_visible]
            title = texts[0] if texts else root.package
            what = f'the {root.package} popup "{title}" with its "{b.text or b.content_desc}" button'
            found = Interruption("popup", root.index, frozenset(x.index for x in members), what, Click(element=b.index))
    return found


def find_interruption(tree: UITree, size: tuple[int, int]) -> Interruption | None:
    """The interruption on this screen, or None: the topmost window of a system dialog and an app's popup (it takes
    the input: a popup over an app's own permission prompt goes first), then a heads-up."""
    windows = [w for w in (_dialog(tree), _popup(tree)) if w is not None]
    if windows:
        order = {root: i for i, root in enumerate(tree.roots)}
        return max(windows, key=lambda w: order.get(w.root, -1))
    return _heads_up(tree, size)


__all__ = ["DIALOG_PACKAGES", "DISMISS_LABELS", "POPUP_LABELS", "Interruption", "find_interruption"]
