"""The device zygote: one interpreter that imports and warms up the virtual device once, then forks a device
process for each request - as Android's zygote forks apps from a preloaded runtime.

A device process started as `python -m emulator.virtual.procdevice` spends ~0.7 s of CPU before it is useful
(the interpreter, the imports, the first screens of every app, font and layout caches), and a pool of N devices
pays that N times on the same cores. The zygote pays it once: its children share the warmed memory
copy-on-write and boot in a few tens of milliseconds of CPU.

Parent side: `Zygote` (start it from the thread that lives as long as its devices: the `Spawner`'s) and
`ForkedProcess`, the subset of `subprocess.Popen` a `DeviceProcess` uses, for a child the parent did not fork
itself. The zygote reports each child's exit status, since only it can wait for them.

Child side (`python -m emulator.virtual.zygote --parent PID --home DIR`): single-threaded (fork is only safe
there), it reads one JSON request a line on stdin (`{"argv": [...], "home": DIR, "log": FILE}`) and answers
`{"forked": PID}`; `{"exit": PID, "code": N}` when a child ends (N < 0: killed by signal -N); it exits when stdin
closes. It dies with its parent (PR_SET_PDEATHSIG) and its children die with it, so nothing outlives a SIGKILLed
harness; each child runs in its own private directory (its working directory: how the reaper recognises it).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

ZYGOTE_MODULE = "emulator.virtual.zygote"
EXITS_KEPT = 1024  # exit statuses no ForkedProcess collected (docs/caches.md)
_ROOT = Path(__file__).resolve().parents[2]  # the directory holding the `emulator` package


def start_python(command: list[str], home: str, log_file: Path, pipes: bool = False) -> subprocess.Popen[bytes]:
    """A Python child of the device layer (a device, the zygote): this checkout's packages importable, running in
    its private directory `home`, stderr appended to `log_file`; stdin / stdout pipes with `pipes`, else none.

    In a session of its own (and so are the devices a zygote forks): the signals a terminal (Ctrl-C, a hang-up)
    or `timeout` sends to the harness's whole process group reach the harness only, which stops its devices
    itself - a device that stopped on its own at that moment would look like a failed one."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    stdio = subprocess.PIPE if pipes else subprocess.DEVNULL
    with open(log_file, "ab") as logf:
        return subprocess.Popen(
            command, stdin=stdio, stdout=stdio, stderr=logf, env=env, cwd=home, start_new_session=True
        )


def log_tail(log_file: Path, lines: int = 5) -> str:
    """The last `lines` lines of a child's log on one line (what an error about the child quotes)."""
    try:
        text = log_file.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"


class ZygoteError(RuntimeError):
    """The zygote could not be started, did not answer, or is gone (names what happened)."""


