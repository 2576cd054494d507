"""Each published-format loader on its sample (tests/eval/published/README.md says where each
file comes from), with values checked by hand against the files; GameplayQA's options against
its reference's own algorithm; and, as a property, every loader rejects malformed input with
one line and nothing else."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playscout.eval.errors import DataFormatError
from playscout.eval.tasks.options import first_letter, options_in
from playscout.eval.tasks.reading import NotRunnable
from playscout.eval.tasks.registry import all_formats, read_data
from playscout.eval.tasks.t7 import tracks

P = Path(__file__).parents[1] / "published"
W = P / "written"


def test_t1_t2_readme_examples() -> None:
    (t1,) = read_data("t1", P / "svi_t1_basketball_caption_val.example.json").items
    assert (t1.id, t1.sport) == ("t1_0_65126250", "basketball")
    assert t1.gold.startswith("With 1:06 left in the 4th quarter, Elisa Pinzan")
    assert t1.meta["video_refs"] == ["basketball/val/65126250.mp4"]
    (t2,) = read_data("t2", P / "svi_t2_basketball_qa_val.example.json").items
    assert (t2.id, t2.gold, t2.meta["question_type"]) == ("174849758", 0, "player_position")
    assert t2.meta["options"] == ["Guard", "Center", "Forward"]
    assert "A: Guard\nB: Center\nC: Forward" in t2.prompt


def test_t4_slice_keeps_game_league_and_question_type() -> None:
    data = read_data("t4", P / "svi_t4_qa.slice.json")
    items = data.items
    assert len(items) == 12 and data.format.name == "T4 qa.json"
    assert Counter(i.sport for i in items) == {"basketball": 6, "hockey": 2, "soccer": 4}
    assert {i.meta["question_type"] for i in items} == {
        "anomaly_novelty_detection", "causal_counterfactual_reasoning", "general",
        "role_skill_assessment", "spatiotemporal_relational_reasoning", "tactical_strategic_analysis",
    }  # fmt: skip
    assert [i.meta["game_id"] for i in items[3:5]] == ["202344", "202344"]
    assert items[0].meta["video_refs"] == ["T4/basketball/videos/191869.mp4"]
    assert items[8].meta["league"] == "LaLiga" and items[8].sport == "soccer"
    assert len({i.id for i in items}) == 12


def test_t4_unknown_league_is_missing_not_soccer(tmp_path: Path) -> None:
    """The reference maps any other league to soccer; here it is an item that cannot run."""
    raw = json.loads((P / "svi_t4_qa.slice.json").read_text())[:1]
    raw[0]["league"] = "KHL"
    (tmp_path / "qa.json").write_text(json.dumps(raw))
    (item,) = read_data("t4", tmp_path / "qa.json").items
    assert item.sport == "unknown" and "unknown league 'KHL'" in str(item.missing)


def test_t5_options_wherever_they_stand() -> None:
    bb = read_data("t5", P / "svi_t5_basketball_test.head.json").items
    assert [i.id for i in bb] == ["Q1_0_404818", "Q1_1_1003432", "Q1_2_938568"]
    assert bb[0].meta["options"] == ["4", "2", "10", "5", "8"] and bb[0].gold == 1
    assert bb[1].meta["options"] == ["13", "27", "2", "16", "9"] and bb[1].gold == 2  # blank line
    assert bb[0].prompt.startswith("Pick the best answer. Reply with exactly one letter")
    assert "<video>" not in bb[0].prompt and bb[0].meta["question_type"] == "Q1"
    soccer = read_data("t5", P / "svi_t5_soccer_test.slice.json").items
    assert [len(i.meta["options"]) for i in soccer] == [4, 3] and soccer[1].sport == "soccer"
    hockey = read_data("t5", P / "svi_t5_hockey_test.slice.json").items
    assert hockey[0].meta["options"] == ["Coachella Valley Firebirds", "Hershey Bears", "Overtime"]
    assert hockey[0].gold == 2 and hockey[0].meta["question_type"] == "Q5"


def test_t5_readme_placeholder_is_rejected() -> None:
    with pytest.raises(DataFormatError, match=r"no options 'A: \.\.\.' found"):
        read_data("t5", P / "svi_t5_basketball_test.example.json")


def test_options_rule_matches_the_reference() -> None:
    """The reference's \\b([A-E])\\s*: over the upper-cased text: inline options too."""
    assert options_in("Who wins? A: Home B: Away C: Draw") == ["Home", "Away", "Draw"]
    assert options_in("time 1:19 to 1:29\nA: 4\nB: 2") == ["4", "2"]
    assert options_in("note a: b. Pick: A: x\nB: y") == ["x", "y"]  # the last A-run counts
    assert options_in("no options here") == []
    assert first_letter("I think B", 5) == 1 and first_letter("E", 3) is None


