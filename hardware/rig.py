"""Test rigs behind the ``sim`` and ``simavr`` ports: something that runs a board and lets a test (or
``mahj board check``) look at its pins and press its buttons.

Both rigs offer the same surface: ``port``, ``press(seat)``, ``reset()``, ``power_cycle()``,
``unplug()``/``replug()``, ``garbage(text)``, ``drop_next_ack()``, ``drop_next_event()``,
``crash_after_next_ack(ms)``, ``eeprom()``, ``levels()`` (pins now), ``pin_changes()``, ``rx_log()`` (when the
board had each host line), ``boot_time()``, ``now()``, ``sleep_until(t)`` (on the board's clock), ``close()``.
Times are the board's own clock in seconds (simulated time for simavr), so timings measured here are honest
however loaded the machine running the test is.

SimavrRig runs the real firmware ELF in the C harness hardware/rig/boardrig.c (built against libsimavr by
hardware/firmware/Makefile); its UART is a pseudo-terminal that the driver opens like a real port, reached
through a symlink that survives ``unplug``/``replug``. A power cycle is a new harness process on the same EEPROM
image and the same symlink; the rig's clock runs on across it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import serial

from hardware.emulator import BoardEmulator, EmulatorLink
from hardware.pins import PinChange, levels_at

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
BUILD_DIR = FIRMWARE_DIR / "build"
ELF = BUILD_DIR / "mahj-board.elf"
HARNESS = BUILD_DIR / "boardrig"
AVR_PACKAGES = "gcc-avr avr-libc simavr libsimavr-dev libelf-dev make gcc pkg-config"


class RigUnavailable(RuntimeError):
    """The AVR tool chain or simavr is missing; the message names the packages to install."""


def missing_tools() -> str | None:
    """Why the simavr rig cannot be built here, or None when it can."""
    missing = [tool for tool in ("avr-gcc", "avr-objcopy", "avr-size", "make", "gcc") if shutil.which(tool) is None]
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        missing.append("simavr headers")
    if missing:
        return f"missing {', '.join(missing)}: install the Debian packages {AVR_PACKAGES}"
    return None


def build(quiet: bool = True) -> str:
    """Builds the firmware and the harness if out of date (make decides); returns avr-size's report."""
    why = missing_tools()
    if why:
        raise RigUnavailable(why)
    result = subprocess.run(["make", "-C", str(FIRMWARE_DIR), "all", "rig"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"firmware build failed in {FIRMWARE_DIR}:\n{result.stdout}{result.stderr}")
    size = subprocess.run(["avr-size", "-C", "--mcu=atmega328p", str(ELF)], capture_output=True, text=True)
    return size.stdout


class EmulatorRig:
    """The Python emulator behind port ``sim``."""

    kind = "sim"
    port = "sim"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock`` drives the board's time (a test can hold it still to order a press and a hold exactly)."""
        self.board = BoardEmulator(clock)
        self._generation = 0
        self._plugged = True

    def open_link(self) -> EmulatorLink:
        if not self._plugged:
            raise serial.SerialException("sim: no such device (unplugged)")
        generation = self._generation
        return EmulatorLink(self.board, lambda: self._plugged and self._generation == generation)

    def press(self, seat: int, hold_ms: int = 60) -> float:
        return self.board.press(seat, hold_ms)

    def reset(self) -> float:
        self.board.reset()
        return self.board.boot_time

    def unplug(self) -> None:
        self._plugged = False
        self._generation += 1

    def garbage(self, data: str) -> None:
        """Line noise from the board's side ("\\n" in the text is a line end)."""
        self.board.inject_noise(data.replace("\\n", "\n").encode())

    def drop_next_ack(self) -> None:
        """The next acknowledgement the board sends is lost on the way to the host."""
        self.board.drop_acks += 1

    def drop_next_event(self) -> None:
        """The next event the board sends is lost on the way to the host."""
        self.board.drop_events += 1

    def crash_after_next_ack(self, delay_ms: int) -> None:
        """The board acts on the next command, then resets ``delay_ms`` later; no acknowledgement reaches the host
        until the reset."""
        self.board.crash_after_next_ack(delay_ms)

    def power_cycle(self) -> None:
        """Power off and on (the USB cable out and in): the port goes away, everything but the EEPROM is lost."""
        self.unplug()
        self.board.reset("power")
        self.replug()

    def eeprom(self) -> bytes:
        return bytes(self.board.eeprom)

    def replug(self) -> None:
        self._plugged = True

    def pin_changes(self) -> list[PinChange]:
        self.board.advance()
        return list(self.board.pin_changes)

    def rx_log(self) -> list[tuple[float, bytes]]:
        return list(self.board.rx_log)

    def levels(self) -> dict[str, int]:
        return self.board.levels()

    def boot_time(self) -> float:
        return self.board.boot_time

    def now(self) -> float:
        return self.board.now()

    def sleep_until(self, t: float, timeout: float = 10.0) -> bool:
        return _sleep_until(self, t, timeout)

    def close(self) -> None:
        self.unplug()


class SimavrRig:
    """The real firmware in simavr, driven through the boardrig harness process."""

    kind = "simavr"

    def __init__(self, args: list[str], workdir: str) -> None:
        self._args = args
        self._workdir = workdir
        self.port = str(Path(workdir) / "ttyBOARD")
        self._cond = threading.Condition()
        self._pins: list[PinChange] = []
        self._rx: list[tuple[float, bytes]] = []
        self._replies: list[tuple[str, list[str]]] = []
        self._boot = 0.0
        self._boot_candidate = 0.0
        self._now = 0.0
        self._epoch = 0.0  # rig time of this harness process's simulated time 0 (moves on with each power cycle)
        self._spawn()

    @classmethod
    def start(cls, realtime: bool = True) -> SimavrRig:
        build()
        workdir = tempfile.mkdtemp(prefix="mahj-rig-")
        args = [str(HARNESS), str(ELF), str(Path(workdir) / "ttyBOARD"), "--eeprom", str(Path(workdir) / "eeprom")]
        if not realtime:
            args.append("--fast")
        return cls(args, workdir)

    def _spawn(self) -> None:
        """Starts the harness (power on) and waits until its port is there."""
        self._proc = subprocess.Popen(self._args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, args=(self._proc,), name="boardrig", daemon=True)
        self._reader.start()
        self._expect("READY", timeout=10)

    # ---- harness output -----------------------------------------------------------------------------------
    def _time(self, ns: str) -> float:
        return self._epoch + int(ns) / 1e9

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            parts = raw.rstrip("\n").split(" ", 3)
            tag = parts[0]
            with self._cond:
                if len(parts) >= 2 and parts[1].isdigit():
                    self._now = max(self._now, self._time(parts[1]))
                if tag == "P":
                    self._pins.append(PinChange(self._time(parts[1]), parts[2], int(parts[3])))
                elif tag in ("RX", "TX"):
                    line = (parts[2] + (" " + parts[3] if len(parts) > 3 else "")).encode()
                    t = self._time(parts[1])
                    if tag == "RX":
                        self._rx.append((t, line))
                    elif b" BOOT " in line:
                        self._boot = self._boot_candidate
                elif tag == "R":
                    self._boot_candidate = self._time(parts[1])
                else:
                    self._replies.append((tag, parts[1:]))
                self._cond.notify_all()
        with self._cond:
            self._replies.append(("EXIT", []))
            self._cond.notify_all()

    def _expect(self, tag: str, timeout: float = 5.0) -> list[str]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, (t, fields) in enumerate(self._replies):
                    if t == tag:
                        del self._replies[: i + 1]
                        return fields
                    if t == "EXIT":
                        err = self._proc.stderr.read() if self._proc.stderr else ""
                        raise RuntimeError(f"boardrig exited: {err.strip()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"boardrig did not answer {tag} within {timeout} s")
                self._cond.wait(left)

    def _command(self, text: str, reply: str) -> list[str]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(text + "\n")
        self._proc.stdin.flush()
        return self._expect(reply)

    # ---- the rig surface ----------------------------------------------------------------------------------
    def press(self, seat: int, hold_ms: int = 60) -> float:
        """Presses a call button (with contact bounce); returns the simulated time of first contact."""
        return self._time(self._command(f"PRESS {seat} {hold_ms}", "B")[0])

    def reset(self) -> float:
        """Pulls the reset line (like the reset button or the Uno's auto-reset); returns the simulated time."""
        return self._time(self._command("RESET", "RS")[0])

    def crash_after_next_ack(self, delay_ms: int) -> None:
        """The board acts on the next command, then its reset line is pulled ``delay_ms`` later; no
        acknowledgement reaches the host until the reset."""
        self._command(f"CRASH {delay_ms}", "C")

    def eeprom(self) -> bytes:
        """The AVR's EEPROM now."""
        return bytes.fromhex(self._command("EEPROM", "EE")[1])

    def power_cycle(self) -> None:
        """Power off and on: the harness saves the EEPROM and exits (the port goes away), and a new one starts on
        that EEPROM behind the same port; the pins go dark in between, and the rig's clock runs on."""
        off = self._time(self._command("POWEROFF", "OFF")[0])
        self._proc.wait(timeout=5)
        self._reader.join(timeout=5)
        with self._cond:
            self._replies = [r for r in self._replies if r[0] != "EXIT"]
            lit = [pin for pin, value in levels_at(self._pins).items() if value]
            self._pins += [PinChange(off, pin, 0) for pin in lit]
            self._epoch = self._boot_candidate = self._now = off
        self._spawn()

    def unplug(self) -> None:
        """The USB cable is pulled: the pty disappears (the firmware keeps running)."""
        self._command("UNPLUG", "U")

    def replug(self) -> None:
        """The cable is back: a new pty behind the same path."""
        self._command("REPLUG", "READY")

    def garbage(self, data: str) -> None:
        """Line noise from the board's side: raw bytes into the host's receive stream."""
        self._command(f"NOISE {data}", "N")

    def drop_next_ack(self) -> None:
        """The next acknowledgement the board sends is lost on the way to the host."""
        self._command("DROPACK", "D")

    def drop_next_event(self) -> None:
        """The next event the board sends is lost on the way to the host."""
        self._command("DROPEVENT", "D")

    def pin_changes(self) -> list[PinChange]:
        with self._cond:
            return list(self._pins)

    def rx_log(self) -> list[tuple[float, bytes]]:
        with self._cond:
            return list(self._rx)

    def levels(self) -> dict[str, int]:
        return levels_at(self.pin_changes())

    def boot_time(self) -> float:
        with self._cond:
            return self._boot

    def now(self) -> float:
        return self._time(self._command("TIME", "T")[0])

    def sleep_until(self, t: float, timeout: float = 10.0) -> bool:
        return _sleep_until(self, t, timeout)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write("QUIT\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __del__(self) -> None:
        if getattr(self, "_proc", None) is not None and self._proc.poll() is None:
            self._proc.kill()


def _sleep_until(rig: EmulatorRig | SimavrRig, t: float, timeout: float) -> bool:
    """Waits until the board's own clock reaches ``t``: on a loaded host simavr runs slower than the wall clock,
    and a test that slept in wall time would look at the board too early."""
    return wait_until(lambda: rig.now() >= t, timeout, step=0.02)


def wait_until(predicate, timeout: float = 3.0, step: float = 0.01) -> bool:
    """Polls ``predicate`` until true or ``timeout`` (real) seconds; for tests and the board check."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


