# lsnode developer targets. `make help` lists them; `make test` is what CI runs.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# A fresh machine has Go at /usr/local/go but not always on PATH.
ifeq ($(shell command -v go 2>/dev/null),)
export PATH := /usr/local/go/bin:$(PATH)
endif

BIN := $(CURDIR)/bin
LSNODE := $(BIN)/lsnode

# Pinned tool versions (`make tools` installs them into ./bin). protoc itself
# comes from Debian's protobuf-compiler, the same version on every machine.
export PROTOC_GEN_GO_VERSION := v1.36.12
export PROTOC_GEN_GO_GRPC_VERSION := v1.5.1
export STATICCHECK_VERSION := v0.8.2

# The version stamped into bin/lsnode: the nearest tag, when there is one;
# otherwise the default in cmd/lsnode/version.go. The commit is stamped by
# `go build` itself (-buildvcs=auto overrides a GOFLAGS=-buildvcs=false).
VERSION ?= $(shell git describe --tags --dirty 2>/dev/null)
LDFLAGS := $(if $(VERSION),-X main.version=$(VERSION))

# `make test` adds up the counts of every go test run here.
TEST_COUNTS := $(BIN)/test-counts
GOTEST := go run ./scripts/gotest -counts $(TEST_COUNTS)

# make bench [BENCH=regex] [PKG=./store/] [BENCH_COUNT=n] [BENCH_OUT=file]
BENCH ?= .
PKG ?= ./...
BENCH_COUNT ?= 1
BENCH_OUT ?= bench.txt

# make soak DURATION=30m
DURATION ?= 10m

.PHONY: cluster help build run test test-race test-norace promtool bench bench-replication fuzz-smoke proto verify-proto tools \
	lint e2e docker soak clean

help: ## list the targets
	@echo "usage: make <target>"
	@awk -F':.*## ' '/^[a-z0-9-]+:.*## / { printf "  %-13s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

build: ## build a static bin/lsnode (VERSION=x overrides the version)
	CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags '$(LDFLAGS)' -o $(LSNODE) ./cmd/lsnode

run: build ## build, then run one node with the default data dir (ARGS=... adds flags)
	$(LSNODE) serve $(ARGS)

cluster: build ## a 3-node mesh on loopback (HTTP 8765-8767) until Ctrl-C; data in ./lsnode-cluster
	scripts/local-cluster.sh $(LSNODE)

test: tools ## everything CI runs: lint, verify-proto, unit tests with -race, test-norace, promtool, fuzz-smoke, e2e
	@rm -f $(TEST_COUNTS)
	$(MAKE) --no-print-directory lint verify-proto test-race test-norace promtool fuzz-smoke e2e
	@awk '{ p += $$2; f += $$3; s += $$4 } END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' $(TEST_COUNTS)

# The deploy/ tests that run promtool. `make promtool` runs them, and
# test-race leaves them out, so that `make test` counts them once.
PROMTOOL_TESTS := ^Test(Rules_Promtool|PrometheusConfig_Promtool)

test-race: ## go test -race -count=1 ./... but the promtool tests (make promtool)
	$(GOTEST) -label unit -- -race -count=1 -timeout 20m -skip '$(PROMTOOL_TESTS)' ./...

# Tests too slow under the race detector, which skip themselves there.
NORACE_TESTS := ^TestSearch_AfterApply100k$$

test-norace: ## the tests that skip themselves under -race, run without it
	$(GOTEST) -label norace -- -count=1 -run '$(NORACE_TESTS)' ./store/

