"""What each action checks and does while a round is bid: bid, dudo, the exact call, pass,
the palifico declaration, undo and leave (the reveal is in :mod:`companion.rounds`).

Each ``check_*`` reads an action dict, raises MalformedAction for bad input and then
IllegalAction for what the rules forbid now, and returns ``(effect, args, record)``:
``Game.apply`` pushes its undo snapshot, keeps ``record`` and calls ``effect(*args)``.
The small predicates (``dudo_call``, ``exact_call_problem``, ``pass_problem``) also tell
the state who may call what.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion import bidding, rounds
from companion.announcement import Announcement
from companion.bid import bid_words, check_bid_fields
from companion.calls import EXACT_CALL_NAMES, Call, describe_call
from companion.errors import IllegalAction, MalformedAction, said_bid, shown, unknown_player
from companion.said import Said, in_order

if TYPE_CHECKING:
    from companion.game import Game

Checked = tuple[Callable[..., list[Announcement]], tuple[Any, ...], dict[str, Any]]


def player_seat(game: Game, action: Mapping[str, Any]) -> int:
    """The seat of the action's ``player``; MalformedAction if missing or unknown."""
    name = action.get("player")
    if name is None:
        raise MalformedAction(f"{action['action']} needs a 'player'")
    seat = game._seat.get(name) if isinstance(name, str) else None
    if seat is None:
        raise MalformedAction(unknown_player(name, game._seat))
    return seat


def check_in_game(game: Game, seat: int) -> None:
    """IllegalAction unless the game goes on and ``seat`` still has dice."""
    if game.phase == "over":
        raise IllegalAction(f"the game is over: {game.winner} won")
    if not game._dice[seat]:
        name = game._names[seat]
        if seat in game._left:
            raise IllegalAction(f"{name} has left the table")
        raise IllegalAction(f"{name} is out of the game")


def _check_bidding(game: Game, seat: int, what: str) -> None:
    check_in_game(game, seat)
    if game.phase != "bidding":
        raise IllegalAction(f"no {what} during the reveal: the dice must be shown first")


def not_turn(game: Game, seat: int) -> str:
    """``"not Ben's turn: Caro acts"``."""
    return f"not {game._names[seat]}'s turn: {game.turn} acts"


def locked_face(game: Game, seat: int) -> int:
    """The face ``seat`` must keep in a palifico round (0: free to change it)."""
    if game._palifico is None or not game._bid_f:
        return 0
    if game.rules.palifico_face_change == "one_die" and game._dice[seat] == 1:
        return 0
    return game._bid_f


# -- bid ---------------------------------------------------------------------------------


def check_bid(game: Game, action: Mapping[str, Any]) -> Checked:
    name, q, f = action.get("player"), action.get("quantity"), action.get("face")
    seat = game._seat.get(name) if type(name) is str else None
    # The common case in two tests (a known player, whole numbers, a face 1-6); anything
    # else takes the slow path that names what is wrong.
    if seat is None or type(q) is not int or type(f) is not int or not 1 <= f <= 6 or q < 1:
        seat = player_seat(game, action)
        if q is None or f is None:
            raise MalformedAction(f"bid needs a '{'quantity' if q is None else 'face'}'")
        q, f = check_bid_fields(q, f)
    if seat != game._turn or game.phase != "bidding":
        _check_bidding(game, seat, "bids")
        raise IllegalAction(not_turn(game, seat))
    if not game._bid_f:
        if f == 1:
            reason = bidding.opening_problem(
                game.rules,
                f,
                palifico_round=game._palifico is not None,
                opener_dice=game._dice[seat],
            )
            if reason:
                raise IllegalAction(f"illegal bid {said_bid(q, f)}: {reason}")
    else:
        reason = bidding.raise_problem(
            game.rules,
            game._bid_q,
            game._bid_f,
            q,
            f,
            wild=game._wild,
            locked_face=locked_face(game, seat),
        )
        if reason:
            raise IllegalAction(
                f"illegal bid {said_bid(q, f)} over {said_bid(game._bid_q, game._bid_f)}:"
                f" {reason}")
    record = {"action": "bid", "player": name, "quantity": q, "face": f}
    return do_bid, (game, seat, q, f), record


