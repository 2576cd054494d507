"""The one small synthetic corpus and index the test packages share, and the helpers that
build it (tests/conftest.py builds it once per session; packages that need another corpus use
the same helpers with their own parameters).

The shared corpus: `generate_corpus(games=3, seed=1)`, which splits into one game per sport
(basketball, hockey, soccer), with 3 questions per sport (seed 1). The shared index covers
basketball only, with MiniLM document and caption vectors and no video vectors.

Shared means read-only: a test that must change files makes its own copy (`copy_corpus`).
`Fingerprint` lets the session fixtures check at teardown that no test wrote into them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playscout.corpus import Corpus
from playscout.corpus.models import ClipRecord
from playscout.search.embedded import EmbeddedBackend
from playscout.tools import ToolContext

GAMES = 3  # one game per sport
SEED = 1
QUESTIONS_PER_SPORT = 3
SPORT = "basketball"  # the sport the shared index covers


def make_corpus(
    root: Path,
    games: int = GAMES,
    seed: int = SEED,
    sports: list[str] | None = None,
    questions: int = QUESTIONS_PER_SPORT,
) -> Path:
    """A synthetic corpus at `root` (one worker: deterministic and kind to a 2-core machine);
    `questions` questions per sport (seed `seed`), none when 0."""
    from playscout.synthetic import generate_corpus, generate_questions

    kwargs: dict[str, Any] = {"sports": sports} if sports else {}
    generate_corpus(root, games=games, seed=seed, workers=1, **kwargs)
    if questions:
        generate_questions(root, per_sport=questions, seed=seed)
    return root


def index_corpus(
    corpus_dir: Path,
    index_dir: Path,
    sports: list[str] | None = None,
    **options: Any,
) -> EmbeddedBackend:
    """Build an embedded index of `corpus_dir` at `index_dir` and open it. `options` go to
    build_from_corpus (default: MiniLM document and caption vectors)."""
    from playscout.indexer.build import build_from_corpus
    from playscout.search import open_backend

    build_from_corpus(corpus_dir, index_dir, sports=sports, **options)
    backend = open_backend(index_dir)
    assert isinstance(backend, EmbeddedBackend)
    return backend


def copy_corpus(corpus: Corpus | Path, dest: Path) -> Corpus:
    """A private, writable copy of a (shared) corpus."""
    src = corpus.root if isinstance(corpus, Corpus) else Path(corpus)
    shutil.copytree(src, dest)
    return Corpus(dest)


def copy_with_video(
    corpus: Corpus | Path, dest: Path, clips: int, sport: str = SPORT
) -> tuple[Corpus, list[ClipRecord]]:
    """A private copy of a corpus with a real 1 s mp4 at the paths of its first `clips` clips
    of `sport` (the synthetic corpus lists clip files it does not have)."""
    from tests.media.videos import write_video

    copy = copy_corpus(corpus, dest)
    chosen = list(copy.iter_clips(sport))[:clips]
    template = dest.with_name(dest.name + "-template.mp4")
    write_video(template, seconds=1.0, fps=25, size=(640, 360))
    for clip in chosen:
        path = copy.clip_path(sport, clip.clip_id)
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, path)
    return copy, chosen


@dataclass(frozen=True)
class SynthIndex:
    """The shared corpus and its index. Read-only: copy the corpus before changing it."""

    corpus_dir: Path
    index_dir: Path
    backend: EmbeddedBackend
    sport: str = SPORT

    @property
    def corpus(self) -> Corpus:
        return Corpus(self.corpus_dir)

    def ctx(self, mode: str = "oracle", **fields: Any) -> ToolContext:
        return ToolContext(backend=self.backend, sport=self.sport, mode=mode, **fields)  # type: ignore[arg-type]

    def questions(self) -> list[Any]:
        """The sport's generated questions that have a gold answer."""
        return [q for q in self.corpus.questions(self.sport) if q.gold]

    @property
    def question(self) -> str:
        """The sport's first generated question."""
        return str(self.corpus.questions(self.sport)[0].question)


class Fingerprint:
    """Size and mtime of every file under some roots: taken when a shared fixture is built and
    checked when the session ends, so a test that writes into shared data is caught."""

    def __init__(self, *roots: Path) -> None:
        self.roots = roots
        self.files = self._take()

    def _take(self) -> dict[str, tuple[int, int]]:
        out = {}
        for root in self.roots:
            for p in sorted(root.rglob("*")):
                if p.is_file():
                    st = p.stat()
                    out[str(p)] = (st.st_size, st.st_mtime_ns)
        return out

    def changes(self) -> list[str]:
        now = self._take()
        return sorted(k for k in self.files.keys() | now.keys() if self.files.get(k) != now.get(k))

    def check(self, what: str) -> None:
        changed = self.changes()
        assert not changed, (
            f"a test wrote into the shared {what} (make a copy instead): {changed[:10]}"
        )


def workflow_calls(question: str) -> list[str]:
    """The tools the workflow baseline calls for a T9 question, in order: each of its facts
    searched and read (to find the game), then the game's clips searched and read."""
    from playscout.agent.policies.route import split_framed

    facts = len(split_framed(question)[0])
    return ["search_documents", "document_qa"] * facts + ["search_videos", "video_qa"]
