"""The signal board: serial protocol, host driver, emulator; the firmware lives in ``hardware/firmware``."""