def do_bid(game: Game, seat: int, q: int, f: int) -> list[Announcement]:
    game._bid_q, game._bid_f, game._bidder, game._passer = q, f, seat, None
    game._bids = Said(game._bids, ("bid", seat, q, f))
    game._turn = game._next_active(seat, game._direction)
    name = game._names[seat]
    return [Announcement("bid", name, f"{name} bids {bid_words(q, f)}")]


# -- dudo and the exact call -------------------------------------------------------------


def dudo_call(game: Game, seat: int) -> Call | str:
    """The call a ``dudo`` by ``seat`` makes now (on the bid, or on a pass), or why not."""
    passer = game._passer
    if passer is not None:
        if seat != game._turn:
            why = f"after {game._names[passer]}'s pass only {game.turn} may call it"
            if game.rules.cruzado and game._bidder not in (None, seat):
                # The record's dudo right after a pass calls the pass (DESIGN.md).
                why += (f": a dudo now calls the pass, so no one doubts"
                        f" {game._names[game._bidder]}'s bid out of turn until the next bid")
            return why
        return Call("pass", seat, passer, 0, 0)
    bidder = game._bidder
    if bidder is None:
        return "no bid to doubt yet"
    if seat == bidder:
        return f"{game._names[seat]} may not doubt their own bid"
    if seat == game._turn:
        return Call("dudo", seat, bidder, game._bid_q, game._bid_f)
    if game.rules.cruzado:
        return Call("dudo", seat, bidder, game._bid_q, game._bid_f, cruzado=True)
    return not_turn(game, seat)


def check_dudo(game: Game, action: Mapping[str, Any]) -> Checked:
    seat = player_seat(game, action)
    _check_bidding(game, seat, "dudo")
    call = dudo_call(game, seat)
    if isinstance(call, str):
        raise IllegalAction(call)
    return do_call, (game, call), {"action": "dudo", "player": game._names[seat]}


def exact_call_problem(game: Game, seat: int) -> str:
    """Why ``seat`` may not make the table's exact call now ("" when they may)."""
    exact = game.rules.exact_call
    if exact == "none":
        return "no exact call at this table: its rules have none"
    call = EXACT_CALL_NAMES[exact].lower()
    bidder = game._bidder
    if game._passer is not None and seat == game._turn:
        # RULES.md: after a pass the next player raises or calls the pass; the others keep
        # the exact calls the table gives them on the standing bid.
        return f"after {game._names[game._passer]}'s pass only a raise or a call on the pass"
    if bidder is None:
        return f"no bid yet: {call} is called on a standing bid"
    if seat == bidder:
        return f"{game._names[seat]} may not call {call} on their own bid"
    if exact in ("spot_on", "jinto") and seat != game._turn:
        return f"only the next player may call {call}: {game.turn} acts"
    if exact == "exactomundo" and seat == game._turn:
        return f"{game._names[seat]} is next to act and may not call exactomundo"
    if exact == "spot_on":
        in_play, start = sum(game._dice), game.rules.dice * game._n
        if 2 * in_play <= start:
            # Where the table hides how many dice remain, so does the reason.
            left = f" ({in_play} of {start} left)" if game.rules.lost_dice_visible else ""
            return f"spot on needs more than half the starting dice in play{left}"
    return ""


def check_calza(game: Game, action: Mapping[str, Any]) -> Checked:
    seat = player_seat(game, action)
    _check_bidding(game, seat, "exact call")
    reason = exact_call_problem(game, seat)
    if reason:
        raise IllegalAction(reason)
    assert game._bidder is not None  # exact_call_problem checked there is a bid
    call = Call("calza", seat, game._bidder, game._bid_q, game._bid_f)
    return do_call, (game, call), {"action": "calza", "player": game._names[seat]}


def do_call(game: Game, call: Call) -> list[Announcement]:
    game.phase = "reveal"
    game._call = call
    game._turn = None
    game._passer = None
    kind = "calza" if call.kind == "calza" else "dudo"  # the record's action
    game._bids = Said(game._bids, (kind, call.caller))
    name = game._names[call.caller]
    said = [Announcement(kind, name, describe_call(game.rules, call, game._names))]
    if call.kind == "pass" and call.target in game._left:
        # A pass is settled on the passer's dice, and those left the table with them: the
        # call is void, as when the passer leaves after it. (A bid of a player who left is
        # called and settled as any other: RULES.md's round goes on.)
        said += rounds.void_call(game, call, call.target)
    return said