def test_t8_keeps_start_bbox_and_refuses_captions() -> None:
    (t8,) = read_data("t8", P / "svi_t8_qa_test.example.json").items
    assert t8.gold == 3 and t8.meta["options"][3] == "3 PT Missed"
    assert t8.meta["box"] == [0.576766, 0.578147, 0.644978, 0.818599]
    assert t8.meta["jersey_number"] == "#11" and t8.meta["action"] == "3 PT Missed"
    with pytest.raises(NotRunnable, match="generators' input"):
        read_data("t8", P / "svi_t8_captions.example.json")


def _reference_options(row: dict[str, str], seed: int = 13) -> tuple[list[str], str]:
    """HATS-ICT/GameplayQA gameplayqa/questions.py format_multiple_choice_from_row, as written."""
    digest = hashlib.sha256(f"{seed}:{row.get('id', '')}".encode()).hexdigest()
    rng = random.Random(int(digest[:16], 16))
    correct = row.get("correct_option", "").strip()
    if "EXIST" in row.get("question_code", ""):
        ans = "True" if correct.lower() == "true" else "False"
        options = [(ans, None, "C"), ("False" if ans == "True" else "True", "exist_negation", "D1")]
    else:
        options = [(correct, None, "C")]
        for i in range(1, 4):
            d = row.get(f"distractor_{i}", "").strip()
            if d:
                options.append(
                    (d, row.get(f"distractor_{i}_type", "").strip() or "unknown", f"D{i}")
                )
    rng.shuffle(options)
    letter = next(chr(65 + i) for i, o in enumerate(options) if o[2] == "C")
    return [o[0] for o in options], letter


def test_gameplayqa_generator_export_options_as_the_reference() -> None:
    raw = json.loads((P / "gameplayqa_generator_questions_head40.json").read_text())
    items = read_data("gameplayqa", P / "gameplayqa_generator_questions_head40.json").items
    assert len(items) == 40
    for q, inst in zip(raw["questions"], items, strict=True):
        row = {"id": q["id"], "correct_option": q["answer"]["option"], "question_code": q["code"]}
        for i, d in enumerate(q["distractors"], 1):
            row[f"distractor_{i}"], row[f"distractor_{i}_type"] = d["option"], d["type"]
        options, letter = _reference_options(row)
        assert inst.meta["options"] == options and chr(65 + inst.gold) == letter
        assert inst.meta["windows"] == [[q["videoContext"]["start"], q["videoContext"]["end"]]]
    assert items[0].meta["video_refs"] == [{"instance": "i-001", "index": 0}]
    exist = [i for i in items if "EXIST" in i.meta["question_code"]]
    assert exist and all(sorted(i.meta["options"]) == ["False", "True"] for i in exist)


