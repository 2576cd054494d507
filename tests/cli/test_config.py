"""One way to configure a run: `--config FILE`, `--set KEY=VALUE`, model flags and one env
spelling (PLAYSCOUT_<SECTION>__<KEY>), resolved flags > file > environment > defaults, with every
mistake reported as one line."""

from __future__ import annotations

import socket
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import AgentSettings, ConfigError, Settings, check_env_spelling
from tests.synthdata import SynthIndex

runner = CliRunner()


def _error_line(output: str) -> str:
    [line] = [x for x in output.splitlines() if x.startswith("error: ")]
    assert "Traceback" not in output
    return line


def test_single_underscore_spelling_is_refused_with_the_working_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PLAYSCOUT_AGENT_MAX_LLM_CALLS", "3")
    with pytest.raises(ConfigError, match="did you mean PLAYSCOUT_AGENT__MAX_LLM_CALLS"):
        Settings.load()
    # a section model alone no longer reads the environment: one spelling, one reader
    assert AgentSettings().max_llm_calls == 30
    monkeypatch.delenv("PLAYSCOUT_AGENT_MAX_LLM_CALLS")
    monkeypatch.setenv("PLAYSCOUT_AGENT__MAX_LLM_CALLS", "3")
    assert Settings.load().agent.max_llm_calls == 3


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        # the spellings the docker files used to carry: silently ignored before
        ("PLAYSCOUT_SERVING_AGENT__LLM__BASE_URL", "PLAYSCOUT_AGENT__LLM__BASE_URL"),
        ("PLAYSCOUT_SERVING_CORPUS_DIR", "PLAYSCOUT_CORPUS_DIR"),
        ("PLAYSCOUT_QA_VLM__MODEL", "PLAYSCOUT_QA__VLM__MODEL"),
        ("PLAYSCOUT_EVAL_NO_SUCH_KEY", None),
    ],
)
def test_misspelt_variables_name_the_fix(name: str, fix: str | None) -> None:
    with pytest.raises(ConfigError) as err:
        check_env_spelling({name: "x"})
    assert name in str(err.value)
    assert (f"did you mean {fix}?" in str(err.value)) if fix else ("did you mean" not in str(err))


def test_other_playscout_variables_are_left_alone() -> None:
    check_env_spelling(
        {"PLAYSCOUT_API_KEY": "k", "PLAYSCOUT_ES_URL": "u", "PLAYSCOUT_VLLM_URL": "u"}
    )


def test_unknown_nested_variable_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYSCOUT_AGENT__MAX_LLM_CALS", "3")
    with pytest.raises(ConfigError, match=r"setting agent.max_llm_cals: unknown setting"):
        Settings.load()


def test_flags_over_file_over_environment_key_by_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYSCOUT_AGENT__LLM__BASE_URL", "http://env:1/v1")
    monkeypatch.setenv("PLAYSCOUT_AGENT__LLM__MODEL", "env-model")
    monkeypatch.setenv("PLAYSCOUT_AGENT__MAX_LLM_CALLS", "9")
    cfg = tmp_path / "run.toml"
    cfg.write_text('[agent]\nmax_llm_calls = 12\n[agent.llm]\nmodel = "file-model"\n')
    s = Settings.load(cfg)
    assert (s.agent.llm.base_url, s.agent.llm.model, s.agent.max_llm_calls) == (
        "http://env:1/v1",  # the file did not set it: the environment's stays
        "file-model",
        12,
    )
    s = Settings.load(cfg, {"agent": {"llm": {"model": "flag-model"}}})
    assert (s.agent.llm.model, s.agent.max_llm_calls) == ("flag-model", 12)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.yaml", "agent: [unclosed", "is not valid YAML"),
        ("bad.toml", "agent = = 1", "is not valid TOML"),
        ("list.yaml", "- 1\n- 2\n", "must hold a mapping"),
        ("unknown.yaml", "agent:\n  max_llm_cals: 3\n", "setting agent.max_llm_cals: unknown"),
        ("range.yaml", "agent:\n  max_llm_calls: 0\n", "setting agent.max_llm_calls: Input"),
    ],
)
def test_bad_config_files_are_one_line(
    tmp_path: Path, synth_index: SynthIndex, name: str, text: str, message: str
) -> None:
    cfg = tmp_path / name
    cfg.write_text(text)
    args = ["ask", "q", "--index", str(synth_index.index_dir), "--policy", "workflow"]
    result = runner.invoke(app, [*args, "--config", str(cfg)])
    assert result.exit_code == 2, result.output
    assert message in _error_line(result.output)


def test_missing_config_file_and_bad_set_are_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "judge", str(tmp_path), "--config", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "cannot read config file" in _error_line(result.output)
    result = runner.invoke(app, ["eval", "judge", str(tmp_path), "--set", "agent.max_llm_calls"])
    assert result.exit_code == 2
    assert "--set takes KEY=VALUE" in _error_line(result.output)


def test_config_file_and_set_reach_the_run_record(synth_index: SynthIndex, tmp_path: Path) -> None:
    cfg = tmp_path / "run.yaml"
    cfg.write_text("agent:\n  max_llm_calls: 11\n  observation_tokens: 900\n")
    traj = tmp_path / "t.jsonl"
    args = ["--index", str(synth_index.index_dir), "--mode", "oracle", "--policy", "workflow"]
    result = runner.invoke(
        app,
        [
            "ask",
            synth_index.question,
            *args,
            "--config",
            str(cfg),
            "--set",
            "agent.observation_tokens=700",
            "--trajectory",
            str(traj),
        ],
    )
    assert result.exit_code == 0, result.output
    header = orjson.loads(traj.read_text().splitlines()[0])
    agent = header["settings"]["agent"]
    assert (agent["max_llm_calls"], agent["observation_tokens"]) == (11, 700)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_llm_flags_reach_the_agent_model(synth_index: SynthIndex) -> None:
    """Before, `ask` had model flags but `eval run` had none; the URL in the failure proves the
    flag, not the environment, chose the endpoint."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    args = ["--index", str(synth_index.index_dir), "--mode", "oracle"]
    flags = ["--llm-url", url, "--llm-model", "m", "--set", "agent.llm.max_retries=0"]
    result = runner.invoke(app, ["ask", synth_index.question, *args, *flags])
    assert result.exit_code != 0
    assert f"127.0.0.1:{url.split(':')[2]}" in result.output


def test_run_records_redact_credentials_in_urls() -> None:
    s = Settings.load(overrides={"agent": {"llm": {"base_url": "https://me:secret@h/v1"}}})
    dumped = orjson.dumps(s.redacted()).decode()
    assert "secret" not in dumped and "https://***@h/v1" in dumped


DEVICES = ("embed.device", "search.device", "perception.asr_device", "perception.audio_device")


@pytest.mark.parametrize("path", DEVICES)
def test_every_device_setting_speaks_one_vocabulary(path: str) -> None:
    """auto, cpu, cuda, cuda:N everywhere (the config's `Device`); anything else is one line
    naming the setting."""
    section, key = path.split(".")
    for name in ("auto", "cpu", "cuda", "cuda:1"):
        loaded = Settings.load(overrides={section: {key: name}})
        assert getattr(getattr(loaded, section), key) == name
    with pytest.raises(ConfigError, match=rf"setting {path}: String should match pattern"):
        Settings.load(overrides={section: {key: "gpu"}})
