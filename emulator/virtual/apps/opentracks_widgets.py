"""OpenTracks' shared pieces of screen: the bottom app bar (BottomAppBar with the screen's actions, its floating
button docked at the end), the action items of a bar that fit (`showAsAction="ifRoom"`, as AppCompat's
ActionBarPolicy counts them by the window's width; the rest under "More options") and the popup menu they open."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .opentracks_data import icon_of, tr, type_by_name

BAR_DP = 56  # ?attr/actionBarSize
ORANGE = (230, 81, 0)  # the app's accent
FAB_RISE_DP = 28  # the floating button stands half above the bottom app bar


@dataclass(frozen=True)
class Item:
    """A menu item: its id (`de.dennisguse.opentracks:id/...`), title, icon and what it does."""

    rid: str
    title: str
    icon: str
    run: Callable[[], None]
    if_room: bool = True


def max_action_buttons(ctx: Ctx) -> int:
    """ActionBarPolicy.getMaxActionButtons: by the window's size in dp."""
    wd, hd = ctx.screen[0] / ctx.scale, ctx.screen[1] / ctx.scale
    if min(wd, hd) > 600 or wd > 600 or (wd > 960 and hd > 720) or (wd > 720 and hd > 960):
        return 5
    if wd >= 500 or (wd > 640 and hd > 480) or (wd > 480 and hd > 640):
        return 4
    return 3 if wd >= 360 else 2


def split(ctx: Ctx, items: list[Item]) -> tuple[list[Item], list[Item]]:
    """(shown as icons, in the overflow): the ifRoom items that fit, the overflow taking one slot when needed."""
    room = max_action_buttons(ctx)
    wanted = [i for i in items if i.if_room]
    if len(wanted) < len(items) or len(wanted) > room:
        room -= 1
    shown = wanted[:room]
    return shown, [i for i in items if i not in shown]


def action_icons(
    ctx: Ctx, items: list[Item], right: int, top: int, menu_id: str, menu_at: str = "top"
) -> tuple[list[View], int]:
    """The icons of `items` that fit and the overflow button, laid right to left ending at `right`; the views and
    the left edge they reach. The overflow opens the popup menu `menu_id` (the app's `dialog_menu` builds the same
    items again and shows those that did not fit)."""
    shown, rest = split(ctx, items)
    isz = ctx.dp(48)
    x = right
    views: list[View] = []
    if rest:

        def open_menu() -> None:
            ctx.show_dialog({"id": "menu", "menu": menu_id, "at": menu_at})

        views.append(w.icon_button(ctx, (x - isz, top, x, top + isz), "more", tr(ctx, "more_options"), open_menu))
        x -= isz
    for i in reversed(shown):
        views.append(w.icon_button(ctx, (x - isz, top, x, top + isz), i.icon, i.title, i.run, i.rid))
        x -= isz
    return views[::-1], x  # in reading order


def popup_menu(ctx: Ctx, items: list[Item], at: str) -> View:
    """The overflow's popup: the titles (android:id/title) of the items that did not fit on the bar, under the top
    bar or above the bottom one."""
    items = split(ctx, items)[1]
    l, t, r, b = ctx.area
    item_h = ctx.dp(48)
    widest = max((int(text_width(i.title, ctx.sp(16))) for i in items), default=0)
    wd = min(r - l - ctx.dp(16), max(ctx.dp(180), widest + ctx.dp(48)))
    h = len(items) * item_h + ctx.dp(16)
    top = t + ctx.dp(8) if at == "top" else b - ctx.dp(BAR_DP) - h
    box = (r - wd - ctx.dp(8), top, r - ctx.dp(8), top + h)
    root = dialogs.popup_window(ctx, box)
    lst = V(ctx, "android.widget.ListView", box)
    y = box[1] + ctx.dp(8)
    for i in items:

        def run(i: Item = i) -> None:
            ctx.dismiss_dialog()
            i.run()

        row = V(ctx, w.LINEAR, (box[0], y, box[2], y + item_h), clickable=True, focusable=True, on_click=run)
        row.children.append(
            w.text(ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(16), y + item_h), i.title, "android:id/title", size=16)
        )
        lst.children.append(row)
        y += item_h
    root.children.append(lst)
    return root


