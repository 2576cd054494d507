"""`playscout index ...`: build search indices, index raw video, embed with Ray."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from playscout.cli.common import (
    JsonOpt,
    console,
    out,
    print_counts,
    print_json,
    progress_bar,
    settings,
    split_list,
)
from playscout.cli.errors import fail, user_errors
from playscout.embed.factory import embedder_choices
from playscout.search.kinds import AUTO, KINDS

index_app = typer.Typer(no_args_is_help=True, help="Build search indices.")

DeviceOpt = Annotated[
    str | None,
    typer.Option(
        help="Where the embedding models run: auto (the first GPU when one is there) | cpu | "
        "cuda | cuda:N.",
        show_default="settings.embed.device",
    ),
]


def embed_device(device: str | None) -> str:
    """The command's --device, else settings.embed.device; a bad name is a one-line error."""
    from playscout.embed.device import check_device_name

    return check_device_name(device if device is not None else settings().embed.device)


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
    sports: Annotated[
        str, typer.Option(help="Comma-separated sports.", show_default="every sport")
    ] = "",
    doc_embedder: Annotated[
        str, typer.Option(help=f"{embedder_choices(images=False)} | none")
    ] = "minilm",
    caption_embedder: Annotated[str, typer.Option(help="Embedder of oracle captions.")] = "minilm",
    video_vectors: Annotated[
        Path | None,
        typer.Option(
            help="Precomputed clip vectors (the release's embeds/videos, flat or bucketed); "
            "queries need the video query tower (--video-query-url) at search time.",
            show_default="none",
        ),
    ] = None,
    caption_vectors: Annotated[
        Path | None,
        typer.Option(
            help="Caption vectors: the release's embeds/captions (its BGE-M3 vectors; "
            "--caption-embedder then embeds queries) or the output of `playscout index embed`.",
            show_default="embedded by --caption-embedder",
        ),
    ] = None,
    doc_vectors: Annotated[
        Path | None,
        typer.Option(
            help="The release's embeds/documents: its sentence units and BGE-M3 vectors, read "
            "as they are (--doc-embedder then embeds queries).",
            show_default="embedded by --doc-embedder",
        ),
    ] = None,
    units: Annotated[
        str | None,
        typer.Option(
            help="What is ranked and embedded: playscout (64-word passages, bare captions) | "
            "reference (the reference's sentence units and captions, each with its metadata "
            "lines: what the paper embedded).",
            show_default="release with --doc-vectors, else playscout",
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            help=" | ".join([f"{AUTO} (the kind --out names)", *KINDS.names()]),
            show_default="settings.backend",
        ),
    ] = None,
    index_options: Annotated[
        str, typer.Option(help="Elasticsearch dense_vector index type (int8_hnsw, hnsw, flat...).")
    ] = "int8_hnsw",
    overwrite: Annotated[
        bool, typer.Option(help="Replace an existing index (atomically).")
    ] = False,
    json_out: JsonOpt = False,
    target_recall: Annotated[
        float | None,
        typer.Option(
            min=0.01,
            max=1.0,
            help="Recall@100 vs exact each vector channel's ANN setting must measure.",
            show_default="settings.search.ann_target_recall",
        ),
    ] = None,
    tune_queries: Annotated[
        Path | None,
        typer.Option(
            help="Your own queries to tune each vector channel's ANN setting on, beside "
            "sampled rows and row-text windows: .npy (query vectors, used by channels of "
            "their width) or .txt (one query a line, embedded by each channel's query side).",
            show_default="none",
        ),
    ] = None,
    device: DeviceOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Processes that read and handle clip records (0: this one).",
            show_default="one per core but one, or 0 when the models run on this CPU",
        ),
    ] = None,
) -> None:
    """Build the hybrid index (BM25 + vectors + filters) of a corpus: embedded by default,
    Elasticsearch when --out is a URL. Each embedded vector channel measures its ANN recall
    against exact search and prints the setting it chose."""
    from playscout.indexer.build import build_from_corpus
    from playscout.search import kind_for
    from playscout.search.backend_api import SearchError
    from playscout.search.embedded.recall import AnnOptions, check_tune_queries

    kind = kind_for(out_dir, backend or settings().backend)  # a mismatch: one line, nothing built
    from playscout.embed.keyed import SPEC_FILE
    from playscout.indexer.video.commit import VISUAL_DIR

    indexed_video = corpus / VISUAL_DIR
    if video_vectors is None and (indexed_video / SPEC_FILE).is_file():
        video_vectors = indexed_video  # written by `index videos`: its model embeds queries
        console.print(f"video vectors: {video_vectors}", highlight=False)
    ann = AnnOptions.from_settings(settings().search)
    if target_recall is not None:
        ann = dataclasses.replace(ann, target_recall=target_recall)
    if tune_queries is not None:
        try:
            check_tune_queries(tune_queries)
        except ValueError as e:
            raise SearchError(str(e)) from None
        ann = dataclasses.replace(ann, tune_queries=tune_queries)
    from playscout.search.core.build import IndexExistsError

    try:  # an existing index names this command's flag, not the library's argument
        with progress_bar() as update:
            summary = build_from_corpus(
                corpus,
                out_dir,
                sports=split_list(sports) or None,
                doc_embedder=doc_embedder,
                caption_embedder=caption_embedder,
                video_vectors=video_vectors,
                caption_vectors=caption_vectors,
                doc_vectors=doc_vectors,
                units=units,
                overwrite=overwrite,
                progress=update,
                index_options=index_options,
                ann=ann,
                backend=kind.name,
                device=embed_device(device),
                workers=workers,
            )
    except IndexExistsError as e:
        raise fail(e.saying("--overwrite")) from None
    swept = getattr(summary, "swept", None)
    if swept is not None and swept.folders:
        console.print(f"{swept} (left by killed builds)", highlight=False)
    report = dataclasses.asdict(summary)
    if json_out:
        print_json(report)
    else:
        print_counts(readable_build(report), title=f"index in {out_dir}")


