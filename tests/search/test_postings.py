"""Team and player filters resolve through inverted columns (columns.Postings): the rows they
keep must be exactly the rows whose list holds a wanted id, as the row-by-row scan (csr_any)
finds them, alone and combined with a game range, a row subset, and repeated or unknown ids."""

from __future__ import annotations

import numpy as np

from playscout.search.embedded.columns import Postings, csr_any, intersect, materialise
from playscout.search.embedded.vectors import RowRange


def _csr(rows: int, ids: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row holds 0-3 ids, some twice (a player listed twice in one clip)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 4, rows)
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    idx = rng.integers(0, ids, int(ptr[-1])).astype(np.int32)
    return ptr, idx


def test_postings_keep_the_rows_the_scan_keeps() -> None:
    n = 5_000
    ptr, idx = _csr(n, 40, 1)
    postings = Postings(ptr, idx)
    rng = np.random.default_rng(2)
    scopes = [None, RowRange(1_000, 1_237), np.sort(rng.choice(n, 700, replace=False))]
    cases = [np.asarray([3]), np.asarray([3, 17]), np.asarray([5, 5]), np.asarray([39, 99])]
    for values in [*cases, np.zeros(0, np.int32)]:
        got_all = postings.rows_with(values)
        assert np.all(np.diff(got_all) > 0)  # sorted, no row twice
        for scope in scopes:
            want = materialise(scope, n)[csr_any(ptr, idx, scope, values)]
            got = intersect(scope, got_all, n)
            np.testing.assert_array_equal(materialise(got, n), want)


def test_postings_of_an_empty_column() -> None:
    postings = Postings(np.zeros(4, np.int64), np.zeros(0, np.int32))
    assert len(postings.rows_with(np.asarray([0]))) == 0
