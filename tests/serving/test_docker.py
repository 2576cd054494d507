"""Structure of the Dockerfile and compose files (no docker daemon here: images are not built
in the tests)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_structure():
    lines = [ln.strip() for ln in (ROOT / "docker/Dockerfile").read_text().splitlines()]
    code = [ln for ln in lines if ln and not ln.startswith("#")]
    assert code[0] == "FROM python:3.11-slim"
    text = "\n".join(code)
    assert "download.pytorch.org/whl/cpu torch" in text and "-c constraints.txt" in text
    users = [ln for ln in code if ln.startswith("USER ")]
    assert users and users[-1] != "USER root"
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert code.index(users[-1]) < code.index(next(c for c in code if c.startswith("ENTRYPOINT")))
    for src in ("constraints.txt", "pyproject.toml", "README.md", "playscout"):
        assert (ROOT / src).exists()


def test_compose_structure():
    compose = yaml.safe_load((ROOT / "docker/compose.yml").read_text())
    assert compose["include"] == ["elasticsearch.yml"]
    assert (ROOT / "docker/elasticsearch.yml").is_file()
    services = compose["services"]
    api = services["api"]
    assert api["build"]["dockerfile"] == "docker/Dockerfile"
    assert api["depends_on"]["elasticsearch"]["condition"] == "service_healthy"
    for name, service in services.items():
        assert "healthcheck" in service, name
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), (name, port)
    named = {v.split(":")[0] for s in services.values() for v in s.get("volumes", [])}
    assert {n for n in named if not n.startswith(("$", ".", "/"))} <= set(compose["volumes"])
    env = api["environment"]
    assert env["PLAYSCOUT_AGENT__LLM__BASE_URL"] == "http://vllm-agent:8093/v1"
