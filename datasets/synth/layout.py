"""Random but plausible mid-game tables: four racks with standing tiles and exposures, a wall, a discard floor.

All randomness comes from the ``rng`` passed in, so a seed gives the same table anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from engine.tiles import FLOWER, JOKER, SET_COUNTS, TILES

from .faces import style_for
from .scene import (
    PATTERNS,
    TILE_L,
    TILE_W,
    Camera,
    Light,
    Occluder,
    PlacedTile,
    Rack,
    Scene,
    TableLook,
    rack_corners,
    tile_corners,
)

_FELT = [(60, 110, 40), (110, 70, 30), (40, 40, 120), (50, 50, 50), (120, 110, 100), (90, 60, 110), (30, 80, 60)]
_WOOD = [(60, 100, 150), (40, 70, 110), (90, 140, 190), (30, 50, 80), (110, 160, 200)]
_RACKS = [(30, 30, 30), (40, 40, 140), (120, 60, 20), (60, 110, 200), (160, 110, 220), (200, 200, 200),
          (40, 110, 40), (50, 80, 120)]
_SLEEVES = [(120, 60, 40), (40, 40, 40), (200, 200, 200), (60, 60, 150), (30, 110, 60), (150, 130, 200)]
_SKIN = [(140, 170, 220), (100, 140, 200), (70, 100, 150), (50, 70, 110), (170, 200, 235)]


def _bag(rng: np.random.Generator) -> list[str]:
    bag = [c for c in TILES for _ in range(SET_COUNTS[c])]
    rng.shuffle(bag)
    return bag


def _along(x: float, y: float, angle: float, along: float, across: float) -> tuple[float, float]:
    """Point ``along`` mm in the seat's row direction and ``across`` mm towards the table centre."""
    a = math.radians(angle)
    return x + along * math.cos(a) - across * math.sin(a), y + along * math.sin(a) + across * math.cos(a)


