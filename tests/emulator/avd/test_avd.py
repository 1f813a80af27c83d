"""The AVD lifecycle (emulator/avd, `droidharness emulator`) against a fake Android SDK.

The fixture writes fake `sdkmanager`, `avdmanager` and `emulator` executables (Python scripts) into a temporary
SDK tree; each records its argv to a JSON-lines file. The fake emulator execs `python -m emulator.virtual
--emulator --console-port P --avd-name NAME --adb-server-port <the session's private adb server>`, so a virtual
device posing as `emulator-P`, with its console, stands in for the AVD, and everything after the launch goes
through the real adb server, adbutils and uiautomator2."""

from __future__ import annotations

import json
import os
import socket
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from emulator.avd import (
    AVD_DEVICES,
    AvdConfigError,
    BootTimeoutError,
    ConsoleAuthError,
    ConsoleRefusedError,
    EmulatorConsoleClient,
    EmulatorExitedError,
    RunningEmulator,
    Sdk,
    SdkNotFoundError,
    SdkToolError,
    create_avd,
    find_sdk,
    install_image,
    list_avds,
    start_avd_copies,
    start_emulator,
    wait_for_boot,
)
from emulator.avd.launch import running_emulators
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.statedir import pid_alive
from tests.paths import REPO

# The emulators these tests start share the machine's emulator records and console ports (state_subdir
# "emulators", ports 5554-5682), so one worker runs them, in order. On 3 workers side by side, a CI run once lost a
# running emulator's record while another worker's test claimed console ports; the cause is not found yet.
pytestmark = pytest.mark.xdist_group("emulators")

ROOT = REPO
IMAGE = "system-images;android-34;google_apis;x86_64"

SDKMANAGER = """
    argv = sys.argv[1:]
    stdin = sys.stdin.read()
    record("sdkmanager", argv, stdin=stdin)
    root = next((a.split("=", 1)[1] for a in argv if a.startswith("--sdk_root=")), os.environ.get("ANDROID_HOME"))
    for pkg in [a for a in argv if not a.startswith("-")]:
        if not pkg.startswith("system-images;android-"):
            print(f"Warning: Failed to find package '{pkg}'")
            sys.exit(1)
        print("License android-sdk-license:\\nAccept? (y/N): ")
        if not stdin.startswith("y"):
            print("Skipping following packages as the license is not accepted:")
            sys.exit(1)
        d = os.path.join(root, *pkg.split(";"))
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "system.img"), "w").close()
"""

AVDMANAGER = """
    argv = sys.argv[1:]
    record("avdmanager", argv, stdin=sys.stdin.read() if argv[:2] == ["create", "avd"] else "")
    os.makedirs(AVD_HOME, exist_ok=True)
    if argv[:2] == ["list", "avd"]:
        for n in sorted(os.listdir(AVD_HOME)):
            if n.endswith(".ini"):
                print(n[:-4])
        sys.exit(0)
    if argv[:2] == ["create", "avd"]:
        opt = {argv[i]: argv[i + 1] for i in range(2, len(argv) - 1) if argv[i].startswith("-")}
        image = os.path.join(os.environ["ANDROID_HOME"], *opt["-k"].split(";"))
        if not os.path.isdir(image):
            print("Error: Package path is not valid. Valid system image paths are:")
            sys.exit(1)
        if opt["-d"] not in DEVICES:
            print(f"Error: No device found matching --device {opt['-d']}")
            sys.exit(1)
        avd = os.path.join(AVD_HOME, opt["-n"] + ".avd")
        os.makedirs(avd, exist_ok=True)
        with open(os.path.join(avd, "config.ini"), "w") as f:
            f.write(f"hw.device.name={opt['-d']}\\nimage.sysdir.1={opt['-k'].replace(';', '/')}/\\n")
        with open(os.path.join(AVD_HOME, opt["-n"] + ".ini"), "w") as f:
            f.write(f"avd.ini.encoding=UTF-8\\npath={avd}\\n")
        print(f"Created AVD '{opt['-n']}'")
        sys.exit(0)
    sys.exit(1)
"""

