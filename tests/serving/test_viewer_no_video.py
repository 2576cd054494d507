"""The run browser on a corpus without video (the README's tour: synthetic, no clip files), in
real headless Chromium against the app under uvicorn, over a real t9 run in oracle mode with
the workflow policy: every clip hit reads as text (rank, score, caption) and no request for a
thumbnail, frame or clip is made (the server logs every request); the question's gold documents
and clips are marked with their rank in every search; a person's verdict goes in through the
page, comes back after a reload, counts in the list and in the report, and its note is text;
and an export keeps the gold marks and the first divergent turn from a baseline run.

The page sets `body[data-rendered]` when a view is drawn; tests wait for that, not for time."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from playscout.serving.app import create_app
from tests.browser import CHROMIUM, DRIVER, chromium, redraw, show
from tests.serving.conftest import LiveServer, live_server, make_settings
from tests.serving.runs_data import EVIL

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)",
    ),
]


class RequestLog:
    """ASGI middleware: (path, status) of every HTTP request the page makes."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, int]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def record(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["path"], message["status"]))
            await send(message)

        await self.app(scope, receive, record)


@pytest.fixture(scope="module")
def tour(tmp_path_factory, synth_index) -> Iterator[tuple[LiveServer, RequestLog, str, Path]]:
    """A server on the synthetic corpus (no clip files) with one real t9 oracle run of 3
    questions, started over HTTP as a user would."""
    from playscout.serving.eval_service import EvalRunService

    tmp = tmp_path_factory.mktemp("tour")
    settings = make_settings(tmp, synth_index, corpus_dir=synth_index.corpus_dir)
    service = EvalRunService(settings, settings.eval, synth_index.backend)
    log = RequestLog(create_app(settings, backend=synth_index.backend, run_service=service))
    with live_server(log) as srv:  # type: ignore[arg-type]
        body = {"task": "t9", "sport": "basketball", "mode": "oracle", "policy": "workflow",
                "limit": 3}  # fmt: skip
        run_id = httpx.post(f"{srv.url}/v1/runs", json=body, timeout=60).json()["id"]
        assert service.wait(run_id, 180)
        yield srv, log, run_id, settings.eval.runs_dir / run_id


def open_page(driver: Any, url: str) -> None:
    """A fresh load, even of the URL already shown (a same-URL `get` would not redraw)."""
    driver.get("about:blank")
    show(driver, url)


def gold_question(run_dir: Path) -> tuple[str, dict[str, Any]]:
    """The first question whose video search returned one of its gold clips, and its row."""
    rows = [orjson.loads(x) for x in (run_dir / "results.jsonl").read_bytes().splitlines()]
    for row in rows:
        events = [orjson.loads(x) for x in (run_dir / row["trajectory"]).read_bytes().splitlines()]
        found = {
            h["id"]
            for e in events
            if e.get("type") == "observation" and e.get("name") == "search_videos"
            for h in e["data"].get("hits", [])
        }
        if found & set(row["meta"]["gold_clip_ids"]):
            return row["qid"], row
    pytest.fail("no question of the run found a gold clip: the synthetic corpus changed?")


def search_hits(run_dir: Path, row: dict[str, Any], name: str) -> list[list[dict[str, Any]]]:
    events = [orjson.loads(x) for x in (run_dir / row["trajectory"]).read_bytes().splitlines()]
    return [
        e["data"].get("hits", [])
        for e in events
        if e.get("type") == "observation" and e.get("name") == name
    ]


def expected_gold_lines(gold: list[str], searches: list[list[dict[str, Any]]]) -> list[str]:
    lines = []
    for hits in searches:
        rank = {h["id"]: h["rank"] for h in hits}
        parts = [g + (f" at rank {rank[g]}" if g in rank else " not returned") for g in gold]
        lines.append("; ".join(parts))
    return lines


