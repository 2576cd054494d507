"""Issue 38's eleven faults, before and after: injects each for real against the tree at a git
ref (default d43d9d0, before the round-three fixes) and against this working tree, and prints
one Markdown table: the fault, what was sent, what each side returned, the test that guards it.

    nice -n 10 .venv/bin/python scripts/fault_cases.py [--before REF]

Both sides run from this interpreter and its packages (PYTHONPATH and the working directory
pick the side's code); each side builds its own small index (4 synthetic basketball games,
BM25 and MiniLM caption vectors, no document vectors) of one shared corpus, ~1 min. Servers are
real `playscout serve` processes on 127.0.0.1 at random ports; the model is FakeOpenAIServer
from tests/ (a real HTTP server with scripted replies: 20 MB, never answering, a search that
never ends). Full disks are size-limited tmpfs mounts, so run it as root (as CI does); without
root those two rows say so. About 5 minutes, most of it the before side's waits on shutdown.
Not part of `make test`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from failure_cases import ANSI, BOX, ROOT, export  # this folder (scripts/ is no package)

from tests.faults.test_full_disk_server import fill  # writes until ENOSPC
from tests.serving.conftest import free_port

MB = 1_000_000
EVIL = "http://evil.example"
WORKFLOW = {"policy": "workflow", "mode": "oracle"}
LLM_ASK = {"question": "who won?", "policy": "llm", "mode": "oracle"}
TOOL_CALL = '<tool_call>{"name": "search_documents", "arguments": {"query": "score"}}</tool_call>'


@dataclass
class Side:
    name: str
    src: Path  # the code this side runs
    work: Path  # its scratch folder (every path a command writes is under it)
    corpus: Path
    index: Path

    def env(self, **settings: str) -> dict[str, str]:
        """The environment of this side's commands: its code first on the path, its own
        trajectories, sessions and runs, and `settings` as PLAYSCOUT_ variables."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYSCOUT_")}
        env.update(NO_COLOR="1", COLUMNS="200", PYTHONPATH=str(self.src))
        env.update(
            PLAYSCOUT_AGENT__TRAJECTORY_DIR=str(self.work / "traj"),
            PLAYSCOUT_AGENT__SESSION_DB=str(self.work / "sessions.sqlite"),
            PLAYSCOUT_AGENT__TOOL_PROTOCOL="text",
            PLAYSCOUT_AGENT__LLM__MAX_RETRIES="0",
            PLAYSCOUT_EVAL__RUNS_DIR=str(self.work / "runs"),
            PLAYSCOUT_EVAL__CACHE_DB=str(self.work / "cache.sqlite"),
        )
        env.update({f"PLAYSCOUT_{k.upper()}": v for k, v in settings.items()})
        return env

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "playscout", *args]
        return subprocess.run(
            cmd, cwd=self.work, env=self.env(), capture_output=True, text=True, timeout=timeout
        )

    def eval_run(self, out: Path, *extra: str, corpus: Path | None = None) -> Any:
        return self.cli(
            "eval", "run", "--task", "t9", "--sport", "basketball", "--mode", "oracle",
            "--policy", "workflow", "--out", str(out), "--no-cache", "--index", str(self.index),
            "--corpus", str(corpus or self.corpus), *extra,
        )  # fmt: skip


SCRUB: dict[str, str] = {}  # long scratch paths -> their short names in the table


def line(text: str, limit: int = 150) -> str:
    """One line of a message, cut to fit a table cell."""
    text = " ".join(BOX.sub(" ", ANSI.sub("", text)).split())
    for long, short in SCRUB.items():
        text = text.replace(long, short)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def said(proc: subprocess.CompletedProcess[str], pick: str = "error:", limit: int = 150) -> str:
    """Exit status and the line that says what happened (the first starting with `pick`, else
    the last line of output)."""
    lines = [line(x, limit) for x in (proc.stderr + "\n" + proc.stdout).splitlines() if x.strip()]
    chosen = [x for x in lines if x.startswith(pick)] or lines[-1:] or ["(no output)"]
    return f"exit {proc.returncode}: `{chosen[0]}`"


def answered(r: httpx.Response, limit: int = 110) -> str:
    """Status, and the error's code and message when the body is the API's error object."""
    try:
        body = r.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return f"{r.status_code} `{error.get('code')}`: {line(str(error.get('message')), limit)}"
    return f"{r.status_code}"


class ServeExited(RuntimeError):
    def __init__(self, rc: int, log: str) -> None:
        super().__init__(f"serve exited {rc}: {log[-1500:]}")
        self.rc, self.log = rc, log


