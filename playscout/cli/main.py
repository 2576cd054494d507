"""`playscout ...`: thin commands that parse, call library functions, and print a summary.

Errors a user can cause print one line (`error: ...`) and exit 2 (`cli/errors.py`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from playscout.cli.errors import user_errors
from playscout.config import DEFAULT_MODE, DEFAULT_POLICY, Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Agentic sports-video analysis.")
corpus_app = typer.Typer(no_args_is_help=True, help="Load, validate and generate corpora.")
index_app = typer.Typer(no_args_is_help=True, help="Build search indices.")
search_app = typer.Typer(no_args_is_help=True, help="Run the agent's search tools by hand.")
app.add_typer(corpus_app, name="corpus")
app.add_typer(index_app, name="index")
app.add_typer(search_app, name="search")

console = Console(stderr=True)
out = Console()
F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def progress_bar() -> Iterator[Callable[[str, int, int | None], None]]:
    """A rich progress bar with one task per label; yields the callback libraries call."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def _settings() -> Settings:
    return Settings()


# ------------------------------------------------------------------ corpus


@corpus_app.command("validate")
@user_errors
def corpus_validate(root: Annotated[Path, typer.Argument(help="Corpus root (T9 layout).")]) -> None:
    """Check every file of a corpus; list each problem with its file and field."""
    from playscout.corpus import validate_corpus

    with progress_bar() as update:
        report = validate_corpus(root, progress=update)
    table = Table("sport", "games", "clips", "documents", "questions")
    for sport, c in report.counts.items():
        table.add_row(sport, *(str(c[k]) for k in ("games", "clips", "documents", "questions")))
    out.print(table)
    for problem in report.problems[:200]:
        out.print(f"[red]problem[/red] {problem}", highlight=False)
    if len(report.problems) > 200:
        out.print(f"... and {len(report.problems) - 200} more problems")
    if not report.ok:
        console.print(f"[red]{len(report.problems)} problems[/red] in {root}")
        raise typer.Exit(1)
    out.print(f"[green]ok[/green]: {root} is a valid corpus")


@corpus_app.command("synth")
@user_errors
def corpus_synth(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write the corpus.")],
    games: Annotated[int, typer.Option(help="Games in total (7430 = the T9 release).")] = 24,
    sports: Annotated[
        str, typer.Option(help="Comma-separated sports.")
    ] = "basketball,hockey,soccer",
    seed: Annotated[int, typer.Option(help="Same seed, same corpus.")] = 0,
    workers: Annotated[int, typer.Option(help="Processes (0 = one per core).")] = 0,
) -> None:
    """Generate a synthetic corpus in the T9 release layout."""
    from playscout.synthetic import generate_corpus

    start = time.perf_counter()
    with progress_bar() as update:
        summary = generate_corpus(
            out_dir,
            games=games,
            sports=_split(sports),
            seed=seed,
            workers=workers or None,
            progress=update,
        )
    _print_counts(summary.model_dump(), title=f"synthetic corpus in {out_dir}")
    out.print(f"done in {time.perf_counter() - start:.1f} s")


@corpus_app.command("render")
@user_errors
def corpus_render(
    corpus: Annotated[Path, typer.Option(help="Synthetic corpus written by `corpus synth`.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Where videos, pbp.json and truth go.")],
    sport: Annotated[str | None, typer.Option(help="Only this sport.")] = None,
    games: Annotated[int, typer.Option(help="Games to render (first of each sport).")] = 1,
    start: Annotated[float, typer.Option(help="Start of the excerpt (video seconds).")] = 0.0,
    minutes: Annotated[
        float | None, typer.Option(help="Length of the excerpt; default: the whole game.")
    ] = None,
    fps: Annotated[int, typer.Option()] = 25,
    size: Annotated[str, typer.Option(help="WIDTHxHEIGHT")] = "640x360",
    seed: Annotated[int, typer.Option()] = 0,
    commentary: Annotated[bool, typer.Option(help="Spoken commentary (espeak-ng).")] = True,
) -> None:
    """Render synthetic broadcast video (scoreboard, cuts, replays, ads, commentary) for games
    of a synthetic corpus, with the play-by-play to index it and the ground truth to score it."""
    from playscout.synthetic.broadcast import render_corpus

    try:
        width, height = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"--size must be WIDTHxHEIGHT, not {size!r}") from None
    results = render_corpus(
        corpus,
        out_dir,
        sport=sport,
        games=games,
        start=start,
        duration=None if minutes is None else minutes * 60.0,
        fps=fps,
        size=(width, height),
        seed=seed,
        commentary=commentary,
    )
    for r in results:
        out.print(f"{r.video}  {r.duration:.0f} s video in {r.wall_seconds:.1f} s")
    out.print(f"play-by-play: {out_dir / 'pbp.json'}")