def random_scene(rng: np.random.Generator, style_id: int, player_seat: int | None = None) -> Scene:
    """A table in the middle of a game in set ``style_id``.

    With ``player_seat`` the table is as that player sees it: their concealed tiles stand face up (faces towards
    them, as :func:`player_camera` photographs them), and half the time a few tiles lie face up in front of their
    rack. The extra random draws come last, so a seed gives the same table with or without a player up to them.
    """
    bag = _bag(rng)

    def draw() -> str:
        return bag.pop() if bag else TILES[int(rng.integers(len(TILES)))]

    def variant(code: str) -> int:
        return int(rng.integers(8)) if code == FLOWER else 0

    size = float(rng.uniform(820, 980))
    table = TableLook(kind="wood" if rng.random() < 0.4 else "felt", size_mm=size,
                      colour=tuple(int(c) for c in np.clip(np.array((_WOOD if rng.random() < 0.4 else _FELT)[
                          int(rng.integers(5))]) + rng.integers(-20, 20, 3), 0, 255)),
                      floor_colour=tuple(int(c) for c in rng.integers(30, 140, 3)), seed=int(rng.integers(1 << 30)))
    tiles: list[PlacedTile] = []
    racks: list[Rack] = []
    rack_colour = _RACKS[int(rng.integers(len(_RACKS)))]
    rack_dist = size / 2 - rng.uniform(45, 80)
    for seat in range(4):
        ang = seat * 90.0 + rng.normal(0, 2)
        # Seat 0 sits at -y; rotate that position counterclockwise by 90 deg per seat.
        rx, ry = _along(0, 0, ang, rng.normal(0, 15), -rack_dist)
        rack = Rack(rx, ry, ang, length=float(rng.uniform(480, 580)), depth=float(rng.uniform(55, 80)),
                    height=float(rng.uniform(22, 34)), colour=rack_colour)
        racks.append(rack)
        # Concealed tiles stand on the player's side of the rack, backs to the table.
        n_stand = int(rng.integers(8, 15))
        start = -n_stand * TILE_W / 2
        for k in range(n_stand):
            x, y = _along(rx, ry, ang, start + (k + 0.5) * TILE_W + rng.normal(0, 0.5), -rack.depth / 2 - 9)
            code = draw()
            tiles.append(PlacedTile(code, "up" if seat == player_seat else "down", x, y, ang + rng.normal(0, 2),
                                    standing=True, z=0.0, variant=variant(code)))
        # Exposures lie face up on the rack top.
        pos = -rack.length / 2 + 15
        for _ in range(int(rng.integers(0, 4))):
            base = draw()
            n = int(rng.integers(3, 6))
            for j in range(n):
                code = JOKER if (j > 0 and rng.random() < 0.25) else base
                if pos + TILE_W > rack.length / 2 - 10:
                    break
                x, y = _along(rx, ry, ang, pos + TILE_W / 2, rng.normal(0, 2))
                tiles.append(PlacedTile(code, "up", x, y, ang + rng.normal(0, 3), z=rack.height,
                                        variant=variant(code)))
                pos += TILE_W + rng.uniform(0, 3)
            pos += rng.uniform(10, 30)
        # The wall: 2-high stacks in front of the rack, part of it already picked.
        if rng.random() < 0.85:
            n_stacks = int(rng.integers(3, 20))
            wx0 = -19 * TILE_W / 2 + rng.normal(0, 20)
            wall_ang = ang + rng.normal(0, 4)
            across = rack.depth / 2 + rng.uniform(25, 70)
            for k in range(n_stacks):
                x, y = _along(rx, ry, wall_ang, wx0 + (k + 0.5) * TILE_W, across + TILE_L / 2)
                height = 2 if (k < n_stacks - 1 or rng.random() < 0.5) else 1
                for level in range(height):
                    tiles.append(PlacedTile(draw(), "down", x, y, wall_ang, z=level * style_for(style_id).thickness_mm))
        elif rng.random() < 0.5:
            # A hand laid out for Mah Jongg, face up in a row.
            for k in range(14):
                code = draw()
                x, y = _along(rx, ry, ang, (k - 7) * TILE_W, rack.depth / 2 + 30)
                tiles.append(PlacedTile(code, "up", x, y, ang + rng.normal(0, 2), variant=variant(code)))

    # The discard floor: face up, any angle, some touching.
    n_disc = int(rng.integers(0, 45))
    floor_r = size / 2 - rack_dist * 0.2 - 160
    placed: list[tuple[float, float]] = []
    for _ in range(n_disc):
        for _try in range(12):
            if placed and rng.random() < 0.4:
                px, py = placed[int(rng.integers(len(placed)))]
                a = rng.uniform(0, 2 * math.pi)
                x, y = px + 25 * math.cos(a), py + 25 * math.sin(a)
            else:
                x, y = rng.uniform(-floor_r, floor_r, 2)
            if all((x - u) ** 2 + (y - v) ** 2 > 24**2 for u, v in placed):
                break
        else:
            continue
        placed.append((x, y))
        code = draw()
        angle = rng.uniform(0, 360) if rng.random() < 0.6 else rng.choice([0, 90, 180, 270]) + rng.normal(0, 8)
        face = "down" if rng.random() < 0.05 else "up"
        tiles.append(PlacedTile(code, face, float(x), float(y), float(angle), variant=variant(code)))

    occluders = []
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        seat_ang = math.radians(rng.uniform(0, 360))
        sx, sy = (size / 2 + 150) * math.cos(seat_ang), (size / 2 + 150) * math.sin(seat_ang)
        tx, ty = rng.uniform(-size / 3, size / 3, 2)
        occluders.append(Occluder((sx, sy), (float(tx), float(ty)), z=float(rng.uniform(40, 140)),
                                  width_mm=float(rng.uniform(65, 95)),
                                  sleeve_colour=_SLEEVES[int(rng.integers(len(_SLEEVES)))],
                                  skin_colour=_SKIN[int(rng.integers(len(_SKIN)))]))
    light = random_light(rng)
    if player_seat is not None and rng.random() < 0.5:
        tiles = _lay_down(rng, tiles, racks[player_seat], draw, variant)
    return _photo_looks(Scene(tiles=tiles, racks=racks, style_id=style_id, table=table, occluders=occluders,
                              light=light))


