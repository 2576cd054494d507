#!/usr/bin/env bash
# `pip install .` with no extras in a fresh venv, then what a new user runs first: the CLI help,
# `eval tasks`, and commands that need an extra (each must name it in one `error:` line, exit 2).
#   scripts/check_base_install.sh [VENV_DIR]     # default: a temporary folder, removed after
# Slow (downloads the base dependencies, ~2-4 min): not part of `make test`.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON_BIN="${PYTHON_BIN:-python3.11}"
WORK="$(mktemp -d)"
if [[ $# -ge 1 ]]; then VENV="$1"; else VENV="$WORK/venv"; fi  # the default goes with $WORK
trap 'rm -rf "$WORK"' EXIT

"$PYTHON_BIN" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "$ROOT" || exit 1
P="$VENV/bin/playscout"
failures=0

run() {  # run EXPECTED_EXIT ARGS...: show the command, its output (last lines) and exit code
  local want=$1; shift
  echo "\$ playscout $*"
  local output rc
  output=$(cd "$WORK" && "$P" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$output" | tail -n 25
  echo "[exit $rc]"
  if [[ "$rc" != "$want" ]]; then echo "UNEXPECTED: wanted exit $want"; failures=$((failures + 1)); fi
  echo
}

echo "installed: $("$VENV/bin/pip" list --disable-pip-version-check 2>/dev/null | wc -l) packages"
for extra in torch sentence_transformers cv2 scenedetect open_clip faster_whisper elasticsearch ray; do
  "$VENV/bin/python" -c "import $extra" 2>/dev/null && echo "unexpected: $extra is importable"
done
echo
run 0 --help
run 0 eval tasks
run 0 corpus synth --out "$WORK/corpus" --games 2 --sports hockey --workers 1
run 0 corpus questions "$WORK/corpus" --per-sport 2
run 2 index build --corpus "$WORK/corpus" --out "$WORK/index"
run 0 index build --corpus "$WORK/corpus" --out "$WORK/index-bm25" --doc-embedder none --caption-embedder none
run 0 search documents "goal" --index "$WORK/index-bm25" --sport hockey
run 2 search videos "goal" --index "$WORK/index-bm25" --sport hockey --mode oracle
run 2 search documents "goal" --index http://127.0.0.1:9/playscout --sport hockey
run 2 index videos --videos "$WORK" --pbp "$WORK/none.json" --out "$WORK/corpus"
echo "unexpected results: $failures"
exit $((failures > 0))
