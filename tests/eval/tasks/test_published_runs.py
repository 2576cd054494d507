"""Every task runs on its published sample (tests/eval/published/): items loaded, asked,
missing_input with its reason, the report's lines. Videos are real MP4 files written at the
paths the items name (the releases do not ship media); the VLM is FakeOpenAIServer, a real
HTTP server speaking the OpenAI API (no VLM can run in CI), so the frames really travel."""

from __future__ import annotations

import base64
import io
import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.results.report import summarise_run, write_report
from playscout.eval.storage.store import load_results
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply, last_user_text
from tests.media.samples import scoreboard_clip

P = Path(__file__).parents[1] / "published"
W = P / "written"
REPORT_FACTS = (
    "Charlotte beat Detroit 107-98. Kemba Walker scored 31 points. Kemba Walker made six "
    "three-pointers. Charlotte outscored Detroit 31-19 in the fourth quarter."
)


def vlm_reply(body: dict[str, Any]) -> Reply:
    """What the fake VLM says, by the prompt it got (a later turn's prompt holds the earlier
    turns, so later cues come first)."""
    text = last_user_text(body)
    for cue, reply in (
        ("Respond with up to", "Answer 1: Casey Cizikas lost his man.\nAnswer 2: A line change."),
        ("Describe every action", "With 1:06 left in the 4th quarter, Elisa Pinzan committed a foul."),
        ("journalistic", REPORT_FACTS),
        ("How does it adjust", "It has sensors and cameras that adjust water pressure."),  # turn 2 first:
        ("real machine", "Yes: the AI-powered dog washer is a real machine, shown working, demonstrated on a real dog."),
        ("wide ball", "yes"),
        ("after a wide", "2"),
        ("runs were scored", "57"),
    ):  # fmt: skip
        if cue in text:
            return Reply.chat(reply)
    return Reply.chat("B")


@pytest.fixture(scope="module")
def vlm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default=vlm_reply) as server:
        yield server


@pytest.fixture(scope="module")
def clip_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return scoreboard_clip(tmp_path_factory.mktemp("clip") / "c.mp4", seconds=1.0).read_bytes()


def put(root: Path, clip: bytes, *paths: str) -> Path:
    for p in paths:
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_bytes(clip)
    return root


def file_settings(vlm: FakeOpenAIServer, **top: Any) -> Settings:
    return Settings(**{
        "qa": {"vlm": {"base_url": vlm.url, "model": "fake-vlm", "max_retries": 0}, "frames_per_clip": 2},
        "eval": EvalSettings(cache_db=None),
    } | top)  # fmt: skip


def run(
    task: str, data: Path, out: Path, settings: Settings, **spec: Any
) -> tuple[list[Any], dict[str, Any]]:
    backend = spec.pop("backend", None)
    opts: dict[str, Any] = {"sports": (), "policy": "workflow", "concurrency": 2} | spec
    run_eval(RunSpec(task=task, data=data, out_dir=out, **opts), settings, backend=backend)
    return load_results(out), summarise_run(out)


def statuses(rows: list[Any]) -> dict[str, int]:
    return dict(Counter(r.status for r in rows))


def images(body: dict[str, Any]) -> list[bytes]:
    parts = body["messages"][-1]["content"]
    return [
        base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
        for p in parts
        if p["type"] == "image_url"
    ]


# ---------------------------------------------------------------- clip tasks


def test_t1_readme_example(tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes) -> None:
    media = put(tmp_path / "T1", clip_bytes, "basketball/val/65126250.mp4")
    rows, summary = run("t1", P / "svi_t1_basketball_caption_val.example.json", tmp_path / "run",
                        file_settings(vlm), media=media)  # fmt: skip
    (row,) = rows
    assert row.status == "answered" and row.route == "video files"
    # identity (Elisa Pinzan), temporal (1:06, 4th quarter) found; no score in the caption
    assert row.scores == {"identity": 5.0, "temporal": 5.0} and row.score == 5.0
    assert summary["task_metrics"]["per_axis"]["action"] is None