EMULATOR = """
    argv = sys.argv[1:]
    server = os.environ.get("ANDROID_ADB_SERVER_PORT")
    pid = exe = None
    for d in os.listdir("/proc") if server else []:  # the adb server it announces itself to, as a test sees it
        try:
            cmd = open(f"/proc/{d}/cmdline", "rb").read().split(b"\\0")
            if d.isdigit() and b"fork-server" in cmd and f"tcp:{server}".encode() in cmd:
                pid, exe = int(d), os.readlink(f"/proc/{d}/exe")
        except OSError:
            pass
    record("emulator", argv, pid=os.getpid(), adb_server_port=server, adb_server_pid=pid, adb_server_exe=exe)
    if argv == ["-list-avds"]:
        for n in sorted(os.listdir(AVD_HOME)) if os.path.isdir(AVD_HOME) else []:
            if n.endswith(".ini"):
                print(n[:-4])
        sys.exit(0)
    name, port = argv[argv.index("-avd") + 1], argv[argv.index("-port") + 1]
    if not os.path.exists(os.path.join(AVD_HOME, name + ".ini")):
        print(f"PANIC: Unknown AVD name [{name}], use -list-avds to see valid list.", flush=True)
        sys.exit(1)
    config = dict(line.strip().split("=", 1) for line in open(os.path.join(AVD_HOME, name + ".avd", "config.ini")))
    print(f"INFO    | fake emulator: AVD {name} ({config['hw.device.name']}) on console port {port}", flush=True)
    cmd = [sys.executable, "-m", "emulator.virtual", "--emulator", "--console-port", port, "--avd-name", name,
           "--profile", config["hw.device.name"]]
    if os.environ.get("ANDROID_ADB_SERVER_PORT"):
        cmd += ["--adb-server-port", os.environ["ANDROID_ADB_SERVER_PORT"]]
    if "-grpc" in argv:  # the emulator's gRPC door (its discovery file under $XDG_RUNTIME_DIR, as the emulator's)
        cmd += ["--grpc", argv[argv.index("-grpc") + 1]]
    cmd += os.environ.get("FAKE_EMULATOR_EXTRA", "").split()
    os.environ["PYTHONPATH"] = REPO + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.execv(sys.executable, cmd)
"""


@dataclass
class FakeSdk:
    root: Path
    home: Path  # HOME of the tools: the console's auth token lives here
    avd_home: Path
    calls_file: Path
    env: dict[str, str]

    def sdk(self) -> Sdk:
        return find_sdk(self.env)

    def calls(self, tool: str) -> list[dict]:
        if not self.calls_file.exists():
            return []
        rows = [json.loads(line) for line in self.calls_file.read_text().splitlines()]
        return [r for r in rows if r["tool"] == tool]

    def token(self) -> str:
        return (self.home / ".emulator_console_auth_token").read_text().strip()


def _write_tool(path: Path, body: str, fake: FakeSdk) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    devices = sorted(AVD_DEVICES.values())  # what avdmanager accepts for -d
    head = textwrap.dedent(f"""\
        #!{sys.executable}
        import json, os, sys
        CALLS = {str(fake.calls_file)!r}
        REPO = {str(ROOT)!r}
        AVD_HOME = os.environ.get("ANDROID_AVD_HOME") or os.path.join(os.path.expanduser("~"), ".android", "avd")
        DEVICES = {devices!r}

        def record(tool, argv, **extra):
            with open(CALLS, "a") as f:
                f.write(json.dumps({{"tool": tool, "argv": argv, **extra}}) + "\\n")

    """)
    path.write_text(head + textwrap.dedent(body))
    path.chmod(0o755)


