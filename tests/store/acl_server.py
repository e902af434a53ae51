"""A real redis-server with the show's ACL file, over TLS, as on a show with several machines.

``AclRedis(tmp_path, show).start()`` makes a throwaway CA and server certificate with
``openssl``, writes the ACL file with ``broadcast.store.acl.acl_file``, and runs
``redis-server`` with TLS only (no plain port), AOF on and ``appendfsync always``.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis

from broadcast.settings import SERVICE_KINDS
from broadcast.store.acl import acl_file, password_env
from tests.conftest import free_port

REDIS_SERVER = shutil.which("redis-server")


def make_certs(where: Path) -> dict[str, Path]:
    """A CA, and a server certificate for 127.0.0.1 and localhost signed by it."""
    where.mkdir(parents=True, exist_ok=True)
    run = lambda *args: subprocess.run(["openssl", *args], cwd=where, check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
        "-subj", "/CN=TV Table test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "redis.key", "-out", "redis.csr", "-subj", "/CN=localhost")
    (where / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", "redis.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "redis.crt",
        "-days", "1", "-extfile", "san.ext")
    return {"ca": where / "ca.crt", "cert": where / "redis.crt", "key": where / "redis.key"}


class AclRedis:
    """redis-server under the show's ACL file, TLS only; ``stop()`` when done."""

    def __init__(self, tmp_path: Path, show) -> None:
        if REDIS_SERVER is None or shutil.which("openssl") is None:
            pytest.fail("redis-server and openssl are needed (apt-get install redis-server openssl)")
        self.dir = tmp_path / "acl-redis"
        self.certs = make_certs(self.dir / "tls")
        self.passwords = {kind: secrets.token_urlsafe(16) for kind in SERVICE_KINDS}
        self.acl = self.dir / "users.acl"
        self.acl.write_text(acl_file(show, self.passwords))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"rediss://127.0.0.1:{self.port}/0"

    @property
    def environ(self) -> dict[str, str]:
        """Every kind's password, as the services read them."""
        return {password_env(kind): value for kind, value in self.passwords.items()}

    def client(self, user: str | None, password: str | None) -> redis.Redis:
        """A plain (blocking) client as ``user``; None for no credentials at all."""
        return redis.Redis(host="127.0.0.1", port=self.port, username=user, password=password, ssl=True,
                           ssl_ca_certs=str(self.certs["ca"]), socket_timeout=5)

    def start(self) -> "AclRedis":
        c = self.certs
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", "0", "--tls-port", str(self.port), "--bind", "127.0.0.1",
             "--tls-cert-file", str(c["cert"]), "--tls-key-file", str(c["key"]), "--tls-ca-cert-file", str(c["ca"]),
             "--tls-auth-clients", "no", "--aclfile", str(self.acl), "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
            stdout=open(self.dir / "redis.log", "wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                with self.client("tvt-core", self.passwords["core"]) as probe:
                    probe.ping()
                return self
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("redis-server did not start:\n" + (self.dir / "redis.log").read_text()[-2000:])
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def tls_show_toml(base: str, certs: dict[str, Path], url: str) -> str:
    """A show file on this Redis: ``rediss://`` and its CA in ``[redis]``, one user per kind."""
    return base.replace("[show]\n", f'[show]\nredis_url = "{url}"\n', 1) + "\n".join([
        "[redis]", f'ca_file = "{certs["ca"]}"', 'core_user = "tvt-core"', 'overlay_user = "tvt-overlay"',
        'cardcam_user = "tvt-cardcam"', ""])