# -- pass --------------------------------------------------------------------------------


def pass_problem(game: Game, seat: int) -> str:
    """Why ``seat`` may not pass now ("" when they may)."""
    if not game.rules.pass_:
        return "no pass at this table: its rules have none"
    if seat != game._turn:
        return not_turn(game, seat)
    # RULES.md: "a player may pass instead of bidding": the round's opener too. The next
    # player then opens the bidding or calls the pass.
    if game._passer is not None:
        return "two passes in a row are not allowed"
    if seat in game._passed:
        return f"{game._names[seat]} has already passed this round"
    return ""


def check_pass(game: Game, action: Mapping[str, Any]) -> Checked:
    seat = player_seat(game, action)
    _check_bidding(game, seat, "pass")
    reason = pass_problem(game, seat)
    if reason:
        raise IllegalAction(reason)
    return do_pass, (game, seat), {"action": "pass", "player": game._names[seat]}


def do_pass(game: Game, seat: int) -> list[Announcement]:
    game._passer = seat
    game._passed = game._passed | {seat}
    game._bids = Said(game._bids, ("pass", seat))
    game._turn = game._next_active(seat, game._direction)
    name = game._names[seat]
    return [Announcement("pass", name, f"{name} passes")]


# -- the palifico declaration ------------------------------------------------------------


def check_palifico(game: Game, action: Mapping[str, Any]) -> Checked:
    seat = player_seat(game, action)
    mode = action.get("mode")
    if mode is None:
        raise MalformedAction("palifico needs a 'mode' (open or closed)")
    if mode not in ("open", "closed"):
        raise MalformedAction(f"palifico mode {shown(mode)} (modes: open, closed)")
    _check_bidding(game, seat, "palifico declaration")
    name = game._names[seat]
    if not game.rules.palifico_choice:
        raise IllegalAction("no open or closed palifico at this table: its rules have none")
    if game._palifico is None:
        raise IllegalAction("this round is not a palifico round")
    if seat != game._palifico:
        raise IllegalAction(f"only {game._names[game._palifico]} declares this palifico round")
    if any(entry[0] == "palifico" for entry in in_order(game._bids)):
        raise IllegalAction(f"{name} has already declared the round {game._palifico_mode}")
    if game._bid_f:
        raise IllegalAction("too late: the palifico round's first bid is made")
    record = {"action": "palifico", "player": name, "mode": mode}
    return do_palifico, (game, seat, mode), record


def do_palifico(game: Game, seat: int, mode: str) -> list[Announcement]:
    game._palifico_mode = mode
    game._bids = Said(game._bids, ("palifico", seat, mode))
    name = game._names[seat]
    how = "open: each sees the others' dice, not their own" if mode == "open" else "closed"
    return [Announcement("palifico_choice", name, f"{name} plays the palifico round {how}")]


# -- reveal, undo, leave -----------------------------------------------------------------


def check_reveal(game: Game, action: Mapping[str, Any]) -> Checked:
    shown = rounds.parse_reveal(action, game._seat, game._names)
    if game.phase == "over":
        raise IllegalAction(f"the game is over: {game.winner} won")
    if game.phase != "reveal" or game._call is None:
        raise IllegalAction("no call to reveal: the round is still bidding")
    for entry in shown.corrected:
        name = entry.get("player")
        if name is not None and not game._dice[game._seat[name]]:
            raise MalformedAction(f"reveal: a die of {name}'s corrected, but {name} has no dice"
                                  " in play")
    in_turn = rounds.cups_in_turn(game.rules, game._call, game._dice)
    counted = rounds.check_counts(
        shown, game._call, game._dice, game._names, in_turn=in_turn, wild=game._wild,
        every=rounds.every_cup(game.rules, game._call) or "", left=game._left,
    )
    return rounds.apply_reveal, (game, shown, counted), shown.record


