"""The table over time: a game's moves played out physically, frame by frame, with the true events beside it.

``play(deal, ...)`` yields one ``FrameState`` per frame at ``fps``: every tile's pose (in the scene renderer's
table coordinates: mm, origin at the table centre, y away from East), the arms reaching over the table, the
light level and the camera's displacement. The true events are appended to ``World.truth`` at the frame the
action physically happens (a tile released on the floor, a tile lifted off the wall), in the JSON shape of
vision's event log, so a reader's log and the truth compare directly.

Besides the moves, the world adds what makes reading a real table hard: players resting an arm over a rack or
the floor without moving a tile, a camera bump, a light change and dropped frames; each is recorded as a
``disturbance`` window so an evaluation can count events invented inside them.

The layout is the world's own (rack, wall and floor positions jitter per game), deliberately not imported from
vision: the reader has to find the regions itself.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2

from datasets.synth.scene import TILE_L, TILE_W, PlacedTile
from datasets.video.script import Deal

TABLE_MM = 900.0
PITCH = TILE_W + 1.0
#: What can go wrong besides the moves (each becomes a World method ``_<name>``).
DISTURBANCES = ("occlusion", "occlusion", "bump", "light_change", "drop_frames")


@dataclass(frozen=True)
class Arm:
    """An arm from outside ``seat``'s edge to the hand at (x, y); ``z`` = hand height above the table."""

    seat: int
    x: float
    y: float
    z: float = 70.0


@dataclass
class FrameState:
    index: int                       # true frame number (dropped frames leave gaps)
    t: float
    tiles: list[PlacedTile]
    arms: list[Arm]
    light: float = 1.0
    camera_shift: tuple[float, float, float] = (0.0, 0.0, 0.0)   # dx, dy mm of the camera, roll degrees
    dropped: bool = False


def seat_xy(seat: int, u: float, w: float) -> tuple[float, float]:
    """Seat-local (u along the edge to the seat's right, w in from the seat's table edge) -> table mm."""
    a = math.radians(90.0 * seat)
    x, y = u, w - TABLE_MM / 2
    return x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)


@dataclass
class Layout:
    """Where things sit in this game (seat-local mm), jittered per game."""

    slope_w: list[float]
    top_w: list[float]
    wall_w: list[float]
    shift_u: list[float]

    @classmethod
    def random(cls, rng: random.Random) -> Layout:
        return cls(slope_w=[18 + rng.uniform(-4, 4) for _ in range(4)],
                   top_w=[62 + rng.uniform(-5, 5) for _ in range(4)],
                   wall_w=[128 + rng.uniform(-6, 8) for _ in range(4)],
                   shift_u=[rng.uniform(-15, 15) for _ in range(4)])


