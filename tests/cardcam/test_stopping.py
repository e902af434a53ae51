"""Stopping a show: Ctrl-C and SIGTERM (``docker stop``) stop every process cleanly.

Two ways a stop was lost before:
- a show started in the background by a script (``tvtable demo &``) inherits SIGINT
  ignored, and Python's asyncio leaves it so: ``kill -INT`` did nothing;
- a show that reads its own cameras ran each camera group's worker in its event loop, and
  the worker took SIGTERM for itself: ``docker stop`` stopped the cameras, not the show.
"""
from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import show_toml
from tests.showproc import TVTABLE, free_port


def _ignoring_sigint() -> None:
    """What a non-interactive shell does to a command it starts with ``&``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _running(cmd: list[str], log: Path) -> Iterator[subprocess.Popen]:
    """The command, started as a script's ``&`` would; killed afterwards if still running."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=_ignoring_sigint)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _wait_for_line(proc: subprocess.Popen, log: Path, text: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        assert proc.poll() is None, f"it exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
        assert time.monotonic() < deadline, f"no {text!r} within {timeout} s:\n{log.read_text(errors='replace')[-3000:]}"
        time.sleep(0.2)


def _stops_cleanly_on(how: signal.Signals, proc: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    """Send the signal: the process says it is stopping, stops within ``timeout`` with exit
    code 0, and its last line is the clean stop."""
    proc.send_signal(how)
    try:
        code = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running {timeout} s after {how.name}:\n{log.read_text(errors='replace')[-3000:]}")
    text = log.read_text(errors="replace")
    assert code == 0, text[-2000:]
    assert f"{'SIGTERM' if how == signal.SIGTERM else 'Ctrl-C'}: stopping the show" in text
    assert text.rstrip().splitlines()[-1].endswith("show stopped cleanly"), text[-2000:]
    assert "Traceback" not in text


def test_ctrl_c_stops_a_demo_started_in_the_background_by_a_script(tmp_path):
    log = tmp_path / "demo.log"
    with _running([TVTABLE, "demo", "--seconds", "600", "--port", str(free_port()),
                   "--data-dir", str(tmp_path / "var")], log) as proc:
        _wait_for_line(proc, log, "by demo dealer", 60)  # dealing
        _stops_cleanly_on(signal.SIGINT, proc, log)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_show_reading_its_own_cameras_stops_on_a_signal_not_just_its_cameras(tmp_path, model, how):
    """``tvtable serve`` with [[cameras]]: the camera group runs in the show's process; the
    signal stops the whole show (its cameras first, then Redis), and says so."""
    from tests.cardcam.test_worker import write_folder

    folder = write_folder(tmp_path / "s4", ("Th", "6d"), seeds=range(2))
    config = tmp_path / "show.toml"
    config.write_text(show_toml("tv", delay=1) + "\n".join([
        "[cardcam]", "k = 2", "n = 3", "[[cameras]]", 'id = "s4"', f'source = "folder:{folder}"', "seat = 4",
        "fps = 5", "loop = true", ""]))
    log = tmp_path / "serve.log"
    with _running([TVTABLE, "serve", "--config", str(config), "--port", str(free_port()),
                   "--data-dir", str(tmp_path / "var"), "--jobs", "1"], log) as proc:
        _wait_for_line(proc, log, "reading 1 camera(s)", 120)  # the group's worker is up and reading
        time.sleep(1.0)  # and past its start-up
        _stops_cleanly_on(how, proc, log)