@corpus_app.command("questions")
@user_errors
def corpus_questions(
    root: Annotated[Path, typer.Argument(help="Corpus root written by `corpus synth`.")],
    per_sport: Annotated[int, typer.Option(help="Questions per sport.")] = 20,
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Generate T9-style questions with gold evidence for a synthetic corpus."""
    from playscout.synthetic import generate_questions

    counts = generate_questions(root, per_sport=per_sport, seed=seed)
    for sport, n in counts.items():
        out.print(f"{sport}: {n} questions -> {root / 'questions' / (sport + '.json')}")


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _print_counts(data: dict[str, Any], title: str) -> None:
    out.print(f"[bold]{title}[/bold]")
    for key, value in data.items():
        out.print(f"  {key}: {value}")


# ------------------------------------------------------------------ index


@index_app.command("build")
@user_errors
def index_build(
    corpus: Annotated[Path, typer.Option(help="Corpus root (T9 layout).")],
    out_dir: Annotated[
        str,
        typer.Option(
            "--out", help="Index directory, or http(s)://host:9200/prefix (Elasticsearch)."
        ),
    ],
    sports: Annotated[str, typer.Option(help="Comma-separated sports; empty = all.")] = "",
    doc_embedder: Annotated[
        str, typer.Option(help="minilm | bge-m3:PATH | openai:URL#MODEL | none")
    ] = "minilm",
    caption_embedder: Annotated[str, typer.Option(help="Embedder of oracle captions.")] = "minilm",
    video_vectors: Annotated[
        Path | None, typer.Option(help="Precomputed clip vectors (embeds/videos).")
    ] = None,
    caption_vectors: Annotated[
        Path | None, typer.Option(help="Caption vectors written by `playscout index embed`.")
    ] = None,
    backend: Annotated[
        str, typer.Option(help="embedded | elasticsearch (default: from --out)")
    ] = "auto",
    index_options: Annotated[
        str, typer.Option(help="Elasticsearch dense_vector index type (int8_hnsw, hnsw, flat...).")
    ] = "int8_hnsw",
    overwrite: Annotated[
        bool, typer.Option(help="Replace an existing index (atomically).")
    ] = False,
) -> None:
    """Build the hybrid index (BM25 + vectors + filters) of a corpus: embedded by default,
    Elasticsearch when --out is a URL."""
    from playscout.indexer.build import build_from_corpus
    from playscout.search import elastic_target
    from playscout.search.backend_api import SearchError

    is_es = elastic_target(out_dir) is not None
    if backend not in ("auto", "embedded", "elasticsearch"):
        raise SearchError(f"--backend must be embedded or elasticsearch, not {backend!r}")
    if (backend == "elasticsearch") != is_es and backend != "auto":
        raise SearchError(
            "--backend elasticsearch needs --out http(s)://host:9200/prefix; "
            "--backend embedded needs a directory"
        )
    from playscout.embed.keyed import SPEC_FILE
    from playscout.indexer.video.commit import VISUAL_DIR

    indexed_video = corpus / VISUAL_DIR
    if video_vectors is None and (indexed_video / SPEC_FILE).is_file():
        video_vectors = indexed_video  # written by `index videos`: its model embeds queries
        console.print(f"video vectors: {video_vectors}", highlight=False)
    with progress_bar() as update:
        summary = build_from_corpus(
            corpus,
            out_dir,
            sports=_split(sports) or None,
            doc_embedder=doc_embedder,
            caption_embedder=caption_embedder,
            video_vectors=video_vectors,
            caption_vectors=caption_vectors,
            overwrite=overwrite,
            progress=update,
            index_options=index_options,
        )
    _print_counts(dataclasses.asdict(summary), title=f"index in {out_dir}")


@index_app.command("videos")
@user_errors
def index_videos_cmd(
    videos: Annotated[Path, typer.Option(help="Folder of full-game videos ({game_id}.mp4).")],
    pbp: Annotated[Path, typer.Option(help="Play-by-play JSON of those games.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Corpus root to add the games to.")],
    visual_model: Annotated[
        str, typer.Option(help="open_clip:ARCH@WEIGHTS for clip vectors, or none.")
    ] = "none",
    speech: Annotated[bool, typer.Option(help="Transcribe commentary (faster-whisper).")] = True,
    audio_events: Annotated[
        bool, typer.Option(help="Caption audio events (Audio Flamingo; needs its weights).")
    ] = False,
    ocr: Annotated[str, typer.Option(help="ppocr | tesseract")] = "ppocr",
    sample_fps: Annotated[float, typer.Option(help="Scoreboard frames read per second.")] = 5.0,
    overwrite: Annotated[bool, typer.Option(help="Replace games already in the corpus.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Turn full-game videos and their play-by-play into T9-layout clips: shots, 10-15 s
    windows, scoreboard-OCR alignment of every event, speech, audio events, visual vectors.
    Nothing is written to the corpus unless every game succeeds."""
    from playscout.indexer.build import parse_embedder
    from playscout.indexer.video.pipeline import VideoIndexOptions, index_videos, summary_table

    options = VideoIndexOptions(
        visual_model=parse_embedder(visual_model),
        speech=speech,
        audio_events=audio_events,
        ocr_engine=ocr,
        sample_fps=sample_fps,
        overwrite=overwrite,
    )
    summary = index_videos(
        videos,
        pbp,
        out_dir,
        options,
        perception=_settings().perception,
        progress=lambda msg: console.print(msg, highlight=False),
    )
    if json_out:
        out.print_json(summary.model_dump_json())
        return
    for row in summary_table(summary):
        out.print("  ".join(f"{k}={v}" for k, v in row.items()), highlight=False)
    out.print(
        f"done in {summary.wall_seconds:.1f} s; next: playscout index build --corpus {out_dir} --out INDEX"
    )


@index_app.command("embed")
@user_errors
def index_embed(
    corpus: Annotated[Path, typer.Option(help="Corpus root (T9 layout).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Where the vectors go.")],
    what: Annotated[str, typer.Option(help="captions | documents")] = "captions",
    embedder: Annotated[
        str, typer.Option(help="minilm | bge-m3:DIR | openai:URL#MODEL")
    ] = "minilm",
    ray: Annotated[
        bool, typer.Option("--ray", help="Spread over a Ray cluster (extra `ray`).")
    ] = False,
    workers: Annotated[int, typer.Option(help="Embedding workers (Ray actors).")] = 2,
    batch_size: Annotated[int, typer.Option()] = 256,
    sports: Annotated[str, typer.Option(help="Comma-separated sports; empty = all.")] = "",
) -> None:
    """Embed captions or document passages once, in parallel, into precomputed vector files
    that `index build --caption-vectors` reads."""
    from playscout.embed import EmbeddingError
    from playscout.indexer.build import parse_embedder
    from playscout.indexer.distributed import embed_corpus

    spec = parse_embedder(embedder)
    if spec is None:
        raise EmbeddingError("--embedder none has nothing to embed")
    start = time.perf_counter()
    if what not in ("captions", "documents"):
        raise EmbeddingError(f"--what must be captions or documents, not {what!r}")
    counts = embed_corpus(
        corpus,
        out_dir,
        spec,
        what="captions" if what == "captions" else "documents",
        use_ray=ray,
        num_workers=workers,
        batch_size=batch_size,
        sports=_split(sports) or None,
    )
    seconds = time.perf_counter() - start
    total = sum(counts.values())
    out.print(
        f"{total} {what} vectors in {seconds:.1f} s ({total / max(seconds, 1e-9):.0f}/s) -> {out_dir}"
    )


# ------------------------------------------------------------------ search


def _settings_for(index: str | None, corpus: Path | None = None) -> Settings:
    """Settings from the environment, with the command's --index/--corpus when given."""
    updates = {"index": index, "corpus_dir": corpus}
    return _settings().model_copy(update={k: v for k, v in updates.items() if v is not None})


def _context(index: str | None, sport: str, mode: str) -> Any:
    from playscout.runtime import Runtime, parse_mode

    runtime = Runtime.from_settings(_settings_for(index))
    return runtime.tool_context(sport, parse_mode(mode))


def _run_search_tool(
    index: str | None, sport: str, mode: str, name: str, args: dict[str, Any]
) -> None:
    """Call a search tool exactly as the agent does and print the model's observation."""
    from playscout.tools import SEARCH_TOOLS, call_tool

    given = {k: v for k, v in args.items() if v is not None and v != []}
    result = call_tool({t.name: t for t in SEARCH_TOOLS}, _context(index, sport, mode), name, given)
    out.print(result.observation, highlight=False, markup=False, soft_wrap=True)
    if result.error:
        raise typer.Exit(2)


IndexOpt = Annotated[
    str | None,
    typer.Option(help="Index directory or http(s)://host:9200/prefix [default: settings.index]."),
]
ModeOpt = Annotated[
    str,
    typer.Option(help="default (video and what it sounds like) | oracle (ground-truth captions)"),
]
PolicyOpt = Annotated[
    str, typer.Option(help="llm (agent over a model) | workflow (offline baseline)")
]
SportOpt = Annotated[str, typer.Option(help="basketball | hockey | soccer")]
ListOpt = Annotated[list[str] | None, typer.Option()]


@search_app.command("documents")
@user_errors
def search_documents_cmd(
    query: Annotated[str, typer.Argument()] = "",
    index: IndexOpt = None,
    sport: SportOpt = "basketball",
    game_ids: ListOpt = None,
    doc_type: Annotated[str | None, typer.Option()] = None,
    teams: ListOpt = None,
    players: ListOpt = None,
    season: Annotated[str | None, typer.Option()] = None,
    date: Annotated[str | None, typer.Option()] = None,
) -> None:
    """search_documents exactly as the agent calls it; prints the model's observation."""
    args = {
        "query": query,
        "game_ids": game_ids,
        "doc_type": doc_type,
        "teams": teams,
        "players": players,
        "season": season,
        "date": date,
    }
    _run_search_tool(index, sport, "default", "search_documents", args)


@search_app.command("videos")
@user_errors
def search_videos_cmd(
    query: Annotated[str, typer.Argument()] = "",
    index: IndexOpt = None,
    sport: SportOpt = "basketball",
    mode: ModeOpt = DEFAULT_MODE,
    game_ids: ListOpt = None,
    quarter: Annotated[int | None, typer.Option()] = None,
    teams: ListOpt = None,
    players: ListOpt = None,
    temporal_boundary: Annotated[str | None, typer.Option()] = None,
) -> None:
    """search_videos exactly as the agent calls it; prints the model's observation."""
    args = {
        "query": query,
        "game_ids": game_ids,
        "quarter": quarter,
        "teams": teams,
        "players": players,
        "temporal_boundary": temporal_boundary,
    }
    _run_search_tool(index, sport, mode, "search_videos", args)


# ------------------------------------------------------------------ demo


@app.command("demo")
@user_errors
def demo(
    out_dir: Annotated[Path, typer.Option("--out")] = Path("var/demo"),
    games: Annotated[int, typer.Option()] = 12,
    seed: Annotated[int, typer.Option()] = 7,
) -> None:
    """Generate a small corpus, index it, and answer its questions' first hops by search."""
    from playscout.cli.demo import run_demo

    run_demo(out_dir, games=games, seed=seed, console=out, progress=progress_bar)


# ------------------------------------------------------------------ agent

trajectory_app = typer.Typer(no_args_is_help=True, help="Read agent trajectories.")
app.add_typer(trajectory_app, name="trajectory")


@app.command("ask")
@user_errors
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Corpus root (clip media for video_qa).")
    ] = None,
    sport: SportOpt = "basketball",
    mode: ModeOpt = DEFAULT_MODE,
    policy: PolicyOpt = DEFAULT_POLICY,
    llm_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.")] = None,
    llm_model: Annotated[str | None, typer.Option(help="Served model name.")] = None,
    max_llm_calls: Annotated[int | None, typer.Option(help="LLM call budget.")] = None,
    tool_protocol: Annotated[str | None, typer.Option(help="native | text | auto")] = None,
    trajectory: Annotated[Path | None, typer.Option(help="Write the trajectory here.")] = None,
) -> None:
    """Answer a question with the agent; prints the answer, its evidence and a summary."""
    from playscout.agent import AgentError, summarise
    from playscout.runtime import Runtime, parse_mode, parse_policy

    run_mode, run_policy = parse_mode(mode), parse_policy(policy)
    settings = _settings_for(index, corpus)
    agent_settings = settings.agent.model_copy(deep=True)
    if llm_url:
        agent_settings.llm.base_url = llm_url
    if llm_model:
        agent_settings.llm.model = llm_model
    if max_llm_calls:
        agent_settings.max_llm_calls = max_llm_calls
    if tool_protocol:
        if tool_protocol not in ("native", "text", "auto"):
            raise AgentError(f"--tool-protocol must be native, text or auto, not {tool_protocol!r}")
        agent_settings.tool_protocol = tool_protocol  # type: ignore[assignment]  # checked above
    runtime = Runtime.from_settings(settings.model_copy(update={"agent": agent_settings}))
    agent = runtime.agent(runtime.tool_context(sport, run_mode), run_policy)
    result = agent.run_sync(question, trajectory=trajectory)
    if result.note:
        out.print(f"[yellow]{result.note}[/yellow]")
    out.print(f"[bold]answer:[/bold] {result.answer if result.answer is not None else '-'}")
    out.print(
        f"status: {result.status}"
        + (f" (forced: {result.forced_final})" if result.forced_final else "")
    )
    for key, ids in result.evidence.items():
        if ids:
            shown = ", ".join(ids[:10]) + (f" +{len(ids) - 10} more" if len(ids) > 10 else "")
            out.print(f"{key}: {shown}", highlight=False, markup=False)
    summary = summarise(result.events)
    _print_counts(
        {
            "turns": summary.turns,
            "tool calls": ", ".join(f"{k}={v}" for k, v in summary.tool_calls.items()) or "-",
            "errors": summary.errors,
            "tokens (prompt/completion)": f"{summary.prompt_tokens}/{summary.completion_tokens}",
            "wall s": f"{result.wall_s:.2f}",
            "trajectory": str(trajectory) if trajectory else "-",
        },
        title="run",
    )
    if result.status == "error":
        raise typer.Exit(1)


