"""The run browser in real headless Chromium (selenium + Debian chromium/chromedriver) against
the app under uvicorn: every list reaches every item of a 1,000-question run, filters, the
turns of a 30-turn trajectory, failures in red with their reason, injected HTML shown as text,
compare with the first divergent turn, a clip that plays and seeks over range requests next to
the 16 frames a video_qa call sent, and an export opened from disk with no server.

The page sets `body[data-rendered]` when a view is drawn; tests wait for that, not for time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import Settings
from playscout.serving.app import create_app
from tests.browser import CHROMIUM, DRIVER, chromium, frames_loaded, play, redraw, show
from tests.serving.conftest import LiveServer, free_port, live_server, make_settings
from tests.serving.runs_data import EVIL, write_run
from tests.synthdata import workflow_calls

RED = "rgba(179, 38, 30, 1)"  # viewer.css: .reason
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)",
    ),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory, synth_index) -> Iterator[LiveServer]:
    """A server with a 1,000-question run, two runs to compare, a 30-turn trajectory and two
    ad-hoc asks: one answered, one whose model server was down (a closed port)."""
    tmp = tmp_path_factory.mktemp("browser")
    runs = tmp / "runs"
    write_run(runs, "big", 1000, evil_at=7)
    write_run(runs, "a", 60)
    write_run(runs, "b", 60, flip=1, first_query="who won")
    write_run(runs, "long", 3, turns=30)
    down = OpenAIChatClient(f"http://127.0.0.1:{free_port()}/v1", "down-model", max_retries=0)
    app = create_app(make_settings(tmp, synth_index), backend=synth_index.backend, llm_client=down)
    with live_server(app) as srv:
        # oracle mode: a default-mode ask on this captions-only index is refused before it
        # starts (a 400), and this ask must reach the model that is down
        failed = {"question": "who won when the model was down?", "policy": "llm", "mode": "oracle"}
        assert httpx.post(f"{srv.url}/v1/ask", json=failed, timeout=60).status_code == 503
        body = {"question": synth_index.question, "policy": "workflow", "mode": "oracle"}
        assert httpx.post(f"{srv.url}/v1/ask", json=body, timeout=60).status_code == 200
        yield srv


def click_and_wait(browser: Any, element: Any) -> None:
    redraw(browser, element.click)


def texts(browser: Any, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in browser.find_elements(By.CSS_SELECTOR, css)]


def all_pages(browser: Any, css: str) -> list[str]:
    """`css` texts of every page, clicking `next` until it is disabled."""
    from selenium.webdriver.common.by import By

    seen = texts(browser, css)
    while True:
        nxt = browser.find_element(By.CSS_SELECTOR, ".pager .next")
        if not nxt.is_enabled():
            return seen
        click_and_wait(browser, nxt)
        seen += texts(browser, css)


def test_run_list_shows_every_run_with_accuracy_and_the_asks(site, browser):
    show(browser, f"{site.url}/viewer")
    rows = {
        r: t
        for r, t in zip(
            texts(browser, "table.runs td.id"),
            texts(
                browser,
                "table.runs tr[data-run] td:last-child, table.runs tr.asks-row td:last-child",
            ),
            strict=False,
        )
    }
    assert {"big", "a", "b", "long", "ad-hoc asks"} <= set(rows)
    info = httpx.get(f"{site.url}/v1/runs/big").json()
    assert rows["big"].startswith(f"{info['accuracy']:.1f}% ({info['right']}/{info['judged']}")
    assert texts(browser, "tr.asks-row td.num") == ["2"]


def test_every_question_of_a_1000_question_run_is_reachable(site, browser):
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer#/runs/big")
    assert texts(browser, ".pager .range") == ["1–100 of 1000"]
    ids = all_pages(browser, "table.questions td.id")
    assert ids == [f"q{i:04d}" for i in range(1000)]
    page = browser.find_element(By.CSS_SELECTOR, ".pager input.page")  # jump straight to a page
    redraw(browser, lambda: browser.execute_script(
        "arguments[0].value = '7'; arguments[0].dispatchEvent(new Event('change'))", page
    ))  # fmt: skip
    assert texts(browser, "table.questions td.id")[0] == "q0600"


def test_filters_narrow_the_list_and_still_reach_every_match(site, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    show(browser, f"{site.url}/viewer#/runs/big")
    verdict = Select(browser.find_element(By.NAME, "verdict"))
    redraw(browser, lambda: verdict.select_by_value("wrong"))
    wrong = all_pages(browser, "table.questions tr td:nth-child(5) .pill")
    expected = httpx.get(
        f"{site.url}/v1/runs/big/questions", params={"verdict": "wrong", "limit": 1}
    ).json()["total"]
    assert len(wrong) == expected > 300 and set(wrong) == {"wrong"}
    show(browser, f"{site.url}/viewer#/runs/big?status=error&sport=soccer")
    reasons = texts(browser, "table.questions td.reason")
    assert reasons and all("connection refused" in r for r in reasons)
    red = browser.find_element(By.CSS_SELECTOR, "table.questions td.reason").value_of_css_property(
        "color"
    )
    assert red == RED
    show(browser, f"{site.url}/viewer#/runs/big?q=question%20123%3A")
    assert texts(browser, "table.questions td.id") == ["q0123"]
    show(browser, f"{site.url}/viewer#/runs/big?tool=video_qa")
    assert texts(browser, ".pager .range") == ["1–100 of 500"]


def test_a_30_turn_trajectory_shows_every_turn_in_order(site, browser):
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer#/runs/long/q/q0001")
    arts = browser.find_elements(By.CSS_SELECTOR, ".events article")
    types = [a.get_attribute("data-type") for a in arts]
    assert (
        types.count("model_call") == 30
        and types.count("tool_call") == types.count("observation") == 29
    )
    assert types[0] == "run_start" and types[-1] == "final_answer"
    turns = [
        int(a.get_attribute("data-turn"))
        for a in arts
        if a.get_attribute("data-type") == "model_call"
    ]
    assert turns == list(range(1, 31))
    assert "Turn 12: I will call video_qa." in texts(
        browser, ".events article.model_call pre.content"
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "details.reasoning")) == 29
    assert len(browser.find_elements(By.CSS_SELECTOR, "#timeline .block")) == 29
    assert browser.find_element(By.ID, "gold").text == "gold 1"
    assert browser.find_element(By.ID, "verdict").text == "right"
    highlights = texts(browser, ".doc-hits .highlight")
    assert "report line for step 1" in highlights


def test_a_failed_question_says_why_in_red(site, browser):
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer#/runs/big/q/q0005")
    error = browser.find_element(By.ID, "run-error")
    assert "connection refused" in error.text
    assert error.value_of_css_property("color") == RED
    article = browser.find_element(By.CSS_SELECTOR, ".events article.error")
    assert "fatal" in article.text and "connection refused" in article.text


def test_a_failed_ask_says_why_in_red(site, browser):
    """The model server was down: the asks list and the ask's page give the reason in red,
    not "0 turns" and no reason."""
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer#/asks?status=error")
    [reason] = browser.find_elements(By.CSS_SELECTOR, "table.questions td.reason")
    assert "127.0.0.1" in reason.text and reason.value_of_css_property("color") == RED
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "table.questions td.q a"))
    assert "#/asks/" in browser.current_url
    error = browser.find_element(By.ID, "run-error")
    assert "127.0.0.1" in error.text and error.value_of_css_property("color") == RED


def test_injected_html_is_shown_as_text(site, browser):
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer#/runs/big?q=onerror")
    assert texts(browser, "table.questions td.q") == [EVIL]
    assert browser.find_elements(By.CSS_SELECTOR, "table.questions td.q img") == []
    show(browser, f"{site.url}/viewer#/runs/big/q/q0007")
    assert browser.find_element(By.ID, "question").text == EVIL
    assert browser.find_elements(By.CSS_SELECTOR, "#question img") == []
    assert browser.title != "pwned"


def test_compare_lists_changes_and_marks_the_first_divergent_turn(site, browser):
    from selenium.webdriver.common.by import By

    show(browser, f"{site.url}/viewer")
    for run in ("a", "b"):
        browser.find_element(By.CSS_SELECTOR, f'input.pick[value="{run}"]').click()
    click_and_wait(browser, browser.find_element(By.ID, "compare-btn"))
    assert "#/compare/a/b" in browser.current_url
    cmp = httpx.get(f"{site.url}/v1/runs/a/compare/b").json()
    pills = " ".join(texts(browser, ".counts .pill"))
    assert (
        f"fixed {cmp['counts']['fixed']}" in pills and f"broken {cmp['counts']['broken']}" in pills
    )
    show(browser, f"{site.url}/viewer#/compare/a/b?change=fixed")
    changes = texts(browser, "table.compare td:last-child")
    assert changes and set(changes) == {"fixed"}
    show(browser, f"{site.url}/viewer#/compare/a/b/q/q0001")
    assert browser.find_element(By.ID, "divergence").text == "first divergent turn: 1"
    for side in ("A", "B"):
        marked = browser.find_elements(
            By.CSS_SELECTOR, f'.col[data-side="{side}"] article.divergent'
        )
        assert marked and {m.get_attribute("data-turn") for m in marked} == {"1"}


def test_old_trajectory_links_and_ad_hoc_asks_open(site, browser):
    from selenium.webdriver.common.by import By

    answered = httpx.get(f"{site.url}/v1/trajectories", params={"status": "answered"}).json()
    tid = answered["items"][0]["id"]
    show(browser, f"{site.url}/viewer/{tid}")  # the link format of the old viewer
    assert browser.current_url.endswith(f"/viewer#/asks/{tid}")
    blocks = browser.find_elements(By.CSS_SELECTOR, "#timeline .block")
    shown = [b.get_attribute("data-tool") for b in blocks]
    question = httpx.get(f"{site.url}/v1/trajectories/{tid}").json()["summary"]["question"]
    assert shown == workflow_calls(question)
    colours = [b.value_of_css_property("background-color") for b in blocks]
    pairs = set(zip(shown, colours, strict=True))  # one colour per tool, each its own
    assert len(pairs) == len(set(shown)) == len(set(colours)) == 4


# ------------------------------------------------------------------ real clips


class RangeLog:
    """ASGI middleware: remembers (path, Range header, status) of every clip request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, str | None, int]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1/clips/"):
            return await self.app(scope, receive, send)
        rng = dict(scope["headers"]).get(b"range")

        async def record(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["path"], rng.decode() if rng else None, message["status"]))
            await send(message)

        await self.app(scope, receive, record)


