#!/usr/bin/env bash
# Generates the Go code for proto/**/*.proto next to each .proto file, or
# checks that the committed generated code is what generation gives now.
#
# usage: scripts/proto.sh gen|verify BIN_DIR
#   gen     regenerate in place
#   verify  regenerate into a temporary copy of proto/ and fail on any
#           difference, including stale or missing generated files
# The plugins are taken from BIN_DIR (`make tools` puts the pinned ones there)
# and protoc from PATH.
set -euo pipefail

mode=${1:?usage: scripts/proto.sh gen|verify BIN_DIR}
bin=$(cd "${2:?usage: scripts/proto.sh gen|verify BIN_DIR}" 2>/dev/null && pwd) || bin=$2
cd "$(dirname "$0")/.."

# generate DIR: runs protoc over every .proto file under DIR/proto, with DIR
# (the repository root, or a copy of it) as the import root, so that files are
# named and import each other as proto/lsnode/v1/x.proto; each output is
# written in the folder of its go_package under DIR (the module path cut off),
# so a file whose Go package is a subpackage (lsnodev1grpc) lands there.
generate() {
	local files
	(
		cd "$1"
		mapfile -t files < <(find proto -name '*.proto' | LC_ALL=C sort)
		protoc -I . \
			--plugin=protoc-gen-go="$bin/protoc-gen-go" \
			--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
			--go_out=. --go_opt=module=github.com/lsnode/lsnode \
			--go-grpc_out=. --go-grpc_opt=module=github.com/lsnode/lsnode \
			"${files[@]}"
	)
}

if [ -z "$(find proto -name '*.proto' 2>/dev/null)" ]; then
	echo "proto: no .proto files under proto/; nothing to $mode"
	exit 0
fi
command -v protoc >/dev/null || { echo "proto: protoc not found; run 'make tools'" >&2; exit 1; }
for p in protoc-gen-go protoc-gen-go-grpc; do
	[ -x "$bin/$p" ] || { echo "proto: $bin/$p not found; run 'make tools'" >&2; exit 1; }
done

case $mode in
gen)
	generate .
	echo "proto: generated with $(protoc --version)"
	;;
verify)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp -a proto "$tmp/proto"
	find "$tmp/proto" -name '*.pb.go' -delete
	generate "$tmp"
	if ! diff -r proto "$tmp/proto"; then
		echo "verify-proto: generated code under proto/ is stale or was edited by hand; run 'make proto' and commit the result" >&2
		exit 1
	fi
	echo "verify-proto: generated code is up to date"
	;;
*)
	echo "usage: scripts/proto.sh gen|verify BIN_DIR" >&2
	exit 2
	;;
esac
