"""Ask a running `playscout serve` through the official OpenAI SDK and print what it sees:
the model list, one blocking completion and one streamed completion.

    python scripts/openai_sdk_transcript.py --url http://127.0.0.1:8780 \
        --question "..." --mode oracle --policy workflow

Needs the `openai` package (in the dev extra). The key is read from PLAYSCOUT_API_KEY when set.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from openai import OpenAI


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8780")
    p.add_argument("--question", required=True)
    p.add_argument("--sport", default="basketball")
    p.add_argument("--mode", default="default")
    p.add_argument("--policy", default="llm")
    a = p.parse_args()
    client = OpenAI(
        base_url=f"{a.url}/v1", api_key=os.environ.get("PLAYSCOUT_API_KEY") or "none", timeout=600
    )
    extra = {"sport": a.sport, "mode": a.mode, "policy": a.policy}
    messages = [{"role": "user", "content": a.question}]

    print(">>> client.models.list()")
    print([m.id for m in client.models.list()])

    print(">>> client.chat.completions.create(model='playscout-agent', ...)")
    t0 = time.perf_counter()
    done = client.chat.completions.create(
        model="playscout-agent", messages=messages, extra_body=extra
    )
    print(f"id={done.id} finish_reason={done.choices[0].finish_reason} usage={done.usage}")
    print(f"content: {done.choices[0].message.content!r}")
    native = done.playscout  # type: ignore[attr-defined]
    print(f"playscout.status={native['status']} evidence={json.dumps(native['evidence'])[:300]}")
    print(f"({time.perf_counter() - t0:.2f} s)")

    print(">>> client.chat.completions.create(..., stream=True)")
    t0 = time.perf_counter()
    stream = client.chat.completions.create(
        model="playscout-agent",
        messages=messages,
        extra_body=extra,
        stream=True,
        stream_options={"include_usage": True},
    )
    for chunk in stream:
        at = f"{time.perf_counter() - t0:6.2f}s"
        if not chunk.choices:
            print(f"{at} usage={chunk.usage}")
            continue
        delta, finish = chunk.choices[0].delta, chunk.choices[0].finish_reason
        reasoning = getattr(delta, "reasoning_content", None)
        if reasoning:
            print(f"{at} reasoning_content: {reasoning.rstrip()[:160]}")
        if delta.content:
            print(f"{at} content: {delta.content!r}")
        if delta.role:
            print(f"{at} role: {delta.role}")
        if finish:
            status = getattr(chunk, "playscout", {}).get("status")
            print(f"{at} finish_reason={finish} playscout.status={status}")
    print("[DONE]")


if __name__ == "__main__":
    main()