@pytest.fixture
def fake_sdk(tmp_path: Path, adb_server: PrivateAdbServer) -> FakeSdk:
    root, home = tmp_path / "sdk", tmp_path / "home"
    home.mkdir()
    fake = FakeSdk(root, home, home / ".android" / "avd", tmp_path / "calls.jsonl", {})
    _write_tool(root / "cmdline-tools" / "latest" / "bin" / "sdkmanager", SDKMANAGER, fake)
    _write_tool(root / "cmdline-tools" / "latest" / "bin" / "avdmanager", AVDMANAGER, fake)
    _write_tool(root / "emulator" / "emulator", EMULATOR, fake)
    fake.env = {
        "ANDROID_HOME": str(root),
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "ANDROID_ADB_SERVER_PORT": str(adb_server.port),
        "DROIDHARNESS_STATE_DIR": os.environ.get("DROIDHARNESS_STATE_DIR", ""),
        "XDG_RUNTIME_DIR": str(tmp_path / "xdg"),  # the copies' discovery files (their gRPC doors)
    }
    fake.env = {k: v for k, v in fake.env.items() if v}
    return fake


@pytest.fixture
def started() -> Iterator[list[RunningEmulator]]:
    """Emulators a test started: stopped (by pid if need be) at the end whatever happened."""
    emus: list[RunningEmulator] = []
    yield emus
    for emu in emus:
        if emu.alive():
            emu.stop(timeout=5)
        if emu.log_path:
            Path(emu.log_path).unlink(missing_ok=True)  # a failed boot keeps its log for the user; tests clean up


def _created(fake: FakeSdk, name: str = "Pixel7", profile: str = "pixel_7_pro") -> Sdk:
    sdk = fake.sdk()
    install_image(sdk, IMAGE)
    create_avd(sdk, name, IMAGE, profile)
    return sdk


