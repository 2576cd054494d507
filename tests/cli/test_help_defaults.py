"""Every option of every command says its default in `--help`, and no option text ends in a
dangling ` .` (a newcomer reads the help, not the code)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from typer.main import get_command
from typer.testing import CliRunner

from playscout.cli.main import app


def _commands(cmd: Any, path: str = "playscout") -> Iterator[tuple[str, Any]]:
    """Typer's own (vendored) click objects: walked by their attributes."""
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, f"{path} {name}")


def _shows_default(opt: Any) -> bool:
    """What typer prints: a `show_default` text, or the value of a non-empty default. (A
    `[default: ...]` written into the help text is rich markup: typer's help drops it, which
    left the dangling ` .`.) A lone on/off flag (`--json`) is off unless given; a required
    option says `[required]`."""
    if opt.required:
        return True
    if "[default:" in (opt.help or ""):
        return False
    if isinstance(opt.show_default, str):
        return True
    if opt.is_flag and not opt.secondary_opts:
        return True
    return opt.show_default is not False and opt.default not in (None, "", [], ())


def test_every_option_shows_its_default_and_no_text_dangles() -> None:
    missing, dangling = [], []
    for path, cmd in _commands(get_command(app)):
        for param in cmd.params:
            if param.param_type_name != "option" or param.hidden or param.name == "help":
                continue
            where = f"{path} {param.opts[0]}"
            if not _shows_default(param):
                missing.append(where)
            if "[default:" in (param.help or "") or (param.help or "").rstrip().endswith(" ."):
                dangling.append(where)
    assert not dangling, dangling
    assert not missing, missing


def test_rendered_help_shows_the_default_text() -> None:
    shown = CliRunner().invoke(app, ["eval", "run", "--help"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0
    line = next(x for x in shown.stdout.splitlines() if "--sport " in x)
    assert "Comma-separated sports. [default: (serving.sport, else every sport" in line
    assert " ." not in line
