# OpsAgent — every target sets up the virtualenv first, so a fresh clone needs only `make <target>`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup test run ask eval bench clean

setup: $(STAMP)

$(STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (OpsAgent needs Python 3.11)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

test: setup
	$(PY) -m pytest

run: setup
	$(PY) -m opsagent serve

ask: setup
	$(PY) -m opsagent ask "$(Q)"

clean:
	rm -rf $(VENV) var .pytest_cache
