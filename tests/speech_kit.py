"""A stand-in voice for speech tests: each text takes ``seconds(text)`` to say, can be cut short, and what was
started, finished and cut is recorded with its times (time.monotonic)."""

import threading
import time


class Voice:
    def __init__(self, seconds=lambda text: 0.0):
        self.seconds = seconds
        self.started: list[tuple[float, str]] = []
        self.lock = threading.Lock()

    def __call__(self, text):
        with self.lock:
            self.started.append((time.monotonic(), text))
        return _Utterance(self.seconds(text))

    @property
    def texts(self):
        return [text for _, text in self.started]

    def wait_started(self, n=1, timeout=5.0):
        end = time.monotonic() + timeout
        while len(self.started) < n and time.monotonic() < end:
            time.sleep(0.005)
        return len(self.started) >= n

    def start_of(self, text):
        return next(t for t, said in self.started if said == text)


class _Utterance:
    def __init__(self, seconds):
        self.seconds = seconds
        self.cut = threading.Event()

    def wait(self):
        self.cut.wait(self.seconds)

    def stop(self):
        self.cut.set()
