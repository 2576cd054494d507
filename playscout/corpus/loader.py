"""Reads a corpus in the SVI-Bench T9 release layout (docs/reference.md §1).

The same code reads the real release and the synthetic one. Games are keyed by (sport, game_id)
so equal ids in two sports never overwrite each other, only known metadata keys are treated as
paths, and no path may leave the corpus root.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from playscout.corpus.errors import CorpusError, Problem
from playscout.corpus.models import (
    GAME_DOC_TYPES,
    ClipRecord,
    ClipsFile,
    DocumentRecord,
    EntityInfo,
    GameFiles,
    GameInfo,
    Question,
    SeasonFiles,
    clock_to_seconds,
    season_code_to_year,
    split_clip_id,
)

M = TypeVar("M", bound=BaseModel)

GAMES_PER_SHARD = 8  # a shard of Corpus.clip_shards: ~2,000 clips, a second of a worker's time
SEASON_METADATA = {"player": "metadata_season_player.json", "team": "metadata_season_team.json"}
SEASON_DOC_KEY = {"player": "season_stat_player", "team": "season_stat_team"}


def pydantic_problem(file: str, err: ValidationError) -> Problem:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return Problem(file, loc, first["msg"] + more)


def parse_stat_players(text: str) -> list[str]:
    """Player names of a game_stat_player text: '### Team' headers, then 'Name: stats' lines."""
    names: list[str] = []
    in_team = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("###"):
            in_team = True
        elif in_team and ":" in line:
            name = line.split(":", 1)[0].strip()
            if name and name not in names:
                names.append(name)
    return names


class Corpus:
    """A read-only view of one corpus root. Cheap to create; files are read on demand."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise CorpusError(f"{root}: corpus directory does not exist")
        if not (self.root / "data").is_dir():
            raise CorpusError(f"{root}: not a T9-layout corpus (no data/ folder)")

    # ------------------------------------------------------------------ files

    def rel(self, path: Path) -> str:
        text, root = str(path), str(self.root)
        if text.startswith(root) and text[len(root) : len(root) + 1] == os.sep:
            return text[len(root) + 1 :]
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return text

    def resolve(self, base: Path, relative: str) -> Path:
        """Join a path from a metadata file; refuse anything that leaves the corpus root.
        The folder part is resolved once per folder (_real_dir) and the file itself only when
        it is a link: resolving every clip path in full (a stat per path component) was half
        of an index build's record handling (issue 36)."""
        head, _, name = relative.rpartition("/")
        if name in ("", ".", "..") or relative.startswith("/"):
            path = (base / relative).resolve()
        else:
            path = self._real_dir(str(base), head) / name
            if os.path.islink(path):
                path = path.resolve()
        if not path.is_relative_to(self.root):
            raise CorpusError(Problem(self.rel(base), relative, "path leaves the corpus root"))
        return path

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one Corpus per root, lives as its users
    def _real_dir(self, base: str, head: str) -> Path:
        return (Path(base) / head).resolve() if head else Path(base).resolve()

    def read_json(self, path: Path) -> Any:
        try:
            return orjson.loads(path.read_bytes())
        except FileNotFoundError:
            raise CorpusError(Problem(self.rel(path), "", "file not found")) from None
        except orjson.JSONDecodeError as e:
            raise CorpusError(Problem(self.rel(path), "", f"invalid JSON: {e}")) from None

    def read_model(self, path: Path, model: type[M]) -> M:
        try:
            return model.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise CorpusError(Problem(self.rel(path), "", "file not found")) from None
        except ValidationError as e:
            raise CorpusError(pydantic_problem(self.rel(path), e)) from None

    def read_text(self, path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CorpusError(Problem(self.rel(path), "", "file not found")) from None
        except UnicodeDecodeError as e:
            raise CorpusError(Problem(self.rel(path), "", f"not UTF-8 text: {e}")) from None

    def sport_dir(self, sport: str) -> Path:
        return self.root / "data" / sport

    # ------------------------------------------------------------------ games

    def sports(self) -> list[str]:
        return sorted(
            p.name for p in (self.root / "data").iterdir() if (p / "metadata.json").is_file()
        )

    def check_sport(self, sport: str) -> None:
        if sport not in self.sports():
            known = ", ".join(self.sports()) or "none"
            raise CorpusError(f"unknown sport {sport!r} (this corpus has: {known})")

    @functools.cache  # noqa: B019 - one Corpus per root, lives as long as its users
    def games(self, sport: str) -> dict[str, GameFiles]:
        self.check_sport(sport)
        path = self.sport_dir(sport) / "metadata.json"
        raw = self.read_json(path)
        if not isinstance(raw, dict):
            raise CorpusError(Problem(self.rel(path), "", "expected an object game_id -> files"))
        games: dict[str, GameFiles] = {}
        for game_id, files in raw.items():
            try:
                games[str(game_id)] = GameFiles.model_validate(files)
            except ValidationError as e:
                raise CorpusError(pydantic_problem(self.rel(path), e)) from None
        return games

    def game_files(self, sport: str, game_id: str) -> GameFiles:
        games = self.games(sport)
        if game_id not in games:
            raise CorpusError(f"unknown game id {game_id!r} in {sport}")
        return games[game_id]

    def game_path(self, sport: str, game_id: str, key: str) -> Path | None:
        """A game file's path; None when the game lists none under `key` (the release lists
        no play_by_play, which only synthetic corpora write)."""
        rel = getattr(self.game_files(sport, game_id), key, None)
        return self.resolve(self.sport_dir(sport), rel) if rel else None

    @functools.lru_cache(maxsize=4096)  # noqa: B019
    def game_info(self, sport: str, game_id: str) -> GameInfo | None:
        path = self.game_path(sport, game_id, "game_info")
        return self.read_model(path, GameInfo) if path else None

    def clips_file(self, sport: str, game_id: str) -> ClipsFile | None:
        path = self.game_path(sport, game_id, "clips_metadata")
        return self.read_model(path, ClipsFile) if path else None

    @functools.lru_cache(maxsize=256)  # noqa: B019
    def clip_paths(self, sport: str, game_id: str) -> dict[str, Path]:
        """clip_id -> video file, from the game's `clip_paths` JSON. A null path means the
        clip has no video; anything but a path string is a problem, as is a path that leaves
        the corpus root (every bad entry is reported, not only the first)."""
        path = self.game_path(sport, game_id, "clip_paths")
        if path is None:
            return {}
        raw = self.read_json(path)
        file = self.rel(path)
        if not isinstance(raw, dict):
            raise CorpusError(Problem(file, "", "expected an object clip_id -> path"))
        paths: dict[str, Path] = {}
        problems: list[Problem] = []
        for clip_id, value in raw.items():
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                shown = json.dumps(value)[:60]
                problems.append(Problem(file, clip_id, f"expected a clip file path, not {shown}"))
                continue
            try:
                paths[clip_id] = self.resolve(path.parent, value)
            except CorpusError:
                problems.append(Problem(file, clip_id, f"{value}: path leaves the corpus root"))
        if problems:
            raise CorpusError(problems)
        return paths

    def clip_path(self, sport: str, clip_id: str) -> Path | None:
        game_id, _ = split_clip_id(clip_id)
        return self.clip_paths(sport, game_id).get(clip_id)

    # ------------------------------------------------------------------ records

    def clips_of_game(self, sport: str, game_id: str) -> list[ClipRecord]:
        clips = self.clips_file(sport, game_id)
        if clips is None:
            return []
        info = self.game_info(sport, game_id)
        paths = self.clip_paths(sport, game_id)
        records = []
        for key, w in clips.windows.items():
            file = f"clips_metadata of game {game_id}"
            if w.window_id != key:
                raise CorpusError(Problem(file, f"windows.{key}.window_id", "differs from its key"))
            try:
                gid, index = split_clip_id(w.window_id)
                cw = w.metadata.game_clock_window
                rem = (clock_to_seconds(cw.start_remaining), clock_to_seconds(cw.end_remaining))
                ela = (clock_to_seconds(cw.start_elapsed), clock_to_seconds(cw.end_elapsed))
            except ValueError as e:
                raise CorpusError(Problem(file, f"windows.{key}", str(e))) from None
            if gid != game_id:
                raise CorpusError(
                    Problem(file, f"windows.{key}", f"clip id is not of game {game_id}")
                )
            teams = w.metadata.teams or clips.teams
            players = w.metadata.players or clips.players
            path = paths.get(w.window_id)
            records.append(
                ClipRecord(
                    clip_id=w.window_id,
                    sport=sport,
                    game_id=game_id,
                    index=index,
                    period=w.period,
                    video_start=w.video_window.start,
                    video_end=w.video_window.end,
                    clock_remaining_start=max(rem),
                    clock_remaining_end=min(rem),
                    clock_elapsed_start=min(ela),
                    clock_elapsed_end=max(ela),
                    teams=list(dict.fromkeys(teams.values())),
                    players=list(dict.fromkeys(players.values())),
                    caption=" ".join(e.caption for e in w.metadata.events.values()),
                    transcript=w.metadata.transcript,
                    audio_events=list(w.metadata.audio_events),
                    clip_path=self.rel(path) if path else None,
                    date=info.date if info else None,
                    season=info.season if info else None,
                )
            )
        records.sort(key=lambda r: (r.video_start, r.index))
        return records

    def iter_clips(self, sport: str) -> Iterator[ClipRecord]:
        """Clips grouped by game (games in date order), each game in video-time order."""
        for game_id in self.games_in_order(sport):
            yield from self.clips_of_game(sport, game_id)

    def clip_shards(
        self, sport: str, games_per_shard: int = GAMES_PER_SHARD
    ) -> list[Callable[[], list[ClipRecord]]]:
        """iter_clips in runs of a few games that a worker process reads itself: picklable
        callables whose results, concatenated in order, are iter_clips (an index build
        handles the records on every core, issue 36)."""
        games = self.games_in_order(sport)
        return [
            functools.partial(clips_of_games, str(self.root), sport, tuple(games[i : i + size]))
            for size in (max(1, games_per_shard),)
            for i in range(0, len(games), size)
        ]

    def games_in_order(self, sport: str) -> list[str]:
        def key(game_id: str) -> tuple[str, str]:
            info = self.game_info(sport, game_id)
            return (info.date if info else "", game_id)

        return sorted(self.games(sport), key=key)

    def game_documents(self, sport: str, game_id: str) -> list[DocumentRecord]:
        info = self.game_info(sport, game_id)
        texts = {}
        for doc_type in GAME_DOC_TYPES:
            path = self.game_path(sport, game_id, doc_type)
            if path is not None:
                texts[doc_type] = self.read_text(path)
        players = parse_stat_players(texts.get("game_stat_player", ""))
        teams = [info.home_team, info.away_team] if info else []
        docs = []
        for doc_type, text in texts.items():
            docs.append(
                DocumentRecord(
                    doc_id=f"{game_id}_{doc_type}",
                    sport=sport,
                    doc_type=doc_type,
                    text=text,
                    game_id=game_id,
                    date=info.date if info else None,
                    season=info.season if info else None,
                    season_type=info.season_type if info else None,
                    home_team=info.home_team if info else None,
                    away_team=info.away_team if info else None,
                    teams=teams,
                    players=[] if doc_type == "game_stat_team" else players,
                )
            )
        return docs

    def season_entries(self, sport: str, entity_type: str) -> dict[str, dict[str, SeasonFiles]]:
        path = self.sport_dir(sport) / SEASON_METADATA[entity_type]
        if not path.is_file():
            return {}
        raw = self.read_json(path)
        out: dict[str, dict[str, SeasonFiles]] = {}
        try:
            for entity_id, seasons in raw.items():
                out[str(entity_id)] = {
                    str(code): SeasonFiles.model_validate(files) for code, files in seasons.items()
                }
        except (AttributeError, ValidationError) as e:
            msg = pydantic_problem(self.rel(path), e) if isinstance(e, ValidationError) else None
            raise CorpusError(
                msg or Problem(self.rel(path), "", "expected id -> season -> files")
            ) from None
        return out

    def season_documents(self, sport: str) -> Iterator[DocumentRecord]:
        base = self.sport_dir(sport)
        for entity_type in ("player", "team"):
            doc_type = SEASON_DOC_KEY[entity_type]
            for entity_id, seasons in sorted(self.season_entries(sport, entity_type).items()):
                for code, files in sorted(seasons.items()):
                    rel = getattr(files, doc_type)
                    if not rel:
                        continue
                    info = (
                        self.read_model(self.resolve(base, files.entity_info), EntityInfo)
                        if files.entity_info
                        else None
                    )
                    name = info.entity_name if info else None
                    team = (info.team_name if entity_type == "player" else name) if info else None
                    try:
                        season = season_code_to_year(code)
                    except ValueError as e:
                        raise CorpusError(
                            Problem(SEASON_METADATA[entity_type], f"{entity_id}.{code}", str(e))
                        ) from None
                    yield DocumentRecord(
                        doc_id=f"{entity_type}_{entity_id}_{code}_{doc_type}",
                        sport=sport,
                        doc_type=doc_type,
                        text=self.read_text(self.resolve(base, rel)),
                        season=season,
                        teams=[team] if team else [],
                        players=[name] if entity_type == "player" and name else [],
                        entity_type=entity_type,
                        entity_id=entity_id,
                        entity_name=name,
                    )

    def document_count(self, sport: str) -> int:
        """How many documents iter_documents yields, from the metadata alone (no text is
        read): the total a build's progress shows."""
        games = sum(
            1
            for files in self.games(sport).values()
            for doc_type in GAME_DOC_TYPES
            if getattr(files, doc_type, None)
        )
        seasons = sum(
            1
            for entity_type, doc_type in SEASON_DOC_KEY.items()
            for entries in self.season_entries(sport, entity_type).values()
            for files in entries.values()
            if getattr(files, doc_type)
        )
        return games + seasons

    def clip_count(self, sport: str) -> int:
        """How many clips iter_clips yields: the windows of every game's clips_metadata,
        counted without building records (the total a build's progress shows)."""
        total = 0
        for game_id in self.games(sport):
            path = self.game_path(sport, game_id, "clips_metadata")
            if path is not None and path.is_file():
                raw = self.read_json(path)
                windows = raw.get("windows") if isinstance(raw, dict) else None
                total += len(windows) if isinstance(windows, dict) else 0
        return total

    def iter_documents(self, sport: str) -> Iterator[DocumentRecord]:
        for game_id in self.games_in_order(sport):
            yield from self.game_documents(sport, game_id)
        yield from self.season_documents(sport)

    # ------------------------------------------------------------------ questions

    def questions(self, sport: str) -> list[Question]:
        """Questions in any of the shapes the reference accepts (a list, or {questions: [...]})."""
        path = self.root / "questions" / f"{sport}.json"
        if not path.is_file():
            return []
        raw = self.read_json(path)
        if isinstance(raw, dict):
            raw = raw.get("questions", list(raw.values()))
        if not isinstance(raw, list):
            raise CorpusError(Problem(self.rel(path), "", "expected a list of questions"))
        out = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise CorpusError(Problem(self.rel(path), f"[{i}]", "question is not an object"))
            qid = next((item[k] for k in ("id", "question_id", "qid", "index") if k in item), i)
            text = next((item[k] for k in ("question", "query", "text") if k in item), None)
            if text is None or "answer" not in item:
                raise CorpusError(
                    Problem(self.rel(path), f"[{i}]", "needs 'question' and 'answer'")
                )
            data = {**item, "id": str(qid), "question": str(text), "answer": str(item["answer"])}
            data.setdefault("sport", sport)
            try:
                out.append(Question.model_validate(data))
            except ValidationError as e:
                raise CorpusError(pydantic_problem(self.rel(path), e)) from None
        return out


@functools.lru_cache(maxsize=4)
def _corpus(root: str) -> Corpus:
    """One Corpus per root per process: a worker reads many shards of one corpus."""
    return Corpus(root)


def clips_of_games(root: str, sport: str, game_ids: Sequence[str]) -> list[ClipRecord]:
    """The clips of these games, in iter_clips order (a shard of Corpus.clip_shards)."""
    corpus = _corpus(root)
    return [clip for game_id in game_ids for clip in corpus.clips_of_game(sport, game_id)]