def _photo_looks(scene: Scene) -> Scene:
    """What real photos show and plain renders did not (issue 29): a patterned tablecloth on a third of the
    tables, a phone's sharpening on half the frames. Drawn from a generator of their own, seeded by the table, so
    every other draw of a seeded data set (tiles, camera, light) stays where it was."""
    g = np.random.default_rng([scene.table.seed, 29])
    if g.random() < 0.35:
        scene.table.pattern = PATTERNS[int(g.integers(len(PATTERNS)))]
    if g.random() < 0.5:
        scene.light.sharpen = float(g.uniform(0.3, 1.5))
    return scene


def _to_rack(rack: Rack, x: float, y: float) -> tuple[float, float]:
    """(along, across) of table point (x, y) in the frame of ``rack``: the inverse of :func:`_along`."""
    a = math.radians(rack.angle_deg)
    dx, dy = x - rack.x, y - rack.y
    return dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)


def _lay_down(rng: np.random.Generator, tiles: list[PlacedTile], rack: Rack, draw: Callable[[], str],
              variant: Callable[[str], int]) -> list[PlacedTile]:
    """``tiles`` plus 3-9 tiles laid face up in a row just in front of ``rack``, upright for its player (a hand
    shown, tiles put down to sort them). Flat tiles under the row (wall, discards) are taken away so that no two
    tiles overlap."""
    n = int(rng.integers(3, 10))
    across = rack.depth / 2 + rng.uniform(8, 25) + TILE_L / 2
    start = rng.uniform(-rack.length / 2, rack.length / 2 - n * (TILE_W + 2))
    laid = []
    for k in range(n):
        code = draw()
        x, y = _along(rack.x, rack.y, rack.angle_deg, start + (k + 0.5) * (TILE_W + 2), across + rng.normal(0, 2))
        laid.append(PlacedTile(code, "up", x, y, rack.angle_deg + rng.normal(0, 5), variant=variant(code)))
    lo, hi = start - TILE_L, start + n * (TILE_W + 2) + TILE_L

    def under(t: PlacedTile) -> bool:
        along, acr = _to_rack(rack, t.x, t.y)
        return not t.standing and lo < along < hi and abs(acr - across) < TILE_L + 4

    return [t for t in tiles if not under(t)] + laid


def random_light(rng: np.random.Generator) -> Light:
    return Light(
        azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(40, 80)),
        shadow=float(rng.uniform(0.1, 0.5)), brightness=float(rng.uniform(0.7, 1.2)),
        gradient=float(rng.uniform(0, 0.4)), gradient_angle_deg=float(rng.uniform(0, 360)),
        warmth=float(rng.uniform(-1, 1)), glare=float(rng.uniform(0.1, 0.5)) if rng.random() < 0.3 else 0.0,
        glare_xy=(float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9))),
        glare_radius=float(rng.uniform(0.05, 0.2)),
        blur_sigma=float(rng.uniform(0.3, 1.5)) if rng.random() < 0.5 else 0.0,
        motion_px=float(rng.uniform(2, 6)) if rng.random() < 0.15 else 0.0,
        motion_angle_deg=float(rng.uniform(0, 180)), noise_sigma=float(rng.uniform(1, 6)),
        jpeg_quality=int(rng.integers(55, 96)),
    )


def random_camera(rng: np.random.Generator, scene: Scene, width: int = 1280, height: int = 720) -> Camera:
    """An overhead camera (tilt <= 30 deg) framing the whole table or part of it."""
    hfov = math.radians(rng.uniform(55, 85))
    fx = width / 2 / math.tan(hfov / 2)
    view_w = rng.uniform(500, scene.table.size_mm * 1.15)
    dist = fx * view_w / width
    tilt = math.radians(rng.uniform(0, 30))
    yaw = rng.uniform(0, 2 * math.pi)
    lim = max(0.0, scene.table.size_mm / 2 - view_w / 3)
    tx, ty = rng.uniform(-lim, lim, 2) if lim > 0 else (0.0, 0.0)
    return _aimed_camera(rng, width, height, fx, (float(tx), float(ty)), dist, tilt, yaw, 0.12, 0.03)


