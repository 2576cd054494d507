"""Which published formats each task reads, where each is documented, and `read_data`, which
picks the format of a `--data` path and parses it whole, or fails with one line: the field
that is wrong, or, for a file of another task, which task it belongs to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playscout.eval.errors import DataFormatError
from playscout.eval.published import external, svi
from playscout.eval.published.reading import NotRunnable
from playscout.eval.tasks.task import Instance

SVI = "Texaser/SVI-Bench svi_bench/tasks"


@dataclass(frozen=True)
class Format:
    task: str
    name: str
    layout: str  # what the data looks like, one line
    source: str  # where the format is written down
    parse: Callable[[Path], list[Instance]]
    kind: str = ".json"  # file suffix, or "folder"
    from_paper: bool = False  # no public file: written from the paper's description
    runnable: bool = True  # False: recognised so the error can say what to pass instead

    def fits(self, path: Path) -> bool:
        if self.kind == "folder":
            return path.is_dir()
        return path.is_file() and path.suffix.lower() == self.kind


FORMATS: tuple[Format, ...] = (
    Format("t1", "T1 captions JSON", "[{video, data_source, caption}]",
           f"{SVI}/t1_structured_play_description/README.md", svi.t1_captions),
    Format("t2", "T2 MCQ JSON", "[{id, video, question_type, question, options ['A: ...'], answer}]",
           f"{SVI}/t2_fine_grained_action_qa/README.md", svi.t2_mcq),
    Format("t3", "T3 annotation JSON", "[{video|image, caption, is_positive, hn_bin}]",
           "SVI-Bench T3 data/{split}/<sport>_<split>.json (docs/published-data.md)", svi.t3_queries),
    Format("t4", "T4 qa.json", "[{league, game_id, question_type, question, answer, video_path}]",
           f"{SVI}/t4_strategic_reasoning_qa/dataset/qa.json", svi.t4_questions),
    Format("t5", "T5 forecasting JSON", "[{id, conversations [human: <video> question with A-E, gpt: letter], video}]",
           f"{SVI}/t5_outcome_forecasting/dataset/*_test.json", svi.t5_forecast),
    Format("t6", "T6 sample folders", "<sport>/{single,multi}_game/Q*/<id>/{prompt.txt, metadata.json, "
           "stats.txt, log.txt, ground_truth_report.txt, coverage_facts.txt}",
           f"{SVI}/t6_long_form_narrative_synthesis/README.md", svi.t6_samples, kind="folder"),
    Format("t7", "T7 MOT track files", "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised), one file per clip",
           "SVI-Bench T7 bboxes/ (docs/published-data.md)", svi.t7_tracks, kind="folder"),
    Format("t7", "T7 MOT track file", "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised)",
           "SVI-Bench T7 bboxes/ (docs/published-data.md)", svi.t7_tracks, kind=".txt"),
    Format("t8", "T8 goal-accuracy QA", "[{id, video, start_bbox, jersey_number, normalized_action, conversations}]",
           f"{SVI}/t8_goal_conditioned_action_generation/README.md (qa_test/Q*.json)", svi.t8_goal_qa),
    Format("t8", "T8 captions.json", "{clip id: {refined_instruction, player_specifications}} (generation input)",
           f"{SVI}/t8_goal_conditioned_action_generation/README.md", svi.t8_captions, runnable=False),
    Format("t9", "T9 questions JSON", "questions/{sport}.json: [{id, question, answer}]",
           "SVI-Bench T9 release layout (docs/published-data.md)", svi.t9_questions),
    Format("gameplayqa", "GameplayQA qa.csv", "id, question, correct_option, distractor_1..3(+_type), "
           "question_code, video_1..5_file_name, video_indices",
           "HATS-ICT/GameplayQA gameplayqa/data.py, questions.py", external.gameplayqa_csv, kind=".csv"),
    Format("gameplayqa", "GameplayQA generator export", "{instanceId, questions [{id, level, code, question, "
           "answer {option, start, end}, distractors [{type, option}], videoIndex, videoContext}]}",
           "wangyz1999/sync-video-label app/utils/questionGenerator/types.ts", external.gameplayqa_generator),
    Format("starbench", "STARBench items", "[{id, video, task, turns [{question, answer, rubric "
           "[{name, description, category, is_penalty}]}]}]",
           "STARBench paper App. B (question, answer and rubric JSON per item); no public file",
           external.starbench_items, from_paper=True),
    Format("lcric", "LCric queries", "[{id, video, kind: binary|multiple|regression, query, answer}]",
           "ASAP/LCric paper §4.3 (query types); no public file", external.lcric_queries, from_paper=True),
)  # fmt: skip


def formats_for(task: str) -> list[Format]:
    return [f for f in FORMATS if f.task == task]


@dataclass
class PublishedData:
    """A parsed data file: its items, and the format they were read in."""

    path: Path
    format: Format
    items: list[Instance]

    @property
    def sports(self) -> list[str]:
        return sorted({i.sport for i in self.items})


def read_data(task: str, path: Path) -> PublishedData:
    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: data file not found")
    own = formats_for(task)
    if not own:
        raise DataFormatError(f"task {task} reads no published format")
    fitting = [f for f in own if f.fits(path)]
    first_error: DataFormatError | None = None
    for fmt in fitting:
        try:
            return PublishedData(path, fmt, fmt.parse(path))
        except NotRunnable:
            raise
        except DataFormatError as e:
            first_error = first_error or e
    other = _other_task(task, path)
    if other is not None:
        raise DataFormatError(
            f"{path.name} is a {other.task} file ({other.name}), not one {task} reads; "
            f"{task} reads {_expected(own)}"
        )
    if first_error is not None:
        raise first_error
    kind = "a folder" if path.is_dir() else f"a {path.suffix or 'suffix-less'} file"
    raise DataFormatError(f"{path.name} is {kind}; {task} reads {_expected(own)}")


def _expected(formats: list[Format]) -> str:
    runnable = [f for f in formats if f.runnable]
    return " or ".join(f"{f.name} ({'folder' if f.kind == 'folder' else f.kind})" for f in runnable)


def _other_task(task: str, path: Path) -> Format | None:
    """The format of another task this data parses as, if any (one wrong --task is common)."""
    for fmt in FORMATS:
        if fmt.task == task or not fmt.fits(path):
            continue
        try:
            fmt.parse(path)
        except NotRunnable:
            return fmt
        except DataFormatError:
            continue
        return fmt
    return None
