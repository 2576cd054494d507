"""Retry policy shared by model clients: what may be retried, and how long to wait.

Only failures that can heal on their own are retried (connect errors, timeouts, 408, 429, 5xx,
a malformed 2xx body); a 400 such as a context overflow never will (reference defect 12).
"""

from __future__ import annotations

import email.utils
import functools
import random
import time

from playscout import errors

RETRYABLE_STATUS = frozenset({408, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_s(
    attempt: int,
    base_s: float,
    max_s: float,
    retry_after_s: float | None = None,
    retry_after_cap_s: float = 60.0,
) -> float:
    """Exponential backoff with equal jitter (so concurrent callers spread out); a server's
    Retry-After wins when longer, up to `retry_after_cap_s` so a bad header cannot stall a run."""
    ceiling = min(max_s, base_s * 2 ** max(attempt - 1, 0))
    wait = ceiling / 2 + random.uniform(0, ceiling / 2)
    if retry_after_s is not None:
        wait = max(wait, min(retry_after_s, retry_after_cap_s))
    return wait


one_line = functools.partial(errors.one_line, limit=200, ellipsis="…")  # model error details
