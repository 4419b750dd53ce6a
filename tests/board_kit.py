"""Shared by the board tests: a rig of either kind, a raw protocol client, and what the rig logged."""

from __future__ import annotations

import time

import pytest
import serial

from hardware import protocol as proto
from hardware.pins import PinChange
from hardware.rig import EmulatorRig, SimavrRig, missing_tools, wait_until
from hardware.timing import edges


def make_rig(kind: str):
    if kind == "simavr":
        why = missing_tools()
        if why:
            pytest.skip(f"simavr rig unavailable: {why}")
        return SimavrRig.start()
    return EmulatorRig()


class Raw:
    """A protocol client without the driver: for the cases the driver is built never to produce."""

    def __init__(self, rig):
        self.rig = rig
        if rig.kind == "sim":
            self.link = rig.open_link()
        else:
            self.link = serial.Serial(rig.port, 250000, timeout=0.02, exclusive=True)
        self.splitter = proto.LineSplitter()
        self.lines: list[bytes] = []
        self.link.write(b"\n")

    def read_until(self, predicate, timeout: float = 1.0) -> bytes | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, line in enumerate(self.lines):
                if predicate(line):
                    del self.lines[: i + 1]
                    return line
            self.lines += self.splitter.feed(self.link.read(256))
        return None

    def send(self, line: bytes, timeout: float = 1.0) -> bytes | None:
        """Writes a raw line; returns the board's answer to it (an A line with its number, or an X notice)."""
        self.link.write(line)
        try:
            seq = proto.parse(line).fields[0].encode()
        except proto.ProtocolError:
            seq = b"?"
        return self.read_until(lambda raw: raw.startswith(b"A " + seq + b" ") or raw.startswith(b"X "), timeout)

    def cmd(self, seq: int, verb: str, *args) -> tuple[str, ...]:
        reply = self.send(proto.command(seq, verb, *args))
        assert reply is not None, f"no answer to {verb}"
        return proto.parse(reply).fields[1:]

    def event(self, kind: str, timeout: float = 1.0) -> tuple[str, ...]:
        line = self.read_until(lambda raw: raw.startswith(b"E ") and proto.parse(raw).fields[1] == kind, timeout)
        assert line is not None, f"no {kind} event"
        return proto.parse(line).fields

    def close(self):
        self.link.close()


def rx_time(rig, seq: int) -> float:
    """When the board had command ``seq`` (the rig's log may trail the ack a little: wait for it)."""
    def find():
        return next((t for t, line in rig.rx_log() if line.startswith(f"C {seq} ".encode())), None)

    assert wait_until(lambda: find() is not None, 2)
    return find()


def tones(pins: list[PinChange], since: float = 0.0) -> list[PinChange]:
    """The tone starts on the piezo since ``since``."""
    return [p for p in edges(pins, "BUZZ", since) if p.value]
