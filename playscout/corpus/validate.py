"""`playscout corpus validate`: every problem of a corpus, each with its file and field.

Uses the loader's own readers, so whatever validates here also loads; checks go on past the
first problem so a user sees the whole list at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playscout.corpus.errors import CorpusError, Problem
from playscout.corpus.loader import Corpus

MAX_CLIP_SECONDS = 120.0
SHOWN_ABSENT = 5  # absent clip files named in a warning
NO_VIDEO = (
    "a synthetic corpus has captions but no video: its clip files are not generated, so clips "
    "are searched by their ground-truth captions (--mode oracle) and video_qa reads captions; "
    "default mode needs video (README, 'From raw broadcast video')"
)
SYNTH_MANIFEST = "synth_manifest.json"  # written by `corpus synth` (synthetic/writer.py)


def unusable(path: Path) -> str | None:
    """Why a clip file that exists cannot be read as a video, or None: empty (a copy that
    failed, a placeholder) or unreadable (permissions). One stat and one access check, so a
    corpus of 1.76M clips validates in minutes."""
    try:
        if path.stat().st_size == 0:
            return "empty (0 bytes)"
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if not os.access(path, os.R_OK):
        return "unreadable (permission denied)"
    return None


@dataclass
class AbsentClips:
    """Clip files clip_paths.json lists that are not on disk, or are there but cannot be read
    (empty, unreadable): the corpus still searches and runs in oracle mode, but video_qa cannot
    look at those clips."""

    listed: int = 0
    absent: list[str] = field(default_factory=list)  # every absent path, relative to the root
    empty: list[str] = field(default_factory=list)  # present, 0 bytes
    unreadable: list[str] = field(default_factory=list)  # present, cannot be opened

    def warnings(self, sport: str) -> list[str]:
        kinds = (("absent", self.absent), ("empty (0 bytes)", self.empty),
                 ("unreadable", self.unreadable))  # fmt: skip
        out = []
        for what, paths in kinds:
            if paths:
                shown = ", ".join(paths[:SHOWN_ABSENT])
                more = ", ..." if len(paths) > SHOWN_ABSENT else ""
                out.append(
                    f"{sport}: {len(paths)} of {self.listed} clip files in clip_paths are {what} "
                    f"(video_qa cannot read them): {shown}{more}"
                )
        return out

    @property
    def usable(self) -> int:
        return self.listed - len(self.absent) - len(self.empty) - len(self.unreadable)


@dataclass
class ValidationReport:
    root: str
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    absent_clips: dict[str, AbsentClips] = field(default_factory=dict)
    synthetic: bool = False  # written by `corpus synth`

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def no_video(self) -> bool:
        """A synthetic corpus as generated: none of the clip files it lists exist. That is
        said once (NO_VIDEO), not as a warning per sport."""
        return self.synthetic and all(len(a.absent) == a.listed for a in self.absent_clips.values())

    @property
    def warnings(self) -> list[str]:
        if self.no_video:
            return []
        return [w for s, a in self.absent_clips.items() for w in a.warnings(s)]


def _collect(problems: list[Problem], fn: Callable[[], object]) -> object | None:
    try:
        return fn()
    except CorpusError as e:
        problems.extend(e.problems)
        return None


def _check_clips(
    corpus: Corpus, sport: str, game_id: str, problems: list[Problem], files: AbsentClips
) -> int:
    """The clip windows of a game; its clip_paths entries are counted into `files` (listed,
    and the paths absent from disk)."""
    clips = _collect(problems, lambda: corpus.clips_of_game(sport, game_id))
    path_problems: list[Problem] = []
    paths = _collect(path_problems, lambda: corpus.clip_paths(sport, game_id))
    problems.extend(p for p in path_problems if p not in problems)  # clips_of_game reads them too
    if not isinstance(clips, list):
        return 0
    file = f"clips_metadata of {sport} game {game_id}"
    seen: set[int] = set()
    for c in clips:
        if c.index in seen:
            problems.append(Problem(file, c.clip_id, "duplicate window index"))
        seen.add(c.index)
        if c.video_start < 0 or c.video_end <= c.video_start:
            problems.append(Problem(file, f"{c.clip_id}.video_window", "needs 0 <= start < end"))
        elif c.video_end - c.video_start > MAX_CLIP_SECONDS:
            problems.append(Problem(file, f"{c.clip_id}.video_window", "longer than 120 s"))
    if not isinstance(paths, dict):
        return len(clips)
    unknown = set(paths) - {c.clip_id for c in clips}
    if unknown:
        problems.append(
            Problem(
                f"clip_paths of {sport} game {game_id}",
                sorted(unknown)[0],
                f"{len(unknown)} clip ids have no clip window",
            )
        )
    files.listed += len(paths)
    for _, path in sorted(paths.items()):
        if not path.is_file():
            files.absent.append(corpus.rel(path))
        elif (why := unusable(path)) is not None:
            (files.empty if why.startswith("empty") else files.unreadable).append(corpus.rel(path))
    return len(clips)


def validate_corpus(
    root: Path | str, progress: Callable[[str, int, int], None] | None = None
) -> ValidationReport:
    report = ValidationReport(str(root))
    try:
        corpus = Corpus(root)
    except CorpusError as e:
        report.problems.extend(e.problems)
        return report
    report.synthetic = (corpus.root / SYNTH_MANIFEST).is_file()
    sports = corpus.sports()
    if not sports:
        report.problems.append(Problem("data/", "", "no data/{sport}/metadata.json found"))
    for sport in sports:
        games = _collect(report.problems, lambda s=sport: corpus.games(s))  # type: ignore[misc]
        if not isinstance(games, dict):
            continue
        n_clips = n_docs = 0
        files = report.absent_clips.setdefault(sport, AbsentClips())
        for i, game_id in enumerate(games):
            _collect(report.problems, lambda s=sport, g=game_id: corpus.game_info(s, g))  # type: ignore[misc]
            docs = _collect(report.problems, lambda s=sport, g=game_id: corpus.game_documents(s, g))  # type: ignore[misc]
            n_docs += len(docs) if isinstance(docs, list) else 0
            n_clips += _check_clips(corpus, sport, game_id, report.problems, files)
            if progress and (i % 50 == 0 or i == len(games) - 1):
                progress(sport, i + 1, len(games))
        season = _collect(report.problems, lambda s=sport: list(corpus.season_documents(s)))  # type: ignore[misc]
        n_docs += len(season) if isinstance(season, list) else 0
        questions = _collect(report.problems, lambda s=sport: corpus.questions(s))  # type: ignore[misc]
        if isinstance(questions, list):
            ids = [q.id for q in questions]
            if len(ids) != len(set(ids)):
                report.problems.append(
                    Problem(f"questions/{sport}.json", "id", "duplicate question ids")
                )
        report.counts[sport] = {
            "games": len(games),
            "clip_games": sum(1 for files in games.values() if files.clips_metadata),
            "clips": n_clips,
            # clip videos that exist and can be read (none: search and oracle mode only)
            "clip_files": files.usable,
            "documents": n_docs,
            "questions": len(questions) if isinstance(questions, list) else 0,
        }
    return report
