"""`playscout serve ...`: the API (`serve api`, or plain `serve`), the model servers of a
profile (`serve models`), and the compose services of a profile (`serve compose`).
The lead registers `serve_app` on the main CLI; `python -m playscout.cli.serve` works too."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import socket
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.table import Table

from playscout.cli.common import TOOL_MODELS, RunConfig, configurable
from playscout.cli.errors import fail, failed, user_errors, warn
from playscout.config import Settings

serve_app = typer.Typer(help="Run the HTTP API and the model servers.")
console = Console(stderr=True)
out = Console()


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@serve_app.callback(invoke_without_command=True)
@user_errors
@configurable("llm", *TOOL_MODELS)
def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None, typer.Option(help="Bind address.", show_default="serving.host, 127.0.0.1")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port.", show_default="serving.port, 8780")
    ] = None,
    index: Annotated[
        str | None,
        typer.Option(help="Index dir or Elasticsearch URL.", show_default="settings.index"),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus root (clip media).", show_default="settings.corpus_dir"),
    ] = None,
    allow_no_auth: Annotated[
        bool, typer.Option(help="Bind beyond loopback without an API key (containers).")
    ] = False,
    verify: Annotated[
        bool,
        typer.Option(help="Check every index file's checksum before serving (`index verify`)."),
    ] = False,
    sport: Annotated[
        str | None,
        typer.Option(
            help="Sport of an ask that names none.",
            show_default="serving.sport, else the index's first",
        ),
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option(
            help="Mode of an ask that names none: default | oracle.",
            show_default="serving.mode, else default",
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            help="Policy of an ask that names none: llm | workflow.",
            show_default="serving.policy, else llm",
        ),
    ] = None,
    *,
    run_config: RunConfig,
) -> None:
    """Start the HTTP API (when no subcommand is given)."""
    if ctx.invoked_subcommand is not None:
        return
    import uvicorn

    from playscout.serving.app import create_app
    from playscout.serving.protocol import uvicorn_options

    defaults = {"sport": sport, "mode": mode, "policy": policy}
    settings = run_config.settings(
        index=index, corpus_dir=corpus, serving={"host": host, "port": port, **defaults}
    )
    if (
        not _loopback(settings.serving.host)
        and not settings.serving.api_key()
        and not allow_no_auth
    ):
        raise fail(
            f"refusing to bind {settings.serving.host} without an API key: set {settings.serving.api_key_env} "
            "or pass --allow-no-auth"
        )
    sock = claim_port(settings.serving.host, settings.serving.port)
    try:
        if verify:
            from playscout.cli.index import verify_or_report

            if not verify_or_report(str(settings.index)):
                console.print("not serving a corrupt index: rebuild it", style="red")
                raise typer.Exit(1)
        from playscout.serving.choices import server_default
        from playscout.serving.eval_service import EvalRunService

        app = create_app(settings, run_service=EvalRunService(settings, settings.eval))
        choice = server_default(app.state.serving)
        for check in serve_preflight(settings, app.state.serving.runtime, choice):
            warn(check.detail)
        console.print(default_ask(settings, app.state.serving), highlight=False, soft_wrap=True)
        bound = sock.getsockname()[1]  # `--port 0` takes a free one
        console.print(where_to_go(settings, bound), highlight=False, soft_wrap=True)
        config = uvicorn.Config(
            app,
            host=settings.serving.host,
            port=bound,
            log_level="info",
            **uvicorn_options(settings.serving, app),  # the graceful timeout, the shutdown hook
        )
        server = uvicorn.Server(config)
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
        if not server.started:
            raise failed("the server did not start (its log is above)")
    finally:
        sock.close()


def claim_port(host: str, port: int) -> socket.socket:
    """The server's socket, bound before the slow part of the start: a port in use is one
    line and exit 2, before anything says the API serves there (uvicorn found out only after
    the app was built, and exited 3 with a dozen log lines)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise fail(
                f"port {port} on {host} is in use (another server?): stop it or pass --port N"
            ) from None
        raise fail(f"cannot serve on {host}:{port}: {e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


def where_to_go(settings: Settings, port: int) -> str:
    """The URLs a person opens first: `/` itself only redirects to the run browser."""
    host = settings.serving.host
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    auth = "bearer key" if settings.serving.api_key() else "no auth"
    return "\n".join(
        (
            f"playscout API on {base} ({auth})",
            f"  run browser (runs, asks, trajectories): {base}/viewer",
            f"  API docs: {base}/docs",
            f"  OpenAI-compatible API: {base}/v1 (model playscout-agent)",
        )
    )


def serve_preflight(settings: Settings, runtime: Any, choice: Any) -> list[Any]:
    """What an ask that names nothing uses (`choice`: the default sport, mode and policy),
    checked as `ask` checks it, as warnings: a server may start before its model servers
    (compose, `serve models` takes minutes), so refusing to start would make the start order
    matter; `/readyz` answers 503 until the models answer. Only warnings: what would stop such
    an ask is said once by `default_ask`, and other modes and policies are each ask's own
    choice (`GET /v1/models` lists those that can run)."""
    from playscout.runtime.preflight import as_warnings, ask_needs, check_index, check_models

    needs = ask_needs(runtime.preset, choice.sport, choice.mode, choice.policy)
    index = [c for c in check_index(runtime, needs) if not c.failed]
    probed = [c for c in asyncio.run(check_models(settings, needs)) if c.state != "not configured"]
    return list({c.detail: c for c in as_warnings(index + probed)}.values())


def default_ask(settings: Settings, state: Any) -> str:
    """What a request that names no sport, mode or policy runs (`playscout-agent`). Defaults
    the operator set that cannot run stop the server (one line); the built-in ones only warn,
    so a plain `serve` still serves the run browser and the asks that choose."""
    from playscout.runtime.preflight import PreflightError
    from playscout.serving.choices import require_runnable, server_default

    choice = server_default(state)
    said = f"sport {choice.sport}, mode {choice.mode}, policy {choice.policy}"
    try:
        require_runnable(state, choice)
    except PreflightError as e:
        chosen = [k for k in ("sport", "mode", "policy") if getattr(settings.serving, k)]
        if chosen:
            flags = ", ".join(f"--{k}" for k in chosen)
            raise fail(f"the default ask ({said}; {flags}) cannot run: {e}") from None
        warn(
            f"an ask that names nothing ({said}) cannot run here: {e}; pass --sport/--mode/"
            "--policy, or clients choose (GET /v1/models lists what can run)"
        )
    return f"asks that name nothing (model playscout-agent): {said}"


@serve_app.command("models")
@user_errors
def serve_models(
    profile: Annotated[str, typer.Option(help="Built-in profile name or a YAML path.")],
    dry_run: Annotated[bool, typer.Option(help="Print the commands only.")] = False,
    only: Annotated[
        str | None, typer.Option(help="Comma-separated server keys.", show_default="every server")
    ] = None,
    python: Annotated[str, typer.Option(help="Python with vLLM installed.")] = sys.executable,
    timeout: Annotated[float, typer.Option(help="Seconds to wait per server.")] = 900.0,
    log_dir: Annotated[Path, typer.Option(help="Server logs.")] = Path("var/logs/vllm"),
) -> None:
    """Start a profile's vLLM servers, wait for /v1/models, report ready times; Ctrl-C stops."""
    import shlex

    from playscout.serving.launch import ServerNotReady, start, stop, wait_ready
    from playscout.serving.profiles import ProfileError, load_profile

    try:
        profiles = load_profile(profile)
    except ProfileError as e:
        raise fail(str(e)) from None
    wanted = set(only.split(",")) if only else set(profiles.servers)
    if unknown := wanted - set(profiles.servers):
        raise fail(f"unknown servers {sorted(unknown)}; profile has {sorted(profiles.servers)}")
    servers = {k: v for k, v in profiles.servers.items() if k in wanted}
    flags = "# playscout flags: " + shlex.join(profiles.playscout_flags())
    if dry_run:
        for key, server in servers.items():
            typer.echo(f"# {key} ({server.role}) -> {server.health_url}")
            typer.echo(shlex.join(server.command(python)))
        typer.echo(flags)
        return
    running = []
    table = Table("server", "role", "model", "url", "ready after s")
    try:
        for key, server in servers.items():
            r = start(key, server, python, log_dir)
            running.append(r)
            waited = wait_ready(server.health_url, timeout, alive=r.is_alive, name=key)
            table.add_row(
                key, server.role, server.served_model_name, server.health_url, f"{waited:.1f}"
            )
        out.print(table)
        out.print(flags, highlight=False, markup=False, soft_wrap=True)
        console.print("all servers ready; Ctrl-C stops them")
        while all(r.process.poll() is None for r in running):
            time.sleep(1)
        dead = [r.name for r in running if r.process.poll() is not None]
        raise fail(f"server(s) exited: {', '.join(dead)}; see {log_dir}")
    except ServerNotReady as e:
        raise fail(str(e)) from None
    except KeyboardInterrupt:
        console.print("stopping model servers")
    finally:
        stop(running)


@serve_app.command("compose")
@user_errors
def serve_compose(
    profile: Annotated[str, typer.Option(help="Built-in profile name or a YAML path.")] = "qwen3",
) -> None:
    """Print the vLLM services of a profile as docker compose YAML (for docker/compose.yml)."""
    from playscout.serving.profiles import ProfileError, compose_services, load_profile

    try:
        services = compose_services(load_profile(profile))
    except ProfileError as e:
        raise fail(str(e)) from None
    typer.echo(yaml.safe_dump({"services": services}, sort_keys=False, width=1000))


if __name__ == "__main__":
    serve_app()
