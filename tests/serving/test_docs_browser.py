"""`/docs` and `/redoc` render offline in real headless Chromium: every host but loopback is
made unresolvable, so a page that still fetched Swagger UI from a CDN would stay blank. Also
the viewer shows an API error's message (the OpenAI-shaped error object)."""

from __future__ import annotations

import pytest

from tests.browser import CHROMIUM, DRIVER, chromium

from .conftest import live_server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="needs Debian chromium and chromedriver"),
]


@pytest.fixture
def offline_browser():
    driver = chromium("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
    yield driver
    driver.quit()


def test_docs_render_operations_offline(app_factory, offline_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    b = offline_browser
    with live_server(app_factory(api_key="k")) as srv:  # the docs pages need no key
        b.get(f"{srv.url}/docs")
        wait = WebDriverWait(b, 30)
        ops = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock-summary-path"))
        paths = {o.get_attribute("data-path") or o.text for o in ops}
        assert {"/v1/ask", "/v1/chat/completions", "/v1/models"} <= paths
        scripts = [s.get_attribute("src") for s in b.find_elements(By.TAG_NAME, "script")]
        assert all(s.startswith(srv.url) for s in scripts if s), scripts

        b.get(f"{srv.url}/redoc")
        wait.until(lambda d: "/v1/chat/completions" in d.find_element(By.TAG_NAME, "body").text)


def test_viewer_shows_the_error_message(app_factory, offline_browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with live_server(app_factory()) as srv:
        offline_browser.get(f"{srv.url}/viewer/no-such-run")
        status = WebDriverWait(offline_browser, 15).until(
            lambda d: d.find_element(By.ID, "status").text.startswith("error") and d
        )
        assert status.find_element(By.ID, "status").text == "error: no trajectory 'no-such-run'"
