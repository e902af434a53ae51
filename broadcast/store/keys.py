"""Redis key names, in one place: the least-privilege ACLs are written against these."""

PREFIX = "tvt"


def journal(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:journal"


def head(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:head"


def commands(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:commands"


def inbox(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:inbox"


def inbox_cursor(table: str) -> str:
    """The id of the last inbox entry the core has ruled on (a restart reads on after it)."""
    return f"{PREFIX}:{{{table}}}:inbox:cursor"


def board_need(table: str) -> str:
    """JSON {hand, board, needs}: the board and how many board cards are due (no hole card).
    The core writes it; board cameras read it, and nothing else of the table."""
    return f"{PREFIX}:{{{table}}}:board:need"


def public(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:public"


def commentary(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:commentary"


def release_state(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:release"


def release_lock(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:release:lock"


def control(table: str) -> str:
    return f"{PREFIX}:{{{table}}}:control"


def penalty_register() -> str:
    """Hash: player id -> JSON {table, penalties, hands_left}, the field's penalty register.
    Penalties belong to the player's id: a table seating a player reads the record kept at
    the table (or on the day) before, and every table keeps its players' records current."""
    return f"{PREFIX}:field:penalties"


def audit() -> str:
    return f"{PREFIX}:audit"


def tables() -> str:
    return f"{PREFIX}:tables"


# -- the card reader's keys ------------------------------------------------------------------
# Secret (they hold live hole cards, as words or pixels): only the cardcam worker, the frame
# ingest and the secure card room touch them. The rest hold no card and may feed any live screen.


def seats_key(table: str) -> str:
    """Hash seat -> JSON: the camera's read of each seat (secret)."""
    return f"{PREFIX}:{{{table}}}:cardcam:seats"


def crops_key(table: str) -> str:
    """Hash seat -> JPEG: the latest frame crop of each seat (secret)."""
    return f"{PREFIX}:{{{table}}}:cardcam:crops"


def alerts_key(table: str) -> str:
    """Hash worker -> JSON list of its duplicate and impossible reads, with the card (secret).
    One field per worker, so camera groups of one table never overwrite each other."""
    return f"{PREFIX}:{{{table}}}:cardcam:alerts"


def resolved_key(table: str) -> str:
    """Hash alert id -> JSON {by, at, how}: alerts the card room resolved (no card)."""
    return f"{PREFIX}:{{{table}}}:cardcam:resolved"


def events_key(table: str) -> str:
    """Stream of "something changed" pointers for the card room (no card)."""
    return f"{PREFIX}:{{{table}}}:cardcam:events"


def lights_key(table: str) -> str:
    """Hash seat -> none/some/all: cards shown to the camera (no card; for live screens)."""
    return f"{PREFIX}:{{{table}}}:cardcam:lights"


def health_key() -> str:
    """Hash camera -> JSON {status, table, seats, since, reason}: camera health (no card)."""
    return f"{PREFIX}:cardcam:health"


def alive_key(camera: str) -> str:
    """Set (with a TTL) while a worker reads this push camera."""
    return f"{PREFIX}:cardcam:alive:{camera}"


def frames_key(camera: str) -> str:
    """Stream of pushed JPEG frames for one camera (secret: the pixels show hole cards)."""
    return f"{PREFIX}:cardcam:frames:{camera}"


def ingest_stats_key(camera: str) -> str:
    """Hash of counters for one pushed camera (received, bytes, dropped and rejected)."""
    return f"{PREFIX}:cardcam:ingest:{camera}"
