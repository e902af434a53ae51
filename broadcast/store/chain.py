"""The hash chain and its signature: pure functions shared by the journal and the audit.

Each event's hash is SHA-256 over the previous hash and the event envelope's RFC 8785
(JCS) canonical JSON. The head is signed with an HMAC key kept outside Redis, so a
rewritten stream is detectable even by someone who can write to Redis.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

import rfc8785

GENESIS = "0" * 64
KEY_FILE = "journal.key"


def canonical(obj: object) -> bytes:
    """RFC 8785 canonical JSON bytes."""
    return rfc8785.dumps(obj)


def link(prev_hash: str, envelope: dict) -> str:
    """The hash of one event given the previous hash."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical(envelope)).hexdigest()


def sign_head(key: bytes, table: str, seq: int, head_hash: str) -> str:
    """HMAC-SHA256 over the table, the head sequence and the head hash."""
    return hmac.new(key, f"{table}:{seq}:{head_hash}".encode(), hashlib.sha256).hexdigest()


def load_or_create_key(data_dir: Path) -> bytes:
    """The journal's signing key under ``data_dir`` (mode 0600), created on first use."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / KEY_FILE
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    key = os.urandom(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key.hex() + "\n")
    return key


def load_key(data_dir: Path) -> bytes | None:
    """The signing key if it exists (the audit must not create one)."""
    path = data_dir / KEY_FILE
    return bytes.fromhex(path.read_text().strip()) if path.exists() else None
