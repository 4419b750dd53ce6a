"""The last BEEP a board played, kept in its EEPROM so that a reset between playing a beep and acknowledging it
does not make the host's resend sound it again (hardware/PROTOCOL.md, "Beeps across a board reset").

This is the emulator's copy of hardware/firmware/src/beeprec.c: the same layout and the same writes, so that the
emulator answers a resend after a reset as the firmware does and a test can compare the two EEPROMs byte for
byte. The record (sequence number and CRC of the BEEP line) moves one slot on with every beep through a ring of
SLOTS slots, because one EEPROM cell takes only about 100,000 writes and a table beeps on every discard.
"""

from __future__ import annotations

EEPROM_BYTES = 1024  # the ATmega328P's EEPROM
SLOTS = 200
SLOT_BYTES = 5  # mark, sequence number (2 bytes, little-endian), CRC of the command line (2)
MARK_LIVE = 0xB5  # a record of the current host session: a resend of it is a repeat
MARK_SPENT = 0x5B  # the newest slot, but a HELLO (a new host session) came since


class BeepRecord:
    """The ring of beep records in ``eeprom`` (a bytearray the board keeps across resets). ``writes`` counts the
    erase/write cycles of each byte, as the chip's ``eeprom_update_byte`` spends them (only on a change)."""

    def __init__(self, eeprom: bytearray) -> None:
        self.eeprom = eeprom
        self.writes = [0] * len(eeprom)
        self._newest = SLOTS - 1  # the next record goes into the slot after it
        self._newest_marked = False

    def _write(self, address: int, value: int) -> None:
        if self.eeprom[address] != value:
            self.eeprom[address] = value
            self.writes[address] += 1

    def _mark(self, slot: int) -> int:
        return self.eeprom[slot * SLOT_BYTES]

    def _marked(self, slot: int) -> bool:
        return self._mark(slot) in (MARK_LIVE, MARK_SPENT)

    def boot(self) -> tuple[int, int] | None:
        """At boot: finds the newest slot (the marked one whose successor is not), clears any other mark (left by a
        reset while it was being cleared) and returns (sequence number, CRC) if the record is of the current host
        session, else None."""
        found = next((s for s in range(SLOTS) if self._marked(s) and not self._marked((s + 1) % SLOTS)), None)
        if found is not None:
            self._newest = found
        for slot in range(SLOTS):
            if self._marked(slot) and slot != found:
                self._write(slot * SLOT_BYTES, 0)
        self._newest_marked = found is not None
        if found is None or self._mark(found) != MARK_LIVE:
            return None
        base = found * SLOT_BYTES
        return (int.from_bytes(self.eeprom[base + 1:base + 3], "little"),
                int.from_bytes(self.eeprom[base + 3:base + 5], "little"))

    def save(self, seq: int, crc: int) -> None:
        """A BEEP is about to sound: its record into the next slot (mark last), then the old mark cleared."""
        slot = (self._newest + 1) % SLOTS
        base = slot * SLOT_BYTES
        for i, value in enumerate(seq.to_bytes(2, "little") + crc.to_bytes(2, "little")):
            self._write(base + 1 + i, value)
        self._write(base, MARK_LIVE)
        if self._newest_marked:
            self._write(self._newest * SLOT_BYTES, 0)
        self._newest, self._newest_marked = slot, True

    def spend(self) -> None:
        """HELLO: the record belongs to an earlier host session (whose numbers a new one may use again)."""
        if self._newest_marked and self._mark(self._newest) == MARK_LIVE:
            self._write(self._newest * SLOT_BYTES, MARK_SPENT)
