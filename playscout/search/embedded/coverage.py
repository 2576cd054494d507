"""Recall predicted from the lists a search probes, without running the search: each query's
share of its exact top k that lies in the lists probed.

Why: tuning a channel walks a ladder of probe counts (and of filtered budgets), and measuring
recall at a step runs every tuning query through the IVF scan. For queries far from every
centroid the per-query rule probes thousands of lists, so at 1.76M rows of a wide mixture
each step of the far queries cost as much as scanning most of the rows 200 times, and the
whole tuning took 354 s of a 688 s build. Which lists a search probes depends only on the
query's centroid similarities (ann.py), and the lists holding its exact top k are known from
the ground truth the tuning computes anyway, so the recall a step would have is known from
one ranking of the lists per query.

It is the recall of a scan that finds every candidate in the probed lists; the served path
ranks candidates by their 8-bit codes first (OVERSAMPLE of them per hit), so it can only lose
hits the prediction counts. The prediction is therefore an upper bound, used to walk the
ladder, and recall.py measures the chosen step on the served path before taking it.
"""

from __future__ import annotations

import numpy as np

from playscout.search.embedded.ann import IvfIndex


def list_ranks(ivf: IvfIndex, queries: np.ndarray) -> np.ndarray:
    """(queries, nlist): each list's rank for each query, 0 for the list whose centroid is
    most similar, in the order the quantizer gives the probed lists (ann.py)."""
    queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
    _, order = ivf.ivf.quantizer.search(queries, ivf.nlist)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(ivf.nlist)[None, :], axis=1)
    return ranks


def covered_recall(
    ivf: IvfIndex, ranks: np.ndarray, top: np.ndarray, probed: np.ndarray
) -> np.ndarray:
    """Each query's share of its exact top rows `top` (queries, k) held by the lists it
    probes: `probed` is either one count a query (the nearest lists) or the lists themselves,
    nearest first and padded with -1 as faiss takes them. A filtered search skips lists
    holding no selected row, which hold none of its top rows either, so every list ranked up
    to the last one probed counts."""
    if probed.ndim == 1:
        reach = probed.astype(np.int64)
    else:
        valid = probed >= 0
        last = np.where(valid, np.take_along_axis(ranks, np.maximum(probed, 0), axis=1), -1)
        reach = last.max(axis=1) + 1
    top_ranks = np.take_along_axis(ranks, ivf.list_of_row[np.maximum(top, 0)], axis=1)
    held = (top_ranks < reach[:, None]) & (top >= 0)
    return held.sum(axis=1) / top.shape[1]