# --- SDK discovery ----------------------------------------------------------------------------------------
def test_find_sdk_prefers_android_home_then_sdk_root_then_path(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    sdk = find_sdk({"ANDROID_HOME": str(fake_sdk.root), "ANDROID_SDK_ROOT": str(tmp_path), "PATH": ""})
    assert sdk.source == "ANDROID_HOME" and sdk.root == fake_sdk.root
    assert sdk.emulator == fake_sdk.root / "emulator" / "emulator"
    assert sdk.sdkmanager == fake_sdk.root / "cmdline-tools" / "latest" / "bin" / "sdkmanager"
    assert sdk.adb is None and "platform-tools" in sdk.problems["adb"]

    missing = find_sdk({"ANDROID_HOME": str(tmp_path / "nowhere"), "ANDROID_SDK_ROOT": str(fake_sdk.root)})
    assert missing.source == "ANDROID_SDK_ROOT" and "is not a directory" in missing.problems["ANDROID_HOME"]

    path = os.pathsep.join([str(fake_sdk.root / "emulator"), str(fake_sdk.root / "cmdline-tools/latest/bin")])
    on_path = find_sdk({"PATH": path})
    assert on_path.source == "PATH" and on_path.root == fake_sdk.root and on_path.avdmanager is not None

    nothing = find_sdk({"PATH": str(tmp_path / "empty")})
    assert not nothing.found and nothing.source == "none"
    with pytest.raises(SdkNotFoundError, match="no emulator .*ANDROID_HOME"):
        nothing.require("emulator")


# --- images and AVDs --------------------------------------------------------------------------------------
def test_install_and_create_run_the_sdk_tools_with_the_profiles_device(fake_sdk: FakeSdk) -> None:
    sdk = _created(fake_sdk, "Fold", "pixel_fold")
    (install,) = fake_sdk.calls("sdkmanager")
    assert install["argv"] == [f"--sdk_root={fake_sdk.root}", IMAGE] and install["stdin"].startswith("y\n")
    (create,) = fake_sdk.calls("avdmanager")
    assert create["argv"] == ["create", "avd", "-n", "Fold", "-k", IMAGE, "-d", "pixel_fold", "--force"]
    assert list_avds(sdk) == ["Fold"]

    with pytest.raises(AvdConfigError, match="unknown device profile 'galaxy'"):
        create_avd(sdk, "X", IMAGE, "galaxy")
    with pytest.raises(AvdConfigError, match="AVD name 'a b'"):
        create_avd(sdk, "a b", IMAGE, "pixel_fold")
    with pytest.raises(SdkToolError, match="avdmanager create avd .* exited 1:\nError: Package path is not valid"):
        create_avd(sdk, "Old", "system-images;android-30;google_apis;x86_64", "pixel_4_xl")
    with pytest.raises(SdkToolError, match="Failed to find package 'platforms;nope'"):
        install_image(sdk, "platforms;nope")


# --- the whole lifecycle, through the real adb server -----------------------------------------------------
def test_create_start_boot_snapshot_task_load_stop_end_to_end(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, started: list[RunningEmulator]
) -> None:
    from harness.device.controller import AdbDevice
    from harness.plugins import create_agent
    from harness.run.loop.episode import run_episode
    from tasks.suite import load_suite

    sdk = _created(fake_sdk)
    emu = start_emulator(sdk, "Pixel7", adb_server_port=adb_server.port)
    started.append(emu)
    wait_for_boot(emu, adb_server.client, timeout=60)

    (launch,) = [c for c in fake_sdk.calls("emulator") if "-avd" in c["argv"]]
    assert launch["argv"] == [
        "-avd",
        "Pixel7",
        "-no-window",
        "-no-audio",
        "-no-boot-anim",
        "-port",
        str(emu.console_port),
    ]
    assert emu.serial == f"emulator-{emu.console_port}"
    assert emu.serial in [d.serial for d in adb_server.client.device_list()]
    adb = adb_server.client.device(emu.serial)
    assert adb.shell("getprop ro.product.model").strip() == "sdk_gphone64_x86_64"  # the image, not the phone
    assert adb.shell("wm size").strip() == "Physical size: 1440x3120"  # on the Pixel 7 Pro's screen
    assert emu in running_emulators()

    with emu.console(home=fake_sdk.home) as console:
        assert console.avd_name() == "Pixel7"
        console.snapshot_save("clean")
        assert console.snapshot_list() == ["clean"]

    task = next(t for t in load_suite("virtual") if t.id == "settings-dark-theme")
    with AdbDevice.connect(emu.serial, adb_port=adb_server.port, start_virtual=False) as device:
        result = run_episode(task, create_agent("reference"), device, "en")
    assert result.status == "success", result
    assert adb.shell("settings get secure ui_night_mode").strip() == "2"

    with emu.console(home=fake_sdk.home) as console:
        console.snapshot_load("clean")
    assert adb.shell("settings get secure ui_night_mode").strip() == "1"  # the task's change is undone

    emu.stop(home=fake_sdk.home)
    assert not emu.alive() and emu._process.returncode == 0  # the console's kill: a clean exit
    assert not emu.record_path.exists() and emu not in running_emulators()
    with pytest.raises(ProcessLookupError):
        os.kill(emu.pid, 0)


def test_read_only_copies_boot_on_their_own_ports_and_stop(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, started: list[RunningEmulator]
) -> None:
    sdk = _created(fake_sdk)
    copies = start_avd_copies(sdk, "Pixel7", 2, adb_server.port, client=adb_server.client, timeout=60)
    started.extend(copies)
    assert len({c.console_port for c in copies}) == 2
    for c in copies:
        argv = next(x["argv"] for x in fake_sdk.calls("emulator") if str(c.console_port) in x["argv"])
        assert argv[-2:] == ["-read-only", "-no-snapshot-save"]
        assert adb_server.client.device(c.serial).shell("getprop sys.boot_completed").strip() == "1"
    for c in copies:
        c.stop(home=fake_sdk.home)
        assert not c.alive()


@pytest.mark.slow
def test_a_boot_that_never_completes_times_out_with_the_log_tail(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, started: list[RunningEmulator]
) -> None:
    sdk = _created(fake_sdk)
    emu = start_emulator(sdk, "Pixel7", adb_server_port=adb_server.port, env={"FAKE_EMULATOR_EXTRA": "--never-boot"})
    started.append(emu)
    with pytest.raises(BootTimeoutError) as err:
        wait_for_boot(emu, adb_server.client, timeout=4, poll=0.2)
    msg = str(err.value)
    assert f"{emu.serial} did not boot in 4s: still waiting for sys.boot_completed to be 1" in msg
    assert f"last lines of {emu.log_path}" in msg
    assert "fake emulator: AVD Pixel7 (pixel_7_pro)" in msg and "sys.boot_completed stays 0" in msg


def test_an_emulator_that_exits_is_reported_with_its_log(fake_sdk: FakeSdk, adb_server: PrivateAdbServer) -> None:
    sdk = _created(fake_sdk)
    (fake_sdk.avd_home / "Pixel7.ini").unlink()  # the emulator no longer finds the AVD
    emu = start_emulator(sdk, "Pixel7", adb_server_port=adb_server.port)
    with pytest.raises(EmulatorExitedError, match=r"(?s)exited \(code 1\).*PANIC: Unknown AVD name \[Pixel7\]"):
        wait_for_boot(emu, adb_server.client, timeout=30)
    assert not emu.record_path.exists()
    assert Path(emu.log_path).exists(), "the log of an emulator that failed is kept for the user"
    Path(emu.log_path).unlink()


# --- the console ------------------------------------------------------------------------------------------
def test_console_wrong_token_missing_token_and_refused(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, started: list[RunningEmulator], tmp_path: Path
) -> None:
    sdk = _created(fake_sdk)
    emu = start_emulator(sdk, "Pixel7", adb_server_port=adb_server.port)
    started.append(emu)
    wait_for_boot(emu, adb_server.client, timeout=60, check_u2=False)

    with pytest.raises(ConsoleAuthError, match=f"console 127.0.0.1:{emu.console_port}: auth token rejected"):
        EmulatorConsoleClient(emu.console_port, token="not-the-token").connect()
    (tmp_path / "empty-home").mkdir()
    with pytest.raises(ConsoleAuthError, match="requires authentication, but .* is missing or empty"):
        EmulatorConsoleClient(emu.console_port, home=tmp_path / "empty-home").connect()
    with EmulatorConsoleClient(emu.console_port, token=fake_sdk.token()) as ok:
        assert ok.avd_name() == "Pixel7"
        with pytest.raises(Exception, match="snapshot 'nope' does not exist"):
            ok.snapshot_load("nope")

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    with pytest.raises(ConsoleRefusedError, match=f"127.0.0.1:{free}: connection refused"):
        EmulatorConsoleClient(free).connect()

    with EmulatorConsoleClient(emu.console_port, token=fake_sdk.token()) as c:
        c.kill()
    assert emu._process.wait(timeout=20) == 0


# --- the CLI ----------------------------------------------------------------------------------------------
def _cli(args: list[str], env: dict[str, str]):
    from harness.cli.main import app

    return CliRunner().invoke(app, ["emulator", *args], env={"COLUMNS": "250", **env})


def test_cli_create_list_start_snapshot_stop(fake_sdk: FakeSdk, adb_server: PrivateAdbServer) -> None:
    env = fake_sdk.env
    made = _cli(["create", "Tab", "--profile", "pixel_tablet", "--image", IMAGE], env)
    assert made.exit_code == 0, made.output
    assert "created AVD Tab (pixel_tablet, " in made.output and len(fake_sdk.calls("sdkmanager")) == 1

    listed = _cli(["list"], env)
    assert listed.exit_code == 0 and "Tab" in listed.output and str(fake_sdk.root) in listed.output

    up = _cli(["start", "Tab", "--adb-port", str(adb_server.port), "--timeout", "60"], env)
    assert up.exit_code == 0, up.output
    serial = up.output.split()[0]
    emu = next(e for e in running_emulators() if e.serial == serial)
    try:
        dev = adb_server.client.device(serial)  # the emulator's system image, on the Pixel Tablet's screen
        assert dev.shell("getprop ro.product.model").strip() == "sdk_gphone64_x86_64"
        assert dev.shell("wm size").strip() == "Physical size: 2560x1600"
        assert serial in _cli(["list"], env).output
        saved = _cli(["snapshot", "save", "s1", "--device", serial], env)
        assert saved.exit_code == 0 and f"save snapshot s1 on {serial}: OK" in saved.output
        shown = _cli(["snapshot", "list", "--device", serial], env)
        assert shown.exit_code == 0 and "s1" in shown.output
        gone = _cli(["snapshot", "load", "nope", "--device", serial], env)
        assert gone.exit_code == 1 and "snapshot 'nope' does not exist" in gone.output

        wrong = _cli(["snapshot", "list", "--device", serial], {**env, "HOME": str(fake_sdk.root)})
        assert wrong.exit_code == 2 and "auth" in wrong.output and len(wrong.output.strip().splitlines()) == 1

        stopped = _cli(["stop", serial], env)
        assert stopped.exit_code == 0 and f"stopped {serial}" in stopped.output
        assert not emu.alive()
    finally:
        if emu.alive():
            emu.stop(timeout=5, home=fake_sdk.home)


def test_cli_bad_input_is_one_line_and_exit_2(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    no_sdk = {"ANDROID_HOME": "", "ANDROID_SDK_ROOT": "", "PATH": str(tmp_path / "empty")}
    for args in (["list"], ["start", "X"], ["create", "X"]):
        r = _cli(args, no_sdk)
        assert r.exit_code == 2, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1 and "ANDROID_HOME" in r.output

    _created(fake_sdk, "Real")
    unknown = _cli(["start", "Nope", "--no-wait"], fake_sdk.env)
    assert unknown.exit_code == 2 and "no AVD named 'Nope' (AVDs: Real)" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1
    bad_profile = _cli(["create", "Y", "--profile", "galaxy"], fake_sdk.env)
    assert bad_profile.exit_code == 2 and "unknown device profile 'galaxy'" in bad_profile.output
    no_such = _cli(["stop", "emulator-5599"], fake_sdk.env)
    assert no_such.exit_code == 2 and "no running emulator 'emulator-5599'" in no_such.output


# --- python -m emulator.virtual -----------------------------------------------------------------------------
def test_virtual_device_process_ready_file_boot_delay_and_sigterm(adb_server: PrivateAdbServer, tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    ready = tmp_path / "ready.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "emulator.virtual",
            "--profile",
            "pixel_fold",
            "--boot-delay",
            "1",
            "--ready-file",
            str(ready),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = json.loads(proc.stdout.readline())
        assert json.loads(ready.read_text()) == line and line["pid"] == proc.pid and line["console_port"] is None
        assert line["address"] == f"127.0.0.1:{line['port']}" and not list(tmp_path.glob(".*.tmp"))
        adb = adb_server.connect(line["address"])
        deadline = time.monotonic() + 30
        while adb.shell("getprop sys.boot_completed").strip() != "1" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert adb.shell("getprop ro.product.model").strip() == "Pixel Fold"
        adb_server.disconnect(line["address"])
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "boot completed after 1.0s" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_virtual_device_process_bad_arguments_exit_2() -> None:
    import subprocess

    for args, message in (
        (["--profile", "galaxy"], "unknown profile 'galaxy'"),
        (["--emulator", "--console-port", "5555"], "console port must be even"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "emulator.virtual", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_avd_errors_map_onto_the_harness_taxonomy() -> None:
    from emulator.avd import AvdNotFoundError
    from harness.errors import ConfigError, InfrastructureError
    from harness.run.fleet.avd import as_harness_error

    assert isinstance(as_harness_error(AvdNotFoundError("no AVD named 'X'")), ConfigError)
    assert isinstance(as_harness_error(ConsoleAuthError("auth token rejected")), ConfigError)
    infra = as_harness_error(BootTimeoutError("emulator-5554 did not boot in 1s"))
    assert isinstance(infra, InfrastructureError) and str(infra) == "emulator-5554 did not boot in 1s"


def test_run_on_avd_copies_starts_them_resets_by_snapshot_and_stops_them(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, tmp_path: Path
) -> None:
    from harness.cli.main import app

    _created(fake_sdk)
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--avd",
            "Pixel7",
            "--devices",
            "2",
            "--agent",
            "reference",
            "--lang",
            "en",
            "--task",
            "settings-dark-theme",
            "--task",
            "notes-search-password",
            "--out",
            str(tmp_path),
            "--run-id",
            "avd",
            "--avd-boot-timeout",
            "60",
        ],
        env={"COLUMNS": "200", **fake_sdk.env},
    )
    assert res.exit_code == 0, res.output
    assert "SR 100.0%  ATP 100.0%  over 2 scored episodes" in res.output
    starts = [c for c in fake_sdk.calls("emulator") if "-avd" in c["argv"]]
    assert len(starts) == 2 and all("-read-only" in c["argv"] and "Pixel7" in c["argv"] for c in starts)
    summary = json.loads((tmp_path / "avd" / "summary.json").read_text())
    assert summary["exit_code"] == 0
    metas = [json.loads(p.read_text()) for p in (tmp_path / "avd").rglob("episode.json")]
    assert {m["device"]["serial"] for m in metas} <= {f"emulator-{p}" for p in range(5600, 5682, 2)}
    assert {m["reset_method"] for m in metas} == {"grpc_snapshot_load"}, "through each copy's gRPC door"
    assert all("-grpc" in c["argv"] for c in starts)
    grpc_ports = {c["argv"][c["argv"].index("-grpc") + 1] for c in starts}
    assert len(grpc_ports) == 2, "a door of its own for each copy"
    assert not any(pid_alive(c["pid"]) for c in starts), "the copies were stopped after the run"


def test_run_on_an_unknown_avd_is_one_line_and_exit_2(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    from harness.cli.main import app

    res = CliRunner().invoke(app, ["run", "--avd", "Nope", "--out", str(tmp_path)], env=fake_sdk.env)
    assert res.exit_code == 2 and "Nope" in res.output and "Traceback" not in res.output
    both = CliRunner().invoke(app, ["run", "--avd", "Nope", "--device", "X", "--out", str(tmp_path)])
    assert both.exit_code == 2 and "--avd starts its own emulators" in both.output


# --- which adb server the emulators announce themselves to ---------------------------------------------------
def _run_avd(fake: FakeSdk, tmp_path: Path, run_id: str, env: dict[str, str], *extra: str):
    from harness.cli.main import app

    args = ["run", "--avd", "Pixel7", "--agent", "reference", "--lang", "en", "--task", "settings-dark-theme"]
    args += ["--out", str(tmp_path), "--run-id", run_id, "--avd-boot-timeout", "60", "--no-report", *extra]
    return CliRunner().invoke(app, args, env={"COLUMNS": "200", **fake.env, **env})


def _launches(fake: FakeSdk) -> list[dict]:
    return [c for c in fake.calls("emulator") if "-avd" in c["argv"]]


def _nothing_answers_on(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_run_on_avd_with_no_adb_server_uses_a_private_one_and_leaves_nothing(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    """No server answers on $ANDROID_ADB_SERVER_PORT: the run starts the SDK's adb as a private server, the
    copies announce themselves to it, and after the run that very process (by pid) and its record are gone."""
    import shutil

    from emulator.virtual.adbserver import adb_binary, free_port
    from emulator.virtual.statedir import state_subdir

    sdk_adb = fake_sdk.root / "platform-tools" / "adb"
    sdk_adb.parent.mkdir(parents=True)
    shutil.copy2(adb_binary(), sdk_adb)  # the SDK's own adb, a copy of the real one
    _created(fake_sdk)
    nobody = free_port()
    assert _nothing_answers_on(nobody)
    res = _run_avd(fake_sdk, tmp_path, "private", {"ANDROID_ADB_SERVER_PORT": str(nobody)})
    assert res.exit_code == 0, res.output
    assert "SR 100.0%" in res.output
    [launch] = _launches(fake_sdk)
    port, pid = int(launch["adb_server_port"]), launch["adb_server_pid"]
    assert pid is not None, "the copy announced itself to a running adb server"
    assert launch["adb_server_exe"] == str(sdk_adb), "the private server is the SDK's adb"
    assert not pid_alive(pid), f"the run's private adb server (pid {pid}) outlived the run"
    assert _nothing_answers_on(port) and not (state_subdir("adb-servers") / f"{port}.json").exists()
    assert not pid_alive(launch["pid"]), "the copy was stopped after the run"


def test_run_on_avd_with_adb_port_uses_that_server_and_leaves_it_running(
    fake_sdk: FakeSdk, adb_server: PrivateAdbServer, tmp_path: Path
) -> None:
    from emulator.virtual.adbserver import free_port

    _created(fake_sdk)
    env = {"ANDROID_ADB_SERVER_PORT": str(free_port())}  # asked for another server than the variable's
    res = _run_avd(fake_sdk, tmp_path, "asked", env, "--adb-port", str(adb_server.port))
    assert res.exit_code == 0, res.output
    [launch] = _launches(fake_sdk)
    assert int(launch["adb_server_port"]) == adb_server.port and launch["adb_server_pid"] == adb_server.pid
    assert adb_server.alive(), "the user's server is left running"
    # the user's server on $ANDROID_ADB_SERVER_PORT, answering: used as it is
    again = _run_avd(fake_sdk, tmp_path, "theirs", {})
    assert again.exit_code == 0, again.output
    assert int(_launches(fake_sdk)[-1]["adb_server_port"]) == adb_server.port and adb_server.alive()


def test_adb_server_errors_are_one_line_and_exit_2(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    from emulator.virtual.adbserver import free_port

    _created(fake_sdk)
    nobody = free_port()
    res = _run_avd(fake_sdk, tmp_path, "x", {}, "--adb-port", str(nobody))
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
    assert f"no adb server answers on 127.0.0.1:{nobody}" in res.output and "--adb-port" in res.output
    bad = _run_avd(fake_sdk, tmp_path, "y", {"ANDROID_ADB_SERVER_PORT": "fivethousand"})
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1, bad.output
    assert "ANDROID_ADB_SERVER_PORT='fivethousand' is not a port number" in bad.output
    started = _cli(["start", "Pixel7", "--adb-port", str(nobody)], fake_sdk.env)
    assert started.exit_code == 2 and len(started.output.strip().splitlines()) == 1, started.output
    assert not _launches(fake_sdk), "nothing was started"


@pytest.mark.slow
def test_cli_start_with_no_adb_server_boots_through_a_private_one(
    fake_sdk: FakeSdk, started: list[RunningEmulator]
) -> None:
    from emulator.virtual.adbserver import free_port

    _created(fake_sdk)
    up = _cli(["start", "Pixel7", "--timeout", "60"], {**fake_sdk.env, "ANDROID_ADB_SERVER_PORT": str(free_port())})
    assert up.exit_code == 0, up.output
    serial = up.output.split()[0]
    started.extend(e for e in running_emulators() if e.serial == serial)
    assert started and started[0].alive(), "the emulator keeps running"
    assert "booted through a private adb server" in up.output and "adb connect 127.0.0.1:" in up.output
    [launch] = _launches(fake_sdk)
    assert launch["adb_server_pid"] is not None and not pid_alive(launch["adb_server_pid"])


@pytest.mark.slow
def test_run_on_an_avd_copy_takes_screenshots_through_its_grpc_door(fake_sdk: FakeSdk, tmp_path: Path) -> None:
    """`run --avd` passes `-grpc PORT`; the copy (here with a phone's latency on adb's paths, its gRPC door on the
    host as an emulator's is) is driven through the door: screenshots, resets, the timed choice in the manifest."""
    _created(fake_sdk)
    res = _run_avd(fake_sdk, tmp_path, "grpc", {"FAKE_EMULATOR_EXTRA": "--latency pixel"})
    assert res.exit_code == 0, res.output
    run_dir = tmp_path / "grpc"
    steps = [json.loads(line) for p in run_dir.rglob("steps.jsonl") for line in p.read_text().splitlines()]
    assert steps and {s["observation"]["paths"]["screenshot"] for s in steps} == {"grpc_shm"}
    (meta,) = [json.loads(p.read_text()) for p in run_dir.rglob("episode.json")]
    assert meta["reset_method"] == "grpc_snapshot_load" and meta["status"] == "success"
    (row,) = json.loads((run_dir / "manifest.json").read_text())["devices"]
    assert row["capture"]["screenshot"] == "grpc_shm"
    assert set(row["capture"]["median_seconds"]) >= {"grpc_shm", "grpc", "u2"}