def video_qa_script(board: str):
    """FakeOpenAIServer replies: the VLM (images in the request) answers; the agent calls
    video_qa on the board clip, then answers."""
    from tests.clients.fake_openai_server import Reply, echo_answer

    def reply(body: dict[str, Any]) -> Reply:
        text = json.dumps(body.get("messages", []))
        if '"image_url"' in text:
            return echo_answer(body)
        if "tool_response" in text:
            return Reply.chat("<answer>the scoreboard shows 3-2</answer>")
        call = {
            "name": "video_qa",
            "arguments": {"video_ids": [board], "query": "what is the score?"},
        }
        return Reply.chat(
            f"I will look at the clip.<tool_call>{json.dumps(call)}</tool_call>",
            reasoning="The clip should show it.",
        )

    return reply


@pytest.fixture(scope="module")
def media_run(tmp_path_factory, synth_index, media_corpus) -> Iterator[tuple[Settings, Path, str]]:
    """A real t9 run in default mode over real clip files: the agent and the VLM are
    FakeOpenAIServer over HTTP (no model can be served here); the run, the tools, the frame
    sampling and the trajectory are real."""
    from playscout.eval.running.runner import run_eval
    from playscout.eval.running.spec import RunSpec
    from tests.clients.fake_openai_server import FakeOpenAIServer

    tmp = tmp_path_factory.mktemp("media-run")
    with FakeOpenAIServer(video_qa_script(media_corpus.board)) as model:
        endpoint = {"base_url": model.url, "model": "fake-model", "max_retries": 0}
        settings = make_settings(
            tmp, synth_index, corpus_dir=media_corpus.corpus.root,
            agent={"trajectory_dir": tmp / "traj", "session_db": tmp / "s.sqlite", "tool_protocol": "text", "llm": endpoint},
            qa={"vlm": endpoint}, eval={"runs_dir": tmp / "runs", "cache_db": None},
        )  # fmt: skip
        out = tmp / "runs" / "media"
        spec = RunSpec(
            task="t9", out_dir=out, mode="default", sports=("basketball",), policy="llm", limit=1
        )
        summary = run_eval(spec, settings, backend=synth_index.backend)
        assert summary.statuses == {"answered": 1}, summary
    qid = json.loads((out / "results.jsonl").read_text().splitlines()[0])["qid"]
    yield settings, out, qid


