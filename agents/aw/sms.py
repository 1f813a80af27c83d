"""Simple SMS Messenger: a message sent to a number from a new conversation (AndroidWorld's SMS classes and the
composite ones that end in an SMS)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.actions import Complete

from .steps import Step, click, open_app, type_into, when_shown

SMS = ("SMS Messenger", "com.simplemobiletools.smsmessenger")

# MainActivity asks for the SMS role when the app does not hold it (declined, it closes): SMS Messenger, then set
ROLE = (
    when_shown(resource_id="com.android.permissioncontroller:id/title", text="SMS Messenger"),
    when_shown(resource_id="android:id/button1", text="Set as default"),
)


def sms_to(number: str, compose: Sequence[Step]) -> list[Step]:
    """A new conversation with `number` (the app opens the one it has with it), `compose` fills the message field,
    sent; the episode ends in the conversation (its judges want the app in front)."""
    return [
        open_app(SMS),
        *ROLE,
        click(resource_id="conversations_fab"),
        type_into(number, resource_id="new_conversation_address"),
        click(resource_id="new_conversation_confirm"),
        *compose,
        click(resource_id="thread_send_message"),
        Complete(),
    ]


def sms_send(p: Mapping[str, Any]) -> list[Step]:
    """SimpleSmsSend, Reply, ReplyMostRecent (the number is the latest sender's), Resend (the same message to the
    same number), SendReceivedAddress (the address received from name2 is the message, sent to name1's number):
    the message of the parameters, to their number."""
    return sms_to(str(p["number"]), [type_into(str(p["message"]), resource_id="thread_type_message")])


def sms_clipboard(p: Mapping[str, Any]) -> list[Step]:
    """The clipboard pasted into the message field from the keyboard's clipboard chip, sent to the number."""
    paste = [click(resource_id="thread_type_message"), click(resource_id="clipboard_chip")]
    return sms_to(str(p["number"]), paste)


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "SimpleSmsSend": sms_send,
    "SimpleSmsReply": sms_send,
    "SimpleSmsReplyMostRecent": sms_send,
    "SimpleSmsResend": sms_send,
    "SimpleSmsSendReceivedAddress": sms_send,
    "SimpleSmsSendClipboardContent": sms_clipboard,
}
