#!/usr/bin/env bash
# The real vLLM serving path, end to end:
#   setup venv (if needed) -> prepare models (if needed) -> start vLLM-CPU servers ->
#   pytest tests/integration -> stop the servers -> summary.
#
#   scripts/vllm/run_integration.sh            # text model + tiny VLM
#   SKIP_VLM=1 scripts/vllm/run_integration.sh # text model only
#
# Env: LLM_PORT (8801), VLM_PORT (8802), LLM_MAX_MODEL_LEN (8192), VLM_MAX_MODEL_LEN (4096),
# LLM_TOOL_PARSER (hermes; empty = serve SmolLM2 without a tool parser),
# KEEP_SERVERS=1 (leave them running), PYTEST_ARGS (extra pytest args). Reports land in var/vllm/report/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
HERE="scripts/vllm"
VENV_VLLM="${VLLM_VENV:-$ROOT/.venv-vllm}"
PROJECT_PY="${PROJECT_PY:-$ROOT/.venv/bin/python}"
LLM_PORT="${LLM_PORT:-8801}"
VLM_PORT="${VLM_PORT:-8802}"
LLM_NAME=smollm2
VLM_NAME=tiny-qwen2-vl
# The agent's system prompt + tool list is ~3.7k SmolLM2 tokens: 8192 leaves room for turns.
LLM_MAX_MODEL_LEN="${LLM_MAX_MODEL_LEN:-8192}"
VLM_MAX_MODEL_LEN="${VLM_MAX_MODEL_LEN:-4096}"
STATE="$ROOT/var/vllm"
REPORT="$STATE/report"
SKIP_VLM="${SKIP_VLM:-0}"
# vLLM's hermes parser reads <tool_call> blocks; SmolLM2's own chat template ignores `tools`,
# so the server gets a ChatML template that lists them (tests/integration/test_vllm_tools.py).
LLM_TOOL_PARSER="${LLM_TOOL_PARSER-hermes}"
llm_tool_args=()
if [[ -n "$LLM_TOOL_PARSER" ]]; then
  llm_tool_args=(--enable-auto-tool-choice --tool-call-parser "$LLM_TOOL_PARSER"
                 --chat-template "$HERE/templates/chatml_hermes_tools.jinja")
fi

log() { printf '\n[vllm-integration] %s\n' "$*" >&2; }

cleanup() {
  if [[ "${KEEP_SERVERS:-0}" != "1" ]]; then
    "$HERE/stop.sh" "$LLM_NAME" "$VLM_NAME" || true
  fi
}
trap cleanup EXIT

t_all=$(date +%s)
rm -rf "$REPORT"; mkdir -p "$REPORT"

log "1/4 vLLM venv"
"$HERE/setup.sh"

log "2/4 models"
prep_args=()
[[ "$SKIP_VLM" == "1" ]] && prep_args+=(--skip-vlm)
# The overlay gives the VLM build the torchvision that Qwen2-VL's processors import.
PYTHONPATH="$VENV_VLLM/torchvision-overlay" \
  "$VENV_VLLM/bin/python" "$HERE/prepare_models.py" --out var/models "${prep_args[@]}"

log "3/4 servers (CPU, 2 cores: expect 1.5-4 min each)"
VLLM_MAX_MODEL_LEN="$LLM_MAX_MODEL_LEN" "$HERE/serve.sh" var/models/smollm2-135m-instruct "$LLM_PORT" "$LLM_NAME" \
  --max-num-seqs 4 "${llm_tool_args[@]}" > "$REPORT/serve_$LLM_NAME.txt" &
llm_serve=$!
vlm_serve=""
if [[ "$SKIP_VLM" != "1" ]]; then
  VLLM_TORCHVISION_OVERLAY=1 VLLM_MAX_MODEL_LEN="$VLM_MAX_MODEL_LEN" \
    "$HERE/serve.sh" var/models/tiny-qwen2-vl "$VLM_PORT" "$VLM_NAME" \
    --max-num-seqs 2 --limit-mm-per-prompt '{"image": 16, "video": 0}' \
    > "$REPORT/serve_$VLM_NAME.txt" &
  vlm_serve=$!
fi
llm_ok=1; vlm_ok=0
wait "$llm_serve" || llm_ok=0
if [[ -n "$vlm_serve" ]]; then
  if wait "$vlm_serve"; then vlm_ok=1; else log "VLM server failed: see $STATE/$VLM_NAME.log"; fi
fi
[[ "$llm_ok" == "1" ]] || { log "text server failed: see $STATE/$LLM_NAME.log"; exit 1; }
cat "$REPORT"/serve_*.txt

export PLAYSCOUT_VLLM_URL="http://127.0.0.1:$LLM_PORT/v1"
export PLAYSCOUT_VLLM_MODEL="$LLM_NAME"
export PLAYSCOUT_VLLM_MAX_MODEL_LEN="$LLM_MAX_MODEL_LEN"
export PLAYSCOUT_VLLM_TOOL_PARSER="$LLM_TOOL_PARSER"
export PLAYSCOUT_VLLM_REPORT_DIR="$REPORT"
if [[ "$vlm_ok" == "1" ]]; then
  export PLAYSCOUT_VLLM_VLM_URL="http://127.0.0.1:$VLM_PORT/v1"
  export PLAYSCOUT_VLLM_VLM_MODEL="$VLM_NAME"
fi

log "4/4 pytest tests/integration"
set +e
# shellcheck disable=SC2086
"$PROJECT_PY" -m pytest tests/integration -m integration -s -v -p no:cacheprovider \
  --timeout 900 --junitxml "$REPORT/junit.xml" ${PYTEST_ARGS:-} 2>&1 | tee "$REPORT/pytest.txt"
rc=${PIPESTATUS[0]}
set -e

log "summary"
{
  echo "install: $(cat "$STATE/install.txt" 2>/dev/null | tr '\n' ' ')"
  for n in "$LLM_NAME" "$VLM_NAME"; do
    [[ -f "$STATE/$n.ready_s" ]] && echo "server $n ready_s: $(cat "$STATE/$n.ready_s")"
  done
  grep -E '^\[vllm (chat|agent|vlm|structured|native)\]' "$REPORT/pytest.txt" || true
  grep -E '(passed|failed|skipped|error)' "$REPORT/pytest.txt" | tail -n 1
  echo "pytest rc: $rc; total wall: $(( $(date +%s) - t_all ))s; reports: $REPORT"
} | tee "$REPORT/summary.txt"
exit "$rc"