def _aimed_camera(rng: np.random.Generator, width: int, height: int, fx: float, target: tuple[float, float],
                  dist: float, tilt: float, yaw: float, k1_max: float, k2_max: float) -> Camera:
    """A camera ``dist`` mm from ``target`` on the table, tilted by ``tilt`` (radians) towards bearing ``yaw``, at
    any roll, with a slightly uneven focal length, an off-centre principal point and up to this much distortion."""
    tx, ty = target
    pos = (tx - dist * math.sin(tilt) * math.cos(yaw), ty - dist * math.sin(tilt) * math.sin(yaw),
           dist * math.cos(tilt))
    return Camera(width=width, height=height, fx=fx, fy=fx * rng.uniform(0.99, 1.01),
                  cx=width / 2 + rng.normal(0, 8), cy=height / 2 + rng.normal(0, 8), position=pos,
                  target=target, roll_deg=float(rng.uniform(-180, 180)),
                  k1=float(rng.uniform(0, k1_max)), k2=float(rng.uniform(0, k2_max)))


def player_camera(rng: np.random.Generator, scene: Scene, seat: int = 0, width: int = 1280,
                  height: int = 720) -> Camera:
    """A phone held by the player at ``seat``, behind their rack: low and oblique, looking over their own standing
    tiles towards the table centre, as people photograph a game (half close-ups where the own tiles are 60-200 px
    tall, half wider shots that show the far rack).

    Cameras are drawn until one satisfies that, sees its own tile row and has every tile and rack in front of it
    (the rasteriser cannot clip them at the camera plane).
    """
    rack = scene.racks[seat]
    ang = rack.angle_deg
    row = np.array([*_along(rack.x, rack.y, ang, 0.0, -rack.depth / 2 - 9), TILE_L / 2])
    far = scene.racks[(seat + 2) % len(scene.racks)]
    thick = style_for(scene.style_id).thickness_mm
    corners = np.vstack([tile_corners(t, thick) for t in scene.tiles] + [rack_corners(r) for r in scene.racks])
    close = rng.random() < 0.5
    for _ in range(200):
        hfov = math.radians(rng.uniform(50, 80))
        fx = width / 2 / math.tan(hfov / 2)
        back = rng.uniform(100, 250 if close else 400)
        pos = (*_along(rack.x, rack.y, ang, rng.normal(0, 40), -rack.depth / 2 - back),
               float(rng.uniform(150, 300 if close else 450)))
        # The aim point, from the own tiles (0) to the table centre (1) and a little to the sides.
        frac = rng.uniform(0.0, 0.6 if close else 1.0)
        tx, ty = _along(row[0] * (1 - frac), row[1] * (1 - frac), ang, rng.normal(0, 50), 0.0)
        cam = Camera(width=width, height=height, fx=fx, fy=fx * rng.uniform(0.99, 1.01),
                     cx=width / 2 + rng.normal(0, 8), cy=height / 2 + rng.normal(0, 8), position=pos,
                     target=(float(tx), float(ty)), k1=float(rng.uniform(0, 0.12)), k2=float(rng.uniform(0, 0.03)))
        cam.roll_deg = _level_roll(cam) + float(rng.uniform(-10, 10))
        if 40 <= cam.tilt_deg <= 75 and _player_view_ok(cam, corners, row, far, close):
            return cam
    raise RuntimeError(f"no player camera found for seat {seat}")


def _level_roll(cam: Camera) -> float:
    """The roll that levels the horizon (Camera's default orientation keeps table +y up, which tips a camera
    looking along x on its side)."""
    right, down, _ = replace(cam, roll_deg=0.0).rotation()
    return math.degrees(math.atan2(-right[2], -down[2]))


def _player_view_ok(cam: Camera, corners: np.ndarray, row: np.ndarray, far: Rack, close: bool) -> bool:
    """Whether ``cam`` frames the own tile row as asked (``close``: big; else with the far rack in view)
    with all of the scene's tile and rack ``corners`` at least 20 mm in front of it."""
    _, depth = cam.to_normalised(corners)
    if depth.min() < 20:
        return False
    (u, v), (_, v_top) = cam.project(np.array([row, row + [0, 0, TILE_L / 2]]))
    if not (0.1 * cam.width < u < 0.9 * cam.width and 0.15 * cam.height < v < 0.95 * cam.height):
        return False
    if close:  # tiles 8-28 % of the short side tall: 60-200 px in a 720p frame
        return 0.04 < abs(v - v_top) / min(cam.width, cam.height) < 0.14
    fu, fv = cam.project(np.array([[far.x, far.y, far.height]]))[0]
    return 0 < fu < cam.width and 0 < fv < cam.height


