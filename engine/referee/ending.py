"""How a game ends and is settled: Mah Jongg settlements, wall games, a destroyed wall, time called, and the last
player standing (survivor payments at home, intact-hand points in a tournament).

A mixin of :class:`engine.referee.referee.Referee` (it uses the referee's seats, balances, profile and card),
kept apart from the turn-by-turn rules because it is where money and points move.
"""

from __future__ import annotations

from engine.referee import events as ev
from engine.referee.rulings import Ruling, seat_keys
from engine.referee.settle import settle_wall_game, transfer
from engine.referee.state import Rejected, Stage


class GameEnding:
    """Settlements and the end of a game; every amount goes through ``_settle`` into the running balances."""

    def _with_out_points(self, amounts: dict[int, int], winner: int | None) -> dict[int, int]:
        """Tournament: players who went out score the profile's dead / Mah Jongg in error points."""
        pts = self.profile.points
        if pts is None:
            return amounts
        for s, st in enumerate(self.seats):
            if s != winner and st.out is not None:
                amounts[s] += pts.mahjong_in_error if st.out == "mahjong_in_error" else pts.dead
        return amounts

    def _settle(self, t: float, amounts: dict[int, int], reason: str) -> Ruling:
        for s, v in amounts.items():
            self.balances[s] += v
        return Ruling("settlement", t, None, {"reason": reason, "payments": seat_keys(amounts),
                                              "balances": seat_keys(self.balances)})

    def _game_over(self, t: float, reason: str, winner: int | None) -> list[Ruling]:
        out = self._settle_challenges(t, winner)
        self.stage = Stage.OVER
        self.window = None
        out.append(Ruling("game_over", t, winner, {"reason": reason, "winner": winner}))
        nxt = (self.east + 1) % self.players
        if nxt == self.pivot:
            # The deal came back to the Pivot: she swaps chairs with the player on her right and deals.
            other = (self.pivot + 1) % self.players
            self.balances[self.pivot], self.balances[other] = self.balances[other], self.balances[self.pivot]
            out.append(Ruling("pivot_switch", t, self.pivot, {"seat": self.pivot, "with_seat": other}))
            self.pivot = nxt = other
        self.next_east = nxt
        out.append(Ruling("east_rotates", t, nxt, {"east": nxt}))
        return out

    def _settle_challenges(self, t: float, winner: int | None) -> list[Ruling]:
        """Home play, rules 004: a death challenge is settled when the hand ends. Upheld if the challenged player
        went out, or (unless she won) no card line can complete her exposures given every tile then visible;
        whoever was wrong, the challenger or the player who denied it, pays the other."""
        out: list[Ruling] = []
        pay = self.profile.payments
        for challenger, target in self.challenges:
            st = self.seats[target]
            upheld = st.out is not None or (target != winner and bool(st.exposures) and not self.card.lines_allowing(
                st.exposures, self.seen_by(target)))
            kind = "challenge_upheld" if upheld else "challenge_failed"
            out.append(Ruling(kind, t, target if upheld else challenger,
                              {"seat": target if upheld else challenger, "target": target, "challenger": challenger,
                               "at_hand_end": True}))
            if pay is not None:
                payer, payee = (target, challenger) if upheld else (challenger, target)
                amount = pay.erroneous_death_challenge * int(self.card.cheapest_value)
                out.append(self._settle(t, transfer(range(self.players), payer, payee, amount),
                                        "erroneous_death_challenge"))
        self.challenges = []
        return out

    def _on_wall_exhausted(self, e: ev.WallExhausted) -> list[Ruling]:
        if self.stage is not Stage.PLAY or not self.first_discard:
            raise Rejected("the wall can only run out during play")
        if self.award is not None:  # calls were settled just now, or earlier: the last discard is still in play
            raise Rejected("the last discard was called: the caller exposes it or declares Mah Jongg first")
        out = self._close_window(e.t, "wall_exhausted")
        out.append(Ruling("wall_game", e.t, None, {"wall": self.wall}))
        amounts = settle_wall_game(self.profile, range(self.players), self.live())
        out.append(self._settle(e.t, self._with_out_points(amounts, None), "wall_game"))
        return out + self._game_over(e.t, "wall_game", None)

    def _on_wall_destroyed(self, e: ev.WallDestroyed) -> list[Ruling]:
        """The game cannot go on. Home play: the destroyer pays each other live player (NMJL FAQ rule d)."""
        if self.stage is not Stage.PLAY:
            raise Rejected("no wall to destroy: the game is not in play")
        out = self._close_window(e.t, "wall_destroyed")
        if self.profile.payments is not None:
            amount = self.profile.payments.wall_destroyer * int(self.card.cheapest_value)
            amounts = {s: 0 for s in range(self.players)}
            for s in self.live():
                if s != e.seat:
                    amounts[s] += amount
                    amounts[e.seat] -= amount
            out.append(self._settle(e.t, amounts, "wall_destroyed"))
        return out + self._game_over(e.t, "wall_destroyed", None)

    def _on_time_called(self, e: ev.TimeCalled) -> list[Ruling]:
        """Tournament: a game not completed in the allotted time scores nothing for anyone."""
        if self.stage not in (Stage.CHARLESTON, Stage.PLAY):
            raise Rejected("no game in progress")
        return self._close_window(e.t, "time") + self._game_over(e.t, "time", None)

    def _last_survivor(self, t: float) -> list[Ruling]:
        """All but one player are out: survivor payments (home play) or the intact-hand points (tournament)."""
        live = self.live()
        survivor = live[0] if live else None
        out = self._close_window(t, "three_dead")
        out.append(Ruling("last_survivor", t, survivor, {"seat": survivor, "outs": [s for s, _ in self.outs]}))
        if survivor is None:
            return out + self._game_over(t, "all_dead", None)
        if self.profile.mode == "points":
            pts = self.profile.points
            assert pts is not None
            amounts = {s: (pts.throw_in_survivor if s == survivor else 0) for s in range(self.players)}
            out.append(self._settle(t, amounts, "last_survivor"))
            self.intact_hand = survivor
            return out + self._game_over(t, "last_survivor", None)
        errors = [s for s, how in self.outs if how == "mahjong_in_error"]
        last_seat, last_how = self.outs[-1]
        if last_how == "mahjong_in_error":
            due = {"payer": last_seat, "survivor": survivor, "basis": survivor}  # NMJL FAQ rule (b)
        elif errors:
            due = {"payer": errors[0], "survivor": survivor, "basis": errors[0]}  # rule (c)
        else:
            return out + self._game_over(t, "three_dead", None)  # rule (e): the survivor throws in, nobody is paid
        self.survivor_due = due
        self.stage = Stage.OVER
        out.append(Ruling("survivor_payment_due", t, due["payer"], dict(due)))
        return out + self._pay_survivor(t)

    def _pay_survivor(self, t: float) -> list[Ruling]:
        due = self.survivor_due
        if due is None:
            return []
        value = self.seats[due["basis"]].attempted_value
        if value is None:
            return [Ruling("hand_value_needed", t, due["basis"], {"seat": due["basis"]})]
        pay = self.profile.payments
        assert pay is not None
        self.survivor_due = None
        amounts = transfer(range(self.players), due["payer"], due["survivor"], pay.survivor * value)
        return [self._settle(t, amounts, "survivor_payment")] + self._game_over(t, "three_dead", None)

    def _on_attempted_hand(self, e: ev.AttemptedHand) -> list[Ruling]:
        if not isinstance(e.value, int) or isinstance(e.value, bool) or e.value <= 0:
            raise Rejected("a hand value is a positive whole number")
        self.seats[e.seat].attempted_value = e.value
        return self._pay_survivor(e.t) if self.survivor_due and self.survivor_due["basis"] == e.seat else []
