"""The terminal adbd gives a shell that asks for one: `adb shell` with no command (legacy `shell:` or shell v2
without `raw`), or `adb shell -t CMD` (`shell,v2,pty:`). `shell,raw:` and `adb shell -T` get none.

A PTY's line discipline with the termios a phone's adbd leaves it in (canonical mode; ICRNL, ONLCR, ECHO,
ECHOCTL, ISIG), as far as a shell's input and output show it:

- input: CR becomes NL; the shell reads whole lines, each handed over when its NL arrives; DEL / BS erase the
  last character of the line being typed (echoed as BS SP BS), ^U the whole line; ^D on an empty line is the end
  of input (after some text it hands that text over); ^C throws the line away and is echoed as `^C` and a new
  line (the shell then prompts again);
- echo: each character as it arrives, NL as CR NL, other control characters as `^X`;
- output: stdout and stderr go to the same terminal (with shell v2 both arrive as stdout), each NL as CR NL.

Keys are echoed (and a ^C acted on) when the shell or its command next reads, or - while a command runs and
waits or checks whether it was stopped (`sleep`, `logcat`) - as they arrive (`typed_interrupts`, looked at every
50 ms): a ^C then interrupts the command (SIGINT, `shell.process.ProcIO.interrupt`). Not modelled: a ^C
reaching a command that is busy without looking; window sizes (v2's window-size packets are read and ignored);
line editing beyond erase and kill.
"""

from __future__ import annotations

import threading

from ..streams import ShellIO

_ERASE = (0x7F, 0x08)
_KILL = 0x15  # ^U
_INTR = 0x03  # ^C
_EOF = 0x04  # ^D


class Pty:
    """A `ShellIO` seen through a terminal: what the shell reads is cooked, what it writes is translated."""

    is_terminal = True  # what the shell's `tty`, `test -t` and `[ -t 0 ]` look for (`shell.ttys`)

    def __init__(self, inner: ShellIO) -> None:
        self.inner = inner
        self._line = bytearray()  # the line being typed
        self._ready = bytearray()  # whole lines the shell has not read yet
        self._eof = False
        self.interrupts = 0  # how many ^C were typed: the reading shell drops what it had read of a command
        self._reading = threading.Lock()  # one reader of the host's stream at a time

    # --- the shell's side ----------------------------------------------------------------------------------
    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        with self._reading:
            return self._read(n, timeout)

    def _read(self, n: int, timeout: float | None) -> bytes:
        while not self._ready and not self._eof:
            data = self.inner.read_stdin(-1, timeout)
            if not data:  # the host closed its side: what was typed of a line is handed over as it is
                self._eof = True
                self._ready += self._line
                self._line.clear()
                break
            self._cook(data)
        k = len(self._ready) if n is None or n < 0 else min(n, len(self._ready))
        out = bytes(self._ready[:k])
        del self._ready[:k]
        return out

    def typed_interrupts(self, take_in: bool = True) -> int:
        """How many ^C were typed so far; first (`take_in`) what the host typed is taken in without waiting, as
        the kernel's line discipline acts on keys as they arrive (echoed, lines kept for the next read). Another
        thread reading the terminal already does that."""
        if take_in and self._reading.acquire(blocking=False):
            try:
                self._poll()
            finally:
                self._reading.release()
        return self.interrupts

    def _poll(self) -> None:
        while not self._eof:
            try:
                data = self.inner.read_stdin(-1, 0.0005)
            except TimeoutError:
                break
            if not data:
                self._eof = True
                self._ready += self._line
                self._line.clear()
                break
            self._cook(data)

    def write_stdout(self, data: bytes) -> None:
        if data:
            self.inner.write_stdout(data.replace(b"\n", b"\r\n"))

    def write_stderr(self, data: bytes) -> None:
        self.write_stdout(data)

    @property
    def closed(self) -> bool:
        return self.inner.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.inner.wait_closed(timeout)

    # --- the line discipline -------------------------------------------------------------------------------
    def _cook(self, data: bytes) -> None:
        echo = bytearray()
        for b in data:
            if b == 0x0D:
                b = 0x0A
            if b == 0x0A:
                self._line.append(b)
                self._hand_over()
                echo += b"\r\n"
            elif b in _ERASE:
                if self._line:
                    self._erase_one()
                    echo += b"\b \b"
            elif b == _KILL:
                while self._line:
                    self._erase_one()
                    echo += b"\b \b"
            elif b == _INTR:
                self._line.clear()
                self._ready += b"\n"  # the shell wakes up to prompt again
                self.interrupts += 1
                echo += b"^C\r\n"
            elif b == _EOF:
                if self._line:
                    self._hand_over()
                else:
                    self._eof = True
                    break
            else:
                self._line.append(b)
                echo += bytes([b]) if b >= 0x20 or b == 0x09 else bytes([0x5E, b + 0x40])
        if echo:
            self.inner.write_stdout(bytes(echo))

    def _hand_over(self) -> None:
        self._ready += self._line
        self._line.clear()

    def _erase_one(self) -> None:
        """Erase the last character typed (all bytes of a UTF-8 character)."""
        while self._line and (self._line[-1] & 0xC0) == 0x80:
            self._line.pop()
        if self._line:
            self._line.pop()