def test_t2_missing_video_is_missing_input(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    data = P / "svi_t2_basketball_qa_val.example.json"
    rows, summary = run("t2", data, tmp_path / "none", file_settings(vlm), media=tmp_path)
    assert (
        statuses(rows) == {"missing_input": 1} and not (tmp_path / "none" / "trajectories").exists()
    )
    assert "video 'basketball/val/85290206.mp4' not found under" in str(rows[0].error)
    assert summary["missing_input"]["count"] == 1 and summary["task_metrics"]["accuracy"] is None
    # the video appears: the resumed run asks the item it could not ask before
    put(tmp_path, clip_bytes, "basketball/val/85290206.mp4")
    rows, summary = run("t2", data, tmp_path / "none", file_settings(vlm), media=tmp_path)
    assert statuses(rows) == {"answered": 1} and rows[0].attempt == 2
    assert rows[0].choice == 1 and rows[0].correct is False  # "B" = Center; the answer is A
    assert summary["missing_input"]["count"] == 0


def test_t5_published_options_and_cluster_paths(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    """T5 videos are absolute paths on the authors' cluster: found under --media by their tail."""
    media = put(
        tmp_path / "m", clip_bytes, "basketball/forecasting/Q1/404818_3.mp4", "Q1/1003432_3.mp4"
    )
    rows, summary = run(
        "t5",
        P / "svi_t5_basketball_test.head.json",
        tmp_path / "run",
        file_settings(vlm),
        media=media,
    )
    by_id = {r.qid: r for r in rows}
    assert by_id["Q1_0_404818"].correct is True  # "B", and B is the answer
    assert by_id["Q1_1_1003432"].status == "answered" and by_id["Q1_1_1003432"].correct is False
    assert by_id["Q1_2_938568"].status == "missing_input"
    assert (
        summary["task_metrics"]["accuracy"] == 0.5
        and summary["task_metrics"]["calibration_error"] is None
    )
    prompt = last_user_text(vlm.requests[-1]["body"])
    assert prompt.startswith(
        "Pick the best answer. Reply with exactly one letter: A, B, C, D, or E."
    )


def test_t8_draws_the_start_box_on_the_first_frame(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    from PIL import Image

    media = put(tmp_path, clip_bytes, "clips/93/0069003.mp4")
    before = len(vlm.requests)
    rows, summary = run(
        "t8", P / "svi_t8_qa_test.example.json", tmp_path / "run", file_settings(vlm), media=media
    )
    assert statuses(rows) == {"answered": 1} and rows[0].choice == 1
    first, second = images(vlm.requests[before]["body"])
    red = [Image.open(io.BytesIO(f)).convert("RGB") for f in (first, second)]

    def reddish(img: Image.Image) -> int:  # red over the green pitch, after JPEG's blur
        return sum(1 for r, g, b in img.get_flattened_data() if r - g > 50 and r - b > 50)

    assert reddish(red[0]) > 100 and reddish(red[1]) == 0  # frame 0 only, as the reference
    assert summary["stand_in"].startswith("the real clip stands in")


# ---------------------------------------------------------------- game tasks


def test_t4_video_route_and_missing_games(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    videos = [
        "T4/hockey/videos/176319.mp4",
        "T4/basketball/videos/202344.mp4",
        "T4/soccer/videos/506486.mp4",
    ]
    media = put(tmp_path / "data", clip_bytes, *videos)
    with FakeOpenAIServer(default=lambda body: Reply.chat('{"score": 4}')) as judge:
        settings = file_settings(
            vlm,
            eval=EvalSettings(
                cache_db=None,
                best_of_k=5,
                frames_per_game=2,  # over the paper's 768 (a deviation): test_t4_paper.py has them
                judge={"base_url": judge.url, "model": "fake-judge"},
            ),
        )
        rows, summary = run(
            "t4", P / "svi_t4_qa.slice.json", tmp_path / "run", settings, media=media
        )
        judged = len(judge.requests)
    assert statuses(rows) == {"answered": 4, "missing_input": 8}  # 202344 has two questions
    asked = [r for r in rows if r.status == "answered"]
    assert all(r.route == "video files" and r.candidates and len(r.candidates) == 2 for r in asked)
    assert all(
        r.candidate_scores == [4.0, 4.0] and r.score == 4.0 and r.judge == "llm-rubric"
        for r in asked
    )
    assert judged == 8  # 4 questions x 2 candidates
    reasons = {r.qid: r.error for r in rows if r.status == "missing_input"}
    assert (
        "game 191869 no corpus given and its video 'T4/basketball/videos/191869.mp4' is not under"
        in reasons["t4_0"]
    )
    metrics = summary["task_metrics"]
    assert metrics["avg_score"] == 4.0 and metrics["unscored"] == 0
    assert metrics["routes_per_question_type"]["role_skill_assessment"] == {"video files": 1}


def test_t4_without_a_judge_model_leaves_free_text_unscored(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    media = put(tmp_path, clip_bytes, "T4/hockey/videos/176319.mp4")
    settings = file_settings(vlm, eval=EvalSettings(cache_db=None, frames_per_game=2))
    rows, summary = run("t4", P / "svi_t4_qa.slice.json", tmp_path / "run", settings, media=media)
    (row,) = [r for r in rows if r.status == "answered"]
    assert (
        row.judge == "rubric-fallback"
        and row.candidate_scores == [None, None]  # the paper preset's k=5; the reply has 2
        and row.score is None
    )
    assert summary["task_metrics"]["unscored"] == 1


def _t4_on_corpus_game(tmp_path: Path, corpus_dir: Path) -> tuple[Path, str]:
    from playscout.corpus import Corpus

    gid = Corpus(corpus_dir).games_in_order("basketball")[0]
    items = json.loads((P / "svi_t4_qa.slice.json").read_text())
    kept = [
        dict(items[2], game_id=gid),
        dict(items[3], game_id=gid),
        items[0],
    ]  # 2 on the corpus' game
    (tmp_path / "qa.json").write_text(json.dumps(kept))
    return tmp_path / "qa.json", gid


def test_t4_corpus_route_by_question_type(
    tmp_path: Path, settings: Settings, synth_backend: Any
) -> None:
    assert settings.corpus_dir is not None
    data, gid = _t4_on_corpus_game(tmp_path, settings.corpus_dir)
    s = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    rows, summary = run("t4", data, tmp_path / "run", s, mode="oracle", backend=synth_backend)
    by_id = {r.qid: r for r in rows}
    assert by_id["t4_0"].route == "corpus: search_videos+video_qa"  # spatiotemporal: clips only
    assert by_id["t4_1"].route == "corpus: search_videos+video_qa+search_documents+document_qa"
    assert by_id["t4_2"].status == "missing_input" and "oracle mode" in str(by_id["t4_2"].error)
    for qid in ("t4_0", "t4_1"):
        touched = by_id[qid].evidence.get("clip_ids", []) + by_id[qid].evidence.get("doc_ids", [])
        assert touched and all(t.startswith(gid) for t in touched), touched  # that game only
        assert f"{gid}_espn_report" not in touched
    routes = summary["task_metrics"]["routes_per_question_type"]
    assert routes == {"spatiotemporal_relational_reasoning": {"corpus: search_videos+video_qa": 1},
                      "tactical_strategic_analysis": {"corpus: search_videos+video_qa+search_documents+document_qa": 1}}  # fmt: skip


def test_games_view_shows_one_game_without_its_report() -> None:
    from playscout.corpus.models import ClipRecord, DocumentRecord
    from playscout.eval.tasks.games import games_view

    view = games_view({"202344"})

    def doc(doc_id: str, game: str | None, kind: str) -> DocumentRecord:
        return DocumentRecord(
            doc_id=doc_id, sport="basketball", doc_type=kind, text="", game_id=game
        )  # type: ignore[arg-type]

    def clip(game: str) -> ClipRecord:
        return ClipRecord(clip_id=f"{game}_1", sport="basketball", game_id=game, index=1, period=1,
                          video_start=0, video_end=10)  # fmt: skip

    assert not view.doc_hidden(doc("202344_game_stat_player", "202344", "game_stat_player"))
    assert view.doc_hidden(doc("202344_espn_report", "202344", "espn_report"))
    assert view.doc_hidden(doc("578938_game_stat_player", "578938", "game_stat_player"))
    assert view.doc_hidden(doc("player_1_2023_season_stat_player", None, "season_stat_player"))
    assert not view.clip_hidden(clip("202344")) and view.clip_hidden(clip("578938"))


def test_t6_samples(tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes) -> None:
    media = put(tmp_path, clip_bytes, "T6/basketball/videos/100245.mp4")  # 100251 absent
    rows, summary = run("t6", W / "t6", tmp_path / "run", file_settings(vlm), media=media)
    by_setting = {r.meta["setting"]: r for r in rows}
    assert by_setting["multi_game"].status == "missing_input"
    assert "100251" not in str(by_setting["multi_game"].error) or "not under" in str(
        by_setting["multi_game"].error
    )
    single = by_setting["single_game"]
    assert (
        single.status == "answered" and single.saliency == 1.0 and single.style is None
    )  # 4/4 facts
    assert summary["task_metrics"]["style_unjudged"] == 1


def test_t7_real_tracks_with_the_stand_in(tmp_path: Path, vlm: FakeOpenAIServer) -> None:
    rows, _summary = run("t7", W / "t7_bboxes", tmp_path / "run", file_settings(vlm))
    assert statuses(rows) == {"answered": 2} and all(0 < r.miou <= 1 for r in rows)
    assert next(r for r in rows if r.qid == "t7_0002").miou == pytest.approx(1.0)  # straight track
    write_report([tmp_path / "run"], plots=False)
    report = (tmp_path / "run" / "report.md").read_text()
    assert (
        "> **Stand-in, not the paper's system:** real tracks from the data"
        in report.splitlines()[2]
    )


def test_t3_pool_not_in_the_index(tmp_path: Path, settings: Settings, synth_backend: Any) -> None:
    s = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    rows, _ = run("t3", W / "t3_basketball_val.json", tmp_path / "run", s, backend=synth_backend)
    assert statuses(rows) == {"missing_input": 1}
    assert "3 of 3 pool videos are not clips of the index (first: 10045_3)" in str(rows[0].error)


def test_t9_questions_file(tmp_path: Path, settings: Settings, synth_backend: Any) -> None:
    s = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    rows, summary = run("t9", W / "t9_basketball_questions.json", tmp_path / "run", s,
                        mode="oracle", backend=synth_backend)  # fmt: skip
    assert [r.qid for r in rows] == ["bq_0001"] and rows[0].status in ("answered", "no_answer")
    assert rows[0].judgeable and summary["accuracy"]["overall"]["n"] == 1


# ---------------------------------------------------------------- GameplayQA, STARBench, LCric


def test_gameplayqa_generator_export(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    """Videos come from the project file, as the authors' tool lists them."""
    project = tmp_path / "project-example"
    put(tmp_path, clip_bytes, "project-example/videos/s_i000_v0_apex_m2oaUiUe83U.mp4")
    (project / "project_example.json").write_text(json.dumps({"instances": [
        {"id": "i-001", "videos": ["data/project-example/videos/s_i000_v0_apex_m2oaUiUe83U.mp4"]}]}))  # fmt: skip
    before = len(vlm.requests)
    rows, summary = run("gameplayqa", P / "gameplayqa_generator_questions_head40.json", tmp_path / "run",
                        file_settings(vlm), media=project, concurrency=4)  # fmt: skip
    assert statuses(rows) == {"answered": 40}
    assert len(vlm.requests) - before == 40 and all(
        len(images(r["body"])) == 2 for r in vlm.requests[before:]
    )
    assert summary["task_metrics"]["per_video_count"] == {
        "single": pytest.approx(summary["task_metrics"]["accuracy"])
    }


def test_gameplayqa_csv_sends_every_video(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    put(
        tmp_path,
        clip_bytes,
        "videos/s_i000_v0_apex_m2oaUiUe83U.mp4",
        "q-written-multi-1-v0.mp4",
        "q-written-multi-1-v2.mp4",
    )
    shutil.copy(W / "gameplayqa_qa.csv", tmp_path / "qa.csv")
    before = len(vlm.requests)
    rows, summary = run(
        "gameplayqa", tmp_path / "qa.csv", tmp_path / "run", file_settings(vlm), concurrency=1
    )
    assert statuses(rows) == {"answered": 3}
    multi = next(
        r["body"]
        for r in vlm.requests[before:]
        if "Watch all the videos" in last_user_text(r["body"])
    )
    labels = [p["text"] for p in multi["messages"][-1]["content"] if p["type"] == "text"]
    assert labels[1:] == ["Video 1:", "Video 2:"] and len(images(multi)) == 4  # 2 videos x 2 frames
    assert summary["task_metrics"]["per_video_count"].keys() == {"single", "multi"}


def test_starbench_rubrics_judged_criterion_by_criterion(
    tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes
) -> None:
    media = put(tmp_path, clip_bytes, "videos/dog_washer.mp4")  # coach_talk.mp4 absent
    rows, summary = run(
        "starbench", W / "starbench_items.json", tmp_path / "run", file_settings(vlm), media=media
    )
    by_id = {r.qid: r for r in rows}
    dog = by_id["dogwash-1"]
    # turn 1: both facts stated, penalty unchecked -> (5+3)/8; turn 2: the one fact -> 5/5
    assert dog.criteria == [[True, True, None], [True, None]] and dog.turn_scores == [1.0, 1.0]
    assert dog.score == 1.0 and dog.judge == "text-fallback"
    assert by_id["coach-1"].status == "missing_input"
    second = next(
        r["body"] for r in vlm.requests if "How does it adjust" in last_user_text(r["body"])
    )
    assert "A: Yes, it's a real AI-powered dog washer" in last_user_text(
        second
    )  # the ideal history
    assert summary["task_metrics"]["rubric_score_pct"] == 100.0
    assert summary["task_metrics"]["penalties_unchecked"] == 2


def test_lcric_written_queries(tmp_path: Path, vlm: FakeOpenAIServer, clip_bytes: bytes) -> None:
    media = put(tmp_path, clip_bytes, "clips/2019_WC_final_Eng_vs_NZ_overs_1_10.mp4")
    rows, _summary = run(
        "lcric", W / "lcric_queries.json", tmp_path / "run", file_settings(vlm), media=media
    )
    preds = {r.qid.rsplit("-", 2)[-2]: r.pred for r in rows}
    assert preds == {"bin": True, "mc": 2, "reg": 57.0} and all(r.correct for r in rows)
    write_report([tmp_path / "run"], plots=False)
    assert (
        "format written from the paper, no public file"
        in (tmp_path / "run" / "report.md").read_text()
    )


def test_synthetic_items_on_a_release_layout_corpus_say_to_pass_data(tmp_path: Path) -> None:
    """The release lists no play_by_play: this was an AttributeError for every task but T9."""
    from playscout.eval.errors import RunError
    from tests.corpus.minicorpus import write_minicorpus

    root = write_minicorpus(tmp_path)
    settings = Settings(corpus_dir=root, eval=EvalSettings(cache_db=None))
    with pytest.raises(
        RunError,
        match=r"has no play_by_play.json: without --data .* pass the task's published data",
    ):
        run_eval(
            RunSpec(
                task="t2",
                out_dir=tmp_path / "run",
                policy="workflow",
                mode="oracle",
                sports=("basketball",),
            ),
            settings,
            backend=object(),
        )  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()