def test_clip_hits_are_text_and_no_thumbnail_is_requested(tour, browser):
    from selenium.webdriver.common.by import By

    srv, log, run_id, run_dir = tour
    qid, row = gold_question(run_dir)
    log.seen.clear()
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}/q/{qid}")
    hits = browser.find_elements(By.CSS_SELECTOR, "ol.clip-hits li.clip-hit")
    searches = search_hits(run_dir, row, "search_videos")
    assert len(hits) == sum(len(s) for s in searches) > 0
    first = searches[0][0]
    text = hits[0].text
    assert f"#{first['rank']}" in text and first["id"] in text and "score" in text
    assert hits[0].find_element(By.CSS_SELECTOR, ".caption").text.endswith(first["caption"])
    assert browser.find_elements(By.CSS_SELECTOR, "ol.clip-hits img") == []
    # the server saw no media request, and nothing the page asked for was an error
    assert not [p for p, _ in log.seen if p.startswith("/v1/clips/")], log.seen
    assert all(status < 400 for _, status in log.seen), log.seen
    asked = browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
    )
    assert not [u for u in asked if "/v1/clips/" in u]
    # clicking a clip says it has no file, and still requests nothing
    tiles = browser.find_elements(By.CSS_SELECTOR, "button.clip")
    if tiles:
        browser.execute_script("arguments[0].click()", tiles[0])
        assert "has no video file" in browser.find_element(By.CSS_SELECTOR, ".player-title").text
        assert not [p for p, _ in log.seen if p.startswith("/v1/clips/")]


def test_gold_documents_and_clips_are_marked_with_their_rank_in_every_search(tour, browser):
    from selenium.webdriver.common.by import By

    srv, _, run_id, run_dir = tour
    qid, row = gold_question(run_dir)
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}/q/{qid}")
    for kind, name, key in (("clip", "search_videos", "gold_clip_ids"),
                            ("doc", "search_documents", "gold_doc_ids")):  # fmt: skip
        shown = [
            e.text.split(": ", 1)[1]
            for e in browser.find_elements(By.CSS_SELECTOR, f'.gold-line[data-kind="{kind}"]')
        ]
        expected = expected_gold_lines(row["meta"][key], search_hits(run_dir, row, name))
        assert shown == expected and shown
    gold_clips = set(row["meta"]["gold_clip_ids"])
    marked = browser.find_elements(By.CSS_SELECTOR, "li.clip-hit.gold")
    assert marked and {m.get_attribute("data-clip") for m in marked} <= gold_clips
    assert all("gold clip" in m.find_element(By.CSS_SELECTOR, ".gold-badge").text for m in marked)
    ranks = {int(m.get_attribute("data-rank")) for m in marked}
    found = {h["rank"] for s in search_hits(run_dir, row, "search_videos") for h in s
             if h["id"] in gold_clips}  # fmt: skip
    assert ranks == found


def test_a_human_verdict_round_trips_through_the_page(tour, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    srv, _, run_id, run_dir = tour
    qid, _ = gold_question(run_dir)
    title = browser.title
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}/q/{qid}")
    form = browser.find_element(By.ID, "human-form")
    Select(form.find_element(By.NAME, "human-verdict")).select_by_value("right")
    form.find_element(By.NAME, "note").send_keys(EVIL)
    by = form.find_element(By.NAME, "by")
    by.clear()
    by.send_keys("ana")
    redraw(browser, form.find_element(By.CSS_SELECTOR, "button[type=submit]").click)
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "human-said").text == "saved")
    # after a reload the mark is read back from the server, its note as text
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}")
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}/q/{qid}")
    assert browser.find_element(By.ID, "human").text == "right"
    who = browser.find_element(By.ID, "human-by")
    assert "ana" in who.text and EVIL in who.text
    assert who.find_elements(By.TAG_NAME, "img") == [] and browser.title == title
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}")
    cell = browser.find_element(By.CSS_SELECTOR, f'tr[data-qid="{qid}"] td.human')
    assert cell.text == "right" and EVIL in cell.get_attribute("title")
    assert "1 right" in browser.find_element(By.ID, "human-counts").text
    report = httpx.get(f"{srv.url}/v1/runs/{run_id}/report").json()
    assert report["summary"]["human"]["overall"]["right"] == 1
    assert "| overall | 1 / 0 / 0 of 1 (unmarked 2) |" in report["markdown"]


