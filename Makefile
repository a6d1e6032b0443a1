# cchub: `make demo` tours every capability, `make test` runs the tests,
# `make bench` measures against peer tools. Each installs what it needs,
# pinned, into .tools/ (git-ignored).

GO        ?= go
TOOLS     := $(CURDIR)/.tools
BIN       := $(TOOLS)/bin
# Peers, pinned.
MCP_SDK_VERSION := 1.32.2
RIPGREP_VERSION := 13.0.0-4+b2
HYPERFINE_VERSION := 1.15.0-2

MCP_SDK_DIR := $(TOOLS)/npm/node_modules/@modelcontextprotocol/sdk
export MCP_SDK_DIR
export PATH := $(BIN):$(PATH)

.PHONY: all build demo test bench tools-test tools-bench fmt vet clean

all: build

build:
	$(GO) build -o $(BIN)/cchub ./cmd/cchub

demo: build
	$(BIN)/cchub demo

# The independent MCP client (the official TypeScript SDK) that the tests
# drive `cchub mcp` with, besides the Go SDK's own client.
$(MCP_SDK_DIR)/package.json:
	mkdir -p $(TOOLS)/npm
	cd $(TOOLS)/npm && npm install --no-audit --no-fund --silent @modelcontextprotocol/sdk@$(MCP_SDK_VERSION)

tools-test: $(MCP_SDK_DIR)/package.json

test: tools-test
	$(GO) vet ./...
	CCHUB_REQUIRE_PEERS=1 $(GO) test -race -count=1 -timeout 40m ./...

# Debian packages unpacked into .tools (no system install needed).
$(BIN)/rg:
	bash scripts/fetch-deb.sh $(TOOLS) ripgrep=$(RIPGREP_VERSION) rg
$(BIN)/hyperfine:
	bash scripts/fetch-deb.sh $(TOOLS) hyperfine=$(HYPERFINE_VERSION) hyperfine

# The structural-search peer, pinned.
$(TOOLS)/npm/node_modules/.bin/ast-grep:
	mkdir -p $(TOOLS)/npm
	cd $(TOOLS)/npm && npm install --no-audit --no-fund --silent @ast-grep/cli@0.51.1

tools-bench: $(BIN)/rg $(BIN)/hyperfine $(TOOLS)/npm/node_modules/.bin/ast-grep

bench: build tools-bench
	$(GO) test -run '^$$' -bench . -benchtime 3x ./locate/ ./textedit/ ./structsearch/
	bash bench/grep-vs-rg.sh
	bash bench/search-vs-astgrep.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(TOOLS)/bin