def readable_build(report: dict[str, Any]) -> dict[str, Any]:
    """A build summary with each sport on one line and each vector channel as `model, dim,
    search`, for print_counts (the JSON keeps every field as built)."""
    sports = {}
    for sport, info in report.get("sports", {}).items():
        channels = info.get("channels") or {}
        described = [f"{name} ({_channel(c)})" for name, c in channels.items()]
        sports[sport] = {
            **{k: v for k, v in info.items() if k not in ("channels", "stages")},
            "vectors": "; ".join(described) or "none",
        }
        if info.get("stages"):
            sports[sport]["stages"] = readable_stages(info["stages"])
    shown = {k: v for k, v in report.items() if k != "swept"}  # printed above when it swept
    return {**shown, "sports": sports}


def readable_stages(stages: dict[str, Any]) -> str:
    """'records 1.2 s (9,800/s), embed 30.1 s (390/s), bm25 0.8 s': each stage's busy time and
    rate (stages overlap, so they add up to more than the sport's time)."""
    parts = []
    for stage, entry in stages.items():
        if isinstance(entry, dict) and "seconds" in entry:
            rate = f" ({entry['per_second']:,.0f}/s)" if entry.get("per_second") else ""
            parts.append(f"{stage} {entry['seconds']:.1f} s{rate}")
    if stages.get("records_processes", 1) > 1:
        parts.append(f"{stages['records_processes']} record processes")
    return ", ".join(parts)


def _channel(entry: dict[str, Any]) -> str:
    spec = entry.get("spec") or {}
    model = " ".join(dict.fromkeys(str(v) for v in (spec.get("kind"), spec.get("model")) if v))
    from playscout.search.embedded.recall import describe_setting

    search = describe_setting(entry["ann"]) if "ann" in entry else "exact search"
    ident = entry.get("identity") or {}
    made = f"made by {ident.get('model') or 'unknown'} ({ident.get('how')})" if ident else ""
    return ", ".join(p for p in (model, f"{entry.get('dim')}-d", made, search) if p)


