"""The settling table: han and fu to basic points, and basic points to what each loser pays.

Below the Limit the basic points are ``fu * 2**(han + 2)``; the Limit (2,000) is reached at 5 han or when the
formula passes it, and higher han pay 150/200/300/400 % of it. Limit hands pay 400 % per limit they count.
"""

from __future__ import annotations

LIMIT = 2000

#: han -> (basic points, name) from 5 han up; 13+ is the counted limit.
_HIGH: tuple[tuple[int, int, str], ...] = (
    (13, 4 * LIMIT, "yakuman"),
    (11, 3 * LIMIT, "sanbaiman"),
    (8, 2 * LIMIT, "baiman"),
    (6, 3 * LIMIT // 2, "haneman"),
    (5, LIMIT, "mangan"),
)


def limit_name(multiple: int) -> str:
    """How a hand worth ``multiple`` limit hands (400 % each) is called: "yakuman", "2x yakuman", ..."""
    return "yakuman" if multiple == 1 else f"{multiple}x yakuman"


def basic_points(han: int, fu: int, counted_limit: bool = True, kiriage: bool = False) -> tuple[int, str | None]:
    """Basic points and limit name for a hand that is not a limit hand.

    ``counted_limit`` off caps 13+ han at 300 %; ``kiriage`` rounds 1920 (4 han 30 fu, 3 han 60 fu) to 2000.
    """
    if han < 5:  # the common case first: below the Limit unless the formula passes it
        base = fu << (han + 2)
        if base >= LIMIT or (kiriage and base == 1920):
            return LIMIT, "mangan"
        return base, None
    min_han, points, name = next(row for row in _HIGH if han >= row[0])
    if min_han == 13 and not counted_limit:
        return 3 * LIMIT, "sanbaiman"
    return points, name


def _round_up(points: int) -> int:
    return -(-points // 100) * 100


def payments(basic: int, dealer: bool, tsumo: bool) -> dict[str, int | None]:
    """What the losers pay for one win, each share rounded up to 100.

    Ron: the discarder pays 6x (dealer won) or 4x the basic points. Tsumo: a dealer gets 2x from each other
    player; a non-dealer gets 2x from the dealer and 1x from each of the other two.
    """
    if not tsumo:
        pay = _round_up(basic * (6 if dealer else 4))
        return {"discarder": pay, "dealer": None, "non_dealer": None, "total": pay}
    if dealer:
        each = _round_up(basic * 2)
        return {"discarder": None, "dealer": None, "non_dealer": each, "total": 3 * each}
    from_dealer = _round_up(basic * 2)
    each = _round_up(basic)
    return {"discarder": None, "dealer": from_dealer, "non_dealer": each, "total": from_dealer + 2 * each}
