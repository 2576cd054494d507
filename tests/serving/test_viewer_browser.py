"""The trajectory viewer in real headless Chromium (selenium + Debian chromium/chromedriver)
against the app under uvicorn. PLAYSCOUT_UPDATE_DOCS=1 refreshes docs/viewer.png."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest

from .conftest import live_server

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER),
        reason="needs Debian chromium and chromium-driver (apt-get install chromium chromium-driver)",
    ),
]


def chromium(*extra_args: str):
    """Headless Chromium under selenium; the caller quits it."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--window-size=1200,700",
        "--disable-dev-shm-usage",
        "--force-device-scale-factor=1",
        *extra_args,
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_viewer_renders_a_recorded_trajectory(app_factory, synth_index, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    with live_server(app_factory()) as srv:
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            for mode in ("oracle", "default"):
                body = {"question": synth_index.question, "policy": "workflow", "mode": mode}
                r = c.post("/v1/ask", json=body)
                assert r.status_code == 200
            tid = r.json()["trajectory_id"]
            oracle = c.get("/v1/trajectories").json()[1]["id"]
            events = c.get(f"/v1/trajectories/{oracle}").json()["events"]
        calls = sum(e["type"] == "tool_call" for e in events)
        wait = WebDriverWait(browser, 15)

        browser.get(f"{srv.url}/viewer")
        rows = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#runs tbody tr"))
        assert len(rows) == 2 and {tid, oracle} <= {
            a.get_attribute("href").rsplit("/", 1)[-1]
            for a in browser.find_elements(By.CSS_SELECTOR, "#runs a")
        }

        browser.get(f"{srv.url}/viewer/{oracle}")
        blocks = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline .block"))
        assert len(blocks) == calls == 3
        assert [b.get_attribute("data-tool") for b in blocks] == [
            "search_documents",
            "search_videos",
            "video_qa",
        ]
        colours = {b.value_of_css_property("background-color") for b in blocks}
        assert len(colours) == 3  # one colour per tool
        assert browser.find_element(By.ID, "question").text == synth_index.question
        details = browser.find_element(By.ID, "details")
        assert not details.is_displayed()
        blocks[1].click()
        wait.until(ec.visibility_of(details))
        assert "search_videos" in browser.find_element(By.ID, "details-title").text
        assert '"game_ids"' in browser.find_element(By.ID, "details-args").text
        assert "clips" in browser.find_element(By.ID, "details-obs").text
        # The committed docs/viewer.png is refreshed only on request, so tests leave the tree clean.
        shot = (
            ROOT / "docs/viewer.png"
            if os.environ.get("PLAYSCOUT_UPDATE_DOCS")
            else tmp_path / "viewer.png"
        )
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000


def test_viewer_escapes_untrusted_text(app_factory, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    evil = "<img src=x onerror=\"document.title='pwned'\">"
    with live_server(app_factory()) as srv:
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            r = c.post("/v1/ask", json={"question": evil, "policy": "workflow", "mode": "oracle"})
            assert r.status_code == 200
        browser.get(f"{srv.url}/viewer/{r.json()['trajectory_id']}")
        q = WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "question").text)
        assert q == evil
        assert browser.find_elements(By.CSS_SELECTOR, "#question img") == []
        assert browser.title != "pwned"
