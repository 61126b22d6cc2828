#!/usr/bin/env bash
# Installs the tools that `make proto`, `make verify-proto` and `make lint`
# need: protoc from Debian's protobuf-compiler (when missing and we are root),
# and the pinned Go tools into ./bin.
#
# usage: scripts/tools.sh BIN_DIR
# The pinned versions come from the environment (the Makefile sets them):
#   PROTOC_GEN_GO_VERSION, PROTOC_GEN_GO_GRPC_VERSION, STATICCHECK_VERSION
set -euo pipefail

bin=${1:?usage: scripts/tools.sh BIN_DIR}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

# protoc: Debian's packages, so every machine of this kind gets the same
# version (the generated files name it in their header). libprotobuf-dev
# brings the well-known types (google/protobuf/*.proto) that protos import.
wkt=/usr/include/google/protobuf/timestamp.proto
if command -v protoc >/dev/null 2>&1 && [ -f "$wkt" ]; then
	echo "tools: $(protoc --version) at $(command -v protoc)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "tools: installing protoc (apt-get install protobuf-compiler libprotobuf-dev)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev >/dev/null
	echo "tools: $(protoc --version) installed"
else
	echo "tools: protoc or its well-known types ($wkt) are missing and cannot be" >&2
	echo "tools: installed here (needs root and apt-get); install protobuf-compiler and" >&2
	echo "tools: libprotobuf-dev yourself: make proto and make verify-proto need them" >&2
fi

install_go_tool() { # package@version
	echo "tools: go install $1"
	GOBIN="$bin" go install "$1"
}
install_go_tool "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION:?}"
install_go_tool "google.golang.org/grpc/cmd/protoc-gen-go-grpc@${PROTOC_GEN_GO_GRPC_VERSION:?}"
install_go_tool "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION:?}"
echo "tools: ready in $bin"

# --- deploy/ checks: promtool and systemd-analyze (kept in this block) ---
# promtool runs the alert rule unit tests (make promtool, which fails
# without it unless this is not root; go test ./deploy/) and Debian's
# prometheus binary goes into the compose cluster's Prometheus image
# (scripts/docker-prometheus-image.sh); systemd-analyze verifies
# deploy/systemd/lsnode.service. The deploy tests skip, saying so, when they
# are missing. The package's service is not started: policy-rc.d refuses it
# on these machines, and there is no systemd running.
deploy_need=()
command -v promtool >/dev/null 2>&1 || deploy_need+=(prometheus)
command -v systemd-analyze >/dev/null 2>&1 || deploy_need+=(systemd)
# iproute2's ip: the e2e network-namespace tests (e2e/netns.go) skip without it.
command -v ip >/dev/null 2>&1 || deploy_need+=(iproute2)
if [ ${#deploy_need[@]} -eq 0 ]; then
	echo "tools: $(promtool --version 2>&1 | head -n 1); $(systemd-analyze --version | head -n 1)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "tools: installing ${deploy_need[*]} (apt-get) for the deploy/ checks"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${deploy_need[@]}" >/dev/null
	echo "tools: $(promtool --version 2>&1 | head -n 1); $(systemd-analyze --version | head -n 1)"
else
	echo "tools: ${deploy_need[*]} missing and not installable here (needs root and apt-get);" >&2
	echo "tools: the deploy/ promtool and systemd-analyze checks will be skipped" >&2
fi

# --- the console's browser tests: headless Chromium (kept in this block) ---
# e2e/console_*_test.go drive Debian's chromium with chromedp, and skip,
# saying so, without it. fonts-dejavu-core is the face the console's
# stylesheet falls back to, so screenshots look the same on every machine.
if command -v chromium >/dev/null 2>&1; then
	echo "tools: $(chromium --version 2>/dev/null | head -n 1)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "tools: installing chromium (apt-get) for the console's browser tests"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
	echo "tools: $(chromium --version 2>/dev/null | head -n 1)"
else
	echo "tools: chromium missing and not installable here (needs root and apt-get);" >&2
	echo "tools: the console's browser tests (e2e) will be skipped" >&2
fi
