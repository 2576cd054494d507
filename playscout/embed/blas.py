"""One BLAS thread for a stretch of numpy work, through one threadpoolctl controller.

Why one controller: building one lists the process's loaded libraries (0.1 ms a call here,
against 0.007 ms to limit through a kept one), and both users sit on a query's path: the
numpy MiniLM forward pass (bert_numpy.py) and small exact scans (search/embedded/vectors.py).
The limit is process-wide while it lasts."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any


@functools.cache
def blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    with blas_controller().limit(limits=1, user_api="blas"):
        yield
