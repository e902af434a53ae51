"""A process that forks while numpy multiplies matrices in another thread must not freeze.

numpy's OpenBLAS pool has an at-fork handler that waits for its busy workers while the
forking thread holds the GIL: the embedded Redis (started with a ``preexec_fn``) and the
camera pool fork while the card reader trains or reads. Importing our packages pins one
BLAS thread per process (``broadcast/__init__.py``). Without it this froze the whole test
run until CI's time ran out.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import {package}  # must come first: it sets the BLAS threads before numpy loads
    import subprocess, threading
    import numpy as np

    stop = False

    def multiply():
        a = np.random.rand(256, 512).astype(np.float32)
        b = np.random.rand(512, 256).astype(np.float32)
        while not stop:
            a @ b

    threading.Thread(target=multiply, daemon=True).start()
    for _ in range(200):  # as EmbeddedRedis spawns: a preexec_fn makes CPython fork() for real
        subprocess.Popen(["true"], preexec_fn=lambda: None, close_fds=True, start_new_session=True).wait()
    stop = True
    print("forked 200 times")
""")


@pytest.mark.parametrize("package", ["broadcast", "cardcam"])
def test_forking_while_numpy_multiplies_does_not_freeze_the_process(package):
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    try:
        done = subprocess.run([sys.executable, "-c", CHILD.format(package=package)], env=env,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"importing {package} did not stop the fork deadlock: the process froze")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "forked 200 times" in done.stdout
