"""Start the model servers of a profile, wait until each answers `/v1/models`, stop them all
on Ctrl-C. The reference started them and hoped (no health wait); a client then failed on
its first request while weights were still loading."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from playscout.errors import PlayscoutError
from playscout.serving.profiles import ServerProfile


class ServerNotReady(PlayscoutError, RuntimeError):
    """One line: which server, how long we waited, the last thing we saw."""


def wait_ready(
    url: str,
    timeout_s: float,
    interval_s: float = 1.0,
    alive: Callable[[], bool] | None = None,
    name: str = "server",
) -> float:
    """Poll `url` until it answers 200 with an OpenAI model list; returns the seconds waited."""
    start = time.monotonic()
    last = "no answer yet"
    with httpx.Client(timeout=min(5.0, max(interval_s, 0.5))) as client:
        while True:
            if alive is not None and not alive():
                raise ServerNotReady(f"{name} exited before it was ready ({url}); see its log")
            try:
                r = client.get(url)
                if r.status_code == 200 and isinstance(r.json().get("data"), list):
                    return time.monotonic() - start
                last = f"HTTP {r.status_code}"
            except (httpx.HTTPError, ValueError, AttributeError) as e:
                last = type(e).__name__
            if time.monotonic() - start + interval_s > timeout_s:
                raise ServerNotReady(
                    f"{name} not ready after {timeout_s:g} s at {url} (last: {last})"
                )
            time.sleep(interval_s)


@dataclass
class Running:
    name: str
    profile: ServerProfile
    process: subprocess.Popen[bytes]
    log: Path

    def is_alive(self) -> bool:
        return self.process.poll() is None


def start(name: str, profile: ServerProfile, python: str, log_dir: Path) -> Running:
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{name}.log"
    with log.open("ab") as fh:
        process = subprocess.Popen(profile.command(python), stdout=fh, stderr=subprocess.STDOUT)
    return Running(name, profile, process, log)


def stop(running: list[Running], timeout_s: float = 20.0) -> None:
    for r in running:
        if r.process.poll() is None:
            r.process.terminate()
    deadline = time.monotonic() + timeout_s
    for r in running:
        try:
            r.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            r.process.kill()
            r.process.wait()
