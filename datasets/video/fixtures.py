"""The small recordings committed under datasets/video/fixtures/ (tests, and the bundled `mahj demo` recording).

    python -m datasets.video.fixtures        # re-render them all (a few minutes)

Each is short (a few hundred KB of mp4v at 640x360) and seeded, so re-rendering gives the same moves and truth.
"""

from __future__ import annotations

from pathlib import Path

from datasets.video.generate import generate_game

HERE = Path(__file__).with_name("fixtures")

#: name -> (seed, discards shown, which part of the referee's game, disturbances)
FIXTURES: dict[str, tuple[int, int, str, tuple[str, ...]]] = {
    # A call: discard, exposure from the rack, a joker exchange and the joker racked; an arm resting meanwhile.
    "moves": (105, 1, "claim", ("occlusion",)),
    # Two turns of a wall game with a camera bump, a light change and dropped frames.
    "camera": (103, 2, "end", ("bump", "light_change", "drop_frames")),
    # The last three turns of a game and the Mah Jongg (the bundled `mahj demo` recording).
    "demo": (104, 3, "end", ("occlusion",)),
}


def main() -> None:
    for name, (seed, turns, part, disturb) in FIXTURES.items():
        meta = generate_game(HERE / name, seed, turns=turns, size=(640, 360), disturb=disturb, part=part)
        print(f"{name}: {len(meta['frames'])} frames")


if __name__ == "__main__":
    main()
