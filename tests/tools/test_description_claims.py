"""The paper preset's tool descriptions say only what its observations contain (issue 34, item
5): every line of a description's worked example has the shape of a line that real
observations of that tool, under the same preset, have (the same fields in the same order,
with numbers, quoted text, names and model names normalised away), and the description's
claims about what is listed hold for a real observation. The observations are the tools' own
on the shared index, the QA models ScriptedChatModel."""

from __future__ import annotations

import re
from typing import Any

import pytest

from playscout.config import Settings
from playscout.config.presets import load_preset
from playscout.runtime import Runtime
from playscout.tools.offer import offered_tools
from playscout.tools.registry import REGISTRY, call_tool
from playscout.tools.tool import ModelSet
from tests.doubles import ScriptedChatModel
from tests.media.samples import MediaCorpus
from tests.synthdata import SPORT, SynthIndex

_NAME = re.compile(r"[A-Z][\w.'-]*(?:\s+(?:[A-Z][\w.'-]*|at|vs|de|of|and))*")


def _label(field: str) -> str:
    """A field with its values normalised away: what it claims to show, not what it shows."""
    f = re.sub(r'"[^"]*"', "Q", field.strip())
    if f.startswith(">"):  # a highlight: free text of the document
        return ">"
    head = re.match(r"^([a-z_]+):", f)
    if head:  # "teams: ...", "filters: ...": the label is the claim
        return head.group(1) + ":"
    if "answer=" in f:  # a QA answer: which parts it has
        return " ".join(re.findall(r"answer=|\(confidence|evidence:", f))
    f = re.sub(r"via model \S+", "via model M", f)
    f = re.sub(r"\d+(?:\.\d+)?", "N", f)
    f = _NAME.sub("X", f)
    return re.sub(r"X(?:, X)+", "X", f)


def shape(line: str) -> tuple[str, ...]:
    return tuple(_label(f) for f in line.split(" | "))


def example_lines(description: str) -> list[str]:
    """The lines of every `Output:` block of a description's examples."""
    lines = []
    for block in description.split("Output:\n")[1:]:
        for line in block.splitlines():
            if not line.strip() or line.startswith(("---", "Input:", "Example:")):
                break
            lines.append(line)
    return lines


@pytest.fixture(scope="module")
def observations(synth_index: SynthIndex, media_corpus: MediaCorpus) -> dict[str, list[str]]:
    """Real observations of every paper tool, over the shared index (oracle, and default for
    video_qa with the media corpus' clips): search by each document type, with a query and
    with filters only, clip search with and without filters, each QA tool."""
    settings = Settings.model_validate({
        "preset": "paper", "index": str(synth_index.index_dir),
        "corpus_dir": str(media_corpus.corpus.root),
    })  # fmt: skip
    models = ModelSet(
        document_llm=ScriptedChatModel(model="qwen3-vl-8b"),
        caption_llm=ScriptedChatModel(model="qwen3-vl-8b"),
        vlm=ScriptedChatModel(model="llava-next-video-sports"),
    )
    runtime = Runtime.from_settings(
        settings, backend=synth_index.backend, models=models, need_llm=False
    )
    oracle, default = runtime.tool_context(SPORT, "oracle"), runtime.tool_context(SPORT, "default")
    corpus = synth_index.corpus
    doc = next(d for d in corpus.iter_documents(SPORT) if d.doc_type == "espn_report")
    player = next(d for d in corpus.iter_documents(SPORT) if d.doc_type == "season_stat_player")
    team = next(d for d in corpus.iter_documents(SPORT) if d.doc_type == "season_stat_team")
    clip = next(corpus.iter_clips(SPORT))
    calls: list[tuple[Any, str, dict[str, Any]]] = [
        *[(oracle, "search_documents", {"query": "points fourth quarter", "doc_type": t})
          for t in ("espn_report", "game_stat_player", "game_stat_team")],
        (oracle, "search_documents", {"query": "", "doc_type": "season_stat_player",
                                      "players": player.players, "season": player.season}),
        (oracle, "search_documents", {"query": "", "doc_type": "season_stat_team",
                                      "teams": team.teams, "season": team.season}),
        (oracle, "search_videos", {"query": "three pointer", "game_ids": [clip.game_id],
                                   "period": 4, "players": clip.players[:1]}),
        (oracle, "search_videos", {"query": "a pass"}),
        (oracle, "document_qa", {"doc_ids": [doc.doc_id], "query": "Who scored?"}),
        (oracle, "video_qa_oracle", {"video_ids": [clip.clip_id], "query": "What happened?"}),
        (default, "video_qa", {"video_ids": [media_corpus.board], "query": "What shot?"}),
    ]  # fmt: skip
    out: dict[str, list[str]] = {}
    for ctx, name, args in calls:
        result = call_tool(REGISTRY, ctx, name, args)
        assert result.error is None, (name, result.error)
        out.setdefault(name, []).append(result.observation)
    return out


def _descriptions() -> dict[str, str]:
    preset = load_preset("paper")
    s = Settings()
    tools = [
        t
        for mode in ("default", "oracle")
        for t in offered_tools(preset.offered(mode), mode, s.search, s.qa, preset.schema_style)
    ]
    return {t.name: t.schema()["function"]["description"] for t in tools}


@pytest.mark.parametrize("name", sorted(_descriptions()))
def test_every_example_line_is_a_line_the_tool_returns(
    name: str, observations: dict[str, list[str]]
) -> None:
    example = example_lines(_descriptions()[name])
    assert example, f"{name}: the description has no worked example"
    real = {shape(line) for obs in observations[name] for line in obs.splitlines() if line.strip()}
    claimed = [line for line in example if shape(line) not in real]
    assert not claimed, f"{name}: the example shows lines no observation has: {claimed}"


def test_search_videos_lists_every_clip_it_returns(observations: dict[str, list[str]]) -> None:
    """The description says every returned clip is listed: no summary line, no cut."""
    assert "every one listed" in _descriptions()["search_videos"]
    counts = []
    for obs in observations["search_videos"]:
        head, *lines = obs.splitlines()
        counts.append(int(head.split(" clips", 1)[0]))
        assert len([x for x in lines if x.startswith("  ")]) == counts[-1]
        assert "more clips" not in obs and "clock" not in obs
    assert max(counts) > Settings().search.observation_clips  # past where playscout's cut is
