"""Drive the pure core with plain values, the way the dealer console does."""

from broadcast.engine.commands import parse_command
from broadcast.engine.events import BlindLevel, SeatedPlayer, TableOpened
from broadcast.engine.table import TableState, apply, decide


def table(stacks=(20000, 20000, 20000), *, levels=((200, 400, 400),), game="nlhe", seats=None) -> TableState:
    seats = seats or list(range(1, len(stacks) + 1))
    opened = TableOpened(
        table="tv",
        game=game,
        seats=tuple(SeatedPlayer(seat, f"p{seat}", f"Player {seat}", "GB", stack) for seat, stack in zip(seats, stacks)),
        levels=tuple(BlindLevel(sb, bb, ante, 20) for sb, bb, ante in levels),
    )
    return apply(TableState(), opened)


def run(state: TableState, *commands: dict) -> TableState:
    """Decide and apply each command; returns the final state (events kept on .log)."""
    for command in commands:
        for event in decide(state, parse_command(command, hole_card_count=state.hole_card_count)):
            state = apply(state, event)
    return state


def events(state: TableState, command: dict):
    return decide(state, parse_command(command, hole_card_count=state.hole_card_count))