def test_gameplayqa_csv_multi_video() -> None:
    import csv

    rows = list(csv.DictReader((W / "gameplayqa_qa.csv").read_text().splitlines()))
    items = read_data("gameplayqa", W / "gameplayqa_qa.csv").items
    assert [i.id for i in items] == [r["id"] for r in rows]
    for row, inst in zip(rows, items, strict=True):
        options, letter = _reference_options(row)
        assert inst.meta["options"] == options and chr(65 + inst.gold) == letter
    multi = items[2]
    assert multi.meta["multi_video"] and multi.meta["video_indices"] == [0, 2]
    assert multi.meta["video_refs"] == [
        ["q-written-multi-1-v0.mp4", "videos/m_i001_v0_arcraider_2617443894.mp4"],
        ["q-written-multi-1-v2.mp4", "videos/m_i001_v2_arcraider_2617461450.mp4"],
    ]
    assert multi.prompt.startswith("Watch all the videos carefully")
    assert (
        items[0].prompt.startswith("Watch the video carefully")
        and items[0].meta["entity_type"] == "SA"
    )


def test_written_formats() -> None:
    (t3,) = read_data("t3", W / "t3_basketball_val.json").items
    assert t3.gold == "basketball/val/10045_3.mp4" and len(t3.meta["pool_refs"]) == 3
    t6 = read_data("t6", W / "t6").items
    assert [i.meta["setting"] for i in t6] == ["multi_game", "single_game"]
    assert t6[1].meta["game_ids"] == ["100245"] and len(t6[1].gold) == 4
    assert "focusing on Kemba Walker" in t6[1].prompt  # {player} from metadata.json
    assert t6[0].meta["game_ids"] == ["100245", "100251"] and len(t6[0].meta["video_refs"]) == 2
    t7 = read_data("t7", W / "t7_bboxes").items
    assert [i.id for i in t7] == ["t7_0001", "t7_0002"]
    assert t7[0].gold["1"][1] == [40.0, 0.30, 0.12, 0.40, 0.32] and set(t7[0].gold) == {"1", "2"}
    assert tracks(t7[0].gold)["1"][40] == (0.30, 0.12, 0.40, 0.32)
    star = read_data("starbench", W / "starbench_items.json").items
    assert star[0].meta["multi_turn"] and not star[1].meta["multi_turn"]
    assert [c["weight"] for c in star[0].gold[0]["rubric"]] == [5.0, 3.0, 5.0]
    lcric = read_data("lcric", W / "lcric_queries.json").items
    assert [i.gold for i in lcric] == [True, 2, 57.0]
    (t9,) = read_data("t9", W / "t9_basketball_questions.json").items
    assert (t9.id, t9.sport, t9.gold) == ("bq_0001", "basketball", "step-back jumper")


@pytest.mark.parametrize(
    ("task", "path", "other"),
    [
        ("t2", P / "svi_t1_basketball_caption_val.example.json", "t1"),
        ("t5", P / "svi_t8_qa_test.example.json", "t8"),
        ("t9", P / "svi_t2_basketball_qa_val.example.json", "t2"),
        ("t1", W / "t3_basketball_val.json", "t3"),
        ("gameplayqa", P / "svi_t4_qa.slice.json", "t4"),
        ("t2", P / "svi_t8_captions.example.json", "t8"),
    ],
)
def test_a_file_of_another_task_names_it(task: str, path: Path, other: str) -> None:
    with pytest.raises(DataFormatError) as err:
        read_data(task, path)
    assert f"is a {other} file" in str(err.value) and "\n" not in str(err.value)


def test_each_sample_parses_as_its_format_only() -> None:
    """No file is silently read as another task's: the formats do not overlap."""
    expected = {
        "svi_t1_basketball_caption_val.example.json": "t1", "svi_t2_basketball_qa_val.example.json": "t2",
        "svi_t4_qa.slice.json": "t4", "svi_t5_basketball_test.head.json": "t5",
        "svi_t8_qa_test.example.json": "t8", "gameplayqa_generator_questions_head40.json": "gameplayqa",
        "t3_basketball_val.json": "t3", "starbench_items.json": "starbench", "lcric_queries.json": "lcric",
        "t9_basketball_questions.json": "t9", "gameplayqa_qa.csv": "gameplayqa",
    }  # fmt: skip
    for name, task in expected.items():
        path = P / name if (P / name).exists() else W / name
        parsed = []
        for fmt in all_formats():
            if fmt.fits(path):
                try:
                    fmt.parse(path)
                    parsed.append(fmt.task)
                except DataFormatError:
                    pass
        assert parsed == [task], name


