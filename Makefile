# OpsAgent — every target sets up the virtualenv first, so a fresh clone needs only `make <target>`.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || echo python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup test run ask eval eval-real record-real bench bench-full clean browser-deps

setup: $(STAMP)

$(STAMP): requirements.txt constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || { \
	  echo "error: OpsAgent needs Python 3.11 ($(PYTHON) is not it); run: make PYTHON=/path/to/python3.11 $(MAKECMDGOALS)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $(STAMP)

# Two workers (the CI machine has two cores); a module's tests stay on one worker, so its
# module-scoped servers start once.
test: setup browser-deps
	$(PY) -m pytest -n 2 --dist loadfile

# Headless Chromium for the chat-page test (Playwright drives it through executable_path; the playwright
# wheel in requirements.txt downloads no browser): installed once where we are root with apt-get (CI);
# elsewhere the browser test skips with a reason.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
	      || echo "note: installing chromium failed; the browser test will skip"; \
	  else echo "note: chromium not found and not installable here; the browser test will skip"; fi; }

run: setup
	$(PY) -m opsagent serve

ask: setup
	$(PY) -m opsagent ask "$(Q)"

# Evaluation suite on the configured provider (default: local model + demo data) -> evals/results/
eval: setup
	$(PY) -m evals

# The real-model subset against the OpenAI-compatible endpoint in the settings (never in CI), e.g.
#   LLM_PROVIDER=openai OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_MODEL=qwen2.5-coder-1.5b-instruct \
#   MODEL_PROFILE=local-small make eval-real        -> evals/results/real-model/
eval-real: setup
	$(PY) -m evals --real $(ARGS)

# Re-record the real-model conversations `make test` replays (tests/recorded/cassettes/), against the model of
# ../shared/tools/real-llm served on 127.0.0.1:8080 (serve.sh --port 8080). Needed when a prompt, a tool
# schema or the recorded cases change: the replay then fails with "a prompt changed?". About 10-20 minutes.
record-real: setup
	$(PY) -m evals.cassettes $(ARGS)

# Benchmarks (quick, ~1 minute) -> bench/results/; `make bench-full` repeats more
bench: setup
	$(PY) -m bench

bench-full: setup
	$(PY) -m bench --full

clean:
	rm -rf $(VENV) var .pytest_cache
