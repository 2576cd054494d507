"""Third-party log lines go through playscout's one stderr handler: quiet below WARNING by
default, shown with -v; a library's later basicConfig adds no second handler."""

from __future__ import annotations

import logging

import pytest

from playscout.cli.logs import configure_logging


@pytest.fixture
def clean_root():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    root.handlers = []
    yield root
    root.handlers, root.level = handlers, level


def _streams(root: logging.Logger) -> list[str]:
    """The root's handlers that write (pytest's capture handlers aside)."""
    names = [type(h).__name__ for h in root.handlers]
    return [n for n in names if not n.startswith("LogCapture")]


def test_info_lines_are_quiet_unless_verbose(clean_root, capsys) -> None:
    lib = logging.getLogger("pyscenedetect")
    old = lib.level
    lib.setLevel(logging.INFO)  # what PySceneDetect does on import
    try:
        configure_logging(False)
        logging.basicConfig(level=logging.INFO)  # another library's: adds nothing now
        assert _streams(clean_root) == ["_CliHandler"]
        lib.info("Detecting scenes...")
        lib.warning("odd frame rate")
        err = capsys.readouterr().err
        assert "Detecting scenes" not in err and "WARNING pyscenedetect: odd frame rate" in err
        configure_logging(True)
        assert _streams(clean_root) == ["_CliHandler"]
        lib.info("Detecting scenes...")
        assert "INFO pyscenedetect: Detecting scenes..." in capsys.readouterr().err
    finally:
        lib.setLevel(old)


def test_index_videos_names_the_share_placed_and_why_the_rest_is_outside() -> None:
    from playscout.cli.index import video_next_steps
    from playscout.indexer.video.pipeline import placement_line

    line = placement_line({"aligned": 18}, 20, 514)
    assert line.startswith("placed 18 of the 20 events inside the video's game time (90%)")
    assert "the other 494 of the 514 play-by-play events happen before or after" in line
    assert "ambiguous" in placement_line({"aligned": 5, "ambiguous": 2}, 7, 7)
    steps = video_next_steps("var/raw")  # type: ignore[arg-type]
    order = [steps.index(s) for s in ("add-documents", "corpus questions", "index build")]
    assert order == sorted(order)
