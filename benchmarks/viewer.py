"""Run browser page load in headless Chromium: time to first render (navigation start to the
page's `playscout-rendered` mark: the API calls answered and the view drawn) of the question
list of a 1,000-question run and of a 30-turn trajectory, each against a baseline measured in
the same run on the same server: a 10-question run and a 3-turn trajectory.

The runs are written with the eval runner's writers (tests/serving/runs_data.py), the server
is the real app under uvicorn, the browser is Debian's chromium.

    .venv/bin/python benchmarks/viewer.py [--loads 7] [--index DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the run writers live with the tests that use them too

from tests.browser import chromium  # noqa: E402
from tests.serving.runs_data import write_run  # noqa: E402


def serve(settings: Any, backend: Any) -> tuple[Any, str]:
    import socket

    import uvicorn

    from playscout.serving.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(settings, backend=backend)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def first_render_ms(driver: Any, url: str) -> float:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get(url)
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script(
            "return performance.getEntriesByName('playscout-rendered').length"
        )
    )
    return float(driver.execute_script(
        "return performance.getEntriesByName('playscout-rendered')[0].startTime"))  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--loads", type=int, default=7, help="Fresh page loads per page (median).")
    p.add_argument("--index", type=Path, help="An index to open (default: build a tiny one).")
    args = p.parse_args()

    from playscout.config import Settings
    from playscout.search import open_backend
    from tests.synthdata import index_corpus, make_corpus

    tmp = Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    if args.index:
        backend, index = open_backend(args.index), args.index
    else:
        corpus = make_corpus(tmp / "corpus", games=1, sports=["basketball"], questions=0)
        index = tmp / "index"
        backend = index_corpus(corpus, index, sports=["basketball"])
    runs = tmp / "runs"
    t0 = time.perf_counter()
    write_run(runs, "big", 1000)
    write_run(runs, "small", 10)
    write_run(runs, "long", 3, turns=30)
    write_run(runs, "short", 3, turns=3)
    print(f"wrote the runs in {time.perf_counter() - t0:.1f} s", flush=True)
    settings = Settings.model_validate({
        "index": str(index),
        "agent": {"trajectory_dir": str(tmp / "traj"), "session_db": str(tmp / "s.sqlite")},
        "eval": {"runs_dir": str(runs), "cache_db": None},
    })  # fmt: skip
    server, url = serve(settings, backend)
    driver = chromium()
    pages = {
        "question list, 10-question run (baseline)": "#/runs/small",
        "question list, 1,000-question run": "#/runs/big",
        "trajectory, 3 turns (baseline)": "#/runs/short/q/q0001",
        "trajectory, 30 turns": "#/runs/long/q/q0001",
    }
    try:
        for page in pages.values():  # warm the server's run cache and the browser's
            first_render_ms(driver, f"{url}/viewer{page}")
        medians = {}
        for name, page in pages.items():
            times = [first_render_ms(driver, f"{url}/viewer{page}") for _ in range(args.loads)]
            medians[name] = statistics.median(times)
    finally:
        driver.quit()
        server.should_exit = True
        shutil.rmtree(tmp, ignore_errors=True)
    names = list(pages)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    print(f"time to first render, median of {args.loads} fresh loads in headless Chromium:")
    for i, name in enumerate(names):
        base = medians[names[i - i % 2]]
        ratio = "" if i % 2 == 0 else f"  ({medians[name] / base:.2f}x its baseline)"
        print(f"  {name:45s} {medians[name]:8.1f} ms{ratio}")


if __name__ == "__main__":
    main()