@dataclass
class Server:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    def rss_mb(self, field: str = "VmRSS") -> float:
        for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if row.startswith(field + ":"):
                return int(row.split()[1]) / 1024
        return float("nan")

    def stop(self, wait_s: float = 15) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(wait_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)


def start(side: Side, model_url: str, tag: str, settings: dict[str, str]) -> Server:
    """`playscout serve` of this side (keyless, 127.0.0.1, a random port); returns once its
    /healthz answers, or raises with the log's end if it exits first."""
    port = free_port()
    log = side.work / f"serve-{tag}.log"
    cmd = [sys.executable, "-m", "playscout", "serve", "--index", str(side.index), "--corpus",
           str(side.corpus), "--port", str(port), "--llm-url", model_url, "--llm-model",
           "fake-model"]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=side.work, env=side.env(**settings), stdout=out, stderr=subprocess.STDOUT
        )
    server = Server(f"http://127.0.0.1:{port}", port, proc, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServeExited(proc.returncode, log.read_text())
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{server.url}/healthz", timeout=1).status_code == 200:
                return server
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("serve did not answer /healthz within 120 s")


@contextlib.contextmanager
def serving(
    side: Side, reply: Any, tag: str, latency_s: float = 0.0, settings: dict[str, str] | None = None
) -> Iterator[Server]:
    from tests.clients.fake_openai_server import FakeOpenAIServer

    with FakeOpenAIServer(reply, latency_s=latency_s) as model:
        server = start(side, model.url, tag, settings or {})
        try:
            yield server
        finally:
            server.stop()


def chat(text: str) -> Callable[[dict[str, Any]], Any]:
    from tests.clients.fake_openai_server import Reply

    return lambda body: Reply.chat(text)


def wait_until(predicate: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


# --- the faults, one function each: (side) -> what it returned ---------------------------------


def dns_rebinding(side: Side) -> str:
    with serving(side, chat("<answer>42</answer>"), "rebind") as srv:
        rebound = {"Host": f"evil.example:{srv.port}"}
        out = []
        with httpx.Client(base_url=srv.url, timeout=60, headers=rebound) as c:
            for path in ("/v1/runs", "/v1/trajectories", "/metrics"):
                out.append(f"GET {path} {answered(c.get(path))}")
            ask = {"question": "who scored the most points?", **WORKFLOW}
            out.append(f"POST /v1/ask {answered(c.post('/v1/ask', json=ask))}")
            run = {"task": "t9", "sport": "basketball", **WORKFLOW, "limit": 1}
            out.append(f"POST /v1/runs {answered(c.post('/v1/runs', json=run))}")
        runs = side.work / "runs"
        started = len([p for p in runs.iterdir() if p.is_dir()]) if runs.exists() else 0
        return "; ".join(_squeeze(out)) + f" (runs started: {started})"


def _squeeze(parts: list[str]) -> list[str]:
    """Repeated error messages once: the first in full, the rest by status and code."""
    seen: set[str] = set()
    out = []
    for part in parts:
        head, sep, message = part.partition("`: ")
        out.append(head + "`" if sep and message in seen else part)
        seen.add(message)
    return out


def cross_site_posts(side: Side) -> str:
    """Cancel a running run and judge a finished one, each a body-less POST from a page on
    another origin."""
    from tests.clients.fake_openai_server import Reply

    busy = {"task": "t9", "sport": "basketball", "mode": "oracle", "policy": "llm", "limit": 3}
    done = {"task": "t9", "sport": "basketball", **WORKFLOW, "limit": 2}
    with (
        serving(side, lambda body: Reply.chat(TOOL_CALL), "xsite", latency_s=0.2) as srv,
        httpx.Client(base_url=srv.url, timeout=60) as c,
    ):
        state = lambda run_id: c.get(f"/v1/runs/{run_id}").json()["state"]  # noqa: E731
        finished = c.post("/v1/runs", json=done).json()["id"]
        wait_until(lambda: state(finished) not in ("queued", "running"), 120)
        running = c.post("/v1/runs", json=busy).json()["id"]
        wait_until(lambda: state(running) == "running", 60)
        foreign = {"Origin": EVIL}
        cancel = c.post(f"/v1/runs/{running}/cancel", headers=foreign)
        time.sleep(1.0)
        after_cancel = state(running)
        judge = c.post(f"/v1/runs/{finished}/judge", headers=foreign)
        verdicts = side.work / "runs" / finished / "judgements.jsonl"
        judged = len(verdicts.read_text().splitlines()) if verdicts.exists() else 0
        c.post(f"/v1/runs/{running}/cancel", json={})  # the driver's own: end the run
    counts = f" {line(judge.text, 80)}" if judge.status_code == 200 else ""
    return (
        f"cancel {answered(cancel)} (the run then `{after_cancel}`); judge of a finished run"
        f" {answered(judge)}{counts} ({judged} verdicts written)"
    )


def changed_questions(side: Side) -> str:
    corpus = side.work / "corpus-edited"
    shutil.copytree(side.corpus, corpus)
    out = side.work / "run-changed"
    first = side.eval_run(out, "--limit", "5", corpus=corpus)
    if first.returncode != 0:
        return f"first run {said(first)}"
    path = corpus / "questions" / "basketball.json"
    questions = json.loads(path.read_text())
    edited, deleted = questions[0], questions[1]
    edited["question"] = edited["question"].replace("how many", "how many in all")
    edited["answer"] = "7"
    path.write_text(json.dumps([q for q in questions if q is not deleted]))
    resumed = side.eval_run(out, "--limit", "5", corpus=corpus)
    told = said(resumed, pick="error:" if resumed.returncode else "ran ", limit=230)
    cell = f"{told}; then {_changed_rows(out, edited, deleted['id'])}"
    if resumed.returncode == 2:  # refused: what the option it names does
        again = side.eval_run(out, "--limit", "5", "--rerun-changed", corpus=corpus)
        cell += f". With `--rerun-changed`: {said(again, pick='ran ')}; then {_changed_rows(out, edited, deleted['id'])}"
    return cell


def _changed_rows(out: Path, edited: dict[str, Any], deleted: str) -> str:
    """What the run's results and stamp say about the edited and the deleted question."""
    rows: dict[str, Any] = {}  # the latest record per question wins (as both sides read it)
    for x in (out / "results.jsonl").read_text().splitlines():
        with contextlib.suppress(ValueError):
            rows[json.loads(x)["qid"]] = json.loads(x)
    rows = {qid: row for qid, row in rows.items() if not row.get("removed")}
    kept = rows.get(edited["id"], {})
    old = "old" if kept.get("question") != edited["question"] else "new"
    gold = kept.get("gold")
    stamp = json.loads((out / "run.json").read_text()).get("stamp") or {}
    mixed = [str(r) for r in stamp.get("reasons", []) if "mixed" in str(r)]
    return (
        f"edited row has the {old} text (gold {gold!r}), deleted one"
        f" {'still in' if deleted in rows else 'not in'} the results,"
        f" stamp {'`' + line(mixed[0], 70) + '`' if mixed else 'not mixed'}"
    )


def twenty_mb_reply(side: Side) -> str:
    from tests.clients.fake_openai_server import Reply

    text = "<answer>" + "x" * (20 * MB) + "</answer>"
    body = Reply.chat(text, usage=(11, 5 * MB)).body
    sent = Reply(body=json.dumps(body).encode())  # encoded once: the driver stays small
    with serving(side, lambda _: sent, "big") as srv:
        with httpx.Client(base_url=srv.url, timeout=300) as c:
            c.get("/readyz")
            before = srv.rss_mb()
            r = c.post("/v1/ask", json=LLM_ASK)
            with c.stream("POST", "/v1/ask/stream", json=LLM_ASK) as s:
                streamed = sum(len(chunk) for chunk in s.iter_bytes())
            after, peak = srv.rss_mb(), srv.rss_mb("VmHWM")
        traj = max((p.stat().st_size for p in (side.work / "traj").glob("*.jsonl")), default=0)
    return (
        f"{r.status_code}, reply {len(r.content) / MB:.2f} MB, stream {streamed / MB:.2f} MB,"
        f" largest trajectory {traj / MB:.2f} MB; server RSS {before:.0f} -> {after:.0f} MB"
        f" (peak {peak:.0f} MB)"
    )


def sigterm_mid_stream(side: Side, grace: str, wait_s: float) -> dict[str, Any]:
    """SIGTERM while a stream's client stays connected and its model never answers: when the
    server exited (the client reading nothing meanwhile), the stream's last event once the
    server closed it, the trajectory's last event."""
    from tests.clients.fake_openai_server import Reply

    seen: dict[str, Any] = {"wait_s": wait_s, "last_event": "(stream still open)"}
    settings = {"serving__shutdown_grace_s": grace} if grace else {}
    with (
        serving(side, lambda _: Reply.hanging(), f"term{grace}", settings=settings) as srv,
        httpx.Client(base_url=srv.url, timeout=httpx.Timeout(30)) as c,
        c.stream("POST", "/v1/ask/stream", json=LLM_ASK) as s,
    ):
        ask_id = s.headers.get("X-Playscout-Trajectory", "")
        lines = s.iter_lines()
        next(lines)  # event: run_start (the run now waits on the model)
        t0 = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        exited = wait_until(lambda: srv.proc.poll() is not None, wait_s)
        seen["exit_s"] = time.monotonic() - t0 if exited else None
        if exited:  # the socket is closed: what the client got before it closed
            rest: list[str] = []
            with contextlib.suppress(httpx.HTTPError):
                rest.extend(lines)
            events = [x.removeprefix("event: ") for x in rest if x.startswith("event: ")]
            seen["last_event"] = f"`{events[-1]}`" if events else "none (cut)"
            if "event: error" in rest:
                data = json.loads(rest[rest.index("event: error") + 1].removeprefix("data: "))
                seen["last_event"] += f" `{data.get('error', {}).get('code')}`"
    traj = side.work / "traj" / f"{ask_id}.jsonl"
    written = (
        [json.loads(x) for x in traj.read_text().splitlines() if x.startswith("{")]
        if traj.exists()
        else []
    )
    last: dict[str, Any] = written[-1] if written else {}
    seen["traj_last"] = (
        f"{last.get('type')} {last.get('kind', '')}: {line(str(last.get('message', '')), 60)}"
        if last
        else "(none)"
    )
    return seen


def grace_zero(side: Side) -> str:
    seen = sigterm_mid_stream(side, "0", wait_s=60)
    if seen["exit_s"] is None:
        return f"still up {seen['wait_s']:.0f} s after SIGTERM (then SIGKILLed)"
    return f"exited {seen['exit_s']:.1f} s after SIGTERM; stream's last event {seen['last_event']}"


def default_grace(side: Side) -> str:
    seen = sigterm_mid_stream(side, "", wait_s=90)
    if seen["exit_s"] is None:
        return f"still up {seen['wait_s']:.0f} s after SIGTERM"
    return (
        f"exited {seen['exit_s']:.1f} s after SIGTERM; stream's last event {seen['last_event']};"
        f" trajectory's last: `{seen['traj_last']}`"
    )


def can_mount() -> str | None:
    if os.geteuid() != 0:
        return "not run: a size-limited tmpfs needs root"
    return None


@contextlib.contextmanager
def tmpfs(point: Path, size: str) -> Iterator[Path]:
    point.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def full_disk_ask(side: Side) -> str:
    if reason := can_mount():
        return reason
    with tmpfs(side.work / "asks-disk", "2m") as disk:
        traj = disk / "traj"
        traj.mkdir()
        settings = {"agent__trajectory_dir": str(traj)}
        with serving(side, chat("<answer>42</answer>"), "full", settings=settings) as srv:
            fill(disk)
            ask = {"question": "who scored the most points?", **WORKFLOW}
            r = httpx.post(f"{srv.url}/v1/ask", json=ask, timeout=60)
        log = srv.log.read_text()
    return f"{answered(r, 200)}; server log: {log.count('Traceback')} tracebacks"


def full_disk_then_resume(side: Side) -> str:
    if reason := can_mount():
        return reason
    out = side.work / "run-full"
    out.mkdir()
    with tmpfs(side.work / "run-disk", "1m") as disk:
        (out / "trajectories").symlink_to(disk)
        filler = fill(disk)
        first = side.eval_run(out, "--limit", "3")
        errors = [
            json.loads(x).get("error") or ""
            for x in (out / "results.jsonl").read_text().splitlines()
        ]
        filler.unlink()
        again = side.eval_run(out, "--limit", "3")
    statuses = sorted(
        json.loads(x)["status"] for x in (out / "results.jsonl").read_text().splitlines()[-3:]
    )
    first_error = line(errors[0], 130) if errors else "(no rows)"
    return (
        f"full: exit {first.returncode}, rows say `{first_error}`; freed, plain resume"
        f" {said(again, pick='ran ')}; last rows {'/'.join(sorted(set(statuses)))}"
    )


def wrong_shape_row(side: Side) -> str:
    out = side.work / "run-shape"
    first = side.eval_run(out, "--limit", "3")
    if first.returncode != 0:
        return f"first run {said(first)}"
    results = out / "results.jsonl"
    lines = results.read_text().splitlines()
    victim = json.loads(lines[1])
    lines[1] = json.dumps({**victim, "turns": "three", "status": 7})
    results.write_text("\n".join(lines) + "\n")
    report = side.cli("eval", "report", str(out))
    resumed = side.eval_run(out, "--limit", "3")
    pick = "error:" if resumed.returncode else "ran "
    return f"report {said(report, pick='error:' if report.returncode else 'wrote ')}; resume {said(resumed, pick)}"


def corrupt_sessions(side: Side) -> str:
    db = side.work / "corrupt-sessions.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint BLOB)")
        rows = [(str(i), b"x" * 3000) for i in range(50)]
        con.executemany("INSERT INTO checkpoints VALUES (?, ?)", rows)
    con.close()
    db.write_bytes(os.urandom(db.stat().st_size))
    try:
        srv_cm = serving(
            side, chat("<answer>42</answer>"), "sessions", settings={"agent__session_db": str(db)}
        )
        with srv_cm as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
            ready = c.get("/readyz").status_code
            r = c.post("/v1/ask", json={**LLM_ASK, "session_id": "s1"})
            return f"serve started; /readyz {ready}; ask with a session_id {answered(r)}"
    except ServeExited as e:
        errors = [x for x in e.log.splitlines() if x.startswith("error:")]
        tracebacks = e.log.count("Traceback")
        return f"serve exit {e.rc}: `{line((errors or [e.log])[0], 170)}` ({tracebacks} tracebacks)"


def invisible_questions(side: Side) -> str:
    out = []
    traj = side.work / "traj"
    seen = set(traj.glob("*.jsonl"))
    invisible = (("ZWSP", "\u200b\u200b\u200b"), ("NUL", "\x00"), ("LRM+RLM", "\u200e\u200f"))
    with (
        serving(side, chat("<answer>42</answer>"), "invisible") as srv,
        httpx.Client(base_url=srv.url, timeout=120) as c,
    ):
        for name, q in invisible:
            r = c.post("/v1/ask", json={"question": q, **WORKFLOW})
            out.append(f"/v1/ask {name}: {answered(r)}")
    by_http = len(set(traj.glob("*.jsonl")) - seen)
    proc = side.cli("ask", "\u200b\u200b", "--index", str(side.index), "--policy", "workflow",
                    "--mode", "oracle", timeout=120)  # fmt: skip
    ran = [
        line(x)
        for x in proc.stdout.splitlines()
        if x.strip().startswith(("status:", "tool calls:"))
    ]
    cli = (
        said(proc)
        if "error:" in proc.stderr + proc.stdout
        else f"exit {proc.returncode}: `{'`, `'.join(ran)}`"
    )
    return (
        "; ".join(_squeeze(out))
        + f" ({by_http} trajectories written); `playscout ask` ZWSP×2 {cli}"
    )


@dataclass
class Fault:
    name: str
    request: str
    check: Callable[[Side], str]
    test: str


FAULTS = [
    Fault("1. DNS rebinding (keyless server)",
          "`Host: evil.example:PORT` on GET /v1/runs, /v1/trajectories, /metrics; POST /v1/ask; POST /v1/runs",
          dns_rebinding, "tests/faults/test_browser_attacks.py::test_a_rebound_host_reads_and_starts_nothing"),
    Fault("2. Cross-site body-less POSTs",
          "`Origin: http://evil.example`, no body: POST /v1/runs/{id}/cancel on a running run, then .../judge",
          cross_site_posts, "tests/faults/test_browser_attacks.py::test_cross_site_posts_change_nothing"),
    Fault("3. Resume after the questions changed",
          "`eval run --limit 5`, then q0's text and gold edited, q1 deleted, the same `eval run` again",
          changed_questions, "tests/faults/test_resumes.py::test_a_resume_after_the_questions_changed_is_refused_or_marked_mixed"),
    Fault("4. A 20 MB completion",
          "model answers `<answer>` + 20 MB; POST /v1/ask then /v1/ask/stream (policy llm)",
          twenty_mb_reply, "tests/faults/test_big_replies.py (both tests)"),
    Fault("5. `serving.shutdown_grace_s=0`",
          "stream client connected (model never answers), SIGTERM; wait up to 60 s",
          grace_zero, "tests/faults/test_shutdown.py::test_sigterm_ends_open_streams_with_an_error_event[0], [0.5]"),
    Fault("6. SIGTERM, default grace (30 s), mid-stream",
          "stream client connected (model never answers), SIGTERM; read the rest of the stream",
          default_grace, "tests/faults/test_shutdown.py::test_sigterm_ends_open_streams_with_an_error_event[2]"),
    Fault("7. Full disk under the ask trajectories",
          "trajectory_dir on a 2 MB tmpfs, filled; POST /v1/ask (workflow)",
          full_disk_ask, "tests/faults/test_full_disk_server.py::test_every_write_path_on_a_full_disk_is_507_and_one_log_line"),
    Fault("8. \"No space left\" kept as a result",
          "`eval run --limit 3` with trajectories/ on a full 1 MB tmpfs; free it; the same `eval run` (plain resume)",
          full_disk_then_resume, "tests/faults/test_resumes.py::test_questions_that_hit_a_full_disk_run_again_on_a_plain_resume"),
    Fault("9. A valid-JSON row of the wrong shape",
          "row 2 of results.jsonl rewritten with `turns: \"three\", status: 7`; `eval report`; `eval run` resume",
          wrong_shape_row, "tests/faults/test_resumes.py::test_a_row_of_the_wrong_shape_is_skipped_and_run_again"),
    Fault("10. Corrupt sessions database",
          "`agent.session_db` overwritten with random bytes; `playscout serve`; GET /readyz; POST /v1/ask with `session_id`",
          corrupt_sessions, "tests/faults/test_corrupt_sessions.py (both tests)"),
    Fault("11. Questions of invisible characters",
          "POST /v1/ask with U+200B×3, NUL, U+200E U+200F; `playscout ask $'\\u200b\\u200b'`",
          invisible_questions, "tests/faults/test_invisible_questions.py (both tests)"),
]  # fmt: skip


def build(side: Side) -> None:
    step = side.cli(
        "index", "build", "--corpus", str(side.corpus), "--out", str(side.index),
        "--doc-embedder", "none", "--caption-embedder", "minilm", timeout=600,
    )  # fmt: skip
    if step.returncode != 0:
        sys.exit(f"{side.name}: index build failed ({step.returncode}): {step.stderr[-800:]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="d43d9d0")
    ap.add_argument("--only", help="comma-separated fault numbers (default: all)")
    args = ap.parse_args()
    chosen = {int(x) for x in args.only.split(",")} if args.only else None
    faults = [f for i, f in enumerate(FAULTS, 1) if chosen is None or i in chosen]
    with tempfile.TemporaryDirectory(prefix="fault-cases-") as tmp:
        work = Path(tmp)
        SCRUB[str(work)] = "$TMP"
        corpus = work / "corpus"
        sides = [
            Side("before", export(args.before, work / "src-before"), work / "before",
                 corpus, work / "before" / "index"),
            Side("after", ROOT, work / "after", corpus, work / "after" / "index"),
        ]  # fmt: skip
        for side in sides:
            side.work.mkdir()
        made = sides[1].cli("corpus", "synth", "--out", str(corpus), "--games", "4",
                            "--sports", "basketball", "--workers", "1")  # fmt: skip
        asked = sides[1].cli("corpus", "questions", str(corpus))
        if made.returncode or asked.returncode:
            sys.exit(f"corpus: {made.stderr[-500:]} {asked.stderr[-500:]}")
        for side in sides:
            build(side)
        cells: dict[tuple[str, str], str] = {}
        for fault in faults:
            for side in sides:
                t0 = time.monotonic()
                try:
                    cells[fault.name, side.name] = fault.check(side)
                except Exception as e:  # the table says what broke the driver, and goes on
                    cells[fault.name, side.name] = f"(driver error: {line(repr(e), 200)})"
                took = time.monotonic() - t0
                print(f"{side.name:6} {fault.name} ({took:.0f} s): {cells[fault.name, side.name]}",
                      file=sys.stderr)  # fmt: skip
    print(f"Before: {args.before}; after: this working tree ({_head()}). Both run from one")
    print(
        "interpreter; servers are `playscout serve` on 127.0.0.1 at random ports, without a key.\n"
    )
    print("| fault | command / request | before | after | test that guards it |")
    print("|---|---|---|---|---|")
    for fault in faults:
        before, after = (cells[fault.name, s.name].replace("|", "/") for s in sides)
        print(f"| {fault.name} | {fault.request} | {before} | {after} | `{fault.test}` |")


def _head() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)  # fmt: skip
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    return done.stdout.strip() + (" + uncommitted changes" if dirty else "")


if __name__ == "__main__":
    main()
