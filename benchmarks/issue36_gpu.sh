#!/usr/bin/env bash
# Issue 36's GPU measurements in one command, each result written as soon as it exists
# (a session's device time can end mid-way): the gpu-marked tests, benchmarks/gpu.py (captions
# in the build's calls vs bare, the vector core vs bare torch), a 2,000-game build before and
# after on the card with its stage table and GPU busy share, and search p50 with the query
# embedded on the card. Needs main's playscout for "before" (set BEFORE; skipped without).
#
#     BEFORE=/tmp/main OUT=var/issue36 bash benchmarks/issue36_gpu.sh
set -u
OUT=${OUT:-var/issue36}
PY=${PY:-.venv/bin/python}
GAMES=${GAMES:-2000}
mkdir -p "$OUT"
run() {  # name, seconds, command...
  local name=$1 limit=$2
  shift 2
  echo "== $name" | tee -a "$OUT/summary.txt"
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  echo "   exit $? ($(tail -n 1 "$OUT/$name.txt"))" | tee -a "$OUT/summary.txt"
}
nvidia-smi --query-gpu=name,memory.total --format=csv >"$OUT/gpu.txt" 2>&1
run tests-gpu 240 "$PY" -m pytest -q -m gpu tests/embed/test_warm_queries.py \
  tests/search/test_device_search.py tests/embed/test_device.py
run gpu-bench 300 "$PY" benchmarks/gpu.py --profile gpu
trees=()
if [ -n "${BEFORE:-}" ]; then trees=(--tree "before=$BEFORE"); fi
run build 600 "$PY" benchmarks/build.py --games "$GAMES" --device cuda "${trees[@]}" \
  --work "$OUT/work" --results "$OUT/build.jsonl"
index=$(ls -d "$OUT"/work/index-this 2>/dev/null)
if [ -n "$index" ]; then
  run query-encoder 180 "$PY" benchmarks/query_encoder.py --index "$index" \
    --search-device cuda --queries 200
fi
