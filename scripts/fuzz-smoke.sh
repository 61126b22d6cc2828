#!/usr/bin/env bash
# Runs every Fuzz* target in the packages FUZZ_PKGS (default ./...) for a
# short while (FUZZTIME, default 20000x: that many inputs each). Each
# package's fuzz-instrumented test binary is built once (go test -c) and
# run once per target in the package's directory, with the fuzz cache go
# test -fuzz would use; building per target relinked the same binary for
# every target. Succeeds when there are no targets. A count rather than a
# duration: with a duration, go test can report a spurious "context
# deadline exceeded" failure when the deadline lands while a worker
# minimizes a new input (seen on a loaded machine). A failing input is
# written to the package's testdata/fuzz/<target>/, as with go test -fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20000x}
read -r -a pkgs <<<"${FUZZ_PKGS:-./...}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list=$work/list
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
cache=$(go env GOCACHE)/fuzz
built=""
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	bin=$work/$(echo "$pkg" | tr '/.' '__').test
	if [ "$built" != "$pkg" ]; then
		go test -c -fuzz "^${name}\$" -o "$bin" "$pkg"
		built=$pkg
	fi
	dir=$(go list -f '{{.Dir}}' "$pkg")
	echo "fuzz-smoke: $pkg $name for $fuzztime"
	(cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" -test.timeout 10m \
		-test.fuzzcachedir "$cache/$pkg")
done
echo "fuzz-smoke: ${#targets[@]} targets fuzzed for $fuzztime each"
