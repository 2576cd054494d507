#!/usr/bin/env bash
# T9 over rendered video, oracle and default mode on one question set (docs/presets.md, "T9 on
# rendered video"): a synthetic corpus, a broadcast excerpt of every game (`corpus render`),
# clips from that video (`index videos`: shots, windows, scoreboard OCR alignment, Whisper
# transcripts), the synthetic corpus's documents added (`corpus add-documents`), questions
# generated on the result (so every gold clip is a rendered clip), one index for both modes,
# then `t9_runs.sh workflow` (paper/extended x oracle/default) and its report.
#
#   scripts/vllm/t9_rendered.sh WORK        # writes WORK/{synth,videos,corpus,index,runs}
#
# Env: GAMES (30), SEED (11), MINUTES (6: the excerpt per game, from the first second of video),
# PER_SPORT (10 questions), FPS (25), SIZE (640x360). 30 games x 6 minutes took about 40 minutes
# of render + index on the project's 2-core machine (measured, docs/presets.md). Questions come
# only from events inside the excerpt, so a very short one can leave a sport with fewer questions
# than PER_SPORT (`corpus questions` prints the counts; 1 minute of 3 games gave basketball none,
# and `eval run` then stops with a one-line error). GAMES=3 MINUTES=2 PER_SPORT=2 is a 5-minute
# smoke run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PS="${PLAYSCOUT:-$ROOT/.venv/bin/playscout}"
work="${1:?usage: $0 WORK}"
games="${GAMES:-30}"
mkdir -p "$work"

step() { echo "[t9-rendered] $*" >&2; }
step "synthetic corpus: $games games, seed ${SEED:-11}"
"$PS" corpus synth --out "$work/synth" --games "$games" --seed "${SEED:-11}" --workers 1
step "render ${MINUTES:-6} minutes of each game"
"$PS" corpus render --corpus "$work/synth" --out "$work/videos" --games "$games" --start 0 \
  --minutes "${MINUTES:-6}" --fps "${FPS:-25}" --size "${SIZE:-640x360}"
step "index the videos (clips, scoreboard alignment, transcripts)"
"$PS" index videos --videos "$work/videos" --pbp "$work/videos/pbp.json" --out "$work/corpus"
"$PS" corpus add-documents --from "$work/synth" --to "$work/corpus"
"$PS" corpus questions "$work/corpus" --per-sport "${PER_SPORT:-10}" --seed "${SEED:-11}"
"$PS" corpus validate "$work/corpus"
step "index build"
"$PS" index build --corpus "$work/corpus" --out "$work/index"
"$ROOT/scripts/vllm/t9_runs.sh" workflow "$work/corpus" "$work/index" "$work/runs"
