"""TV-table compliance: the pure rules of the feature table, one module per idea.

Nothing here touches a clock, a random source, a socket or a hole card. Time arrives as
integer milliseconds in each command; a random draw arrives as its result. The table's
state arrives as ``TableFacts`` (``facts.py``), which carries no hole card.

    devices.py     surrender ledger, the go-live gate, a device found during play
    camera.py      cards to the camera, "playing blind", HALT PLAY, refusals, camera checks
    conduct.py     violations a rep logs, break escorts, deal talk at the final table
    branding.py    logo checks at every seating, company limits, the sponsor badge
    clock.py       "Calling for Clock" and the level clock (breaks, hand-for-hand, on air)
    field.py       field data the TD types in or imports (entries, prize pool, payouts)
    violations.py  violations -> the engine's penalty ledger (the ladder is not repeated here)
    commands.py    what reps, the TD, the dealer and the camera ask for; ``parse_command``
    events.py      what happened; registry and ``event_from_dict``
    state.py       ``ComplianceState``, ``decide``, ``apply``, ``replay`` and the hooks the core calls
    audit.py       every rep and TD decision: who, when, why; CSV export
    dashboard.py   the rep's view (never a hole card)
"""
