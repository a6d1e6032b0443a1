# cchub: `make demo` tours every capability, `make test` runs the tests,
# `make bench` measures against peer tools. Each installs what it needs,
# pinned, into .tools/ or mcpserver/testdata/mcp-client/node_modules (both
# git-ignored), and stops with a hint when a program it cannot install is
# missing.

GO        ?= go
TOOLS     := $(CURDIR)/.tools
BIN       := $(TOOLS)/bin
# Peers, pinned. The TypeScript MCP client's SDK is pinned by
# mcpserver/testdata/mcp-client/package-lock.json.
RIPGREP_VERSION := 13.0.0-4+b2
HYPERFINE_VERSION := 1.15.0-2
CTAGS_VERSION := 5.9.20210829.0-1
# rsync -t is one of the tools the tests edit a file with, keeping its
# size and mtime (cmd/cchub/testdata/script/identity-*.txtar); libpopt0 is
# its one library a minimal system lacks.
RSYNC_VERSION := 3.5.0+ds1-0+deb12u1
POPT_VERSION := 1.19+dfsg-1
# The store's tests start a private PostgreSQL server (store/pgtest) with
# Debian's server programs.
POSTGRES_VERSION := 15.18-0+deb12u1

# The independent MCP client (the official TypeScript SDK) that the tests,
# besides the Go SDK's own client, drive `cchub mcp` with over stdio.
MCP_CLIENT_DIR := mcpserver/testdata/mcp-client
MCP_CLIENT_STAMP := $(MCP_CLIENT_DIR)/node_modules/.package-lock.json

export PATH := $(BIN):$(PATH)

.PHONY: all build demo test bench tools-test tools-bench check-peers postgres-server debugpy fmt vet clean

all: build

build:
	$(GO) build -o $(BIN)/cchub ./cmd/cchub

demo: build $(BIN)/gopls $(BIN)/dlv
	$(BIN)/cchub demo

# Programs the tests need and cannot install themselves: each missing one
# stops the run, saying how to get it.
check-peers:
	@ok=1; \
	command -v node >/dev/null || { echo "node is needed by the tests (the TypeScript MCP client): Node.js 20 or later, e.g. apt-get install nodejs npm" >&2; ok=0; }; \
	command -v npm >/dev/null || { echo "npm is needed by the tests (it installs the TypeScript MCP client): apt-get install npm" >&2; ok=0; }; \
	command -v python3 >/dev/null || { echo "python3 is needed by the tests (outline/edit/search corpora: its standard library): apt-get install python3" >&2; ok=0; }; \
	command -v git >/dev/null || { echo "git is needed by the tests (a real git diff sent to apply_patch): apt-get install git" >&2; ok=0; }; \
	command -v "$$($(GO) env CC)" >/dev/null || { echo "a C compiler ($$($(GO) env CC)) is needed: the tree-sitter grammars are cgo, and so is -race: apt-get install gcc" >&2; ok=0; }; \
	[ $$ok = 1 ]

# npm ci installs exactly what the lockfile pins; again only when the
# lockfile (or package.json) is newer than the install.
$(MCP_CLIENT_STAMP): $(MCP_CLIENT_DIR)/package-lock.json $(MCP_CLIENT_DIR)/package.json | check-peers
	cd $(MCP_CLIENT_DIR) && npm ci --no-audit --no-fund
	touch $@

# The language servers the tests talk to, pinned.
GOPLS_VERSION := v0.23.0
$(BIN)/gopls:
	GOBIN=$(BIN) $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION)

# pyright and typescript-language-server (with the TypeScript it
# supports), pinned by scripts/lsp-servers/package-lock.json, installed into
# .tools/lsp and linked into .tools/bin, where cchub finds them.
LSP_SERVERS := scripts/lsp-servers
LSP_STAMP := $(TOOLS)/lsp/node_modules/.package-lock.json
$(LSP_STAMP): $(LSP_SERVERS)/package-lock.json $(LSP_SERVERS)/package.json | check-peers
	mkdir -p $(TOOLS)/lsp $(BIN)
	cp $(LSP_SERVERS)/package.json $(LSP_SERVERS)/package-lock.json $(TOOLS)/lsp/
	cd $(TOOLS)/lsp && npm ci --no-audit --no-fund
	ln -sf ../lsp/node_modules/.bin/pyright-langserver $(BIN)/pyright-langserver
	ln -sf ../lsp/node_modules/.bin/typescript-language-server $(BIN)/typescript-language-server
	touch $@

# tsc, the TypeScript truth the tests compare with, from the same pinned
# TypeScript the server uses.
$(BIN)/tsc: $(LSP_STAMP)
	ln -sf ../lsp/node_modules/.bin/tsc $(BIN)/tsc

