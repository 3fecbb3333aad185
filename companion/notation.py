"""The public views of a game: the state JSON of DESIGN.md and the one-line notation.

Neither ever shows a hidden die: the only faces in the state are the last reveal's, which
the whole table has seen. With ``lost_dice_visible`` off, the dice counts (each player's,
in play, lost) are left out of the table's state as well (``null``); the referee's view of a
replayed record keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.rounds import cups_in_turn
from companion.said import in_order

if TYPE_CHECKING:
    from companion.game import Game


def notation(game: Game) -> str:
    """One line for messages and logs: ``perudo r3 Ana:4 Ben:5* Caro:1 bid=5x3 palifico=Caro``.

    Each player is ``name:dice`` (``-`` once they left), ``*`` marks the player to act;
    then the standing bid, ``dir=ccw`` while a round is played anticlockwise, the palifico
    player, the passer whose pass stands (``pass=Ben``),
    a pending call (``call=dudo:Ben``) and the winner.
    """
    names, dice, turn = game._names, game._dice, game._turn
    parts = [f"{game.rules.preset} r{game.round}"]
    for seat, name in enumerate(names):
        count = "-" if seat in game._left else str(dice[seat])
        parts.append(f"{name}:{count}{'*' if seat == turn else ''}")
    if game._bid_f:
        parts.append(f"bid={game._bid_q}x{game._bid_f}")
    if game._direction == -1 and game.phase != "over":
        parts.append("dir=ccw")
    if game._palifico is not None:
        parts.append(f"palifico={names[game._palifico]}")
    if game._passer is not None:
        parts.append(f"pass={names[game._passer]}")
    if game._call is not None:
        kind = "dudo" if game._call.kind in ("dudo", "pass") else "calza"
        parts.append(f"call={kind}:{names[game._call.caller]}")
    if game._winner is not None:
        parts.append(f"winner={names[game._winner]}")
    return " ".join(parts)


def _entry(names: tuple[str, ...], entry: tuple[Any, ...]) -> dict[str, Any]:
    kind, seat = entry[0], entry[1]
    item: dict[str, Any] = {"action": kind, "player": names[seat]}
    if kind == "bid":
        item["quantity"], item["face"] = entry[2], entry[3]
    elif kind == "palifico":
        item["mode"] = entry[2]
    return item


def state(game: Game, *, referee: bool = False) -> dict[str, Any]:
    """The state JSON: rules, phase, round, players, dice counts, turn, bid, palifico,
    winner, last result, plus what a page needs (options, this round's bids, who may call).

    ``referee``: the dice counts are given even with ``lost_dice_visible`` off (the record
    replayed after the game, not the table's page).
    """
    rules, names = game.rules, game._names
    visible = rules.lost_dice_visible or referee
    call = game._call
    in_turn = None if call is None else cups_in_turn(rules, call, game._dice)
    seat_numbers = game.seats
    players = [
        {
            "name": name,
            "seat": seat_numbers[seat],
            "dice": game._dice[seat] if visible else None,
            "out": not game._dice[seat],
            "left": seat in game._left,
            "palifico_used": seat in game._palifico_used,
        }
        for seat, name in enumerate(names)
    ]
    bid = None
    if game._bid_f and game._bidder is not None:
        bid = {
            "player": names[game._bidder],
            "quantity": game._bid_q,
            "face": game._bid_f,
            "text": f"{game._bid_q}x{game._bid_f}",
        }
    result = game._last_result
    return {
        "rules": rules.preset,
        "options": rules.options(),
        "phase": game.phase,
        "round": game.round,
        "players": players,
        "dice_start": rules.dice * len(names),
        "dice_in_play": sum(game._dice) if visible else None,
        "dice_lost": game._dice_lost if visible else None,
        "dice_regained": game._dice_regained if visible else None,
        "dice_left_with_players": game._dice_left if visible else None,
        "turn": game.turn,
        "direction": "clockwise" if game._direction == 1 else "anticlockwise",
        "bid": bid,
        "bids": [_entry(names, e) for e in in_order(game._bids)],
        "aces_wild": game._wild,
        "palifico": None if game._palifico is None else names[game._palifico],
        "palifico_mode": game._palifico_mode,
        "can_call": game.can_call(),
        "exact_call_refused": game.exact_call_refused(),
        "call": None
        if call is None
        else {
            "call": call.kind,
            "caller": names[call.caller],
            "bidder": names[call.target],
            "cruzado": call.cruzado,
            # The boxed edition's partial reveal: whose cups come up, in turn (else null).
            "cups_in_turn": None if in_turn is None else [names[seat] for seat in in_turn],
        },
        "expected_dice": game.expected_dice(),
        "colours": dict(game.header.get("colours", {})),
        "winner": game.winner,
        "last_result": result.to_dict(game) if result is not None else None,
        "notation": notation(game) if visible else None,
    }
