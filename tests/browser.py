"""Headless Chromium for the run browser's tests, its benchmark (benchmarks/viewer.py) and its
screenshots (scripts/viewer_screenshots.py): Debian's chromium and chromedriver through
selenium, and the page's own signal that a view is drawn (`body[data-rendered]`)."""

from __future__ import annotations

import shutil
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def chromium(*extra_args: str, width: int = 1400, height: int = 900) -> Any:
    """A headless Chromium that may autoplay video and read files next to an opened file;
    `extra_args` are more command-line switches. The caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or "chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
        "--autoplay-policy=no-user-gesture-required",
        "--allow-file-access-from-files",
        *extra_args,
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def wait_rendered(driver: Any, timeout_s: float = 30) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout_s).until(
        lambda d: d.execute_script("return !!document.body.dataset.rendered")
    )


def redraw(driver: Any, action: Any) -> None:
    """Do `action` (a click, a choice, a navigation) and wait until the page has drawn it."""
    driver.execute_script("document.body && delete document.body.dataset.rendered")
    action()
    wait_rendered(driver)


def show(driver: Any, url: str) -> None:
    """Load `url` and wait until the page has drawn it."""
    redraw(driver, lambda: driver.get(url))


def frames_loaded(driver: Any, count: int) -> list[Any]:
    """The `count` frames of the first video_qa call, once every one has loaded."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    frames = driver.find_elements(By.CSS_SELECTOR, ".frames .frame img")[:count]
    assert len(frames) == count, f"{len(frames)} frames shown, not {count}"
    loaded = "return arguments[0].complete && arguments[0].naturalWidth > 0"
    WebDriverWait(driver, 60).until(lambda d: all(d.execute_script(loaded, f) for f in frames))
    return frames


def play(driver: Any, clip_id: str) -> Any:
    """Click the clip's tile beside its video_qa frames; the player's <video> once it knows
    the clip's duration."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    tile = driver.find_element(By.CSS_SELECTOR, f'.qa-frames button.clip[data-clip="{clip_id}"]')
    driver.execute_script("arguments[0].closest('article').scrollIntoView({block: 'start'})", tile)
    tile.click()
    video = driver.find_element(By.ID, "video")
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script(
            "return arguments[0].readyState >= 1 && arguments[0].duration > 0", video
        )
    )
    return video
