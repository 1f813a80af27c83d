"""The device's posted notifications, as NotificationManagerService keeps them: each a record of the posting package,
its id and tag, title, text, channel and post time, keyed `USER|PKG|ID|TAG|UID` as StatusBarNotification forms the
key (`0|com.android.shell|2020|tag|2000`). A post with the key of a posted one replaces it; `cancel` removes one,
`clear_all` what the shade's "Clear all" removes (every notification that is not ongoing), `cancel_package` a
package's (`pm clear`, uninstall). The newest alerting post is the heads-up one until the next input or a dismissal
(`heads_up`). The records live in the model and go into its snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FLAG_ONGOING_EVENT = 0x2
FLAG_AUTO_CANCEL = 0x10
FLAG_NO_CLEAR = 0x20
IMPORTANCE_DEFAULT = 3
IMPORTANCE_HIGH = 4


@dataclass
class Notification:
    """One posted notification (StatusBarNotification + its Notification's extras)."""

    package: str
    id: int
    tag: str | None
    uid: int
    title: str
    text: str
    channel: str
    post_time_ms: int
    flags: int = 0
    importance: int = IMPORTANCE_DEFAULT
    category: str | None = None
    # what a tap starts (the content intent): {"package", "activity", "extras"}; None: a tap does nothing
    intent: dict[str, Any] | None = None
    serial: int = 0  # order of posting (the identity hash dumpsys prints is made from it)

    @property
    def key(self) -> str:
        return f"0|{self.package}|{self.id}|{'null' if self.tag is None else self.tag}|{self.uid}"

    @property
    def clearable(self) -> bool:
        return not self.flags & (FLAG_ONGOING_EVENT | FLAG_NO_CLEAR)


@dataclass
class Notifications:
    """The posted notifications, oldest first, and which one shows as the heads-up."""

    posted: list[Notification] = field(default_factory=list)
    heads_up: str | None = None  # key of the heads-up notification shown now
    next_serial: int = 1

    def post(self, n: Notification, alert: bool = True) -> Notification:
        """Post `n` (replacing a posted one with its key); an alerting post shows as the heads-up."""
        n.serial = self.next_serial
        self.next_serial += 1
        self.posted = [p for p in self.posted if p.key != n.key] + [n]
        if alert:
            self.heads_up = n.key
        return n

    def get(self, key: str) -> Notification | None:
        return next((n for n in self.posted if n.key == key), None)

    def cancel(self, key: str) -> bool:
        before = len(self.posted)
        self.posted = [n for n in self.posted if n.key != key]
        if self.heads_up == key:
            self.heads_up = None
        return len(self.posted) != before

    def clear_all(self) -> int:
        """The shade's "Clear all": every clearable notification goes; how many went."""
        gone = [n.key for n in self.posted if n.clearable]
        for key in gone:
            self.cancel(key)
        return len(gone)

    def cancel_package(self, package: str) -> None:
        for n in [n for n in self.posted if n.package == package]:
            self.cancel(n.key)

    def heads_up_record(self) -> Notification | None:
        return self.get(self.heads_up) if self.heads_up else None

    def newest_first(self) -> list[Notification]:
        """The shade's order: the newest on top."""
        return sorted(self.posted, key=lambda n: -n.serial)
