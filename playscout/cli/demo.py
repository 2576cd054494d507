"""`make demo`: the main job end to end on the embedded default, offline, in half a minute.

Generates a small synthetic corpus with T9-style questions, builds the hybrid index, then runs
the first hops an agent would make for one question per sport (find the game through its
documents, then find the clip inside that game) and shows where the gold evidence ranked.
Most of the time is embedding clip captions (benchmarks/demo.py), so the corpus keeps every
game's documents but gives clips to `clip_games` games per sport: the question's game is found
among all of them, and its clips are the ones searched.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from rich.console import Console
from rich.table import Table

from playscout.config import Settings
from playscout.corpus import Question
from playscout.corpus.validate import NO_VIDEO
from playscout.indexer.build import build_from_corpus
from playscout.runtime import Runtime
from playscout.tools import SEARCH_TOOLS, call_tool

# The clip hits above are the agent's observation, which (as the reference's) carries no
# caption: what a clip shows reaches the model only through video_qa.
CLIPS_UNSEEN = (
    "(this is what the agent sees: clip hits without their captions; it reads a clip's caption "
    "only by calling video_qa on it. `playscout search videos` shows the captions too)"
)

ProgressFactory = Callable[[], AbstractContextManager[Callable[[str, int, int | None], None]]]


def _rank(ids: list[str], gold: list[str]) -> int | None:
    found = [i for i, x in enumerate(ids, 1) if x in gold]
    return found[0] if found else None


def run_demo(
    out_dir: Path,
    games: int,
    seed: int,
    console: Console,
    progress: ProgressFactory,
    clip_games: int | None = 1,
) -> None:
    from playscout.synthetic import generate_corpus, generate_questions

    start = time.perf_counter()
    corpus_dir, index_dir = out_dir / "corpus", out_dir / "index"
    with progress() as update:
        synth = generate_corpus(
            corpus_dir, games=games, seed=seed, progress=update, clip_games=clip_games
        )
        generate_questions(corpus_dir, per_sport=5, seed=seed)
        summary = build_from_corpus(corpus_dir, index_dir, overwrite=True, progress=update)
    counts = synth.sports.values()
    console.print(
        f"[bold]corpus[/bold] {corpus_dir}: {sum(c.games for c in counts)} games "
        f"({sum(c.clip_games for c in counts)} with clips), {sum(c.clips for c in counts)} clips, "
        f"{sum(c.documents for c in counts)} documents in {synth.wall_seconds:.1f} s",
        highlight=False,
    )
    console.print(
        f"[bold]index[/bold] {index_dir}: {summary.size_bytes / 1e6:.1f} MB in {summary.seconds:.1f} s",
        highlight=False,
    )
    console.print(f"note: {NO_VIDEO}", highlight=False)
    runtime = Runtime.from_settings(Settings(index=str(index_dir), corpus_dir=corpus_dir))
    corpus = runtime.corpus
    assert corpus is not None  # corpus_dir was given
    tools = {t.name: t for t in SEARCH_TOOLS}
    table = Table("sport", "question", "gold game doc rank", "gold clip rank in game")
    asked: Question | None = None  # the question the next steps ask
    for sport in corpus.sports():
        questions = [q for q in corpus.questions(sport) if q.gold]
        if not questions:
            continue
        q: Question = questions[0]
        assert q.gold is not None
        asked = asked or q
        ctx = runtime.tool_context(sport, "oracle")  # a generated corpus has no video
        console.rule(f"{sport}: {q.id}")
        console.print(
            f"[bold]Q:[/bold] {q.question}\n[bold]gold answer:[/bold] {q.answer}", highlight=False
        )
        docs = call_tool(tools, ctx, "search_documents", {"query": q.question})
        console.print(_head(docs.observation, 8), highlight=False, markup=False, soft_wrap=True)
        doc_ids = [h.doc_id for h in docs.data.hits] if docs.data else []
        clips = call_tool(
            tools, ctx, "search_videos", {"query": q.question, "game_ids": [q.gold.game_id]}
        )
        console.print(_head(clips.observation, 6), highlight=False, markup=False, soft_wrap=True)
        console.print(CLIPS_UNSEEN, highlight=False, soft_wrap=True)
        clip_ids = [h.clip_id for h in clips.data.hits] if clips.data else []
        table.add_row(
            sport,
            q.id,
            str(_rank(doc_ids, q.gold.doc_ids) or "-"),
            str(_rank(clip_ids, q.gold.clip_ids) or "-"),
        )
    console.print(table)
    console.print(f"demo finished in {time.perf_counter() - start:.1f} s (corpus: {corpus_dir})")
    if asked is not None:
        runs_dir = runtime.settings.eval.runs_dir
        console.print(
            next_steps(corpus_dir, index_dir, asked, runs_dir), highlight=False, soft_wrap=True
        )


def next_steps(corpus_dir: Path, index_dir: Path, question: Question, runs_dir: Path) -> str:
    """The three commands after the demo, on its own index (README, "Quick tour"): ask one of
    its questions (recorded where `serve` lists asks), run and judge T9 on a few questions per
    sport (into the runs folder `serve` lists), and serve both in the run browser."""
    exe = command_name()
    on = (f"--index {shlex.quote(str(index_dir))} --corpus {shlex.quote(str(corpus_dir))} "
          "--mode oracle --policy workflow")  # fmt: skip
    run = shlex.quote(str(runs_dir / "demo-t9"))
    return "\n".join(
        (
            "next, on the demo's own index (README, 'Quick tour'):",
            "1. ask one of its questions (the answer names its evidence; the ask is recorded "
            "for the run browser):",
            f"   {exe} ask {shlex.quote(question.question)} --sport {question.sport} {on}",
            "2. run T9 on 3 questions per sport, then judge the answers:",
            f"   {exe} eval run --task t9 {on} --limit 3 --out {run} && {exe} eval judge {run}",
            "3. serve the API and the run browser (the ask and the run are in it), then open "
            "the /viewer address it prints:",
            f"   {exe} serve {on}",
        )
    )


def command_name() -> str:
    """How to run playscout from here: the script beside this Python when it has one (`make
    demo` runs `.venv/bin/python -m playscout`: `.venv/bin/playscout`), else `playscout`."""
    script = Path(sys.executable).parent / "playscout"
    if not script.is_file():
        return "playscout"
    try:
        return str(script.relative_to(Path.cwd()))
    except ValueError:
        return str(script)


def _head(text: str, lines: int) -> str:
    rows = text.splitlines()
    return "\n".join(
        rows[:lines] + ([f"... ({len(rows) - lines} more lines)"] if len(rows) > lines else [])
    )