def overhead_camera(width: int = 1280, height: int = 720, view_mm: float = 620.0) -> Camera:
    """A camera straight above the table centre whose frame is ``view_mm`` wide (as for enrolment photos)."""
    fx = 900.0
    return Camera(width=width, height=height, fx=fx, fy=fx, cx=width / 2, cy=height / 2,
                  position=(0.0, -120.0, fx * view_mm / width), target=(0.0, 0.0), k1=0.05)


def grid_scene(codes: list[str], style: int, rng: np.random.Generator, cols: int = 12, jitter: float = 0.0) -> Scene:
    """Tiles laid out face up in rows, as a user lays out a set to enrol it (Flowers get successive designs)."""
    tiles = []
    for k, code in enumerate(codes):
        r, c = divmod(k, cols)
        tiles.append(PlacedTile(code, "up", (c - cols / 2 + 0.5) * 40 + rng.normal(0, jitter),
                                (2 - r) * 50 + rng.normal(0, jitter), float(rng.normal(0, 3 + jitter)),
                                variant=k if code == FLOWER else 0))
    light = random_light(rng)
    light.glare = 0.0
    return Scene(tiles=tiles, style_id=style, table=TableLook(seed=int(rng.integers(1000))), light=light)


def closeup_scene(rng: np.random.Generator, style_id: int) -> Scene:
    """Tiles lying flat in a few rows, touching or nearly, as people photograph a hand laid out, an exposure or
    a set spread out to enrol it: 1-4 rows of 3-14 tiles, each row a little askew, a few tiles face down."""
    bag = _bag(rng)
    tiles: list[PlacedTile] = []
    rows = int(rng.integers(1, 5))
    gap = float(rng.choice([0.0, rng.uniform(0, 2), rng.uniform(2, 10)]))
    row_gap = float(rng.uniform(0, 25))
    turn = float(rng.normal(0, 4))
    flowers = 0
    for r in range(rows):
        n = int(rng.integers(3, 15))
        y0 = (rows / 2 - r - 0.5) * (TILE_L + row_gap) + rng.normal(0, 2)
        x0 = -n * (TILE_W + gap) / 2 + rng.normal(0, 10)
        for k in range(n):
            code = bag.pop()
            flowers += code == FLOWER
            x, y = _along(0.0, y0, turn, x0 + (k + 0.5) * (TILE_W + gap) + rng.normal(0, 0.5), rng.normal(0, 0.8))
            face = "down" if rng.random() < 0.08 else "up"
            tiles.append(PlacedTile(code, face, float(x), float(y), turn + float(rng.normal(0, 1.5)),
                                    variant=flowers if code == FLOWER else 0))
    return _photo_looks(Scene(tiles=tiles, style_id=style_id, table=TableLook(seed=int(rng.integers(1000))),
                              light=random_light(rng)))


def closeup_camera(rng: np.random.Generator, scene: Scene, width: int, height: int) -> Camera:
    """A phone held over ``scene``'s tiles from any side, tilted up to 40 degrees, framing them so that a tile is
    about 4-15 % of the frame's long side (as in the close-up photos of haitaks-table-photos)."""
    hfov = math.radians(rng.uniform(50, 75))
    fx = max(width, height) / 2 / math.tan(hfov / 2)
    xs = np.array([t.x for t in scene.tiles])
    ys = np.array([t.y for t in scene.tiles])
    tile_frac = rng.uniform(0.04, 0.15)
    dist = fx * TILE_W / (tile_frac * max(width, height))
    tilt = math.radians(rng.uniform(0, 40))
    yaw = rng.uniform(0, 2 * math.pi)
    tx = float(xs.mean() + rng.normal(0, 0.15) * np.ptp(xs))
    ty = float(ys.mean() + rng.normal(0, 0.15) * max(np.ptp(ys), TILE_L))
    return _aimed_camera(rng, width, height, fx, (tx, ty), dist, tilt, yaw, 0.08, 0.02)