promtool: ## the promtool checks and unit tests of deploy/prometheus; without promtool they fail, or skip when not root
	@if command -v promtool >/dev/null 2>&1; then \
	  echo "$(GOTEST) -label promtool -- -count=1 -run '$(PROMTOOL_TESTS)' ./deploy/"; \
	  $(GOTEST) -label promtool -- -count=1 -run '$(PROMTOOL_TESTS)' ./deploy/; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "promtool: SKIPPED: promtool is not installed and this user is not root, so make tools could not install it"; \
	  echo "promtool: (Debian's prometheus package); the alert rules and their unit tests are NOT checked"; \
	else \
	  echo "promtool: promtool is missing although this user is root: run make tools (scripts/tools.sh installs it)" >&2; \
	  exit 1; \
	fi

bench: ## benchmarks, tee'd to bench.txt (BENCH=regex PKG=./store/ BENCH_COUNT=6 BENCH_OUT=f)
	go test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCH_COUNT) $(PKG) | tee $(BENCH_OUT)

# make bench-replication [REPL_BENCH=regex]: the replication benchmarks
# on real processes (minutes each; root for the partition one). The
# raw SQLite insert rate is measured first so the catch-up can be compared
# with it from the same run.
REPL_BENCH ?= .
bench-replication: build ## replication benchmarks on real processes (REPL_BENCH=CatchUp|Delay|Partition|Scale)
	raw=$$(go test -run '^$$' -bench '^BenchmarkRawInsert$$/^rows=uniform$$' -benchtime 1000000x ./store/ | tee /dev/stderr | \
	  awk '/rows=uniform/ && /rows\/s/ { for (i = 1; i < NF; i++) if ($$(i+1) == "rows/s") print $$i }'); \
	LSNODE_BENCH_REPLICATION=1 LSNODE_BENCH_RAW_ROWS_PER_S=$$raw LSNODE_BIN=$(LSNODE) \
	  go test -tags e2e -count=1 -timeout 90m -v -run 'TestBenchReplication_($(REPL_BENCH))' ./e2e/

fuzz-smoke: ## run each Fuzz target for FUZZTIME (default 20000x inputs)
	scripts/fuzz-smoke.sh

proto: ## regenerate the Go code for proto/**/*.proto
	scripts/proto.sh gen $(BIN)

verify-proto: ## fail if the committed generated code differs from a fresh generation
	scripts/proto.sh verify $(BIN)

tools: ## install protoc (apt, as root) and the pinned plugins and staticcheck into ./bin
	scripts/tools.sh $(BIN)

lint: ## gofmt, go vet and staticcheck (when installed), e2e files included
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	go vet -tags e2e ./...
	@if [ -x $(BIN)/staticcheck ]; then echo "$(BIN)/staticcheck -tags e2e ./..."; $(BIN)/staticcheck -tags e2e ./...; \
	else echo "lint: staticcheck not installed (make tools); skipped"; fi

e2e: build ## black-box tests against bin/lsnode (go test -tags e2e ./e2e/...)
	@if [ -z "$$(find e2e -name '*.go' 2>/dev/null)" ]; then echo "e2e: no e2e tests yet"; \
	else echo "LSNODE_BIN=$(LSNODE) $(GOTEST) -label e2e -- -race -count=1 -timeout 25m -tags e2e ./e2e/..."; \
	LSNODE_BIN=$(LSNODE) $(GOTEST) -label e2e -- -race -count=1 -timeout 25m -tags e2e ./e2e/...; fi

docker: build ## build the image lsnode:dev from deploy/Dockerfile
	@[ -f deploy/Dockerfile ] || { echo "docker: deploy/Dockerfile does not exist yet"; exit 1; }
	docker build -f deploy/Dockerfile -t lsnode:dev .

soak: build ## fault soak (e2e TestFaultSoak) for DURATION (default 10m); LSNODE_FAULT_SEED=n replays
	LSNODE_SOAK_DURATION=$(DURATION) LSNODE_BIN=$(LSNODE) go test -v -count=1 -tags e2e -run Soak -timeout 0 ./e2e/

clean: ## remove build, test and bench output (not lsnode-data/)
	rm -rf $(BIN) $(BENCH_OUT) coverage.out coverage.html
