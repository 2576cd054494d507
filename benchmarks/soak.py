"""Soak: the API server (`playscout serve`, its own process, on 127.0.0.1) under N minutes of
mixed load with faults mixed in, then a count of what went wrong.

    .venv/bin/python benchmarks/soak.py [--minutes 10] [--workers 4] [--work var/soak]
                                        [--json var/soak/report.json]

The load, per worker, until the time is up (each worker also stops after --max-requests):
searches (documents and clips), blocking asks and full streams (workflow policy, oracle mode:
no model server needed), streams dropped at random points (a raw socket closed before the
first byte, an SSE stream closed after 1-6 events, a blocking ask abandoned mid-run), hostile
requests that must get a 4xx (malformed JSON, a 5 MB body, path traversal, NUL bytes in an id,
wrong types, unknown fields and parameters, a rebound `Host`, a cross-site POST, a form
post, a question of zero-width characters) and odd-but-valid ones that must get a 200 (query
syntax, NUL bytes and emoji in a query). With `--model-asks` (on by default) some asks run the
llm policy against an OpenAI-compatible stand-in model in this process (FakeOpenAIServer: no
model can be served cheaply here) whose every 4th reply is 4 MB, so the reply bounds are on:
each such answer must come back cut (under 256 KB). Halfway, `playscout index verify` runs on the served
index. 429s are admission control doing its job and are counted, not failed.

It reports requests served, 5xx (must be 0), hostile requests not answered 4xx (must be 0),
slots still held once the load stops (must be 0; read from /readyz), server RSS at start and
end, p50/p99 per route, and the p50 of each route against an idle baseline measured in the
same run before the load. The corpus is the tests' (3 synthetic games, seed 1; basketball
index with MiniLM vectors), built once into --work. Exit status 1 when a must-be-0 is not.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SPORT = "basketball"
ASK = {"policy": "workflow", "mode": "oracle", "sport": SPORT}
VIDEO_QUERIES = ["dunk", "layup in transition", "turnover steal", "free throw"]
MAX_ANSWER_BYTES = 256_000  # an llm ask's body once its 4 MB reply is cut (32 KB at 1024 tokens)
BIG_REPLY_BYTES = 4_000_000


def stand_in_model() -> Any:
    """FakeOpenAIServer (tests/clients): every 4th reply a 4 MB answer, the others short."""
    from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

    big = Reply(
        body=json.dumps(Reply.chat("<answer>" + "x" * BIG_REPLY_BYTES + "</answer>").body).encode()
    )
    small = Reply.chat("<answer>42</answer>")
    calls = iter(range(10**9))
    return FakeOpenAIServer(lambda _: big if next(calls) % 4 == 3 else small)


def prepare_corpus(work: Path) -> Path:
    """The tests' corpus (3 synthetic games, seed 1), generated once into <work>/corpus."""
    from playscout.synthetic import generate_corpus, generate_questions

    corpus = work / "corpus"
    if not (corpus / "questions").is_dir():
        generate_corpus(corpus, games=3, seed=1, workers=1)
        generate_questions(corpus, per_sport=3, seed=1)
    return corpus


def prepare(work: Path) -> tuple[Path, Path]:
    """The tests' corpus and its basketball index (built once, reused by later runs; a full-
    scale one is benchmarks/soak_index.py's, written to the same place)."""
    from playscout.indexer.build import build_from_corpus

    corpus, index = prepare_corpus(work), work / "index"
    if not (index / "manifest.json").is_file():
        build_from_corpus(corpus, index, sports=[SPORT], overwrite=index.exists())
    return corpus, index


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def fd_targets(pid: int) -> Counter[str]:
    """What the server's descriptors point at (sockets and pipes by kind, files by path), so
    a count that moved says what moved."""
    out: Counter[str] = Counter()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed between the listing and the read
            continue
        out[target.split(":[")[0] if ":[" in target else target] += 1
    return out


def fd_change(start: Counter[str], end: Counter[str]) -> dict[str, int]:
    return {t: end[t] - start[t] for t in sorted(set(start) | set(end)) if end[t] != start[t]}


def clip_window() -> int:
    from playscout.config import Settings

    return Settings().search.clip_window