# ---------------------------------------------------------------- malformed input, as a property

JSON_SAMPLES = [
    ("t1", P / "svi_t1_basketball_caption_val.example.json"),
    ("t2", P / "svi_t2_basketball_qa_val.example.json"),
    ("t3", W / "t3_basketball_val.json"),
    ("t4", P / "svi_t4_qa.slice.json"),
    ("t5", P / "svi_t5_soccer_test.slice.json"),
    ("t8", P / "svi_t8_qa_test.example.json"),
    ("t9", W / "t9_basketball_questions.json"),
    ("gameplayqa", P / "gameplayqa_generator_questions_head40.json"),
    ("starbench", W / "starbench_items.json"),
    ("lcric", W / "lcric_queries.json"),
]
WRONG_VALUES = st.sampled_from([None, 7, -1.5, "", "x", [], {}, [1, 2], True])


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(value: object, path: tuple[object, ...], action: str, new: object) -> object:
    *head, last = path
    target = value
    for key in head:
        target = target[key]  # type: ignore[index]
    if action == "drop" and isinstance(target, dict):
        del target[last]
    elif action == "drop" and isinstance(target, list):
        del target[last]  # type: ignore[call-overload]
    else:
        target[last] = new  # type: ignore[index]
    return value


def _one_line_or_ok(task: str, path: Path) -> None:
    try:
        read_data(task, path)
    except DataFormatError as e:
        assert "\n" not in str(e) and str(e).strip()


@pytest.mark.parametrize(("task", "sample"), JSON_SAMPLES, ids=[t for t, _ in JSON_SAMPLES])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_malformed_json_is_one_line(
    task: str, sample: Path, tmp_path: Path, data: st.DataObject
) -> None:
    """Dropping any key or element, putting a wrong value anywhere, or cutting the file short:
    the loader either still reads it or raises DataFormatError with one line; never anything
    else (a KeyError, a TypeError, a traceback)."""
    raw = json.loads(sample.read_text())
    kind = data.draw(st.sampled_from(["drop", "replace", "truncate"]))
    target = tmp_path / sample.name
    if kind == "truncate":
        text = sample.read_bytes()
        target.write_bytes(text[: data.draw(st.integers(0, len(text) - 1))])
    else:
        path = data.draw(st.sampled_from(_paths(raw)))
        target.write_text(json.dumps(_mutate(raw, path, kind, data.draw(WRONG_VALUES))))
    _one_line_or_ok(task, target)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_malformed_csv_and_folders_are_one_line(tmp_path: Path, data: st.DataObject) -> None:
    import shutil

    lines = (W / "gameplayqa_qa.csv").read_text().splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    cut = data.draw(st.integers(0, len(lines[i])))
    lines[i] = lines[i][:cut] + data.draw(st.sampled_from(["", ",", '"', ",,,,,,,,,,,,,,,,,,,"]))
    (tmp_path / "qa.csv").write_text("\n".join(lines))
    _one_line_or_ok("gameplayqa", tmp_path / "qa.csv")
    folder = tmp_path / "t7"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(W / "t7_bboxes", folder)
    track = folder / "0001.txt"
    text = track.read_text()
    track.write_text(
        text[: data.draw(st.integers(0, len(text)))] + data.draw(st.sampled_from(["", "x,y", ",,"]))
    )
    _one_line_or_ok("t7", folder)


def test_truncated_json_says_so(tmp_path: Path) -> None:
    text = (P / "svi_t4_qa.slice.json").read_text()
    (tmp_path / "qa.json").write_text(text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"qa.json: not valid JSON \(truncated\?\)"):
        read_data("t4", tmp_path / "qa.json")
