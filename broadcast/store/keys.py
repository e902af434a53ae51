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


def audit() -> str:
    return f"{PREFIX}:audit"


def tables() -> str:
    return f"{PREFIX}:tables"