def query_log(work: Path) -> Path:
    return work / "query-log.jsonl"


def index_resident_mb(pid: int, index: Path) -> dict[str, float]:
    """The server's resident memory in the index's memory-mapped files (from /proc/PID/smaps),
    and the IVF indexes it read into RAM at open (the manifest's resident_bytes)."""
    root, mapped, current = str(index.resolve()), 0, False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
            current = len(head) >= 6 and head[-1].startswith(root)
        elif current and line.startswith("Rss:"):
            mapped += int(head[1])
    manifest = json.loads((index / "manifest.json").read_text())
    ivf = sum(
        (info.get("ann") or {}).get("resident_bytes", 0)
        for sport in manifest["sports"].values()
        for info in sport.get("channels", {}).values()
    )
    return {"mapped_files_mb": round(mapped / 1024, 1), "ivf_in_ram_mb": round(ivf / 2**20, 1)}


def live_recall(url: str) -> dict[str, dict[str, float]]:
    """playscout_live_recall_* from /metrics, by 'sport/channel'."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for line in httpx.get(f"{url}/metrics", timeout=30).text.splitlines():
        if not line.startswith("playscout_live_recall_"):
            continue
        name, _, value = line.rpartition(" ")
        metric, _, labels = name.partition("{")
        tags = dict(x.split("=", 1) for x in labels.rstrip("}").split(",") if "=" in x)
        key = f"{tags['sport'].strip(chr(34))}/{tags['channel'].strip(chr(34))}"
        out[key][metric.removeprefix("playscout_live_recall_")] = float(value)
    return dict(out)


def true_recall(index: Path, log: Path, ks: tuple[int, ...]) -> dict[str, Any]:
    """Per sport/channel and k, the recall@k of what the served path answers for every query
    vector the live check logged, against a brute-force top k over the raw float32 rows (ties
    at the k-th score count, as the live check does). The live check measures the dense
    branch as searched: k = search.clip_window candidates (ks[0]). Every soak clip search is
    unfiltered, and the asks' one-game searches are served exactly and not checked, so the
    logged vector is the whole search."""
    from playscout.search.embedded.query_log import read_log
    from playscout.search.embedded.vectors import VectorStore

    if not log.is_file():
        return {}
    by_channel: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for entry in read_log(log):
        by_channel[(entry.sport, entry.channel)].append(entry.vector)
    out: dict[str, Any] = {}
    for (sport, channel), vectors in by_channel.items():
        store = VectorStore.open(index / sport / "clips" / channel / "dense")
        row: dict[str, Any] = {
            "queries": len(vectors),
            "distinct": len({v.tobytes() for v in vectors}),
        }
        per_k: dict[int, list[float]] = {k: [] for k in ks}
        for v in vectors:
            exact = np.asarray(store.matrix @ v, dtype=np.float32)
            for k in ks:
                _, scores = store.search(v, k)
                kth = float(np.partition(exact, len(exact) - k)[len(exact) - k])
                per_k[k].append(float(np.count_nonzero(scores >= kth - 1e-5)) / k)
        for k, values in per_k.items():
            row[f"recall@{k}_mean"] = round(float(np.mean(values)), 4)
            row[f"recall@{k}_p5"] = round(float(np.percentile(values, 5)), 4)
        out[f"{sport}/{channel}"] = row
    return out


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # 5xx and wrong answers to hostile input
    dropped: Counter[str] = field(default_factory=Counter)
    transport_errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, route: str, status: int, seconds: float, expect: str = "ok") -> None:
        with self.lock:
            self.statuses[(route, status)] += 1
            if status != 429:
                self.latencies[route].append(seconds)
            if status >= 500:
                self.failures.append(f"{route}: HTTP {status}")
            elif expect == "4xx" and not 400 <= status < 500:
                self.failures.append(f"{route}: HTTP {status}, expected a 4xx")
            elif expect == "ok" and status not in (200, 429):
                self.failures.append(f"{route}: HTTP {status}, expected 200")


class Load:
    def __init__(
        self,
        url: str,
        questions: list[str],
        tally: Tally,
        seed: int,
        video_queries: list[str] | None = None,
    ) -> None:
        self.url, self.questions, self.tally = url, questions, tally
        self.video_queries = video_queries or VIDEO_QUERIES
        self.rng = random.Random(seed)
        self.client = httpx.Client(base_url=url, timeout=120)
        self.host, port = url.removeprefix("http://").split(":")
        self.port = int(port)

    def timed(self, route: str, send: Callable[[], httpx.Response], expect: str = "ok") -> None:
        start = time.perf_counter()
        try:
            r = send()
        except httpx.HTTPError as e:
            with self.tally.lock:
                self.tally.transport_errors[f"{route}: {type(e).__name__}"] += 1
            return
        self.tally.record(route, r.status_code, time.perf_counter() - start, expect)

    def question(self) -> str:
        return self.rng.choice(self.questions)

    # -- traffic ----------------------------------------------------------------------------
    def search_documents(self) -> None:
        q = self.rng.choice(["points rebounds", "three pointer", "overtime win", "season stats"])
        self.timed(
            "GET /v1/search/documents",
            lambda: self.client.get("/v1/search/documents", params={"sport": SPORT, "query": q}),
        )

    def search_videos(self) -> None:
        q = self.rng.choice(self.video_queries)
        params = {"sport": SPORT, "query": q, "mode": "oracle"}
        self.timed(
            "GET /v1/search/videos", lambda: self.client.get("/v1/search/videos", params=params)
        )

    def ask(self) -> None:
        body = {"question": self.question(), **ASK}
        self.timed("POST /v1/ask", lambda: self.client.post("/v1/ask", json=body))

    def model_ask(self) -> None:
        """An llm ask against the stand-in model; a 4 MB reply must come back cut."""
        body = {"question": self.question(), **ASK, "policy": "llm"}

        def send() -> httpx.Response:
            r = self.client.post("/v1/ask", json=body)
            if len(r.content) > MAX_ANSWER_BYTES:
                with self.tally.lock:
                    self.tally.failures.append(f"llm ask: {len(r.content)} bytes, not cut")
            return r

        self.timed("POST /v1/ask (llm, 1 in 4 replies 4 MB)", send)

    def stream(self) -> None:
        body = {"question": self.question(), **ASK}

        def send() -> httpx.Response:
            with self.client.stream("POST", "/v1/ask/stream", json=body) as s:
                s.read()
                return s

        self.timed("POST /v1/ask/stream", send)

    def dropped(self) -> None:
        kind = self.rng.choice(["before first byte", "after k events", "blocking abandoned"])
        body = json.dumps({"question": self.question(), **ASK}).encode()
        if kind == "after k events":
            k = self.rng.randint(1, 6)
            try:
                json_body = {"content-type": "application/json"}
                with self.client.stream(
                    "POST", "/v1/ask/stream", content=body, headers=json_body
                ) as s:
                    for n, _ in enumerate(s.iter_lines(), start=1):
                        if n >= 2 * k:  # an SSE event is two lines (event, data)
                            break
            except httpx.HTTPError as e:
                with self.tally.lock:
                    self.tally.transport_errors[f"dropped: {type(e).__name__}"] += 1
        else:
            path = "/v1/ask/stream" if kind == "before first byte" else "/v1/ask"
            linger = (
                self.rng.uniform(0, 0.05)
                if path.endswith("stream")
                else self.rng.uniform(0.05, 0.5)
            )
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            with socket.create_connection((self.host, self.port), timeout=10) as sock:
                sock.sendall(head + body)
                time.sleep(linger)
        with self.tally.lock:
            self.tally.dropped[kind] += 1

    def hostile(self) -> None:
        c = self.client
        cases: list[tuple[str, Callable[[], httpx.Response], str]] = [
            ("malformed JSON", lambda: c.post("/v1/ask", content=b'{"question": "x",', headers={"content-type": "application/json"}), "4xx"),
            ("5 MB body", lambda: c.post("/v1/ask", content=b"x" * 5_000_000, headers={"content-type": "application/json"}), "4xx"),
            ("path traversal", lambda: c.get("/v1/trajectories/..%2F..%2F..%2Fetc%2Fpasswd"), "4xx"),
            ("viewer traversal", lambda: c.get("/viewer/static/..%2F..%2Fapp.py"), "4xx"),
            ("NUL in id", lambda: c.get("/v1/trajectories/abc%00def"), "4xx"),
            ("wrong types", lambda: c.post("/v1/ask", json={"question": 5, "mode": []}), "4xx"),
            ("unknown field", lambda: c.post("/v1/ask", json={"question": "q", "k": 9}), "4xx"),
            ("unknown parameter", lambda: c.get("/v1/search/documents", params={"query": "q", "k": 100000000}), "4xx"),
            ("unknown sport", lambda: c.get("/v1/search/videos", params={"sport": "curling", "query": "q"}), "4xx"),
            ("bad mode", lambda: c.post("/v1/ask", json={"question": "q", "mode": "x"}), "4xx"),
            ("unknown task", lambda: c.post("/v1/runs", json={"task": "t99"}), "4xx"),
            ("query syntax", lambda: c.get("/v1/search/documents", params={"sport": SPORT, "query": 'title:(a OR b) AND -c* "x'}), "ok"),
            ("NUL and emoji in query", lambda: c.get("/v1/search/videos", params={"sport": SPORT, "mode": "oracle", "query": "dunk\x00 🏀"}), "ok"),
            ("rebound Host", lambda: c.get("/v1/trajectories", headers={"Host": f"evil.example:{self.port}"}), "4xx"),
            ("cross-site POST", lambda: c.post("/v1/runs/some-run/cancel", headers={"Origin": "http://evil.example"}), "4xx"),
            ("form POST", lambda: c.post("/v1/ask", content=b'{"question": "q"}', headers={"content-type": "text/plain"}), "4xx"),
            ("zero-width question", lambda: c.post("/v1/ask", json={"question": "\u200b\u200e", **ASK}), "4xx"),
        ]  # fmt: skip
        name, send, expect = self.rng.choice(cases)
        self.timed(f"hostile: {name}", send, expect)

    def run(self, deadline: float, max_requests: int, model_asks: bool = True) -> None:
        actions = [
            (self.search_documents, 4),
            (self.search_videos, 4),
            (self.ask, 2),
            (self.stream, 1),
            (self.dropped, 2),
            (self.hostile, 2),
        ]
        if model_asks:
            actions.append((self.model_ask, 1))
        funcs, weights = zip(*actions, strict=True)
        for _ in range(max_requests):
            if time.monotonic() >= deadline:
                break
            self.rng.choices(funcs, weights)[0]()
        self.client.close()


def start_server(
    index: Path, work: Path, port: int, recall_rate: float, model_url: str | None = None
) -> tuple[subprocess.Popen[bytes], Path]:
    model = {} if model_url is None else {
        "PLAYSCOUT_AGENT__LLM__BASE_URL": model_url,
        "PLAYSCOUT_AGENT__LLM__MODEL": "fake-model",
        "PLAYSCOUT_AGENT__LLM__MAX_RETRIES": "0",
        "PLAYSCOUT_AGENT__TOOL_PROTOCOL": "text",
    }  # fmt: skip
    env = {
        **model,
        **os.environ,
        "PLAYSCOUT_AGENT__TRAJECTORY_DIR": str(work / "trajectories"),
        "PLAYSCOUT_AGENT__SESSION_DB": str(work / "sessions.sqlite"),
        "PLAYSCOUT_SEARCH__RECALL_SAMPLE_RATE": str(recall_rate),
        "PLAYSCOUT_SEARCH__QUERY_LOG": str(query_log(work)),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    log = work / "server.log"
    cmd = [sys.executable, "-m", "playscout", "serve", "--index", str(index)]
    cmd += ["--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
    return proc, log


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError("server not ready in time")


def percentiles(values: list[float]) -> tuple[float, float]:
    arr = np.asarray(values) * 1000
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 99))


def caption_windows(corpus: Any, n: int, seed: int) -> list[str]:
    """n clip queries: 2-6 word windows of the corpus's captions (varied, caption-like)."""
    rng = random.Random(seed)
    words = [c.caption.split() for c in corpus.iter_clips(SPORT) if c.caption]
    out = []
    for _ in range(n):
        w = rng.choice(words)
        size = rng.randint(2, 6)
        start = rng.randint(0, max(0, len(w) - size))
        out.append(" ".join(w[start : start + size]))
    return out


