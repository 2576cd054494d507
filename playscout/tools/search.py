"""search_documents and search_videos, with the paper's signatures (Fig. 46) and the
reference's semantics, rendered as compact observations a model can read."""

from __future__ import annotations

from pydantic import BaseModel

from playscout.config import Mode
from playscout.corpus.sports import sport as sport_record
from playscout.search.backend_api import (
    ClipChannel,
    ClipFilter,
    ClipHit,
    DocFilter,
    DocHit,
    SearchBackend,
    SearchError,
    SearchMode,
)
from playscout.tools.declare import tool
from playscout.tools.filters import (
    expand_doc_types,
    parse_boundary,
    parse_date,
    parse_season,
    resolve_names,
    restrict_doc_types,
)
from playscout.tools.roles import VIDEO_QUERY
from playscout.tools.search_args import SearchDocumentsArgs, SearchVideosArgs
from playscout.tools.tool import ToolContext, ToolError, ToolResult

HEARD_CHARS = 160  # one short line per clip: the observation lists up to dozens of clips


class DocumentSearchResult(BaseModel):
    query: str
    filters: DocFilter
    hits: list[DocHit]
    notes: list[str]


class VideoSearchResult(BaseModel):
    query: str
    channel: str
    filters: ClipFilter
    hits: list[ClipHit]
    notes: list[str]


def _names_to_filter(
    ctx: ToolContext, kind: str, names: list[str] | None, query: str, notes: list[str]
) -> tuple[list[str] | None, str]:
    matches, unresolved, name_notes = resolve_names(ctx.resolver, kind, names)
    notes.extend(name_notes)
    if unresolved and matches is None:
        if not query.strip():
            raise ToolError(
                f"no {kind} matches {', '.join(map(repr, unresolved))}; nothing to filter on"
            )
        notes.append(f"unresolved {kind} names added to the query text instead")
        query = f"{query} {' '.join(unresolved)}"
    return matches, query


@tool(
    "search_documents",
    "Hybrid (BM25 + dense) search over game reports, game statistics and season statistics. "
    "Returns the top {{search.document_top_k}} documents with doc ids and highlighted snippets.",
    group="search",
)
def search_documents(ctx: ToolContext, args: SearchDocumentsArgs) -> ToolResult:
    notes: list[str] = []
    query = args.query.strip()
    season = parse_season(args.season)
    date_from, date_to = parse_date(args.date, season)
    present = [
        k for k, v in (("players", args.players), ("season", season), ("date", args.date)) if v
    ]
    doc_types, dropped, rule_notes = restrict_doc_types(expand_doc_types(args.doc_type), present)
    notes += rule_notes
    teams, query = _names_to_filter(ctx, "team", args.teams, query, notes)
    players = None
    if "players" not in dropped:
        players, query = _names_to_filter(ctx, "player", args.players, query, notes)
    filters = DocFilter(
        game_ids=args.game_ids,
        doc_ids=args.doc_ids,
        doc_types=doc_types,
        teams=teams,
        players=players,
        season=None if "season" in dropped else season,
        date_from=None if "date" in dropped else date_from,
        date_to=None if "date" in dropped else date_to,
    )
    if not query and filters.is_empty():
        raise ToolError("give a query or at least one filter")
    s = ctx.search
    try:
        hits = ctx.backend.search_documents(
            ctx.sport, query or None, filters, top_k=s.document_top_k, window=s.document_window
        )
    except SearchError as e:
        raise ToolError(str(e)) from None
    if not hits and args.game_ids:
        notes += _missing_games(ctx, args.game_ids, doc_types)
    result = DocumentSearchResult(query=query, filters=filters, hits=hits, notes=notes)
    return ToolResult(
        tool="search_documents",
        observation=render_documents(result, s.highlight_chars),
        data=result,
        notes=notes,
    )


def _missing_games(ctx: ToolContext, game_ids: list[str], doc_types: list[str] | None) -> list[str]:
    out = []
    for game_id in game_ids:
        any_doc = ctx.backend.search_documents(
            ctx.sport, None, DocFilter(game_ids=[game_id]), top_k=1
        )
        if not any_doc:
            out.append(f"game {game_id} does not exist in the {ctx.sport} documents")
        elif doc_types:
            out.append(f"game {game_id} has no {' or '.join(doc_types)} documents")
    return out


def clip_channel(mode: Mode) -> ClipChannel:
    """The clip channel a mode searches: what the video shows and says, or the captions."""
    return "caption" if mode == "oracle" else "visual"