# vitest, jest, mocha and tape, the JavaScript test runners blast's tests
# run the commands they select with, pinned by
# scripts/js-runners/package-lock.json, installed into .tools/jsrunners.
JS_RUNNERS := scripts/js-runners
JS_RUNNERS_STAMP := $(TOOLS)/jsrunners/node_modules/.package-lock.json
$(JS_RUNNERS_STAMP): $(JS_RUNNERS)/package-lock.json $(JS_RUNNERS)/package.json | check-peers
	mkdir -p $(TOOLS)/jsrunners
	cp $(JS_RUNNERS)/package.json $(JS_RUNNERS)/package-lock.json $(TOOLS)/jsrunners/
	cd $(TOOLS)/jsrunners && npm ci --no-audit --no-fund
	touch $@

# The Go suite frameworks the test selection's tests run (check.v1,
# testify), pinned by the fixture's go.sum, in the module cache.
GO_SUITES        := blast/testdata/gosuites
GO_SUITES_STAMP  := $(TOOLS)/gosuites.stamp
$(GO_SUITES_STAMP): $(GO_SUITES)/go.mod $(GO_SUITES)/go.sum
	mkdir -p $(TOOLS)
	cd $(GO_SUITES) && GOWORK=off GOFLAGS=-mod=mod $(GO) mod download
	touch $@