def test_an_export_keeps_the_gold_marks_and_the_first_divergent_turn(tour, tmp_path, synth_index):
    """Exported against a baseline whose first search asked something else: each page marks
    the gold hits, and the question that diverged outlines its turn 1."""
    from selenium.webdriver.common.by import By

    from playscout.corpus import Corpus
    from playscout.serving.export import export_run

    _, _, _, run_dir = tour
    qid, row = gold_question(run_dir)
    base = tmp_path / "base"
    shutil.copytree(run_dir, base)
    path = base / row["trajectory"]
    events = [orjson.loads(x) for x in path.read_bytes().splitlines()]
    first = next(e for e in events if e.get("type") == "tool_call")
    first["arguments"] = {**first["arguments"], "query": "something else"}
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    res = export_run(run_dir, tmp_path / "export", Corpus(synth_index.corpus_dir), baseline=base)
    assert res.clips == 0 and res.missing_clips  # nothing to copy: no clip has a file
    driver = chromium()
    try:
        show(driver, (tmp_path / "export" / "index.html").as_uri() + f"#/runs/x/q/{qid}")
        assert driver.find_elements(By.CSS_SELECTOR, ".gold-line")
        assert driver.find_elements(By.CSS_SELECTOR, "li.clip-hit.gold")
        assert driver.find_elements(By.CSS_SELECTOR, "ol.clip-hits img") == []
        assert driver.find_element(By.ID, "divergence").text.endswith(f"base: {first['turn']}")
        outlined = driver.find_elements(By.CSS_SELECTOR, "article.divergent")
        assert outlined and all(
            a.get_attribute("data-turn") == str(first["turn"]) for a in outlined
        )
        assert driver.find_elements(By.ID, "human-form") == []  # an export only shows marks
    finally:
        driver.quit()


def test_the_final_answer_lists_clips_without_video_as_text_not_black_tiles(tour, browser):
    """The tour's final answer cites clips that have no video file: each is its id in a small
    chip (click says it has no file), never a 160x90 black box reading "no video file"."""
    from selenium.webdriver.common.by import By

    srv, _, run_id, run_dir = tour
    qid, row = gold_question(run_dir)
    events = [orjson.loads(x) for x in (run_dir / row["trajectory"]).read_bytes().splitlines()]
    final = next(e for e in events if e.get("type") == "final_answer")
    cited = final["evidence"]["clip_ids"][:12]
    assert cited, "the workflow policy's answer cites no clip: the test would show nothing"
    open_page(browser, f"{srv.url}/viewer#/runs/{run_id}/q/{qid}")
    tiles = browser.find_elements(By.CSS_SELECTOR, "article.final_answer button.clip")
    assert [t.get_attribute("data-clip") for t in tiles] == cited
    for tile in tiles:
        assert tile.find_elements(By.CSS_SELECTOR, "img, .noimg") == []
        assert tile.text.startswith(tile.get_attribute("data-clip"))
        assert tile.size["height"] < 45, tile.size  # a line of text, not a 90 px picture box
    assert "no video file" not in browser.find_element(By.CSS_SELECTOR, "article.final_answer").text


def test_the_run_list_keeps_accuracy_in_view_at_1280_px(tour):
    """A real oracle/workflow run is not comparable to the paper for several long reasons;
    at 1280 px the accuracy stays on screen (no sideways scroll) and the reasons open from
    one line beside it, every one listed."""
    from selenium.webdriver.common.by import By

    srv, _, run_id, _ = tour
    judged = httpx.post(f"{srv.url}/v1/runs/{run_id}/judge", json={"judge": "equivalence"})
    assert judged.status_code == 200, judged.text
    info = httpx.get(f"{srv.url}/v1/runs/{run_id}").json()
    reasons = info["not_comparable"]
    assert info["comparable"] is False and len(reasons) >= 3 and info["accuracy"] is not None
    driver = chromium(width=1280, height=900)
    try:
        show(driver, f"{srv.url}/viewer")
        cell = driver.find_element(By.CSS_SELECTOR, f'tr[data-run="{run_id}"] td:last-child')
        assert cell.text.startswith(f"{info['accuracy']:.1f}% ({info['right']}/{info['judged']}")
        # where the number's own text is drawn (its first text node), not its cell
        right = driver.execute_script(
            "const walk = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);"
            "const range = document.createRange(); range.selectNodeContents(walk.nextNode());"
            "return range.getBoundingClientRect().right;", cell
        )  # fmt: skip
        width = driver.execute_script("return document.documentElement.clientWidth")
        assert 0 < right <= width, (right, width)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        summary = cell.find_element(By.CSS_SELECTOR, ".not-comparable summary")
        assert summary.text == f"not comparable ({len(reasons)} reasons)"
        summary.click()
        shown = [li.text for li in cell.find_elements(By.CSS_SELECTOR, ".not-comparable li")]
        assert shown == reasons
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    finally:
        driver.quit()
