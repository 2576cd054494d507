"""Clip windows: 10-15 s, snapped to shot cuts, tiling the whole video."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playscout.indexer.video.windows import plan_windows


def test_snaps_to_the_cut_nearest_the_target() -> None:
    windows = plan_windows(60.0, [11.0, 13.5, 26.2, 40.0])
    assert windows[0] == (0.0, 11.0)  # 11.0 is 1 s from 12, 13.5 is 1.5 s away
    assert windows[1] == (11.0, 23.0)  # 26.2 is 15.2 s away (over the max): target length
    assert windows[2] == (23.0, 35.0)  # no cut in [33, 38]


def test_without_cuts_windows_are_the_target_length() -> None:
    windows = plan_windows(48.0, [])
    assert [round(b - a, 3) for a, b in windows] == [12.0, 12.0, 12.0, 12.0]


def test_no_runt_at_the_end() -> None:
    windows = plan_windows(37.0, [])  # 12 + 12 would leave 13; 12 + 25 splits 12.5/12.5
    lengths = [b - a for a, b in windows]
    assert min(lengths) >= 10.0 and max(lengths) <= 15.0


def test_bad_lengths_are_refused() -> None:
    with pytest.raises(ValueError):
        plan_windows(30.0, [], min_s=12, target_s=10, max_s=15)


@given(
    st.floats(min_value=20.0, max_value=3000.0),
    st.lists(st.floats(min_value=0.0, max_value=3000.0), max_size=200),
)
def test_windows_tile_the_video_within_bounds(duration: float, cuts: list[float]) -> None:
    windows = plan_windows(duration, cuts)
    assert windows[0][0] == 0.0 and windows[-1][1] == pytest.approx(duration, abs=1e-3)
    for (_, b), (c, _) in itertools.pairwise(windows):
        assert b == c  # contiguous
    for a, b in windows[:-1]:
        assert 7.5 - 1e-6 <= b - a <= 15.0 + 1e-6
    inside = [c for c in cuts if 0 < c < duration]
    for a, b in windows:
        if duration - a <= 30.0:
            break  # the last two windows may be balanced instead of snapped
        snapped = [c for c in inside if a + 10.0 <= c <= a + 15.0]
        if snapped:
            assert min(abs(b - c) for c in snapped) < 2e-3
        else:
            assert b - a == pytest.approx(12.0, abs=2e-3)