class Zygote:
    """The parent's handle on one zygote process."""

    def __init__(
        self,
        home: str,
        profile: str = "medium_phone",
        ready_timeout: float = 60.0,
        langs: tuple[str, ...] = ("en", "zh"),
        warm_after: int | None = 0,
        packages: tuple[str, ...] = (),
        apps_later: bool = False,
    ) -> None:
        self.home = home
        self.profile = profile
        self.langs = langs
        self.warm_after = warm_after
        self.packages = packages  # the apps whose first screens the warm-up draws (empty: every app's)
        self.apps_later = apps_later  # no app drawn until a `warm` request names them (started ahead of its pool)
        self.ready_timeout = ready_timeout
        self.log_file = Path(home) / "zygote.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[int | None] = queue.Queue()
        self._exits: dict[int, int] = {}
        self._changed = threading.Condition()
        self._request_lock = threading.Lock()
        self._ready = threading.Event()
        self._gone = threading.Event()  # its output ended: it exited, or is exiting (poll() may not see it yet)

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise ZygoteError("the device zygote is not started")
        return self.proc.pid

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            ZYGOTE_MODULE,
            "--parent",
            str(os.getpid()),
            "--home",
            self.home,
            "--profile",
            self.profile,
            "--langs",
            ",".join(self.langs),
            *(["--no-warm"] if self.warm_after is None else ["--warm-after", str(self.warm_after)]),
            *(["--packages", ",".join(self.packages)] if self.packages else []),
            *(["--apps-later"] if self.apps_later else []),
        ]

    def launch(self) -> Zygote:
        """Start the zygote process (on the thread its PR_SET_PDEATHSIG should follow) without waiting for it: it
        imports and warms up meanwhile, and forks what is asked of it once it has (`wait_ready` waits for it to
        serve)."""
        self.proc = start_python(self.command(), self.home, self.log_file, pipes=True)
        threading.Thread(target=self._read, args=(self.proc.stdout,), name="device-zygote", daemon=True).start()
        return self

    def wait_ready(self) -> Zygote:
        """Wait until the zygote serves (it reads requests; a fork waits for its warm-up); a `ZygoteError` with its
        log's tail if it does not within `ready_timeout` (it is stopped then)."""
        if not self._ready.wait(self.ready_timeout) or self._gone.is_set() or not self.alive():
            tail = self.log_tail()
            self.close()
            raise ZygoteError(f"the device zygote did not start: {tail}")
        return self

    def start(self) -> Zygote:
        """Start the zygote process (on the thread its PR_SET_PDEATHSIG should follow) and wait until it serves."""
        return self.launch().wait_ready()

    def warm(self, langs: tuple[str, ...], packages: tuple[str, ...]) -> None:
        """Tell the zygote what the devices it forks from now on need warm: the first screens of `packages` (empty:
        every app's) in `langs`, added to what it warmed already; the apps it had not drawn yet and `packages` does
        not name are left out. The next fork waits for it."""
        with self._request_lock:
            self._request({"warm": {"langs": list(langs), "packages": list(packages)}})

    def _request(self, msg: dict[str, Any]) -> None:
        if self.proc is None or self.proc.stdin is None or not self.alive():
            raise ZygoteError(f"the device zygote is gone: {self.log_tail()}")
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as e:
            raise ZygoteError(f"the device zygote stopped listening: {e}") from None

    def _read(self, out: IO[bytes]) -> None:
        for raw in out:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if "ready" in msg:
                self._ready.set()
            elif "forked" in msg:
                with self._changed:  # a reused pid: its predecessor's exit is not the new process's
                    self._exits.pop(int(msg["forked"]), None)
                self._replies.put(int(msg["forked"]))
            elif "exit" in msg:
                with self._changed:
                    self._exits[int(msg["exit"])] = int(msg["code"])
                    while len(self._exits) > EXITS_KEPT:  # exits nobody collected: the oldest go first
                        del self._exits[next(iter(self._exits))]
                    self._changed.notify_all()
        self._gone.set()
        self._ready.set()
        self._replies.put(None)  # the zygote is gone: whoever waits for a reply stops waiting
        with self._changed:
            self._changed.notify_all()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def fork(self, argv: list[str], home: str, log_file: str, timeout: float = 30.0) -> ForkedProcess:
        """A new device process running `devicemain.serve(argv)` in `home`, its stderr appended to `log_file`."""
        with self._request_lock:
            self._request({"argv": argv, "home": home, "log": log_file})
            try:
                pid = self._replies.get(timeout=timeout)
            except queue.Empty:
                raise ZygoteError(f"the device zygote did not fork within {timeout:g} s") from None
        if pid is None:
            raise ZygoteError(f"the device zygote exited: {self.log_tail()}")
        return ForkedProcess(self, pid)

    def exit_code(self, pid: int) -> int | None:
        """The exit status of child `pid` (Popen's convention), None while it runs."""
        with self._changed:
            code = self._exits.get(pid)
        if code is None and not self.alive() and not _running(pid):
            return -int(signal.SIGKILL)  # the zygote died first: its children got SIGKILL (PR_SET_PDEATHSIG)
        return code

    @property
    def pending_exits(self) -> int:
        """How many exit statuses the zygote holds that no `ForkedProcess` collected yet."""
        with self._changed:
            return len(self._exits)

    def forget(self, pid: int) -> None:
        """Drop child `pid`'s exit status once its `ForkedProcess` has collected it."""
        with self._changed:
            self._exits.pop(pid, None)

    def wait_exit(self, pid: int, timeout: float | None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                code = self.exit_code(pid)
                if code is not None:
                    return code
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._changed.wait(0.1 if left is None else min(left, 0.1))

    def log_tail(self, lines: int = 5) -> str:
        return log_tail(self.log_file, lines)

    def close(self) -> None:
        """Stop the zygote (closing its stdin ends it; SIGKILL by pid if it does not). Stop its devices first:
        the ones still running die with it."""
        p = self.proc
        if p is None:
            return
        try:
            if p.stdin is not None:
                p.stdin.close()
        except OSError:
            pass
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


class ForkedProcess:
    """A device process the zygote forked: what `DeviceProcess` needs of a `subprocess.Popen`."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self.returncode: int | None = None

    def _collected(self, code: int | None) -> int | None:
        if code is not None and self.returncode is None:
            self.returncode = code
            self.zygote.forget(self.pid)  # kept here now: the zygote's table stays as small as the live devices
        return self.returncode

    def poll(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        return self._collected(self.zygote.exit_code(self.pid))

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:  # in short waits: another thread's poll may collect the status first
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"device process {self.pid}", timeout or 0.0)
            self._collected(self.zygote.wait_exit(self.pid, 0.1 if left is None else min(left, 0.1)))
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # never signal a pid that may have been reused
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return False


# --- the zygote process -----------------------------------------------------------------------------------------
def _send(msg: dict[str, Any]) -> None:
    os.write(1, (json.dumps(msg) + "\n").encode())


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send({"exit": pid, "code": os.waitstatus_to_exitcode(status)})


def _fork(request: dict[str, Any], private_fds: tuple[int, ...]) -> None:
    from .devicemain import parse_args, serve

    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # every object so far out of the children's collections: their pages stay shared, not copied
    pid = os.fork()
    if pid:
        _send({"forked": pid})
        return
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(os.open(str(request["log"]), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), 2)
        os.chdir(str(request["home"]))
        gc.enable()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        for fd in private_fds:
            os.close(fd)
        code = serve(parse_args([str(a) for a in request["argv"]], f"{ZYGOTE_MODULE} (fork)"))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - a child must never return into the zygote's loop
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


# Modules of the package a device process never needs: the host side (the adb server and its client library) and
# screen recording (numpy), which a device imports when a recording starts.
NOT_PRELOADED = ("emulator.virtual.adbserver", "emulator.virtual.media", "emulator.virtual.procdevice", ZYGOTE_MODULE)
# Modules outside the package that a device imports on its first screenshot (Pillow's encoders load on first use)
PRELOADED_EXTRA = ("PIL.JpegImagePlugin", "PIL.PngImagePlugin")
HOME = ""  # a language's home screen in `Warmth`'s stages (the others name an app)


def preload() -> None:
    """Import every module of the virtual device a device process may need (all but `NOT_PRELOADED`)."""
    import importlib
    import pkgutil

    from . import __path__ as package_path

    for mod in pkgutil.walk_packages(package_path, "emulator.virtual."):
        if not mod.name.endswith("__main__") and mod.name not in NOT_PRELOADED:
            importlib.import_module(mod.name)
    for name in PRELOADED_EXTRA:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


class Warmth:
    """What the zygote has warmed up and what it still means to, in stages of a few tens of ms each (so that a
    request is read between two of them): the imports (`preload`), then per language the home screen and each
    app's first screen, drawn and dumped, not encoded (fonts, text widths, glyph masks, layouts: ~0.3 s of CPU a
    language for all 26 apps, ~0.13 s for the bundled suite's 7). `packages` None: every app; empty: none until
    told which (`want`). No thread is started: the zygote must stay single-threaded to fork safely."""

    def __init__(self, profile: str, langs: tuple[str, ...], packages: tuple[str, ...] | None) -> None:
        self.profile = profile
        self.langs: list[str] = list(dict.fromkeys(langs or ("en",)))
        self.packages = packages  # the apps to warm (None: every app; empty: none yet)
        self.done: set[tuple[str, str]] = set()  # (language, package or HOME)
        self.imported = False
        self.settled = True  # nothing warmed since the last `settle`
        self.seconds = 0.0  # CPU spent warming
        self._model: Any = None  # the warm-up's device (its model), while it warms
        self._apps: list[str] | None = None  # the installed apps, once a device was made

    def want(self, langs: tuple[str, ...], packages: tuple[str, ...]) -> None:
        """What the devices forked from now on need: `packages`' first screens (empty: every app's) in `langs`
        too; apps not drawn yet that `packages` leaves out are no longer drawn."""
        self.langs += [lang for lang in langs if lang not in self.langs]
        self.packages = tuple(packages) or None

    def _stages(self) -> list[tuple[str, str]]:
        """The screens still to warm, in order; before the first screen, the installed apps are not known yet (one
        stage stands for them)."""
        if self._apps is None:
            return [(self.langs[0], HOME)] if self.langs else []
        apps = [p for p in self._apps if self.packages is None or p in self.packages]
        return [(lang, pkg) for lang in self.langs for pkg in (HOME, *apps) if (lang, pkg) not in self.done]

    def pending(self) -> bool:
        return not self.imported or bool(self._stages())

    def _device_model(self) -> Any:
        if self._model is None:
            from .device import VirtualDevice

            self._model = VirtualDevice(profile=self.profile, locale=self.langs[0], serial="ZYGOTE").model
            self._apps = list(self._model.packages)
        return self._model

    def step(self) -> bool:
        """Warm one stage (the imports, or one screen in one language); False when nothing is left."""
        t0 = time.process_time()
        try:
            if not self.imported:
                preload()
                self.imported = True
                return True
            if not self._stages():
                return False
            m = self._device_model()
            lang, pkg = self._stages()[0]
            self.done.add((lang, pkg))
            if m.locale != lang:
                m.set_locale(lang)
            if pkg != HOME:
                try:
                    m.start_activity(pkg)
                except Exception:  # noqa: BLE001 - a package without a launchable activity warms nothing
                    return True
            m.screenshot()
            m.hierarchy_xml(u2=True)
            if not self._stages():
                screens = sorted(f"{lang}:{pkg or 'home'}" for lang, pkg in self.done)
                log.info("warmed: %d screens (%s)", len(screens), ", ".join(screens))
            return True
        finally:
            self.settled = False
            self.seconds += time.process_time() - t0

    def settle(self) -> None:
        """Before a fork, once what is wanted is warm: the warm-up's device and its garbage go (collected, the
        freed heap handed back), so that the children share only what they use; what is left is frozen out of
        every later collection (`_fork`), so that no child's collector writes to the shared pages."""
        if self.settled:
            return
        self._model = None
        gc.collect()
        from .memtrim import trim

        trim()
        self.settled = True
        log.info(
            "warm: %.2f s of CPU: %d screens in %s of %s apps",
            self.seconds,
            len(self.done),
            ",".join(self.langs),
            "every" if self.packages is None else len(self.packages),
        )
        if threading.active_count() > 1:
            log.warning("warm-up started %d threads: forks may be unsafe", threading.active_count() - 1)


