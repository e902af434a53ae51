"""Field data for the graphics and the 10% branding rule: typed in or imported from CSV."""

import pytest

from broadcast.compliance.errors import NotAllowed
from broadcast.engine.errors import BadCommand

from .helpers import Desk

CSV = """entries,1024
players_left,9
chips_in_play,"30,720,000"
prize_pool,2480000
payout,1,450000
payout,2,300000
payout,10-12,18500   # each
wearers,Acme Poker,31
"""


def test_field_data_is_typed_in_or_imported_from_csv():
    desk = Desk()
    with pytest.raises(NotAllowed):
        desk.do("field_data", role="rep", entries=100, players_left=9)
    with pytest.raises(BadCommand) as err:
        desk.do("field_data", role="td", entries=100, players_left=101)
    assert err.value.field == "players_left"
    desk.do("field_data", role="td", entries=100, players_left=9, chips_in_play=3_000_000,
            payouts=[{"first": 1, "amount": 50_000}, {"first": 2, "last": 3, "amount": 20_000}])
    field = desk.state.field
    assert field.average_stack == 333_333 and field.payout(3) == 20_000 and field.payout(4) is None
    with pytest.raises(BadCommand) as err:
        desk.do("field_data", role="td", csv="entries,100\nplayers_left,nine")
    assert err.value.field == "csv" and err.value.reason.startswith("line 2")
    desk.do("field_data", role="td", csv=CSV)
    field = desk.state.field
    assert (field.entries, field.players_left, field.average_stack) == (1024, 9, 3_413_333)
    assert field.payout(11) == 18_500 and field.wearers_of("acme poker") == 31
    assert field.share_of_chips(3_072_000) == pytest.approx(0.1)
    with pytest.raises(BadCommand) as err:
        desk.do("field_data", role="td", csv="entries,10\nplayers_left,9\nprize_pool,100\npayout,1,200")
    assert err.value.field == "payouts"