@dataclass
class World:
    """Plays a ``Deal`` out. ``truth``: true events; ``disturbances``: windows where nothing may be invented."""

    deal: Deal
    seed: int
    fps: float = 30.0
    disturb: bool | tuple[str, ...] = True     # True: all kinds; or a subset of DISTURBANCES
    rack_height: float = 28.0
    truth: list[dict] = field(default_factory=list)
    disturbances: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed * 7919 + 1)
        self.layout = Layout.random(self.rng)
        self.frame = 0
        self.light = 1.0
        self.cam = (0.0, 0.0, 0.0)
        self.arms: dict[int, Arm] = {}
        self.held: dict[int, PlacedTile] = {}
        self.drop_budget = 0
        self.slope: list[list[PlacedTile]] = [[] for _ in range(4)]
        self.top: list[list[list[PlacedTile]]] = [[] for _ in range(4)]
        self.wall: list[list[PlacedTile]] = [[] for _ in range(4)]
        self.floor: list[PlacedTile] = []
        for seat, hand in enumerate(self.deal.hands):
            for code in hand:
                self._stand(seat, code)
        for seat, groups in enumerate(self.deal.exposures):
            for codes in groups:
                self.top[seat].append([self._top_tile(seat, code, j) for j, code in enumerate(codes)])
        for code in self.deal.floor:
            x, y = self._floor_spot(self.rng.randrange(4))
            self.floor.append(PlacedTile(code, "up", x, y, self.rng.uniform(0, 360)))
        self.live = [0, 3, 2, 1]     # walls in picking order (clockwise from East's)
        per = math.ceil(len(self.deal.wall) / 4)
        for i, code in enumerate(self.deal.wall):
            seat = self.live[i // per]
            k = len(self.wall[seat])
            u = 7.5 * PITCH - k * PITCH + self.layout.shift_u[seat]      # from the owner's right end leftwards
            x, y = seat_xy(seat, u, self.layout.wall_w[seat])
            self.wall[seat].append(PlacedTile(code, "down", x, y, 90.0 * seat + self.rng.gauss(0, 1.5)))

    # --- layout helpers --------------------------------------------------------------------------------

    def _slope_xy(self, seat: int, k: int) -> tuple[float, float]:
        return seat_xy(seat, -170 + k * PITCH + self.layout.shift_u[seat], self.layout.slope_w[seat])

    def _stand(self, seat: int, code: str) -> PlacedTile:
        x, y = self._slope_xy(seat, len(self.slope[seat]))
        t = PlacedTile(code, "down", x, y, 90.0 * seat + self.rng.gauss(0, 1.5), standing=True)
        self.slope[seat].append(t)
        return t

    def _restack(self, seat: int) -> None:
        """Close the gap a removed standing tile left (players push their tiles together)."""
        for k, t in enumerate(self.slope[seat]):
            t.x, t.y = self._slope_xy(seat, k)

    def _top_tile(self, seat: int, code: str, j: int) -> PlacedTile:
        """A face-up tile in slot ``j`` of the exposure being laid on ``seat``'s rack top."""
        x, y = seat_xy(seat, self._top_slot(seat, j), self.layout.top_w[seat] + self.rng.gauss(0, 1))
        return PlacedTile(code, "up", x, y, 90.0 * seat + self.rng.gauss(0, 2), z=self.rack_height)

    def _top_slot(self, seat: int, extra: int = 0) -> float:
        n = sum(len(g) for g in self.top[seat])
        return -205 + self.layout.shift_u[seat] + (n + extra) * PITCH + len(self.top[seat]) * 14

    # --- frames ----------------------------------------------------------------------------------------

    def _tiles(self) -> list[PlacedTile]:
        tiles = [t for s in range(4) for t in self.slope[s]]
        tiles += [t for s in range(4) for g in self.top[s] for t in g]
        tiles += [t for s in range(4) for t in self.wall[s]]
        tiles += self.floor
        tiles += list(self.held.values())
        return [replace(t) for t in tiles]

    def _emit(self, n: int = 1) -> Iterator[FrameState]:
        for _ in range(n):
            dropped = self.drop_budget > 0
            self.drop_budget -= 1 if dropped else 0
            yield FrameState(self.frame, self.frame / self.fps, self._tiles(), list(self.arms.values()), self.light,
                             self.cam, dropped)
            self.frame += 1

    def _event(self, kind: str, **data: object) -> None:
        self.truth.append({"type": kind, "t": round(self.frame / self.fps, 4), "frame": self.frame,
                           "confidence": 1.0} | data)

    def _rest(self, seat: int) -> tuple[float, float]:
        return seat_xy(seat, self.rng.uniform(-60, 60), -60.0)

    def _move_arm(self, seat: int, target: tuple[float, float], speed: float = 1500.0) -> Iterator[FrameState]:
        """Move ``seat``'s hand to ``target`` (easing), carrying whatever it holds."""
        start = self.arms.get(seat) or Arm(seat, *self._rest(seat))
        dist = math.hypot(target[0] - start.x, target[1] - start.y)
        n = max(4, int(self.fps * (0.1 + dist / speed)))
        for i in range(1, n + 1):
            s = 0.5 - 0.5 * math.cos(math.pi * i / n)
            x, y = start.x + (target[0] - start.x) * s, start.y + (target[1] - start.y) * s
            self.arms[seat] = Arm(seat, x, y)
            if seat in self.held:
                self.held[seat].x, self.held[seat].y = x, y
            yield from self._emit()

    def _jitter(self, seat: int, seconds: float) -> Iterator[FrameState]:
        """A hand held over the table is never perfectly still."""
        arm = self.arms[seat]
        for _ in range(int(seconds * self.fps)):
            self.arms[seat] = Arm(seat, arm.x + self.rng.gauss(0, 2.5), arm.y + self.rng.gauss(0, 2.5))
            yield from self._emit()

    def _withdraw(self, seat: int) -> Iterator[FrameState]:
        yield from self._move_arm(seat, self._rest(seat))
        self.arms.pop(seat, None)
        yield from self._emit()

    def _grab(self, seat: int, tile: PlacedTile) -> None:
        tile.z, tile.standing, tile.face = 45.0, False, "down"
        self.held[seat] = tile

    def _pause(self, lo: float = 0.1, hi: float = 0.35) -> Iterator[FrameState]:
        yield from self._emit(int(self.fps * self.rng.uniform(lo, hi)))

    # --- moves -----------------------------------------------------------------------------------------

    def play(self) -> Iterator[FrameState]:
        yield from self._emit(int(self.fps * 0.6))
        moves = self.deal.moves
        disturb_at = self._plan_disturbances(len(moves))
        for i, move in enumerate(moves):
            if i in disturb_at:
                yield from disturb_at[i]()
            handler = getattr(self, f"_do_{move['type']}")
            yield from handler(move)
            yield from self._pause()
        yield from self._emit(int(self.fps * 1.5))

    def _do_pick(self, m: dict) -> Iterator[FrameState]:
        seat = m["seat"]
        wall_seat = next(s for s in self.live if self.wall[s])
        tile = self.wall[wall_seat][0]
        spot = (tile.x, tile.y)        # the held tile moves with the hand: remember its place in the wall
        yield from self._move_arm(seat, spot)
        self.wall[wall_seat].pop(0)
        self._grab(seat, tile)
        self._event("picked", seat=seat, wall_seat=wall_seat, end="right")
        yield from self._move_arm(seat, seat_xy(seat, self.rng.uniform(-80, 80), -20.0))
        if m.get("hold"):
            yield from self._jitter(seat, m["hold"])
        if m.get("returned"):      # a call beat this pick: the tile goes back where it came from
            yield from self._move_arm(seat, spot)
            tile.z, tile.face = 0.0, "down"
            self.wall[wall_seat].insert(0, self.held.pop(seat))
            yield from self._withdraw(seat)

    def _do_rack(self, m: dict) -> Iterator[FrameState]:
        seat = m["seat"]
        code = self.held[seat].code
        yield from self._move_arm(seat, self._slope_xy(seat, len(self.slope[seat])))
        del self.held[seat]
        self._stand(seat, code)
        self._event("racked", seat=seat, count=1)
        yield from self._withdraw(seat)

    def _take_from_slope(self, seat: int, code: str) -> PlacedTile:
        row = self.slope[seat]
        k = next((i for i, t in enumerate(row) if t.code == code), len(row) - 1)
        return row.pop(k)

    def _do_discard(self, m: dict) -> Iterator[FrameState]:
        seat, code = m["seat"], m["tile"]
        held = self.held.get(seat)
        if held is not None and held.code != code:      # picked, not racked, throws another tile: rack it first
            yield from self._do_rack({"seat": seat})
            held = None
        if held is None:
            k = next((i for i, t in enumerate(self.slope[seat]) if t.code == code), len(self.slope[seat]) - 1)
            yield from self._move_arm(seat, self._slope_xy(seat, k))
            tile = self._take_from_slope(seat, code)
            tile.code = code
            self._grab(seat, tile)
            self._restack(seat)
        x, y = self._floor_spot(seat)
        yield from self._move_arm(seat, (x, y))
        tile = self.held.pop(seat)
        tile.z, tile.face, tile.angle_deg = 0.0, "up", self.rng.uniform(0, 360)
        self.floor.append(tile)
        self._event("discard_down", seat=seat, tile=code)
        # The tile slides and turns a little as it is let go, while the hand pulls back; it stops short of
        # another tile rather than slide under or over it.
        dx, dy, da = self.rng.uniform(-25, 25), self.rng.uniform(-25, 25), self.rng.uniform(-30, 30)
        s = next(s for s in (1.0, 0.75, 0.5, 0.25, 0.0)
                 if s == 0.0 or not self._lands_on_another(tile, tile.x + s * dx, tile.y + s * dy, tile.angle_deg + da))
        dx, dy = s * dx, s * dy
        back = self._rest(seat)
        start = self.arms[seat]
        for i in range(1, 6):
            tile.x, tile.y, tile.angle_deg = tile.x + dx / 5, tile.y + dy / 5, tile.angle_deg + da / 5
            s = i / 6
            self.arms[seat] = Arm(seat, start.x + (back[0] - start.x) * s, start.y + (back[1] - start.y) * s)
            yield from self._emit()
        yield from self._withdraw(seat)

    def _floor_spot(self, seat: int) -> tuple[float, float]:
        """A free place on the discard floor, towards the discarder's side, sometimes touching another tile; on a
        crowded floor the freest place found."""
        best, best_gap = None, -1.0
        for _ in range(60):
            if self.floor and self.rng.random() < 0.3:
                other = self.rng.choice(self.floor)
                a = self.rng.uniform(0, 2 * math.pi)
                x, y = other.x + 30 * math.cos(a), other.y + 30 * math.sin(a)
            else:
                x, y = seat_xy(seat, self.rng.uniform(-220, 220), self.rng.uniform(190, 440))
            if max(abs(x), abs(y)) >= 270:
                continue
            gap = self._floor_gap(x, y)
            if gap > 40:
                return x, y
            if gap > best_gap:
                best, best_gap = (x, y), gap
        return best if best is not None else seat_xy(seat, 0.0, 300.0)

    def _floor_gap(self, x: float, y: float) -> float:
        """Distance from (x, y) to the nearest tile centre on the floor."""
        return min((math.hypot(x - t.x, y - t.y) for t in self.floor), default=math.inf)

    def _lands_on_another(self, tile: PlacedTile, x: float, y: float, angle_deg: float) -> bool:
        """Whether ``tile`` lying at (x, y, angle) would overlap another floor tile's footprint."""
        mine = ((x, y), (TILE_W, TILE_L), angle_deg)
        return any(cv2.rotatedRectangleIntersection(mine, ((t.x, t.y), (TILE_W, TILE_L), t.angle_deg))[0]
                   != cv2.INTERSECT_NONE for t in self.floor if t is not tile)

    def _do_exposure(self, m: dict) -> Iterator[FrameState]:
        seat = m["seat"]
        called = self.floor[-1]
        tiles = list(m["tiles"])
        tiles.remove(called.code if called.code in tiles else tiles[0])
        tiles = [called.code, *tiles]          # the called tile first, then the caller's own
        yield from self._move_arm(seat, (called.x, called.y))
        self.floor.pop()
        self._grab(seat, called)
        yield from self._move_arm(seat, self._slope_xy(seat, len(self.slope[seat]) // 2))
        own = [self._take_from_slope(seat, code) for code in tiles[1:]]
        self._restack(seat)
        yield from self._move_arm(seat, seat_xy(seat, self._top_slot(seat, 1), self.layout.top_w[seat]))
        self.held.pop(seat)
        group = []
        for j, (code, tile) in enumerate(zip(tiles, [called] + own, strict=True)):
            tile.code, tile.face, tile.standing = code, "up", False
            tile.x, tile.y = seat_xy(seat, self._top_slot(seat, j), self.layout.top_w[seat] + self.rng.gauss(0, 1))
            tile.z, tile.angle_deg = self.rack_height, 90.0 * seat + self.rng.gauss(0, 2)
            group.append(tile)
        self.top[seat].append(group)
        self._event("exposure_placed", seat=seat, tiles=tiles)
        yield from self._withdraw(seat)

    def _do_joker_exchange(self, m: dict) -> Iterator[FrameState]:
        seat, owner, gi, code = m["seat"], m["from_seat"], m["exposure_index"], m["tile"]
        yield from self._move_arm(seat, self._slope_xy(seat, len(self.slope[seat]) - 1))
        given = self._take_from_slope(seat, code)
        self._restack(seat)
        self._grab(seat, given)
        group = self.top[owner][gi]
        joker = next(t for t in group if t.code == "J")
        yield from self._move_arm(seat, (joker.x, joker.y))
        given.code, given.face, given.z = code, "up", self.rack_height
        given.x, given.y, given.angle_deg = joker.x, joker.y, joker.angle_deg
        group[group.index(joker)] = given
        self.held[seat] = joker
        joker.z, joker.face = 45.0, "down"
        self._event("joker_exchanged", seat=seat, exposure_seat=owner, exposure_index=gi, tile=code)
        yield from self._move_arm(seat, seat_xy(seat, 0.0, -20.0))

    def _do_mahjong_declared(self, m: dict) -> Iterator[FrameState]:
        seat = m["seat"]
        if not m.get("self_picked", True) and seat not in self.held and self.floor:
            called = self.floor[-1]              # Mah Jongg on a discard: the winner takes it first
            yield from self._move_arm(seat, (called.x, called.y))
            self._grab(seat, self.floor.pop())
        if seat in self.held:                    # the winning tile joins the hand on the rack
            yield from self._move_arm(seat, self._slope_xy(seat, len(self.slope[seat])))
            tile = self.held.pop(seat)
            tile.z, tile.standing = 0.0, True
            self.slope[seat].append(tile)
            self._restack(seat)
            self._event("racked", seat=seat, count=1)
        yield from self._move_arm(seat, self._slope_xy(seat, 6))
        yield from self._jitter(seat, 0.3)
        row = sorted(self.slope[seat], key=lambda t: t.code or "")
        self.slope[seat] = []
        group = []
        for j, tile in enumerate(row):
            tile.face, tile.standing, tile.z = "up", False, self.rack_height
            tile.x, tile.y = seat_xy(seat, self._top_slot(seat, j), self.layout.top_w[seat])
            tile.angle_deg = 90.0 * seat + self.rng.gauss(0, 2)
            group.append(tile)
        self.top[seat].append(group)
        shown = [t.code for g in self.top[seat] for t in g]
        self._event("hand_displayed", seat=seat, tiles=shown)
        yield from self._withdraw(seat)

    # --- disturbances ----------------------------------------------------------------------------------

    def _plan_disturbances(self, n_moves: int) -> dict:
        chosen = DISTURBANCES if self.disturb is True else tuple(self.disturb or ())
        kinds = [getattr(self, f"_{k}") for k in chosen]
        if not kinds or n_moves < 3:
            return {}
        spots = self.rng.sample(range(1, n_moves), min(len(kinds), n_moves - 1))
        return dict(zip(spots, kinds, strict=False))

    def _window(self, kind: str, t0: float, t1: float | None = None, **data: object) -> None:
        t1 = self.frame / self.fps if t1 is None else t1
        self.disturbances.append({"kind": kind, "t0": round(t0, 4), "t1": round(t1, 4)} | data)

    def _occlusion(self) -> Iterator[FrameState]:
        """An arm rests over a rack or the floor for a while; no tile moves."""
        seat = self.rng.randrange(4)
        t0 = self.frame / self.fps
        target = self.rng.choice([seat_xy(seat, self.rng.uniform(-150, 150), self.rng.uniform(40, 140)),
                                  seat_xy(seat, self.rng.uniform(-120, 120), self.rng.uniform(250, 420))])
        yield from self._move_arm(seat, target, speed=600)
        yield from self._jitter(seat, self.rng.uniform(0.8, 1.5))
        yield from self._withdraw(seat)
        self._window("occlusion", t0, seat=seat)

    def _bump(self) -> Iterator[FrameState]:
        """Someone knocks the camera: a few frames of shake, then it rests a little displaced."""
        t0 = self.frame / self.fps
        end = (self.rng.choice([-1, 1]) * self.rng.uniform(8, 18), self.rng.choice([-1, 1]) * self.rng.uniform(5, 15),
               self.rng.uniform(-1.5, 1.5))
        self._event("camera_problem", problem="bumped", detail="truth", resolved=False)
        for i in range(6):
            k = (i + 1) / 6
            wob = 6 * math.sin(i * 2.1) * (1 - k)
            self.cam = (end[0] * k + wob, end[1] * k - wob, end[2] * k)
            yield from self._emit()
        self.cam = end
        yield from self._emit(int(self.fps * 0.3))
        self._window("bump", t0)

    def _light_change(self) -> Iterator[FrameState]:
        t0 = self.frame / self.fps
        target = self.rng.choice([0.72, 1.25])
        start = self.light
        for i in range(1, 9):
            self.light = start + (target - start) * i / 8
            yield from self._emit()
        yield from self._emit(int(self.fps * 0.3))
        self._window("light", t0, level=target)

    def _drop_frames(self) -> Iterator[FrameState]:
        """The next few frames never reach the reader (USB hiccup) while a player is moving."""
        self.drop_budget = self.rng.randint(3, 8)
        t0 = self.frame / self.fps
        self._event("camera_problem", problem="frames_dropped", detail=f"{self.drop_budget} frames", resolved=False)
        self._window("drop", t0, t0 + self.drop_budget / self.fps, frames=self.drop_budget)
        yield from self._emit(0)
