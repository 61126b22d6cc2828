#!/usr/bin/env bash
# Builds the Prometheus image of the compose cluster (deploy/compose.yaml)
# from Debian's prometheus package, since no image can be pulled here: a
# FROM scratch image holding /usr/bin/prometheus, the shared libraries ldd
# lists for it (Debian builds it with cgo: libc and the loader), Debian's web
# assets, and deploy/prometheus/{prometheus.yml,rules.yml}.
#
# usage: scripts/docker-prometheus-image.sh [TAG]   (default lsnode-prometheus:dev)
# As root with apt-get, installs Debian's prometheus package when it is
# missing; otherwise it must be installed already.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-lsnode-prometheus:dev}
prom=/usr/bin/prometheus

if [ ! -x "$prom" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "docker-prometheus-image: installing Debian's prometheus (apt-get install prometheus)"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends prometheus >/dev/null
	else
		echo "docker-prometheus-image: $prom is missing; install Debian's prometheus package" >&2
		exit 1
	fi
fi
command -v docker >/dev/null || { echo "docker-prometheus-image: docker not found" >&2; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
root=$ctx/rootfs
mkdir -p "$root/usr/bin" "$root/etc/prometheus" "$root/usr/share/prometheus" "$ctx/data"
cp "$prom" "$root/usr/bin/prometheus"

# The binary's shared libraries, at the paths the loader looks for them.
# ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the
# loader itself; a static binary prints "not a dynamic executable".
libs=()
if ldd_out=$(ldd "$prom" 2>&1); then
	mapfile -t libs < <(awk '$2 == "=>" && $3 ~ /^\// { print $3; next } $1 ~ /^\// { print $1 }' <<<"$ldd_out")
fi
for lib in "${libs[@]}"; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
if [ ${#libs[@]} -eq 0 ]; then
	echo "docker-prometheus-image: $prom is static"
else
	echo "docker-prometheus-image: $prom is dynamic; copied ${libs[*]}"
fi

# Debian's classic web UI (templates and static files, some of them symlinks
# into /usr/share/javascript, followed here): optional, the HTTP API works
# without it. moment-timezone's data/ (212 MB of per-zone files) is left
# out: the UI loads only moment-timezone-with-data.min.js.
if [ -d /usr/share/prometheus/web ]; then
	tar -C /usr/share/prometheus -chf - --exclude=web/static/moment-timezone/data web |
		tar -C "$root/usr/share/prometheus" -xf -
fi

cp deploy/prometheus/prometheus.yml deploy/prometheus/rules.yml "$root/etc/prometheus/"
printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/prometheus:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
cp deploy/prometheus/Dockerfile "$ctx/Dockerfile"

echo "docker-prometheus-image: $("$prom" --version 2>&1 | head -n 1); context $(du -sh "$ctx" | cut -f1)"
# The legacy builder's deprecation notice goes to stderr; errors too.
docker build -q -t "$tag" "$ctx" >/dev/null
echo "docker-prometheus-image: built $tag"
