"""TV Table: the feature table of a live poker tournament, delayed and compliant, on air."""

import os

# numpy's OpenBLAS thread pool deadlocks a fork() made while another thread multiplies
# matrices: its at-fork handler waits for the busy pool while the forking thread holds the
# GIL, and the whole process freezes. We fork (the embedded Redis, the camera workers' pool)
# while the card reader trains or reads, so each process keeps one BLAS thread; the cores
# are shared out by processes instead. Set before numpy loads; an operator's value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