# pytest, which blast's tests run the Python commands they select with:
# Debian's pure-Python packages (pytest and what it imports), pinned,
# unpacked into .tools/pytest (no system install), and a `python` there
# that finds them: Debian's /usr/bin/python3, which they are built for
# (else the python3 on PATH), with their directory on PYTHONPATH.
PYTEST_DEBS := python3-pytest=7.2.1-2 python3-pluggy=1.0.0+repack-1 python3-iniconfig=1.1.1-2 python3-packaging=23.0-1 python3-attr=22.2.0-1
PYTEST_PY   := $(TOOLS)/pytest/bin/python
$(PYTEST_PY):
	mkdir -p $(TOOLS)/debs $(TOOLS)/pytest/bin
	cd $(TOOLS)/debs && for s in $(PYTEST_DEBS); do \
		p=$${s%%=*}; v=$${s#*=}; f=$$(ls $${p}_*.deb 2>/dev/null | head -1); \
		[ -n "$$f" ] || { apt-get download $$s 2>/dev/null || { apt-get update -qq && apt-get download $$s; }; }; \
		dpkg -x $${p}_*.deb $(TOOLS)/pytest; done
	printf '#!/bin/sh\nd=$$(dirname "$$(readlink -f "$$0")")/../usr/lib/python3/dist-packages\npy=/usr/bin/python3; [ -x "$$py" ] || py=python3\nPYTHONPATH="$$d$${PYTHONPATH:+:$$PYTHONPATH}" exec "$$py" "$$@"\n' > $@
	chmod +x $@
	$@ -m pytest --version

# The linter make test runs, pinned: the code stays staticcheck-clean,
# tests included.
STATICCHECK_VERSION := v0.8.2
$(BIN)/staticcheck:
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# The debug adapter the tests talk to, pinned.
DLV_VERSION := v1.27.2
$(BIN)/dlv:
	GOBIN=$(BIN) $(GO) install github.com/go-delve/delve/cmd/dlv@$(DLV_VERSION)

# PostgreSQL's server, looked for as store/pgtest does (initdb on PATH, else
# /usr/lib/postgresql/*/bin), else installed from Debian, pinned. The
# package would make and start a system cluster of its own: it is told not
# to (createclusterconf), the tests start theirs.
postgres-server:
	@if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "PostgreSQL's server is needed by the store's tests and is not installed; as root run: apt-get install --no-install-recommends postgresql-15=$(POSTGRES_VERSION) (or put a PostgreSQL bin directory with initdb on PATH), then make test again" >&2; exit 1; \
	fi; \
	command -v apt-get >/dev/null || { echo "PostgreSQL's server is needed by the store's tests: install PostgreSQL 15 or later with your system's package manager (initdb must be on PATH), then make test again" >&2; exit 1; }; \
	mkdir -p /etc/postgresql-common; \
	[ -e /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf; \
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15=$(POSTGRES_VERSION)

# debugpy, the Python debug adapter, looked for as cchub finds it
# (dapsession.FindPython: the python3 on PATH that imports it, else
# /usr/bin/python3), else installed from Debian, pinned: the package is
# for /usr/bin/python3, which cchub falls back to when the python3 on PATH
# (a pyenv's or a virtual environment's) lacks it.
DEBUGPY_VERSION := 1.6.6+ds-1
debugpy:
	@for py in python3 /usr/bin/python3; do \
		if command -v $$py >/dev/null && (cd / && $$py -c 'import debugpy') 2>/dev/null; then exit 0; fi; \
	done; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "debugpy is needed by the Python debugger tests and is not installed; as root run: apt-get install --no-install-recommends python3-debugpy=$(DEBUGPY_VERSION) (or install debugpy for the python3 on PATH: python3 -m pip install debugpy), then make test again" >&2; exit 1; \
	fi; \
	command -v apt-get >/dev/null || { echo "debugpy is needed by the Python debugger tests: install it for the python3 on PATH (python3 -m pip install debugpy), then make test again" >&2; exit 1; }; \
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-debugpy=$(DEBUGPY_VERSION) && \
	(cd / && /usr/bin/python3 -c 'import debugpy') || { echo "python3-debugpy=$(DEBUGPY_VERSION) was installed, yet /usr/bin/python3 cannot import debugpy" >&2; exit 1; }

tools-test: check-peers $(MCP_CLIENT_STAMP) $(BIN)/gopls $(LSP_STAMP) $(BIN)/tsc $(JS_RUNNERS_STAMP) $(GO_SUITES_STAMP) $(PYTEST_PY) $(BIN)/dlv $(BIN)/staticcheck $(BIN)/rsync postgres-server debugpy

test: tools-test
	$(GO) vet ./...
	$(BIN)/staticcheck ./...
	CCHUB_REQUIRE_PEERS=1 $(GO) test -race -count=1 -timeout 40m ./...

# Debian packages unpacked into .tools (no system install needed).
$(BIN)/rg:
	bash scripts/fetch-deb.sh $(TOOLS) ripgrep=$(RIPGREP_VERSION) rg
$(BIN)/hyperfine:
	bash scripts/fetch-deb.sh $(TOOLS) hyperfine=$(HYPERFINE_VERSION) hyperfine
$(BIN)/ctags:
	bash scripts/fetch-deb.sh $(TOOLS) universal-ctags=$(CTAGS_VERSION) ctags-universal
	ln -sf ctags-universal $(BIN)/ctags
$(BIN)/rsync:
	bash scripts/fetch-deb.sh $(TOOLS) rsync=$(RSYNC_VERSION) rsync libpopt0=$(POPT_VERSION)

# The structural-search peer, pinned.
$(TOOLS)/npm/node_modules/.bin/ast-grep:
	mkdir -p $(TOOLS)/npm
	cd $(TOOLS)/npm && npm install --no-audit --no-fund --silent @ast-grep/cli@0.51.1

tools-bench: $(BIN)/rg $(BIN)/hyperfine $(BIN)/ctags $(TOOLS)/npm/node_modules/.bin/ast-grep

# Benchmarks measure a session in its own process unless they say otherwise
# (bench/sessions compares the two).
bench: export CCHUB_NO_SHARE := 1
bench: build tools-bench $(MCP_CLIENT_STAMP) $(BIN)/gopls $(BIN)/dlv $(LSP_STAMP) $(JS_RUNNERS_STAMP) $(PYTEST_PY)
	$(GO) test -run '^$$' -bench . -benchtime 3x ./locate/ ./outline/ ./textedit/ ./structsearch/
	$(GO) test -run '^$$' -bench EditDiagnostics -benchtime 20x ./lspmux/
	$(GO) test -run '^$$' -bench 'Dlv|TTL' -benchtime 10x ./dapsession/
	$(GO) test -run '^$$' -bench Graph -benchtime 1x -timeout 30m ./codegraph/
	$(GO) run ./bench/indexcost -cchub $(BIN)/cchub
	$(GO) test -run '^$$' -bench Rewrite -benchtime 1x ./astedit/
	$(GO) test -run '^$$' -bench Anchor -benchtime 1x ./anchor/
	bash bench/grep-vs-rg.sh
	bash bench/search-vs-astgrep.sh
	bash bench/context-bytes.sh
	bash bench/mistakes.sh
	$(GO) run ./bench/diagtruth -cchub $(BIN)/cchub
	$(GO) run ./bench/testsel -lang go,py,js -cchub $(BIN)/cchub
	$(GO) run ./bench/testsel -lang go -corpora go-git -n 16 -cchub $(BIN)/cchub
	$(GO) run ./bench/testsel -lang py -corpora networkx -n 8 -cchub $(BIN)/cchub
	$(GO) run ./bench/picture -cchub $(BIN)/cchub
	$(GO) run ./bench/blastoracle
	$(GO) run ./bench/tscallers -confirm
	$(GO) run ./bench/sharedindex -cchub $(BIN)/cchub
	$(GO) run ./bench/sessions -cchub $(BIN)/cchub
	PATH=$(BIN):$$PATH $(GO) run ./bench/answerbytes -cchub $(BIN)/cchub

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(TOOLS)/bin
