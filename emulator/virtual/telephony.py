"""The phone's calls as Telephony keeps them, and the Phone app's in-call screen that follows them: an inbound call
rings with the incoming call screen (`InCallActivity`) on top of whatever was in front; answering makes the call
active (the screen shows the ongoing call); when the last call ends the screen goes and what was in front comes
back. The emulator console's `gsm` commands and the screen's buttons go through here, so both tell one story
(`model.hw.calls`, `dumpsys telephony.registry`, the screen)."""

from __future__ import annotations

from typing import Any

from .hardware import Call
from .ui.host import Device

DIALER = "com.google.android.dialer"
INCALL = "com.google.android.dialer.incallui.InCallActivity"
RINGING_STATES = ("incoming", "waiting")


def shown_call(hw: Any) -> Call | None:
    """The call the in-call screen shows: an inbound one ringing first, else the first call."""
    ringing = next((c for c in hw.calls if c.inbound and c.state in RINGING_STATES), None)
    return ringing or (hw.calls[0] if hw.calls else None)


def _log(model: Device, what: str, number: str) -> None:
    model.log("I", "Telephony", f"{what} {number}: call state {model.hw.call_state}", buffer="radio")


def _show_screen(model: Device) -> None:
    """The in-call screen in front (in its own task, over what was in front)."""
    top = model.tasks[-1].top if model.tasks else None
    if top is not None and top.package == DIALER and top.activity == INCALL:
        return
    model.remove_activity(DIALER, INCALL)
    model.start_activity(DIALER, INCALL, new_task=True)


def ring(model: Device, number: str) -> None:
    """An inbound call from `number` rings (the console's `gsm call`)."""
    with model.lock:
        if model.hw.find_call(number) is None:
            model.hw.calls.append(Call(number))
        _show_screen(model)
        _log(model, "incoming call from", number)


def _set_state(model: Device, number: str, state: str) -> bool:
    """The call with `number` goes to `state` (logged); False when there is none."""
    with model.lock:
        call = model.hw.find_call(number)
        if call is None:
            return False
        call.state = state
        _log(model, f"call {state} with", number)
        return True


def answer(model: Device, number: str) -> bool:
    """The call with `number` becomes active (`gsm accept`, the screen's Answer); False when there is none."""
    return _set_state(model, number, "active")


def hold(model: Device, number: str) -> bool:
    """The call with `number` is put on hold (`gsm hold`); False when there is none."""
    return _set_state(model, number, "held")


def hang_up(model: Device, number: str) -> bool:
    """The call with `number` ends (`gsm cancel`, the screen's Decline or End call); the in-call screen goes with
    the last call. False when there is no such call."""
    with model.lock:
        call = model.hw.find_call(number)
        if call is None:
            return False
        model.hw.calls.remove(call)
        if not model.hw.calls:
            model.remove_activity(DIALER, INCALL)
        _log(model, "call ended with", number)
        return True
