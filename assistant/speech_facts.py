"""What each spoken sentence claims, and whether that is still so: the truth half of speech.

A sentence heard late can be worse than none: "Window closed" heard after the next discard tells a player that a
tile she may still call is gone. So every announcement names the fact it states (``Fact``: a topic and the value
the topic had when the sentence was made), and ``Truth`` follows the rulings and keeps each topic's current
value. A sentence holds while its topic still has that value; the speaker drops a waiting one that no longer
holds and cuts one short that stops holding while it is said.

The topics, and what ends them:

* ``discard``: the live discard (a number per discard): a discard, a call on it, a reader's question about it
  ("Did East take the North wind for Mah Jongg?") hold until the next discard lands or the hand ends;
* ``window``: ("closed", discard number): "Window closed" holds until the next discard opens a window;
* ``turn``: a number per turn ruling; ``floor``: a number per change of the tiles in view (discards, calls,
  exposures), for "how many are out";
* ``result``: the hand's result (Mah Jongg, wall game, payments) holds until the next deal or a correction that
  takes it back; ``dead<seat>`` likewise for a dead hand;
* ``question<id>``: a penalty question holds while it is open (answered, dropped, timed out, the hand over: gone);
* ``camera:<problem>``: a camera notice holds until the camera recovers;
* ``correction``: a number per correction sentence: only the newest preview of a correction is worth hearing;
* ``game``: a number per deal: what holds for the whole hand (seat winds, a reply to a person's request);
* ``news``: a number per ruling: what "repeat" repeats changes with any of them.

A correction replays the game (``corrected``, ``confirmed``): what was said about the live discard, the turn and
the tiles in view is then unknown, so those topics move on and their sentences are dropped; the correction's own
sentence says what holds now.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

#: A topic that is not current at all (the hand is over: there is no live discard).
_ABSENT = object()
#: Rulings that end a hand: the live discard, its window and whose turn it is are moot from then on.
HAND_OVER = frozenset({"mahjong_verified", "wall_game"})
#: Help requests (``help`` rulings) by their ``source``: what a reader's or tile count's question is about is the
#: table as it lies now, so it is tied to the live discard.
_ABOUT_THE_TABLE = frozenset({"reader", "tile_count"})


@dataclass(frozen=True)
class Fact:
    """What a sentence states: ``topic`` had ``value`` when it was made."""

    topic: str
    value: Any


class Truth:
    """The current value of every topic, updated ruling by ruling (``follow``). Not thread-safe: the speaker
    calls it under its own lock."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self.now: dict[str, Any] = {}
        for topic in ("game", "discard", "turn", "floor", "news", "correction"):
            self._next(topic)

    def holds(self, fact: Fact | None) -> bool:
        """Whether ``fact`` is still so (None: a sentence that states nothing that can change)."""
        return fact is None or self.now.get(fact.topic, _ABSENT) == fact.value

    def current(self, topic: str) -> Fact:
        """The fact that ``topic`` is as it is now (for a sentence made from the current state, e.g. an answer)."""
        return Fact(topic, self.now.get(topic, _ABSENT))

    def _next(self, topic: str) -> Fact:
        self._counts[topic] += 1
        self.now[topic] = self._counts[topic]
        return Fact(topic, self.now[topic])

    def _hand_over(self) -> None:
        for topic in ("discard", "window", "turn"):
            self.now.pop(topic, None)
        for topic in [t for t in self.now if t.startswith("question")]:
            del self.now[topic]

    def follow(self, ruling: Any) -> Fact | None:
        """Take one ruling (``kind``, ``seat``, ``data``) into account; returns the fact its sentence states."""
        kind, data = ruling.kind, getattr(ruling, "data", None) or {}
        seat = getattr(ruling, "seat", None)
        self._next("news")
        if kind == "dealt":
            for topic in [t for t in self.now if t.startswith(("dead", "question", "camera:"))] + ["result"]:
                self.now.pop(topic, None)
            self._next("discard")
            self._next("turn")
            self._next("floor")
            return self._next("game")
        if kind == "window_opened":
            self._next("floor")
            self.now.pop("window", None)
            return self._next("discard")
        if kind == "window_closed":
            self.now["window"] = ("closed", self.now.get("discard"))
            return self.current("window")
        if kind in ("claim_awarded", "exposure_accepted", "exposure_extended", "joker_exchanged"):
            self._next("floor")
            return self.current("discard")
        if kind == "turn":
            return self._next("turn")
        if kind in ("dead_hand", "mahjong_in_error"):
            self.now[f"dead{seat}"] = self.now["game"]
            return self.current(f"dead{seat}")
        if kind in HAND_OVER or kind == "settlement":
            if kind in HAND_OVER:
                self._hand_over()
            self.now.setdefault("result", self.now["game"])
            return self.current("result")
        if kind == "help":
            source = data.get("source")
            if source == "camera":
                return self._next(f"camera:{data.get('problem')}")
            return self.current("discard" if source in _ABOUT_THE_TABLE else "game")
        if kind == "help_cleared":
            self.now.pop(f"camera:{data.get('problem')}", None)
            return None
        if kind in ("correction_preview", "correction_pending", "correction_cancelled"):
            return self._next("correction")
        if kind == "question":
            self.now[f"question{data.get('id')}"] = True
            return self.current(f"question{data.get('id')}")
        if kind == "question_dropped":
            self.now.pop(f"question{data.get('id')}", None)
            return None
        if kind in ("corrected", "confirmed"):
            self._replayed(data.get("state") if isinstance(data.get("state"), dict) else {})
            if kind == "confirmed":
                self.now.pop(f"question{data.get('id')}", None)
            return None
        return self.current("discard")  # claims, rejections: news about the live discard

    def _replayed(self, state: dict) -> None:
        """A correction replayed the game: the live discard, window, turn and tiles in view are taken as new, and
        a result or dead hand the replay no longer has is gone."""
        for topic in ("discard", "turn", "floor"):
            self._next(topic)
        self.now.pop("window", None)
        if state.get("stage") != "over":
            self.now.pop("result", None)
        else:
            self._hand_over()
        for i, seat in enumerate(state.get("seats") or []):
            if seat.get("out") is None:
                self.now.pop(f"dead{i}", None)
