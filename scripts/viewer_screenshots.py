"""Regenerate the run browser screenshots in docs/screenshots/ (`make screenshots`).

Builds a corpus with real clip files the way a user would (`corpus synth`, `corpus render` of
three minutes of one game, `index videos` with the tiny random open_clip model, `corpus
add-documents`, `corpus questions` on the video corpus so gold clips are rendered clips, `index
build`), starts the API, runs t9 twice over HTTP (default and oracle mode, the
offline `workflow` policy), judges both, then drives headless Chromium through the run list,
the wrong answers, a trajectory with its clip playing next to the 16 frames video_qa sent, the
compare views and an export opened from disk.

No VLM weights exist on this machine, so unless `--vlm-url`/`--vlm-model` name a real one,
video_qa talks to a placeholder OpenAI-compatible server started here, which answers every
clip with "placeholder VLM: N frames received" (the screenshots show that text). The frames,
clips, search and trajectories are real.

    .venv/bin/python scripts/viewer_screenshots.py [--work var/shots] [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "playscout"]
sys.path.insert(0, str(ROOT))  # the browser helpers live with the tests that use them too

from tests.browser import chromium, play  # noqa: E402
from tests.browser import show as shown  # noqa: E402


def sh(*args: str) -> None:
    print("$ playscout", " ".join(args), flush=True)
    subprocess.run([*CLI, *args], check=True, cwd=ROOT)


def build_corpus(work: Path, minutes: float, questions: int) -> tuple[Path, Path]:
    synth, videos, corpus, index = (work / n for n in ("synth", "videos", "corpus", "index"))
    for path in (synth, videos, corpus, index):
        shutil.rmtree(path, ignore_errors=True)
    sh(
        "corpus",
        "synth",
        "--out",
        str(synth),
        "--games",
        "1",
        "--seed",
        "1",
        "--sports",
        "basketball",
    )
    sh("corpus", "render", "--corpus", str(synth), "--out", str(videos), "--games", "1",
       "--minutes", str(minutes), "--sport", "basketball")  # fmt: skip
    weights = work / "tiny_clip.pt"
    from playscout.embed.open_clip import make_tiny_weights

    make_tiny_weights(weights)
    sh("index", "videos", "--videos", str(videos), "--pbp", str(videos / "pbp.json"),
       "--out", str(corpus), "--visual-model", f"open_clip:playscout-tiny@{weights}")  # fmt: skip
    sh("corpus", "add-documents", "--from", str(synth), "--to", str(corpus))
    sh("corpus", "questions", str(corpus), "--per-sport", str(questions), "--seed", "1")
    sh("corpus", "validate", str(corpus))
    sh("index", "build", "--corpus", str(corpus), "--out", str(index))
    return corpus, index


class PlaceholderVLM:
    """An OpenAI-compatible chat endpoint that says it is a placeholder and how many images it
    got. Used only when no real VLM is given."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send(
                    {"object": "list", "data": [{"id": "placeholder-vlm", "object": "model"}]}
                )

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                parts = body["messages"][-1]["content"]
                images = (
                    sum(p.get("type") == "image_url" for p in parts)
                    if isinstance(parts, list)
                    else 0
                )
                answer = {"answer": f"placeholder VLM: {images} frames received", "confidence": 0.1,
                          "evidence": "no VLM weights on this machine"}  # fmt: skip
                self._send({
                    "id": "placeholder", "object": "chat.completion", "model": "placeholder-vlm",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant", "content": f"<answer>{json.dumps(answer)}</answer>"}}],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                })  # fmt: skip

            def _send(self, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_api(settings: Any) -> tuple[Any, str]:
    import socket

    import uvicorn

    from playscout.serving.app import create_app
    from playscout.serving.eval_service import EvalRunService

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(settings, run_service=EvalRunService(settings, settings.eval))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def run_and_judge(url: str, mode: str, limit: int) -> str:
    body = {"task": "t9", "sport": "basketball", "mode": mode, "policy": "workflow", "limit": limit}
    run_id = httpx.post(f"{url}/v1/runs", json=body, timeout=30).json()["id"]
    while (info := httpx.get(f"{url}/v1/runs/{run_id}").json())["state"] in ("queued", "running"):
        time.sleep(0.5)
    assert info["state"] == "done", info
    stats = httpx.post(f"{url}/v1/runs/{run_id}/judge", json={"judge": "equivalence"}, timeout=600)
    print(f"run {run_id}: {info['statuses']}; judge {stats.json()}", flush=True)
    time.sleep(1.1)  # the two runs' directory names are by the second
    return run_id


def show(driver: Any, url: str) -> None:
    shown(driver, url)
    time.sleep(0.5)  # let fonts and layout settle before a picture


def images_loaded(driver: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "return [...document.images].filter(i => i.getBoundingClientRect().top < innerHeight)"
        ".every(i => i.complete)"))  # fmt: skip


def play_clip(driver: Any, clip_id: str) -> None:
    """Click the clip's tile beside its frames and let it play for a second."""
    from selenium.webdriver.support.ui import WebDriverWait

    video = play(driver, clip_id)
    driver.execute_script("scrollBy(0, -60)")
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return arguments[0].currentTime > 1.0", video)
    )
    driver.execute_script("arguments[0].pause()", video)
    images_loaded(driver)


def first_video_qa(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, ".qa-frames button.clip").get_attribute("data-clip")


def screenshots(url: str, default_run: str, oracle_run: str, export: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    driver = chromium(width=1440, height=1000)
    try:
        show(driver, f"{url}/viewer")
        driver.save_screenshot(str(out / "runs.png"))
        show(driver, f"{url}/viewer#/runs/{default_run}?verdict=wrong")
        driver.save_screenshot(str(out / "questions-wrong.png"))
        qid = httpx.get(
            f"{url}/v1/runs/{default_run}/questions", params={"tool": "video_qa"}
        ).json()["items"][0]["qid"]
        show(driver, f"{url}/viewer#/runs/{default_run}/q/{qid}")
        images_loaded(driver)
        driver.save_screenshot(str(out / "trajectory-top.png"))
        play_clip(driver, first_video_qa(driver))
        driver.save_screenshot(str(out / "trajectory-clip-frames.png"))
        show(driver, f"{url}/viewer#/compare/{default_run}/{oracle_run}")
        driver.save_screenshot(str(out / "compare.png"))
        show(driver, f"{url}/viewer#/compare/{default_run}/{oracle_run}/q/{qid}")
        images_loaded(driver)
        driver.save_screenshot(str(out / "compare-question.png"))
    finally:
        driver.quit()
    driver = chromium(width=1440, height=1000)  # no server behind this one: the export from disk
    try:
        show(driver, (export / "index.html").as_uri() + f"#/runs/{default_run}/q/{qid}")
        play_clip(driver, first_video_qa(driver))
        driver.save_screenshot(str(out / "export-from-disk.png"))
    finally:
        driver.quit()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, default=ROOT / "var/shots")
    p.add_argument("--out", type=Path, default=ROOT / "docs/screenshots")
    p.add_argument("--minutes", type=float, default=3.0)
    p.add_argument("--questions", type=int, default=12)
    p.add_argument("--vlm-url")
    p.add_argument("--vlm-model")
    p.add_argument("--reuse", action="store_true", help="Keep a corpus and index built before.")
    args = p.parse_args()

    from playscout.config import Settings

    work = args.work.resolve()
    corpus, index = (
        (work / "corpus", work / "index")
        if args.reuse
        else build_corpus(work, args.minutes, args.questions)
    )
    placeholder = None if args.vlm_url else PlaceholderVLM()
    vlm = {
        "base_url": args.vlm_url or placeholder.url,
        "model": args.vlm_model or "placeholder-vlm",
    }  # type: ignore[union-attr]
    shutil.rmtree(work / "runs", ignore_errors=True)
    settings = Settings.model_validate({
        "index": str(index), "corpus_dir": str(corpus), "qa": {"vlm": vlm},
        "agent": {"trajectory_dir": str(work / "traj"), "session_db": str(work / "s.sqlite")},
        "eval": {"runs_dir": str(work / "runs"), "cache_db": None, "concurrency": 2},
    })  # fmt: skip
    server, url = start_api(settings)
    try:
        default_run = run_and_judge(url, "default", args.questions)
        oracle_run = run_and_judge(url, "oracle", args.questions)
        export = work / "export"
        shutil.rmtree(export, ignore_errors=True)
        sh(
            "eval",
            "export",
            str(work / "runs" / default_run),
            "--html",
            str(export),
            "--corpus",
            str(corpus),
        )
        screenshots(url, default_run, oracle_run, export, args.out)
    finally:
        server.should_exit = True
        if placeholder is not None:
            placeholder.stop()
    print(f"wrote {', '.join(sorted(p.name for p in args.out.glob('*.png')))} to {args.out}")


if __name__ == "__main__":
    main()