def bottom_app_bar(ctx: Ctx, start: list[View], menu: list[Item], menu_id: str, fab: View | None = None) -> list[View]:
    """The BottomAppBar (`bottom_app_bar`): `start` views at its start, the menu's icons at its end (before the
    floating button's cradle when there is one), the floating button docked at the end."""
    l, _, r, b = ctx.area
    h = ctx.dp(BAR_DP + 24)
    top = b - h
    bar = V(ctx, "android.view.ViewGroup", (l, top, r, b), "bottom_app_bar", style={"bg": ctx.theme.surface2})
    bar.children.extend(start)
    isz = ctx.dp(48)
    icon_top = top + (h - isz) // 2
    right = r - ctx.dp(4) - (ctx.dp(88) if fab is not None else 0)
    views, _ = action_icons(ctx, menu, right, icon_top, menu_id, "bottom")
    bar.children.extend(views)
    return [bar] + ([fab] if fab is not None else [])


def bar_button(ctx: Ctx, index: int, icon: str, rid: str, on_click: Callable[[], None]) -> View:
    """An icon-only MaterialButton on the bottom app bar (no text, no content description), `index` from the start."""
    l, _, _, b = ctx.area
    h = ctx.dp(BAR_DP + 24)
    isz = ctx.dp(48)
    x = l + ctx.dp(8) + index * (isz + ctx.dp(8))
    y = b - h + (h - isz) // 2
    v = V(ctx, w.BUTTON, (x, y, x + isz, y + isz), rid, clickable=True, focusable=True, on_click=on_click)
    v.style.update({"icon": icon, "icon_color": ctx.theme.text, "inset": ctx.dp(12), "radius": isz // 2})
    return v


def tabs_row(ctx: Ctx, labels: list[str], selected: int, pick: Callable[[int], Callable[[], None]] | None) -> View:
    """TrackRecordedActivity's / TrackRecordingActivity's TabLayout (`track_detail_activity_tablayout`) across the top;
    a label longer than its tab is cut with an ellipsis."""
    l, t, r, _ = ctx.area
    items = [(label, i == selected, pick(i) if pick else None, "") for i, label in enumerate(labels)]
    bar = w.tabs(ctx, (l, t, r, t + ctx.dp(48)), items, rid="track_detail_activity_tablayout")
    for v in bar.walk():
        if v.text:
            v.style["ellipsize"] = True
    return bar


def fab(ctx: Ctx, icon: str, desc: str, rid: str, on_click: Callable[[], None] | None) -> View:
    """The floating action button docked at the end of the bottom app bar."""
    _, _, r, b = ctx.area
    sz = ctx.dp(56)
    x1 = r - ctx.dp(16)
    y0 = b - ctx.dp(BAR_DP + 24) - sz // 2
    v = V(ctx, w.IMAGE_BUTTON, (x1 - sz, y0, x1, y0 + sz), rid, desc=desc, clickable=True, focusable=True)
    v.on_click = on_click
    v.style.update(
        {
            "bg": (183, 28, 28),  # red_dark
            "radius": ctx.dp(16),
            "icon": icon,
            "icon_color": (255, 255, 255),
            "inset": ctx.dp(16),
            "shadow": True,
        }
    )
    return v


def edit_rows(ctx: Ctx, name: str, category: str, description: str) -> list[Row]:
    """The fields a track is edited with, on TrackEditActivity and TrackStoppedActivity alike: Name, the activity
    type with its icon at the field's end, Description (three lines)."""

    def field(key: str, hint: str, value: str, right: int = 0, multiline: bool = False) -> Row:
        h = ctx.dp(104 if multiline else 72)

        def build(x: int, y: int, wd: int) -> View:
            return w.edit(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16) - right, y + h - ctx.dp(8)),
                key,
                value,
                hint,
                lambda v: ctx.set_field(key, v),
                key,
                multiline=multiline,
                lines=3 if multiline else 1,
            )

        return Row(h, build, (key,))

    icon_name, letter = icon_of(type_by_name(ctx, category))
    isz = ctx.dp(48)
    kind = field("track_edit_activity_type", tr(ctx, "track_edit_activity_type_hint"), category, isz + ctx.dp(8))

    def type_row(x: int, y: int, wd: int) -> list[View]:
        icon = w.icon(
            ctx,
            (x + wd - ctx.dp(16) - isz, y + ctx.dp(12), x + wd - ctx.dp(16), y + ctx.dp(12) + isz),
            icon_name,
            ORANGE,
            "track_edit_activity_type_icon",
            on_click=lambda: None,
        )
        icon.style["letter"] = letter
        return [*[v for v in [kind.build(x, y, wd)] if isinstance(v, View)], icon]

    return [
        field("track_edit_name", tr(ctx, "generic_name"), name),
        Row(kind.height, type_row, ("track_edit_activity_type",)),
        field("track_edit_description", tr(ctx, "generic_description"), description, multiline=True),
    ]