def missing_clip_channel(backend: SearchBackend, sport: str, mode: Mode) -> str | None:
    """Why `backend` cannot search `sport`'s clips in `mode` (one line), or None when it can.
    search_videos raises it; preflight checks it before a run starts. Vectors opened without
    the model that embeds queries into their space (the release's InternVideo2 clip vectors
    without the text tower) cannot be searched either: every call would fail."""
    channel = clip_channel(mode)
    if channel in backend.channels(sport):
        if channel not in backend.unembedded(sport):
            return None
        return (
            f"the index's {channel} vectors for {sport} have no query embedder: configure the "
            f"text tower that shares their space ({VIDEO_QUERY.path}: --{VIDEO_QUERY.flag}-url "
            f"and --{VIDEO_QUERY.flag}-model; docs/embedding.md) or run in oracle mode"
        )
    what = "video embeddings or speech transcripts" if mode != "oracle" else "caption embeddings"
    return (
        f"this index has no {what} for {sport} ({mode} mode cannot search clips); "
        "rebuild it with them or run in the other mode"
    )


def _check_periods(ctx: ToolContext, periods: list[int]) -> None:
    """A period none of the sport's clips is in (`quarter 9` where no game went past one
    overtime) is a mistake said in one line with the periods there are, not an empty result;
    where the backend cannot list its periods, the search just finds nothing."""
    listed = getattr(ctx.backend, "periods", None)
    held = listed(ctx.sport) if callable(listed) else None
    missing = [p for p in periods if held and p not in held]
    if held and missing:
        word = sport_record(ctx.sport).period_word
        raise ToolError(
            f"{word} {', '.join(map(str, missing))}: this index's {ctx.sport} clips are in "
            f"{word}s {', '.join(map(str, held))}"
        )


@tool(
    "search_videos",
    "Search video clips ({{clip_seconds}} s each) by what happens in them, with game, "
    "{{period_words}}, team, player and time filters. Returns up to {{search.video_top_k}} clip "
    "ids with timestamps.",
    group="search",
    roles=(VIDEO_QUERY,),  # default mode embeds its query with the video vectors' text tower
    oracle_roles=(),
)
def search_videos(ctx: ToolContext, args: SearchVideosArgs) -> ToolResult:
    notes: list[str] = []
    query = args.query.strip()
    start, end = parse_boundary(args.temporal_boundary)
    teams, query = _names_to_filter(ctx, "team", args.teams, query, notes)
    players, query = _names_to_filter(ctx, "player", args.players, query, notes)
    periods = [args.quarter] if isinstance(args.quarter, int) else args.quarter
    if periods:
        _check_periods(ctx, periods)
    filters = ClipFilter(
        game_ids=args.game_ids,
        clip_ids=args.video_ids,
        periods=periods or None,
        teams=teams,
        players=players,
        time_start=start,
        time_end=end,
    )
    if not query and filters.is_empty():
        raise ToolError("give a query or at least one filter")
    channel = clip_channel(ctx.mode)
    if (missing := missing_clip_channel(ctx.backend, ctx.sport, ctx.mode)) is not None:
        raise ToolError(missing)
    s = ctx.search
    # oracle: the reference searched its caption index by BGE-M3 vectors only (no BM25)
    mode: SearchMode = "dense" if channel == "caption" and s.caption_search == "dense" else "hybrid"
    try:
        hits = ctx.backend.search_clips(
            ctx.sport,
            query or None,
            filters,
            top_k=s.video_top_k,
            channel=channel,
            mode=mode,
            window=s.clip_window,
        )
    except SearchError as e:
        raise ToolError(str(e)) from None
    if not hits and args.game_ids:
        for game_id in args.game_ids:
            exists = ctx.backend.search_documents(
                ctx.sport, None, DocFilter(game_ids=[game_id]), top_k=1
            )
            notes.append(
                f"no video clips available for game {game_id}"
                if exists
                else f"game {game_id} does not exist in the {ctx.sport} corpus"
            )
    result = VideoSearchResult(
        query=query, channel=channel, filters=filters, hits=hits, notes=notes
    )
    return ToolResult(
        tool="search_videos",
        observation=render_clips_reference(result, ctx.sport)
        if ctx.style == "reference"
        else render_clips(result, ctx.sport, s.observation_clips),
        data=result,
        notes=notes,
    )


# ---------------------------------------------------------------- rendering


def _filters_text(filters: BaseModel) -> str:
    parts = []
    for key, value in filters.model_dump(exclude_none=True).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{key}={shown}")
    return "; ".join(parts) or "none"


def _rank_text(hit: DocHit | ClipHit) -> str:
    s = hit.scores
    parts = [
        f"bm25 #{s.bm25_rank}" if s.bm25_rank else "",
        f"dense #{s.dense_rank}" if s.dense_rank else "",
    ]
    shown = ", ".join(p for p in parts if p)
    score = f"{hit.score:.4f}" if hit.score is not None else "-"
    return f"score {score}" + (f" ({shown})" if shown else "")


def _doc_label(hit: DocHit) -> str:
    r = hit.record
    if r.game_id:
        return f"{r.date or '?'} {r.away_team or '?'} at {r.home_team or '?'}"
    who = r.entity_name or r.entity_id or "?"
    team = f" ({r.teams[0]})" if r.entity_type == "player" and r.teams else ""
    return f"season {r.season} {who}{team}"


