"""Move a fully built staging tree into the corpus: the only step that writes to it.

Game folders are moved with renames (staging sits next to the corpus, on the same file system)
and each sport's metadata.json is replaced atomically, so a failure before this point leaves
the corpus exactly as it was."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from playscout.embed.embedder import RUNTIME_OPTIONS, EmbedderSpec
from playscout.embed.keyed import SPEC_FILE, write_spec
from playscout.media.errors import VideoError

VISUAL_DIR = "embeds/videos"


def _metadata(path: Path) -> dict[str, dict[str, str]]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise VideoError(f"{path}: unreadable corpus metadata ({e}); fix or remove it") from None
    if not isinstance(data, dict):
        raise VideoError(f"{path}: corpus metadata is not an object")
    return data


def existing_games(corpus: Path, games: Iterable[tuple[str, str]]) -> list[str]:
    """'sport/game_id' of the given games the corpus already has."""
    found = []
    for sport, game_id in games:
        if game_id in _metadata(corpus / "data" / sport / "metadata.json"):
            found.append(f"{sport}/{game_id}")
    return found


def _same_model(a: dict[str, object], b: dict[str, object]) -> bool:
    def key(s: dict[str, object]) -> tuple[object, ...]:
        opts = {k: v for k, v in dict(s.get("options") or {}).items() if k not in RUNTIME_OPTIONS}  # type: ignore[call-overload]
        return s.get("kind"), s.get("model"), s.get("dim"), sorted(opts.items())

    return key(a) == key(b)


def check_visual_spec(corpus: Path, spec: EmbedderSpec | None) -> None:
    """Every clip of a corpus with video vectors needs one from the same model: a visual
    channel with holes or with two models' vectors would rank clips by accident."""
    path = corpus / VISUAL_DIR / SPEC_FILE
    if path.is_file():
        old = json.loads(path.read_text())
        if spec is None:
            raise VideoError(
                f"{path}: the corpus has video vectors by {old.get('kind')}:{old.get('model')}; "
                "pass --visual-model with that model so the new clips get vectors too"
            )
        if not _same_model(old, spec.model_dump(mode="json")):
            raise VideoError(
                f"{path}: the corpus's video vectors were made by {old.get('kind')}:{old.get('model')}, "
                f"not {spec.kind}:{spec.model}; use the same visual model or a new corpus"
            )


def commit_staging(
    staging: Path,
    corpus: Path,
    visual_spec: EmbedderSpec | None,
    made_on: dict[str, str] | None = None,
) -> None:
    check_visual_spec(corpus, visual_spec)
    committed: dict[str, list[str]] = {}
    data = staging / "data"
    for sport_dir in sorted(p for p in data.iterdir() if p.is_dir()) if data.is_dir() else []:
        target = corpus / "data" / sport_dir.name
        meta = _metadata(target / "metadata.json")
        for game_dir in sorted((sport_dir / "games").iterdir()):
            gid = game_dir.name
            for kind in ("games", "clips"):
                src, dst = sport_dir / kind / gid, target / kind / gid
                if dst.exists():
                    shutil.rmtree(dst)
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
            committed.setdefault(sport_dir.name, []).append(gid)
            meta[gid] = {
                "game_info": f"games/{gid}/game_info.json",
                "clips_metadata": f"games/{gid}/clips_metadata.json",
                "play_by_play": f"games/{gid}/play_by_play.json",
                "clip_paths": f"clips/{gid}/clip_paths.json",
            }
        tmp = target / "metadata.json.tmp"
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True))
        os.replace(tmp, target / "metadata.json")
    for sport, gids in committed.items():  # vectors of replaced games must not linger
        for gid in gids:
            for old in (corpus / VISUAL_DIR / sport).glob(f"{gid}_*.npy"):
                old.unlink()
    vectors = staging / VISUAL_DIR
    if vectors.is_dir() and visual_spec is not None:
        for sport_dir in sorted(p for p in vectors.iterdir() if p.is_dir()):
            dst = corpus / VISUAL_DIR / sport_dir.name
            dst.mkdir(parents=True, exist_ok=True)
            for f in sport_dir.iterdir():
                os.replace(f, dst / f.name)
        write_spec(corpus / VISUAL_DIR, visual_spec, made_on)
