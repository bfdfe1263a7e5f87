# sharc's developer loop. Everything runs in a local virtual environment (.venv).
VENV ?= .venv
PYTHON := $(VENV)/bin/python
PIP := $(PYTHON) -m pip
EXTRAS ?= test,mcp,cpu
# The repository `make demo` indexes and searches: this one, by default.
REPO ?= .
QUERY ?= where are ignore rules applied during the walk

.PHONY: install test test-rust test-python test-integrations bench demo lint fmt clean

$(PYTHON):
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip "maturin>=1.7,<2"

## Build the extension (release, once) and install sharc with its test and MCP extras.
install: $(PYTHON)
	$(VENV)/bin/maturin develop --release --quiet --extras $(EXTRAS)

## The whole test suite: Rust unit tests, then pytest (exit code 5, "no tests", fails).
test: install test-rust test-python

test-rust:
	cargo test --release --lib --quiet

test-python:
	$(PYTHON) -m pytest -q

## The frameworks' own contract tests too (LangChain's standard retriever tests, LlamaIndex):
## heavy extras, so not part of `make test`, where these tests skip and say why.
test-integrations:
	$(MAKE) install EXTRAS=$(EXTRAS),test-integrations
	$(PYTHON) -m pytest -q tests/test_integration_langchain.py \
		tests/test_integration_langchain_standard.py tests/test_integration_llamaindex.py

## Index a real repository with the default embedded model and ask it a question.
demo: install
	$(VENV)/bin/sharc index $(REPO)
	$(VENV)/bin/sharc search --path $(REPO) "$(QUERY)"

## Every benchmark; results land in benches/results/ and the README tables.
bench: install
	$(PIP) install --quiet "pathspec>=0.12" "tree-sitter>=0.25" "tree-sitter-language-pack==0.13.*" "matplotlib>=3.8"
	$(PYTHON) -m benches.run

lint:
	$(VENV)/bin/ruff check python tests benches
	cargo fmt --check
	cargo clippy --lib --features python -- -D warnings

fmt:
	cargo fmt
	$(VENV)/bin/ruff format python tests benches

clean:
	rm -rf $(VENV) target dist
