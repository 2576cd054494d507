"""`playscout search videos --mode oracle` shows under each hit the caption it matched (as
document hits show their text), so a person can tell why a clip came up; the agent's
observation stays as the reference's (no captions in search results)."""

from __future__ import annotations

from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.tools import SEARCH_TOOLS, call_tool
from tests.synthdata import SynthIndex

runner = CliRunner()


def test_oracle_hits_show_their_captions_to_people_not_to_the_agent(
    synth_index: SynthIndex,
) -> None:
    flags = ["--index", str(synth_index.index_dir), "--sport", synth_index.sport]
    shown = runner.invoke(app, ["search", "videos", "dunk", *flags, "--mode", "oracle"])
    assert shown.exit_code == 0, shown.output
    captions = [line for line in shown.stdout.splitlines() if line.startswith("    > ")]
    assert captions and any("dunk" in line.lower() for line in captions)
    tools = {t.name: t for t in SEARCH_TOOLS}
    agent = call_tool(tools, synth_index.ctx("oracle"), "search_videos", {"query": "dunk"})
    assert "    > " not in agent.observation
