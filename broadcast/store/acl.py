"""Least privilege on a shared Redis: one ACL user per process kind, from the key names.

A show on several machines runs three kinds of process against one Redis:

* ``core``: the only journal writer (cores, releasers, inbox followers) and the crew's
  web server (dealer console, secure card room, graphics controls, frame ingest). It owns
  every ``tvt:`` key.
* ``overlay``: on-air pages, the commentary desk and ``/watch`` for many viewers. It may
  only *read* each table's delayed ``public`` and ``commentary`` streams and the live
  ``control`` stream, so a compromised overlay server cannot read a live card. The writes
  it needs hold no card: the commentators' private notes (``tvt:notes:*``) and the list of
  open on-air pages (``tvt:{T}:control:pages``).
* ``cardcam``: capture PCs. They may only *add* to each table's inbox (they cannot read
  it back: other cameras' reads are there) and write their own ``cardcam`` keys.

``acl_file(show, passwords)`` writes a Redis ACL file (``aclfile`` in redis.conf) with
exact per-table key patterns, so a table added later needs a new file. The ``default``
user is switched off. ``service_url(url, kind, show, environ)`` gives a process kind its
own user, password and TLS files in a redis-py URL.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from ..settings import SERVICE_KINDS, ConfigError, Show
from . import keys

DEFAULT_USERS = {"core": "tvt-core", "overlay": "tvt-overlay", "cardcam": "tvt-cardcam"}

# Commands each kind may run (beyond those a key pattern allows on which keys). Every kind
# may say who it is, check the link and read Redis TIME (the release clock).
_CONNECT = "+auth +hello +ping +select +time +readonly"
COMMANDS = {
    # The core does everything but the server admin's work; it reads INFO persistence and
    # CONFIG GET appendfsync to refuse a Redis that could lose acknowledged events.
    "core": "+@all -@dangerous +info +config|get +script|load +script|exists",
    "overlay": f"-@all {_CONNECT} +xread +xrange +xrevrange +xlen +hget +hgetall +hset +hdel +hexists +hlen",
    "cardcam": f"-@all {_CONNECT} +xadd +xread +hset +hdel +set +get +del +exists +pexpire",
}


def password_env(kind: str) -> str:
    """The environment variable that holds a process kind's Redis password."""
    return f"TVTABLE_REDIS_PASSWORD_{kind.upper()}"


def user_name(show: Show, kind: str) -> str:
    """The ACL user of a process kind: the show's ``[redis] <kind>_user``, else ``tvt-<kind>``."""
    return show.redis.user(kind) or DEFAULT_USERS[kind]


def key_patterns(show: Show, kind: str) -> list[str]:
    """The ACL key patterns of a process kind, written against ``broadcast.store.keys``."""
    tables = [t.id for t in show.tables]
    if kind == "core":
        return [f"~{keys.PREFIX}:*"]
    if kind == "overlay":
        readable = [name(t) for t in tables for name in (keys.public, keys.commentary, keys.control)]
        # On-air pages say hello on the control feed, so the graphics desk sees which are open
        # (broadcast/web/control.py pages_key: page ids and URLs, no card).
        pages = [f"~{keys.control(t)}:pages" for t in tables]
        return [f"%R~{k}" for k in readable] + pages + [f"~{keys.PREFIX}:notes:*"]
    if kind == "cardcam":
        own = [f"~{keys.PREFIX}:{{{t}}}:cardcam:*" for t in tables] + [f"~{keys.PREFIX}:cardcam:*"]
        # Board cameras read what the board needs (no hole card), never the journal.
        return [f"%W~{keys.inbox(t)}" for t in tables] + [f"%R~{keys.board_need(t)}" for t in tables] + own
    raise ValueError(f"no process kind {kind!r}: kinds are {', '.join(SERVICE_KINDS)}")


def acl_line(show: Show, kind: str, password: str) -> str:
    """One ``user`` line of the ACL file; the password is stored only as its SHA-256."""
    digest = hashlib.sha256(password.encode()).hexdigest()
    parts = ["user", user_name(show, kind), "on", f"#{digest}", "resetkeys", "resetchannels",
             *key_patterns(show, kind), COMMANDS[kind]]
    return " ".join(parts)


def acl_file(show: Show, passwords: Mapping[str, str]) -> str:
    """The whole ACL file for a show: the default user off, then one user per kind."""
    # Redis refuses comments in an ACL file; regenerate it when a table is added (the key
    # patterns name each table).
    lines = ["user default off resetkeys resetchannels -@all"]
    lines += [acl_line(show, kind, passwords[kind]) for kind in SERVICE_KINDS]
    return "\n".join(lines) + "\n"


def passwords_from(environ: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(every kind's password, the ones made up here because the environment had none)."""
    passwords, made = {}, {}
    for kind in SERVICE_KINDS:
        value = environ.get(password_env(kind))
        if not value:
            value = made[kind] = secrets.token_urlsafe(24)
        passwords[kind] = value
    return passwords, made


def service_url(url: str, kind: str, show: Show, environ: Mapping[str, str]) -> str:
    """``url`` with the process kind's user and password and the show's TLS files.

    With no ``[redis]`` user for this kind and no password in the environment, the URL is
    used as it is (the embedded Redis, or a one-machine show). Raises ``ConfigError`` when a
    user is set but its password is missing.
    """
    user = show.redis.user(kind)
    password = environ.get(password_env(kind))
    if user is None and not password:
        return _with_tls(url, show)
    if not password:
        raise ConfigError(f"redis.{kind}_user", f"is set, but {password_env(kind)} (its password) is not in the environment")
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
        query.update(username=user or DEFAULT_USERS[kind], password=password)
        return _with_tls(urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), "")), show)
    host = parts.hostname or "localhost"
    netloc = f"{quote(user or DEFAULT_USERS[kind], safe='')}:{quote(password, safe='')}@{host}"
    if parts.port:
        netloc += f":{parts.port}"
    return _with_tls(urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), show)


def _with_tls(url: str, show: Show) -> str:
    """Add the show's CA and client certificate to a ``rediss://`` URL (redis-py reads them)."""
    if not url.startswith("rediss://"):
        return url
    extra = {name: value for name, value in (("ssl_ca_certs", show.redis.ca_file), ("ssl_certfile", show.redis.cert_file),
                                             ("ssl_keyfile", show.redis.key_file)) if value}
    if not extra:
        return url
    parts = urlsplit(url)
    query = "&".join(filter(None, [parts.query, urlencode(extra)]))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def redacted(url: str) -> str:
    """A Redis URL fit for a log line: the password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    if "password=" in parts.query:
        query = "&".join("password=***" if p.startswith("password=") else p for p in parts.query.split("&"))
        return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
    return url
