#!/usr/bin/env bash
# Stop vLLM servers started by serve.sh.
#
#   scripts/vllm/stop.sh            # every server with a pid file in var/vllm/
#   scripts/vllm/stop.sh NAME...    # only these
#
# Ends the server's own process group (serve.sh starts it with setsid), TERM first, KILL
# after STOP_TIMEOUT_S (default 30). Only pids recorded by serve.sh are touched.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="$ROOT/var/vllm"
STOP_TIMEOUT_S="${STOP_TIMEOUT_S:-30}"

log() { printf '[vllm-stop] %s\n' "$*" >&2; }

if [[ $# -gt 0 ]]; then
  pidfiles=()
  for name in "$@"; do pidfiles+=("$STATE/$name.pid"); done
else
  shopt -s nullglob
  pidfiles=("$STATE"/*.pid)
fi
if [[ ${#pidfiles[@]} -eq 0 ]]; then
  log "no servers recorded in $STATE"
  exit 0
fi

for pidfile in "${pidfiles[@]}"; do
  name="$(basename "$pidfile" .pid)"
  if [[ ! -f "$pidfile" ]]; then
    log "$name: no pid file; nothing to stop"
    continue
  fi
  pid="$(cat "$pidfile")"
  if ! kill -0 "$pid" 2>/dev/null; then
    log "$name: pid $pid is not running"
    rm -f "$pidfile"
    continue
  fi
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq "$STOP_TIMEOUT_S"); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: still alive after ${STOP_TIMEOUT_S}s; sending KILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "$name: stopped (pid $pid)"
done
