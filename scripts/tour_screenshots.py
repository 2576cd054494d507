"""Screenshots of the run browser on the README's tour corpus (synthetic, no clip files).

Builds the corpus as the README's quick tour does (`corpus synth --games 30 --seed 1`, `corpus
questions --per-sport 20`, `index build`), starts the API, runs t9 in oracle mode with the
offline `workflow` policy over HTTP, judges it, then in headless Chromium: a trajectory whose
searches returned gold evidence (clip hits as text, gold marked with their rank), a human
verdict marked through the page, and `playscout eval report` counting it. Prints how many
requests the pages made for clip media and how many were errors (both should be 0).

    .venv/bin/python scripts/tour_screenshots.py [--work var/tour] [--out var/shots] [--reuse]
"""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "playscout"]
sys.path.insert(0, str(ROOT))

from scripts.viewer_screenshots import run_and_judge, show, start_api  # noqa: E402
from tests.browser import chromium, redraw  # noqa: E402


def sh(*args: str) -> None:
    print("$ playscout", " ".join(args), flush=True)
    subprocess.run([*CLI, *args], check=True, cwd=ROOT)


def build(work: Path) -> tuple[Path, Path]:
    corpus, index = work / "corpus", work / "index"
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(index, ignore_errors=True)
    sh("corpus", "synth", "--out", str(corpus), "--games", "30", "--seed", "1")
    sh("corpus", "questions", str(corpus), "--per-sport", "20")
    sh("index", "build", "--corpus", str(corpus), "--out", str(index))
    return corpus, index


def gold_question(url: str, run_id: str) -> str:
    """A question whose video search returned one of its gold clips."""
    for row in httpx.get(f"{url}/v1/runs/{run_id}/questions").json()["items"]:
        t = httpx.get(f"{url}/v1/runs/{run_id}/questions/{row['qid']}").json()
        gold = set(t["annotations"].get("gold_clip_ids") or [])
        for e in t["events"]:
            is_search = e["type"] == "observation" and e["name"] == "search_videos"
            if is_search and gold & set(e["data"].get("clip_ids") or []):
                return str(row["qid"])
    raise SystemExit("no question of the run found a gold clip")


def media_requests(driver: Any) -> list[str]:
    return [
        u
        for u in driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)"
        )
        if "/v1/clips/" in u
    ]


def screenshots(url: str, run_id: str, run_dir: Path, out: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    out.mkdir(parents=True, exist_ok=True)
    qid = gold_question(url, run_id)
    driver = chromium(width=1440, height=1000)
    try:
        show(driver, f"{url}/viewer#/runs/{run_id}/q/{qid}")
        gold = driver.find_element(By.CSS_SELECTOR, "li.clip-hit.gold")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", gold)
        time.sleep(0.3)
        driver.save_screenshot(str(out / "tour-trajectory-gold.png"))
        broken = driver.execute_script(
            "return [...document.images].filter(i => i.complete && i.naturalWidth === 0).length"
        )
        print(f"question {qid}: {len(media_requests(driver))} clip media requests, "
              f"{broken} broken images, "
              f"{len(driver.find_elements(By.CSS_SELECTOR, 'li.clip-hit'))} clip hits as text, "
              f"{len(driver.find_elements(By.CSS_SELECTOR, '.gold-line'))} gold lines",
              flush=True)  # fmt: skip
        driver.execute_script("scrollTo(0, 0)")
        form = driver.find_element(By.ID, "human-form")
        Select(form.find_element(By.NAME, "human-verdict")).select_by_value("right")
        form.find_element(By.NAME, "note").send_keys("same play, the gold words it differently")
        form.find_element(By.NAME, "by").send_keys("reviewer")
        redraw(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]").click)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "human-said").text)
        show(driver, f"{url}/viewer#/runs/{run_id}")
        show(driver, f"{url}/viewer#/runs/{run_id}/q/{qid}")  # the mark, read back
        driver.save_screenshot(str(out / "tour-trajectory-top.png"))
        show(driver, f"{url}/viewer#/runs/{run_id}")
        driver.save_screenshot(str(out / "tour-questions-human.png"))
    finally:
        driver.quit()
    sh("eval", "report", str(run_dir))
    report = (run_dir / "report.md").read_text()
    page = out / "tour-eval-report.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><title>eval report</title>"
        "<body style='font: 13px ui-monospace, monospace; margin: 1rem'>"
        f"<p>$ playscout eval report {html.escape(str(run_dir.relative_to(ROOT)))}</p>"
        f"<pre>{html.escape(report)}</pre>"
    )
    driver = chromium(width=1440, height=1000)
    try:
        driver.get(page.as_uri())
        driver.save_screenshot(str(out / "tour-eval-report.png"))
    finally:
        driver.quit()
        page.unlink()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, default=ROOT / "var/tour")
    p.add_argument("--out", type=Path, default=ROOT / "var/shots")
    p.add_argument("--questions", type=int, default=6)
    p.add_argument("--reuse", action="store_true", help="Keep a corpus and index built before.")
    args = p.parse_args()

    from playscout.config import Settings

    work = args.work.resolve()
    corpus, index = (work / "corpus", work / "index") if args.reuse else build(work)
    shutil.rmtree(work / "runs", ignore_errors=True)
    settings = Settings.model_validate({
        "index": str(index), "corpus_dir": str(corpus),
        "agent": {"trajectory_dir": str(work / "traj"), "session_db": str(work / "s.sqlite")},
        "eval": {"runs_dir": str(work / "runs"), "cache_db": None, "concurrency": 2},
    })  # fmt: skip
    server, url = start_api(settings)
    try:
        run_id = run_and_judge(url, "oracle", args.questions)
        screenshots(url, run_id, work / "runs" / run_id, args.out.resolve())
    finally:
        server.should_exit = True
    print(f"screenshots in {args.out}", flush=True)


if __name__ == "__main__":
    main()