@trajectory_app.command("show")
@user_errors
def trajectory_show(
    path: Annotated[Path, typer.Argument(help="A trajectory .jsonl file.")],
    width: Annotated[int, typer.Option(help="Characters of each observation shown.")] = 120,
) -> None:
    """The run as a timeline: turn, tool, arguments, short observation, latency, tokens."""
    from playscout.agent import read_trajectory, summarise
    from playscout.agent.timeline import timeline_rows

    events = read_trajectory(path)
    table = Table("turn", "step", "detail", "latency s", "tokens")
    for row in timeline_rows(events, width):
        table.add_row(*row)
    out.print(table)
    s = summarise(events)
    _print_counts(
        {
            "question": s.question,
            "policy": s.policy,
            "model": s.model or "-",
            "turns": s.turns,
            "tool calls": ", ".join(f"{k}={v}" for k, v in s.tool_calls.items()) or "-",
            "errors": s.errors,
            "tokens (prompt/completion)": f"{s.prompt_tokens}/{s.completion_tokens}",
            "wall s": s.wall_s,
            "answer": s.answer,
            "status": s.status,
        },
        title=str(path),
    )


def _register_subapps() -> None:
    """Serving and eval live in their own layers; the CLI only mounts their commands."""
    from playscout.cli.eval import eval_app
    from playscout.cli.serve import serve_app

    app.add_typer(serve_app, name="serve")
    app.add_typer(eval_app, name="eval")


_register_subapps()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