def warm_up(profile: str, langs: tuple[str, ...] = ("en", "zh"), packages: tuple[str, ...] = ()) -> None:
    """What every device process does once and keeps, done in one go (`Warmth`'s stages): import every module of
    the virtual device, draw and dump the home screen and each app's first screen in `langs` - of the apps in
    `packages` when given (the run's), else every app's."""
    warmth = Warmth(profile, langs, packages or None)
    while warmth.step():
        pass
    warmth.settle()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m {ZYGOTE_MODULE}", description="forks embedded device processes")
    p.add_argument("--parent", type=int, required=True, help="pid of the pool's process")
    p.add_argument("--home", required=True, help="the zygote's private directory")
    p.add_argument("--profile", default="medium_phone", help="the device profile to warm up")
    p.add_argument("--langs", default="en,zh", help="the languages whose screens to warm up (comma-separated)")
    p.add_argument(
        "--warm-after",
        type=int,
        default=0,
        metavar="K",
        help="warm up once K devices are forked (or it is idle); 0, the default: before the first",
    )
    p.add_argument("--no-warm", action="store_true", help="never warm up: fork devices from the bare imports")
    p.add_argument("--packages", default="", help="the apps whose first screens to warm up (default: every app)")
    p.add_argument(
        "--apps-later",
        action="store_true",
        help="warm the imports and home screens only, the apps once a warm request names them (started ahead)",
    )
    args = p.parse_args(argv)
    langs = tuple(x for x in args.langs.split(",") if x)
    packages = tuple(x for x in args.packages.split(",") if x)
    from .devicemain import die_with_parent

    die_with_parent(args.parent)
    # what the zygote makes lives until a fork, before which `Warmth.settle` collects what is garbage: no collection
    # walks the imports and the warm-up meanwhile (two full ones, ~30 ms, before the first fork); its children collect
    gc.disable()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness' to handle; its devices stop themselves
    wake_r, wake_w = os.pipe()  # SIGCHLD wakes the loop at once: a child's exit is reported when it happens
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _send({"ready": os.getpid()})  # it reads requests from now on; a fork waits for what is wanted warm
    warmth = Warmth(args.profile, langs, () if args.apps_later else packages or None)
    if args.no_warm:
        from .device import VirtualDevice  # noqa: F401 - the imports a first fork needs

        warmth.imported, warmth.langs = True, []
    forks, idle = 0, False
    requests: list[dict[str, Any]] = []
    pending = b""
    while True:
        warming = not args.no_warm and (forks >= args.warm_after or idle)
        while requests:  # in order: a warm request changes what the forks after it get
            request = requests.pop(0)
            if "warm" in request:
                spec = request["warm"]
                warmth.want(tuple(spec.get("langs") or ()), tuple(spec.get("packages") or ()))
                continue
            if warming:
                while warmth.step():
                    pass
            warmth.settle()
            _fork(request, (wake_r, wake_w))
            forks += 1
            warming = not args.no_warm and (forks >= args.warm_after or idle)
        busy = warming and warmth.pending()
        ready, _, _ = select.select([0, wake_r], [], [], 0 if busy else None if args.no_warm or idle else 0.2)
        if wake_r in ready:
            os.read(wake_r, 512)
        _reap()
        if 0 in ready:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    requests.append(json.loads(line))
                except ValueError:
                    log.warning("ignored a request that is not JSON: %r", line[:200])
        elif busy:
            warmth.step()  # one stage; the requests that came meanwhile are read before the next
        elif not ready:
            idle = True  # no request for a while: warm up for the devices to come
    _reap()
    return 0


if __name__ == "__main__":
    sys.exit(main())