def test_a_clip_plays_and_seeks_beside_the_frames_the_vlm_saw(
    media_run, synth_index, browser, media_corpus
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    settings, _, qid = media_run
    app = RangeLog(create_app(settings, backend=synth_index.backend))
    with live_server(app) as srv:  # type: ignore[arg-type]
        show(browser, f"{srv.url}/viewer#/runs/media/q/{qid}")
        frames_loaded(browser, 16)
        assert browser.find_element(By.CSS_SELECTOR, ".frames .muted").text.startswith(
            "16 frames sent to the VLM"
        )
        video = play(browser, media_corpus.board)
        duration = browser.execute_script("return arguments[0].duration", video)
        browser.execute_script(
            "arguments[0].pause(); arguments[0].currentTime = arguments[1]", video, duration * 0.8
        )
        WebDriverWait(browser, 30).until(
            lambda d: d.execute_script(
                "return !arguments[0].seeking && arguments[0].readyState >= 2", video
            )
        )
        assert (
            abs(browser.execute_script("return arguments[0].currentTime", video) - duration * 0.8)
            < 0.5
        )
        assert browser.execute_script("return arguments[0].seekable.length", video) == 1
        clip_path = f"/v1/clips/{media_corpus.board}"
        ranged = [(r, s) for p, r, s in app.seen if p == clip_path and r]
        assert ranged and all(s == 206 for _, s in ranged), app.seen
        status = browser.execute_script(
            "const r = await fetch('/v1/clips/nope_1'); return [r.status, (await r.json()).error.message]"
        )
        assert status[0] == 404 and "nope_1" in status[1]


def test_an_export_opens_from_disk_with_its_clip_and_frames(media_run, tmp_path, media_corpus):
    from selenium.webdriver.common.by import By

    from playscout.corpus import Corpus
    from playscout.serving.export import export_run

    _, run_dir, qid = media_run
    res = export_run(run_dir, tmp_path / "export", Corpus(media_corpus.corpus.root))
    # 16 frames were sent; the 3 s, 5 fps board clip has 15, so one was sent twice.
    assert res.questions == 1 and res.clips >= 1 and res.frames == 15 and not res.missing_clips
    driver = chromium()  # a fresh browser: no server, no cookies
    try:
        show(driver, (tmp_path / "export" / "index.html").as_uri())
        assert texts(driver, "table.questions td.id") == [qid]
        click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "table.questions td.id a"))
        frames_loaded(driver, 16)
        play(driver, media_corpus.board)
        assert driver.find_element(By.ID, "answer").text == "the scoreboard shows 3-2"
        assert (
            "I will look at the clip." in texts(driver, ".events article.model_call pre.content")[0]
        )
    finally:
        driver.quit()