def render_documents(result: DocumentSearchResult, highlight_chars: int) -> str:
    head = (
        f'{len(result.hits)} documents for "{result.query}"'
        if result.query
        else f"{len(result.hits)} documents"
    )
    lines = [f"{head} | filters: {_filters_text(result.filters)}"]
    lines += [f"note: {n}" for n in result.notes]
    for i, hit in enumerate(result.hits, 1):
        lines.append(
            f"{i}. {hit.doc_id} | {hit.record.doc_type} | {_doc_label(hit)} | {_rank_text(hit)}"
        )
        text = " ... ".join(hit.highlights).replace("\n", " ")
        if text:
            cut = text[:highlight_chars] + (
                " ...(truncated)" if len(text) > highlight_chars else ""
            )
            lines.append(f"   > {cut}")
    if not result.hits:
        lines.append("no documents matched")
    return "\n".join(lines)


def _clip_line(hit: ClipHit, period_name: str) -> str:
    r = hit.record
    clock = ""
    if r.clock_remaining_start >= 0:
        clock = f" clock {_mmss(r.clock_remaining_start)}-{_mmss(r.clock_remaining_end)} left"
    elif r.clock_elapsed_start >= 0:
        clock = f" clock {_mmss(r.clock_elapsed_start)}-{_mmss(r.clock_elapsed_end)}"
    players = ", ".join(r.players[:4]) + (f" +{len(r.players) - 4}" if len(r.players) > 4 else "")
    return (
        f"  {hit.clip_id} | {period_name} {r.period} | video {r.video_start:.1f}-{r.video_end:.1f}s"
        f"{clock} | {_rank_text(hit)} | players: {players or '-'}"
    )


def _mmss(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


def _clip_source(result: VideoSearchResult) -> str:
    """What the hits were found by: captions (oracle), or video vectors and/or heard text."""
    if result.channel == "caption":
        return "ground-truth captions (oracle)"
    parts = []
    if any(h.scores.dense_rank for h in result.hits):
        parts.append("video embeddings")
    if any(h.scores.bm25_rank for h in result.hits):
        parts.append("speech/audio text")
    return " + ".join(parts) or "video"


def _heard_line(hit: ClipHit) -> str | None:
    """Default mode: a short piece of what was heard in the clip (never the oracle caption)."""
    text = hit.highlights[0] if hit.highlights else hit.record.observed_text()
    if not text:
        return None
    text = " ".join(text.split())
    if len(text) > HEARD_CHARS:
        text = text[: HEARD_CHARS - 1].rstrip() + "…"
    return f'    heard: "{text}"'


def _clips_head(result: VideoSearchResult) -> str:
    n = len(result.hits)
    return f'{n} clips for "{result.query}"' if result.query else f"{n} clips"


def render_clips(result: VideoSearchResult, sport: str, listed: int, captions: bool = False) -> str:
    """The observation of a clip search. `captions`: under each oracle hit, the caption text it
    matched (`> ...`, as document hits show theirs) for a person reading `playscout search
    videos`; the agent's observation leaves it out, as the reference's does (its oracle reads
    captions through video_qa)."""
    source = _clip_source(result)
    lines = [f"{_clips_head(result)} via {source} | filters: {_filters_text(result.filters)}"]
    lines += [f"note: {n}" for n in result.notes]
    period_name = sport_record(sport).period_word
    current = None
    for hit in result.hits[:listed]:
        if hit.record.game_id != current:
            current = hit.record.game_id
            teams = " vs ".join(hit.record.teams) or "?"
            lines.append(f"game {current} | {hit.record.date or '?'} | {teams}")
        lines.append(_clip_line(hit, period_name))
        heard = _heard_line(hit) if result.channel == "visual" else None
        if heard:
            lines.append(heard)
        if captions and result.channel == "caption" and hit.highlights:
            lines.append("    > " + " ... ".join(hit.highlights))
    rest = result.hits[listed:]
    if rest:
        lines.append(f"+{len(rest)} more clips: " + ", ".join(h.clip_id for h in rest))
    if not result.hits:
        lines.append("no clips matched")
    return "\n".join(lines)


def render_clips_reference(result: VideoSearchResult, sport: str) -> str:
    """What the reference's search_videos returns, as compact lines: every hit, each with its
    id, score, game, period (named per sport), teams, all players and video timestamps. Not
    the game clock, the date or what the index was searched by: the reference shows none."""
    lines = [f"{_clips_head(result)} | filters: {_filters_text(result.filters)}"]
    lines += [f"note: {n}" for n in result.notes]
    period_key = sport_record(sport).period_word
    for hit in result.hits:
        r = hit.record
        score = f"{hit.score:.4f}" if hit.score is not None else "-"
        lines.append(
            f"  {hit.clip_id} | score {score} | game {r.game_id} | {period_key} {r.period} | "
            f"teams: {', '.join(r.teams) or '-'} | players: {', '.join(r.players) or '-'} | "
            f"video {r.video_start:.1f} - {r.video_end:.1f}"
        )
    if not result.hits:
        lines.append("no clips matched")
    return "\n".join(lines)
