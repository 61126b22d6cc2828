#!/usr/bin/env bash
# Runs every Fuzz* target in the packages FUZZ_PKGS (default ./...) for a
# short while (FUZZTIME, default 20000x: that many inputs each), one
# `go test -fuzz` per target in its own package. Succeeds when there are no
# targets. A count rather than a duration: with a duration, go test can
# report a spurious "context deadline exceeded" failure when the deadline
# lands while a worker minimizes a new input (seen on a loaded machine).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20000x}
read -r -a pkgs <<<"${FUZZ_PKGS:-./...}"

list=$(mktemp)
trap 'rm -f "$list"' EXIT
if ! go test -list '^Fuzz' "${pkgs[@]}" >"$list" 2>&1; then
	cat "$list" >&2
	echo "fuzz-smoke: listing the fuzz targets failed" >&2
	exit 1
fi

# go test -list prints each package's matching names, then "ok <pkg> <time>".
mapfile -t targets < <(awk '
	/^Fuzz/ { names[n++] = $1; next }
	/^ok[ \t]/ { for (i = 0; i < n; i++) print $2, names[i]; n = 0 }
' "$list")

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-smoke: no Fuzz targets found"
	exit 0
fi
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "fuzz-smoke: $pkg $name for $fuzztime"
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
done
echo "fuzz-smoke: ${#targets[@]} targets fuzzed for $fuzztime each"