def baseline(
    url: str, questions: list[str], rounds: int, video_queries: list[str]
) -> dict[str, float]:
    """p50 per route with nothing else running: the reference the soak's p50s are read against."""
    tally = Tally()
    load = Load(url, questions, tally, seed=1, video_queries=video_queries)
    for _ in range(rounds):
        load.search_documents()
        load.search_videos()
        load.ask()
    load.client.close()
    return {route: percentiles(v)[0] for route, v in tally.latencies.items()}


def leaked_slots(url: str, timeout_s: float = 15) -> dict[str, int]:
    """Slots and runs still held once every client is gone (waits for in-flight runs)."""
    deadline = time.monotonic() + timeout_s
    asks: dict[str, int] = {}
    while time.monotonic() < deadline:
        asks = httpx.get(f"{url}/readyz", timeout=10).json()["asks"]
        if asks["in_flight"] == 0 and asks["running"] == 0:
            break
        time.sleep(0.2)
    return asks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--max-requests", type=int, default=200_000, help="per worker")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=None, help="default: a temp folder")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--index",
        type=Path,
        default=None,
        help="serve this index (default: <work>/index, built from the tests' corpus when absent;"
        " benchmarks/soak_index.py writes a full-scale one there)",
    )
    ap.add_argument(
        "--recall-rate",
        type=float,
        default=0.05,
        help="search.recall_sample_rate of the server (the live recall check)",
    )
    ap.add_argument(
        "--model-asks",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="llm asks against a stand-in model whose every 4th reply is 4 MB (reply bounds)",
    )
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="playscout-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    load_start = os.getloadavg()
    if args.index:
        corpus, index = prepare_corpus(work), args.index
    else:
        corpus, index = prepare(work)
    from playscout.corpus import Corpus

    questions = [q.question for q in Corpus(corpus).questions(SPORT)]
    video_queries = VIDEO_QUERIES + caption_windows(Corpus(corpus), 200, args.seed)
    for old in (query_log(work), query_log(work).with_name(query_log(work).name + ".1")):
        old.unlink(missing_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    model = stand_in_model().start() if args.model_asks else None
    proc, log = start_server(index, work, port, args.recall_rate, model and model.url)
    try:
        t_ready = time.monotonic()
        wait_ready(url, proc)
        ready_s = time.monotonic() - t_ready
        idle = baseline(url, questions, rounds=10, video_queries=video_queries)
        rss_start = rss_mb(proc.pid)
        fds_start = fd_targets(proc.pid)
        asks_start = httpx.get(f"{url}/readyz", timeout=10).json()["asks"]
        resident_start = index_resident_mb(proc.pid, index)
        tally = Tally()
        deadline = time.monotonic() + args.minutes * 60
        verify: dict[str, Any] = {}

        def run_verify() -> None:
            time.sleep(args.minutes * 30)
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "playscout", "index", "verify", str(index)],
                capture_output=True,
                text=True,
                timeout=600,
            )
            verify.update(exit=done.returncode, seconds=round(time.perf_counter() - t0, 1))

        threads = [threading.Thread(target=run_verify)]
        threads += [
            threading.Thread(
                target=Load(url, questions, tally, args.seed + i, video_queries).run,
                args=(deadline, args.max_requests, args.model_asks),
            )
            for i in range(args.workers)
        ]
        rss_peak = rss_start
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads[1:]):
            rss_peak = max(rss_peak, rss_mb(proc.pid))
            time.sleep(1)
        threads[0].join()
        asks = leaked_slots(url)
        rss_end = rss_mb(proc.pid)
        time.sleep(2)  # connections the load closed last are gone from the server too
        fds_end = fd_targets(proc.pid)
        resident_end = index_resident_mb(proc.pid, index)
        time.sleep(2)  # let the last live check finish
        live = live_recall(url)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if model is not None:
            model.stop()
    server_log = log.read_text(errors="replace")
    tracebacks = server_log.count("Traceback (most recent call last)")
    served = sum(n for (_, status), n in tally.statuses.items())
    five_xx = sum(n for (_, status), n in tally.statuses.items() if status >= 500)
    routes = {}
    for route in sorted(tally.latencies):
        p50, p99 = percentiles(tally.latencies[route])
        by_status = {s: n for (r, s), n in tally.statuses.items() if r == route}
        routes[route] = {
            "requests": sum(by_status.values()),
            "statuses": dict(sorted(by_status.items())),
            "p50_ms": round(p50, 1),
            "p99_ms": round(p99, 1),
            "p50_vs_idle": round(p50 / idle[route], 2) if route in idle else None,
        }
    report = {
        "minutes": args.minutes,
        "workers": args.workers,
        "load_1min_start_end": [round(load_start[0], 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
        "requests_served": served,
        "http_5xx": five_xx,
        "failures": tally.failures[:20],
        "failure_count": len(tally.failures),
        "dropped_clients": dict(tally.dropped),
        "transport_errors": dict(tally.transport_errors),
        "asks_after_load": asks,
        "leaked_slots": asks.get("in_flight", -1),
        "rss_mb": {
            "start": round(rss_start, 1),
            "peak": round(rss_peak, 1),
            "end": round(rss_end, 1),
        },
        "fds": {
            "start": sum(fds_start.values()),
            "end": sum(fds_end.values()),
            "changed": fd_change(fds_start, fds_end),
        },
        "asks_at_start": asks_start,
        "ready_s": round(ready_s, 1),
        "index": str(index),
        "index_resident": {"start": resident_start, "end": resident_end},
        "live_recall": live,
        "true_recall": true_recall(index, query_log(work), (clip_window(), 100)),
        "index_verify": verify,
        "server_exit": proc.returncode,
        "server_tracebacks": tracebacks,
        "idle_p50_ms": {k: round(v, 1) for k, v in idle.items()},
        "routes": routes,
    }
    print_report(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    bad = five_xx or tally.failures or report["leaked_slots"] or verify.get("exit") != 0
    return 1 if bad else 0


def print_report(r: dict[str, Any]) -> None:
    print(f"soak: {r['minutes']} min, {r['workers']} workers, {r['cpus']} CPUs, "
          f"load {r['load_1min_start_end'][0]} -> {r['load_1min_start_end'][1]}")  # fmt: skip
    print(f"requests served {r['requests_served']}; 5xx {r['http_5xx']}; "
          f"wrong answers {r['failure_count']}; leaked slots {r['leaked_slots']} "
          f"(asks after load: {r['asks_after_load']})")  # fmt: skip
    print(f"dropped clients: {r['dropped_clients']}; transport errors: {r['transport_errors']}")
    rss = r["rss_mb"]
    print(f"server RSS MB: start {rss['start']}, peak {rss['peak']}, end {rss['end']} "
          f"(growth {rss['end'] - rss['start']:+.1f})")  # fmt: skip
    print(f"file descriptors: start {r['fds']['start']}, end {r['fds']['end']} "
          f"(changed: {r['fds']['changed'] or 'none'}); server ready "
          f"in {r['ready_s']} s; index {r['index']}")  # fmt: skip
    print(f"index resident: start {r['index_resident']['start']}, "
          f"end {r['index_resident']['end']}")  # fmt: skip
    for key, live in r["live_recall"].items():
        true = r["true_recall"].get(key, {})
        print(f"live recall {key}: {live}; true recall of the same logged queries: {true}")
    print(f"index verify during load: {r['index_verify']}; server exit {r['server_exit']}, "
          f"tracebacks in its log {r['server_tracebacks']}")  # fmt: skip
    print(f"{'route':42} {'n':>7} {'p50 ms':>8} {'p99 ms':>8} {'p50/idle':>9}  statuses")
    for route, x in r["routes"].items():
        ratio = "" if x["p50_vs_idle"] is None else f"{x['p50_vs_idle']:.2f}"
        print(f"{route:42} {x['requests']:7d} {x['p50_ms']:8.1f} {x['p99_ms']:8.1f} "
              f"{ratio:>9}  {x['statuses']}")  # fmt: skip
    for failure in r["failures"]:
        print(f"FAIL {failure}")


if __name__ == "__main__":
    sys.exit(main())
