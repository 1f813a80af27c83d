"""Tasks (`org.tasks` 13.6.3, versionCode 130605 - the build AndroidWorld installs), launcher label "Tasks",
launcher activity `com.todoroo.astrid.activity.MainActivity`, over its Room database
/data/data/org.tasks/databases/database (`orgtasks_data`: the real schema 88, read and written through the file).

Modeled:
- MainActivity's task list (`orgtasks_list`): My Tasks (every task not deleted; completed and unstarted ones shown
  as the app's defaults have it) or the drawer's Today filter; rows with the priority-coloured checkbox
  (`completeBox`: a tap completes the task or makes it active again), `title`, `due_date` as the app formats it
  (Today / Tmrw / Yest / a weekday within six days / "Oct 22"; red when overdue) and the `description`; smart sort
  by default; the sort sheet's grouping (none, due date - Overdue / Due today / Due Tuesday / Due Sunday,
  October 22 -, start date, priority, modified, created), sorting, "Move completed tasks to bottom" (Completed
  header) and completed order, kept in the app's SharedPreferences; section headers collapse on a tap; Search
  (titles and descriptions); the overflow's Show completed / Show unstarted / Clear Completed.
- The editor (`orgtasks_edit`), opened by a row or the `fab` (Create new task): title, due date (date shortcuts),
  priority, description, info; Save, Delete task, the discard confirmation, the completion fab.
Left out: lists, tags, places, subtasks, reminders and notifications, repeats, timers, start dates in the editor,
the date picker's calendar and times, manual sort, multi-select, widgets, sync accounts, settings, the other
drawer filters, voice input, the subscription banner.
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui.layout import Ctx
from ..ui.view import View
from . import orgtasks_edit as edit
from . import orgtasks_list as tasklist
from . import orgtasks_menus as menus
from .base import App
from .orgtasks_data import DB, MAIN, PKG, VERSION_CODE, VERSION_NAME, due_at_noon, now, tr

# the manifest's <uses-permission>s
PERMISSIONS = (
    "android.permission.POST_NOTIFICATIONS",
    "android.permission.ACCESS_COARSE_LOCATION",
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.ACCESS_BACKGROUND_LOCATION",
    "android.permission.VIBRATE",
    "android.permission.FOREGROUND_SERVICE",
    "android.permission.SCHEDULE_EXACT_ALARM",
    "android.permission.USE_EXACT_ALARM",
    "android.permission.WRITE_CALENDAR",
    "android.permission.READ_CALENDAR",
    "com.android.launcher.permission.INSTALL_SHORTCUT",
    "android.permission.RECEIVE_BOOT_COMPLETED",
    "android.permission.WAKE_LOCK",
    "android.permission.INTERNET",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.GET_ACCOUNTS",
    "android.permission.READ_SYNC_STATS",
    "org.dmfs.permission.READ_TASKS",
    "org.dmfs.permission.WRITE_TASKS",
)


class OrgTasksApp(App):
    package = PKG
    labels = {"en": "Tasks", "zh": "Tasks"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = (21, 101, 192)
    glyph = "check"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (DB,)

    def _open_task(self, ctx: Ctx, task_id: int | None) -> None:
        if task_id is None and ctx.ui.get("filter") == menus.TODAY_FILTER:  # valuesForNewTasks: due today
            edit.open_editor(ctx, None, {"due": due_at_noon(ctx.model, now(ctx.model).date())})
            return
        edit.open_editor(ctx, task_id)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.ui.get("edit"):
            edit.back(ctx)
            return True
        if tasklist.searching(ctx):
            tasklist.close_search(ctx)
            return True
        return False

    def screen_main(self, ctx: Ctx) -> list[View]:
        if ctx.ui.get("edit"):
            return edit.screen(ctx)
        return tasklist.screen(ctx, lambda task_id: self._open_task(ctx, task_id))

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_sort(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return menus.sort_sheet(ctx, spec)

    def dialog_picker(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return menus.picker_sheet(ctx, spec)

    def dialog_overflow(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return menus.overflow_menu(ctx, spec)

    def dialog_drawer(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return menus.drawer(ctx, spec)

    def dialog_clear_completed(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.dialog(
            ctx,
            "",
            tr(ctx, "clear_completed_tasks_confirmation"),
            dialogs.confirm_buttons(
                ctx, tr(ctx, "ok"), lambda: menus.clear_completed(ctx), ctx.dismiss_dialog, tr(ctx, "cancel")
            ),
            on_cancel=ctx.dismiss_dialog,
        )

    def dialog_discard(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return edit.discard_dialog(ctx, spec)

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return edit.delete_dialog(ctx, spec)

    def dialog_due(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return edit.due_dialog(ctx, spec)
