"""Rule "Hand-for-Hand Play": 2. players eliminated during the same hand at different tables
tie for that place finish; 3. at the same table, the player who began the hand with the
highest chip count receives the higher place finish."""

from broadcast.engine.field_places import Bust, hand_for_hand_places


def test_players_eliminated_in_the_same_hand_at_different_tables_tie():
    # 20 left; one bust at each table; each table journaled 20th (neither knew of the other).
    places = hand_for_hand_places([Bust("t3", "p-a", 20), Bust("t7", "p-b", 20)])
    assert places == {("t3", "p-a"): (19, 2), ("t7", "p-b"): (19, 2)}


def test_at_the_same_table_the_bigger_starting_stack_still_places_higher():
    # Table 7 busts two (its journal: 19th the bigger stack, 20th the smaller); table 3 one.
    places = hand_for_hand_places([Bust("t7", "p-big", 19), Bust("t7", "p-small", 20), Bust("t3", "p-a", 20)])
    assert places[("t7", "p-big")] == places[("t3", "p-a")] == (18, 2)
    assert places[("t7", "p-small")] == (20, 1)


def test_places_already_counted_across_tables_come_out_the_same():
    # Table 3 had heard of table 7's bust (19th) before its own: the field's places hold.
    places = hand_for_hand_places([Bust("t7", "p-b", 20), Bust("t3", "p-a", 19)])
    assert set(places.values()) == {(19, 2)}


def test_one_bust_is_its_own_place():
    assert hand_for_hand_places([Bust("t3", "p-a", 12)]) == {("t3", "p-a"): (12, 1)}
    assert hand_for_hand_places([]) == {}
