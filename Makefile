# playscout: `make demo` runs the main job on the embedded default, `make test` runs what CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS ?= embed,bge,dev
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: install demo test lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*; touch $@

demo: install
	$(PY) -m playscout demo --out var/demo

lint: install
	$(PY) -m ruff check playscout tests benchmarks
	$(PY) -m ruff format --check playscout tests benchmarks
	$(PY) -m mypy playscout

test: lint
	$(PY) -m pytest -q -m "not integration and not gpu"

bench: install
	$(PY) benchmarks/search.py --clips 200000

clean:
	rm -rf var build .pytest_cache .mypy_cache .ruff_cache