def check_undo(game: Game, action: Mapping[str, Any]) -> Checked:
    if not game._history:
        if game.actions:  # each action so far taken back by an undo of its own
            raise IllegalAction("nothing to undo: every action so far is undone already")
        raise IllegalAction("nothing to undo: no action yet")
    return do_undo, (game,), {"action": "undo"}


def do_undo(game: Game) -> list[Announcement]:
    ended_round, over, won = game.round, game.phase == "over", game.winner
    call, names = game._call, game._names
    snapshot, undone = game._history.pop()
    game._restore(snapshot)
    if game.round < ended_round or over and game.phase == "reveal":
        # The end of this round taken back, its dice shown (not a game won as a player left
        # in the bidding, the cups still down: before, session 92's audit, the round's call
        # was then never photographed).
        game.reopened |= {game.round}
    player = undone.get("player")
    if call is None and undone["action"] == "dudo" and player in game._seat:
        # A call on a pass whose passer had left: void at once, it left no call standing.
        made = dudo_call(game, game._seat[player])
        call = made if isinstance(made, Call) else None
    said = undone_words(game, undone, call, names, won if over else None)
    return [Announcement("undo", player, f"Undone: {said}")]


def undone_words(game: Game, undone: Mapping[str, Any], call: Call | None,
                 names: Sequence[str], won: str | None) -> str:
    """The action taken back (``game`` as it was before it), in the history's words: ``Ben's
    dudo on Ana's five 3s``, ``Ben's call of Ana's pass``, ``Dan leaving the table``; ``call``
    is the call it made, ``won`` the winner it made."""
    kind, player = undone["action"], undone.get("player")
    if kind == "bid":
        return f"{player}'s bid of {bid_words(undone['quantity'], undone['face'])}"
    if kind == "reveal":  # which, and what it did
        return f"the reveal of round {game.round}" + (f" that won {won} the game" if won else "")
    if kind in ("dudo", "calza") and call is not None:
        target = names[call.target]
        if call.kind == "pass":
            return f"{player}'s call of {target}'s pass"
        bid = bid_words(call.quantity, call.face)
        if call.kind == "dudo":
            return f"{player}'s {'dudo cruzado' if call.cruzado else 'dudo'} on {target}'s {bid}"
        if game.rules.exact_call == "spot_on":
            return f"{player}'s call of {target}'s {bid} spot on"
        return f"{player}'s {EXACT_CALL_NAMES[game.rules.exact_call].lower()} on {target}'s {bid}"
    if kind == "pass":
        return f"{player}'s pass"
    if kind == "leave":
        return f"{player} leaving the table"
    if kind == "palifico":
        return f"{player} declaring the round {undone['mode']}"
    return kind + (f" by {player}" if player else "")


def check_leave(game: Game, action: Mapping[str, Any]) -> Checked:
    seat = player_seat(game, action)
    # A player knocked out may get up and go too (RULES.md forbids it nowhere): no die leaves
    # play, and another game of the table seats them no more (before, session 93's audit, it
    # was refused, and a record that said it stopped there).
    if game.phase == "over" or seat in game._left:
        check_in_game(game, seat)
    return rounds.apply_leave, (game, seat), {"action": "leave", "player": game._names[seat]}


# The keys each action's record may carry. An action with another key is checked by
# ``errors.check_keys`` first: a misspelt key is refused, any other left out of the record.
KEYS: dict[str, frozenset[str]] = {
    "bid": frozenset({"action", "player", "quantity", "face"}),
    "dudo": frozenset({"action", "player"}),
    "calza": frozenset({"action", "player"}),
    "pass": frozenset({"action", "player"}),
    "reveal": frozenset({"action", "dice", "faces", "corrected"}),
    "palifico": frozenset({"action", "player", "mode"}),
    "undo": frozenset({"action"}),
    "leave": frozenset({"action", "player"}),
}

CHECKS: dict[str, Callable[[Game, Mapping[str, Any]], Checked]] = {
    "bid": check_bid,
    "dudo": check_dudo,
    "calza": check_calza,
    "pass": check_pass,
    "reveal": check_reveal,
    "palifico": check_palifico,
    "undo": check_undo,
    "leave": check_leave,
}