@index_app.command("tune")
@user_errors
def index_tune(
    index_dir: Annotated[Path, typer.Argument(help="Embedded index directory.")],
    queries: Annotated[
        Path | None,
        typer.Option(
            help="Query log written by `serve`.", show_default="settings.search.query_log"
        ),
    ] = None,
    tune_queries: Annotated[
        Path | None,
        typer.Option(
            help="A query file as for `index build --tune-queries` (.npy or .txt).",
            show_default="none",
        ),
    ] = None,
    target_recall: Annotated[
        float | None,
        typer.Option(
            min=0.01,
            max=1.0,
            help="Recall@100 vs exact each channel's setting must measure.",
            show_default="settings.search.ann_target_recall",
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Re-choose each IVF channel's probe setting on the queries users sent (the server's
    query log) and sampled rows, without rebuilding the vectors; rewrites the channels'
    records and the manifest's checksums (`index verify` passes after it)."""
    from playscout.search.backend_api import SearchError
    from playscout.search.embedded.recall import AnnOptions, check_tune_queries, describe_setting
    from playscout.search.embedded.tune import tune_index

    search = settings().search
    log = queries if queries is not None else search.query_log
    if log is not None and queries is None and not log.is_file():
        log = None  # the default log: absent until a server has sampled a query
    ann = AnnOptions.from_settings(search)
    if target_recall is not None:
        ann = dataclasses.replace(ann, target_recall=target_recall)
    embedders = None
    if tune_queries is not None:
        try:
            check_tune_queries(tune_queries)
        except ValueError as e:
            raise SearchError(str(e)) from None
        ann = dataclasses.replace(ann, tune_queries=tune_queries)
        if tune_queries.suffix == ".txt":
            from playscout.search import open_backend

            embedders = getattr(open_backend(index_dir), "embedders", None)

    def report(sport: str, channel: str, entry: dict[str, Any]) -> None:
        if not json_out:
            out.print(f"{sport} {channel}: {describe_setting(entry)}", highlight=False)

    try:
        tuned = tune_index(index_dir, ann, log, report, embedders)
    except ValueError as e:
        raise SearchError(str(e)) from None
    if json_out:
        print_json(tuned)
    elif not tuned:
        out.print(f"{index_dir}: no channel uses an IVF index; nothing to tune", highlight=False)


@index_app.command("verify")
@user_errors
def index_verify(
    target: Annotated[
        str, typer.Argument(help="Index directory, or http(s)://host:9200/prefix (Elasticsearch).")
    ],
) -> None:
    """Check an index against what its build recorded: every file's size and checksum
    (directory), every alias and per-sport count (Elasticsearch). Names each bad part; exits 1
    when anything is corrupt, 0 when the index is intact."""
    if not verify_or_report(target):
        raise typer.Exit(1)


def verify_or_report(target: str) -> bool:
    """Run `index verify` with a progress bar; print each bad part and a summary. True when
    the index is intact (`serve --verify` uses it too)."""
    from playscout.search.verify import verify_index
    from playscout.storage import human_bytes

    with progress_bar(units="bytes") as update:
        report = verify_index(target, progress=update, backend=settings().backend)
    for bad in report.bad:
        console.print(f"bad: {bad}", highlight=False, markup=False, soft_wrap=True)
    for name in report.unrecorded:
        console.print(
            f"note: {name} is not part of the build", highlight=False, markup=False, soft_wrap=True
        )
    read = f", {human_bytes(report.bytes_read)} read" if report.bytes_read else ""
    done = f"{report.checked} checked{read} in {report.seconds:.1f} s"
    if report.bad:
        console.print(
            f"corrupt: {len(report.bad)} bad in {report.target} ({done})",
            style="red",
            highlight=False,
            soft_wrap=True,
        )
        return False
    out.print(f"ok: {report.target} is intact ({done})", highlight=False, soft_wrap=True)
    return True


@index_app.command("videos")
@user_errors
def index_videos_cmd(
    videos: Annotated[Path, typer.Option(help="Folder of full-game videos ({game_id}.mp4).")],
    pbp: Annotated[Path, typer.Option(help="Play-by-play JSON of those games.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Corpus root to add the games to.")],
    visual_model: Annotated[
        str, typer.Option(help=f"{embedder_choices(images=True)} for clip vectors, or none.")
    ] = "none",
    speech: Annotated[bool, typer.Option(help="Transcribe commentary (faster-whisper).")] = True,
    audio_events: Annotated[
        bool, typer.Option(help="Caption audio events (Audio Flamingo; needs its weights).")
    ] = False,
    ocr: Annotated[str, typer.Option(help="ppocr | tesseract")] = "ppocr",
    sample_fps: Annotated[float, typer.Option(help="Scoreboard frames read per second.")] = 5.0,
    overwrite: Annotated[bool, typer.Option(help="Replace games already in the corpus.")] = False,
    json_out: JsonOpt = False,
    device: DeviceOpt = None,
) -> None:
    """Turn full-game videos and their play-by-play into T9-layout clips: shots, 10-15 s
    windows, scoreboard-OCR alignment of every event, speech, audio events, visual vectors.
    Nothing is written to the corpus unless every game succeeds."""
    from playscout.embed.device import with_device
    from playscout.indexer.build import parse_embedder
    from playscout.indexer.video.pipeline import VideoIndexOptions, index_videos, summary_table

    options = VideoIndexOptions(
        visual_model=with_device(parse_embedder(visual_model), embed_device(device)),
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
        perception=settings().perception,
        progress=lambda msg: console.print(msg, highlight=False),
    )
    if json_out:
        print_json(summary.model_dump(mode="json"))
        return
    for row in summary_table(summary):
        out.print("  ".join(f"{k}={v}" for k, v in row.items()), highlight=False)
    out.print(f"done in {summary.wall_seconds:.1f} s", highlight=False)
    out.print(video_next_steps(out_dir), highlight=False, markup=False, soft_wrap=True)


def video_next_steps(corpus: Path) -> str:
    """The README's order after `index videos`: the games' documents, then questions whose
    gold clips are the new clips, then the index."""
    return (
        f"next: playscout corpus add-documents --from SYNTH_CORPUS --to {corpus}\n"
        f"      playscout corpus questions {corpus} --per-sport 10\n"
        f"      playscout index build --corpus {corpus} --out INDEX"
    )


@index_app.command("embed")
@user_errors
def index_embed(
    corpus: Annotated[Path, typer.Option(help="Corpus root (T9 layout).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Where the vectors go.")],
    what: Annotated[
        str, typer.Option(help="captions | documents | clips (frames of each clip's video)")
    ] = "captions",
    embedder: Annotated[
        str,
        typer.Option(
            help=f"{embedder_choices(images=False)}; clips: {embedder_choices(images=True)}"
        ),
    ] = "minilm",
    ray: Annotated[
        bool, typer.Option("--ray", help="Spread over a Ray cluster (extra `ray`).")
    ] = False,
    workers: Annotated[int, typer.Option(help="Embedding workers (Ray actors).")] = 2,
    batch_size: Annotated[int, typer.Option()] = 256,
    sports: Annotated[
        str, typer.Option(help="Comma-separated sports.", show_default="every sport")
    ] = "",
    device: DeviceOpt = None,
    frames_per_clip: Annotated[
        int, typer.Option(min=1, max=64, help="clips: frames sampled per clip.")
    ] = 8,
) -> None:
    """Embed captions or document passages once, in parallel, into precomputed vector files
    that `index build --caption-vectors` reads; or (--what clips) the sampled frames of every
    clip video through an open_clip image tower, into the video vectors `index build
    --video-vectors` reads."""
    from playscout.embed import EmbeddingError
    from playscout.embed.device import with_device
    from playscout.indexer.build import parse_embedder
    from playscout.indexer.distributed import embed_corpus

    spec = with_device(parse_embedder(embedder), embed_device(device))
    if spec is None:
        raise EmbeddingError("--embedder none has nothing to embed")
    start = time.perf_counter()
    if what == "clips":
        total = _embed_clips(corpus, out_dir, spec, frames_per_clip, split_list(sports) or None)
        seconds = time.perf_counter() - start
        out.print(
            f"{total} clip vectors in {seconds:.1f} s ({total / max(seconds, 1e-9):.1f}/s) "
            f"-> {out_dir}"
        )
        return
    if what not in ("captions", "documents"):
        raise EmbeddingError(f"--what must be captions, documents or clips, not {what!r}")
    counts = embed_corpus(
        corpus,
        out_dir,
        spec,
        what="captions" if what == "captions" else "documents",
        use_ray=ray,
        num_workers=workers,
        batch_size=batch_size,
        sports=split_list(sports) or None,
    )
    seconds = time.perf_counter() - start
    total = sum(counts.values())
    out.print(
        f"{total} {what} vectors in {seconds:.1f} s ({total / max(seconds, 1e-9):.0f}/s) -> {out_dir}"
    )


def _embed_clips(
    corpus: Path, out_dir: Path, spec: dict[str, Any], frames: int, sports: list[str] | None
) -> int:
    """`index embed --what clips`: the frame pipeline over every clip video of the corpus;
    returns the number of clip vectors written."""
    from playscout.embed import EmbeddingError, ImageEmbedder, make_embedder
    from playscout.indexer.video.visual import embed_corpus_clips

    if spec.get("kind") != "open_clip":
        raise EmbeddingError("--what clips needs --embedder open_clip:ARCH@WEIGHTS")
    embedder = make_embedder(spec)
    assert isinstance(embedder, ImageEmbedder)
    with progress_bar() as update:
        written = embed_corpus_clips(
            corpus, out_dir, embedder, sports=sports, frames_per_clip=frames, progress=update
        )
    return sum(len(p.read_text().split()) for p in written.glob("*/ids.txt"))
