"""The comparability stamp of each case of issue 34 (item 3), as `eval run` + `eval judge`
stamp it, every model a scripted OpenAI-compatible server (tests/eval/running/paper_runs.py) over a
release-layout copy of the test corpus (tests/release_layout.py). Prints one markdown row per
case: the case and the stamp's line.

Run it against this checkout, then against another playscout (e.g. main) to compare:

    .venv/bin/python scripts/stamp_cases.py
    git archive main playscout | tar -x -C /tmp/main-src
    PYTHONPATH=/tmp/main-src .venv/bin/python scripts/stamp_cases.py

Where the other playscout lacks a feature (the release's node pickles, the video query tower)
the index and the runs are made the way it can: text vectors from a served model named
bge-m3, default-mode runs without a tower."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from typer.testing import CliRunner

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, after any other playscout

from playscout.cli.main import app
from playscout.config import QASettings
from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from tests.embed.fake_server import Behaviour, FakeEmbeddingServer
from tests.embed.fake_tower import ScriptedTextTower
from tests.eval.running.paper_runs import NO_VERDICT, ScriptedPaperModels, run_args
from tests.release_layout import write_release_embeds
from tests.synthdata import SPORT, make_corpus

runner = CliRunner()
HAS_RELEASE = "video_query" in QASettings.model_fields  # this playscout reads the release's own


def _index(corpus: Path, out: Path, bge: str, videos: Path | None) -> Path:
    embeds = corpus / "embeds"
    if HAS_RELEASE:
        build_from_corpus(corpus, out, sports=[SPORT], doc_embedder=bge, caption_embedder=bge,
                          doc_vectors=embeds / "documents", caption_vectors=embeds / "captions",
                          video_vectors=videos)  # fmt: skip
    else:
        build_from_corpus(corpus, out, sports=[SPORT], doc_embedder=bge, caption_embedder=bge,
                          video_vectors=videos)  # fmt: skip
    return out


class Cases:
    def __init__(self, root: Path, bge: FakeEmbeddingServer, tower: ScriptedTextTower) -> None:
        self.root, self.tower = root, tower
        synth = make_corpus(root / "synth", sports=[SPORT])
        shutil.copytree(synth, root / "T9")
        (root / "T9" / "synth_manifest.json").unlink()
        self.corpus = root / "T9"
        write_release_embeds(Corpus(self.corpus), SPORT)
        url = f"openai:{bge.base_url}#bge-m3"
        self.index = _index(self.corpus, root / "index", url, self.corpus / "embeds" / "videos")
        named = root / "internvideo2_vectors"  # random vectors, named after the model
        shutil.copytree(self.corpus / "embeds" / "videos", named)
        rng = np.random.default_rng(0)
        for npy in named.rglob("*.npy"):
            vec = rng.normal(size=512).astype(np.float32)
            np.save(npy, vec / np.linalg.norm(vec))
        self.named_index = _index(self.corpus, root / "named-index", url, named)
        self.n = 0

    def run(self, *more: str, mode: str = "oracle", judged: bool = True, index: Path | None = None,
            out: Path | None = None, **options: Any) -> str:  # fmt: skip
        self.n += 1
        out = out or self.root / "runs" / f"r{self.n}"
        if mode == "default":
            options = {"search": "search_videos", "query": "a pass", **options}
            if HAS_RELEASE:
                more = (*more, "--video-query-url", self.tower.url,
                        "--video-query-model", "internvideo2-text")  # fmt: skip
        with ScriptedPaperModels(**options) as models:
            args = run_args(self.corpus, index or self.index, out, mode, models, *more)
            result = runner.invoke(app, args)
            if result.exit_code != 0:
                return "refused: " + result.output.strip().splitlines()[-1]
            if judged:
                runner.invoke(app, ["eval", "judge", str(out), "--judge-url", models.server.url,
                                    "--judge-model", models.judge])  # fmt: skip
        stamp = json.loads((out / "run.json").read_text())["stamp"]
        if stamp["comparable"]:
            return "comparable" + (f" (agent {stamp['agent']})" if stamp.get("agent") else "")
        return "not comparable: " + "; ".join(stamp["reasons"])


def own_preset(c: Cases) -> str:
    from importlib import resources

    mine = yaml.safe_load(resources.files("playscout").joinpath("presets/paper.yaml").read_text())
    mine["settings"]["agent"]["max_llm_calls"] = 5
    path = c.root / "mine.yaml"
    path.write_text(yaml.safe_dump(mine))
    return c.run("--preset", str(path))


def resumed(c: Cases) -> str:
    out = c.root / "runs" / "resumed"
    c.run("--limit", "2", out=out)
    return c.run("--set", "agent.max_llm_calls=5", out=out)


CASES: list[tuple[str, Callable[[Cases], str]]] = [
    ("paper-shaped, oracle", lambda c: c.run()),
    ("paper-shaped, default (release embeds/videos)", lambda c: c.run(mode="default")),
    ("own preset file, paper_comparable, 5 calls", own_preset),
    ("--set search.fuzzy_cutoff=0.7", lambda c: c.run("--set", "search.fuzzy_cutoff=0.7")),
    ("--set search.clip_window=50", lambda c: c.run("--set", "search.clip_window=50")),
    ("--set eval.judge_max_tokens=200", lambda c: c.run("--set", "eval.judge_max_tokens=200")),
    ("--set search.ann_probe=0", lambda c: c.run("--set", "search.ann_probe=0")),
    ("resumed with --set agent.max_llm_calls=5", resumed),
    ("never judged", lambda c: c.run(judged=False)),
    ("judge returned no verdict", lambda c: c.run(judge_reply=NO_VERDICT)),
    ("--limit 1 on one sport", lambda c: c.run("--limit", "1")),
    ("SmolLM2 as document QA, caption QA, judge", lambda c: c.run(qa="smollm2", judge="smollm2")),
    ("random vectors in a folder named internvideo2", lambda c: c.run(mode="default", index=c.named_index)),
    ("--strict, --limit 1", lambda c: c.run("--limit", "1", "--strict")),
]  # fmt: skip


def main() -> None:
    import playscout

    print(f"playscout from {Path(playscout.__file__).parent}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        bge = FakeEmbeddingServer(Behaviour(dim=1024)).start()
        try:
            with ScriptedTextTower() as tower:
                cases = Cases(Path(tmp), bge, tower)
                print("| case | stamp |\n|---|---|")
                for name, case in CASES:
                    print(f"| {name} | {case(cases)} |", flush=True)
        finally:
            bge.stop()


if __name__ == "__main__":
    main()
