"""The small recordings committed under datasets/video/fixtures/ (tests, and the bundled `mahj demo` recording).

    python -m datasets.video.fixtures        # re-render them all (a few minutes)

Each is short and seeded, so re-rendering gives the same moves and truth. The test fixtures are 640x360 (a few
hundred KB; the tests read them with the true boxes); the demo recording is 1920x1080 (3 MB), the resolution a
whole-table camera needs for the tile model to read ~25 px tiles.
"""

from __future__ import annotations

from pathlib import Path

from datasets.video.generate import generate_game

HERE = Path(__file__).with_name("fixtures")

#: name -> (seed, discards shown, which part of the referee's game, disturbances, frame size)
FIXTURES: dict[str, tuple[int, int, str, tuple[str, ...], tuple[int, int]]] = {
    # A call: discard, exposure from the rack, a joker exchange and the joker racked; an arm resting meanwhile.
    "moves": (105, 1, "claim", ("occlusion",), (640, 360)),
    # Two turns of a wall game with a camera bump, a light change and dropped frames.
    "camera": (103, 2, "end", ("bump", "light_change", "drop_frames"), (640, 360)),
    # The last three turns of a game and the Mah Jongg (the bundled `mahj demo` recording).
    "demo": (104, 3, "end", ("occlusion",), (1920, 1080)),
}


def main() -> None:
    for name, (seed, turns, part, disturb, size) in FIXTURES.items():
        meta = generate_game(HERE / name, seed, turns=turns, size=size, disturb=disturb, part=part)
        print(f"{name}: {len(meta['frames'])} frames")


if __name__ == "__main__":
    main()
