#!/usr/bin/env bash
# Runs a 3-node lsnode mesh on this machine's loopback until Ctrl-C:
# HTTP on 8765-8767, gRPC replication on 8775-8777, gossip on 7946-7948,
# nodes 2 and 3 joining through node 1 (one that is up before node 1
# retries its join within a second). Data stays in ./lsnode-cluster.
set -euo pipefail
bin=${1:-bin/lsnode}
root=${LSNODE_CLUSTER_DIR:-./lsnode-cluster}
mkdir -p "$root"
pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT INT TERM
for i in 1 2 3; do
	args=(serve --data "$root/node$i" --name "node$i" --cluster-id local
		--http "127.0.0.1:$((8764 + i))" --grpc "127.0.0.1:$((8774 + i))" --gossip "127.0.0.1:$((7945 + i))")
	[ "$i" -gt 1 ] && args+=(--join 127.0.0.1:7946)
	"$bin" "${args[@]}" >"$root/node$i.log" 2>&1 &
	pids+=($!)
done
echo "lsnode mesh: http://127.0.0.1:8765 http://127.0.0.1:8766 http://127.0.0.1:8767 (logs in $root/node*.log)"
echo "try: $bin peers --addr http://127.0.0.1:8766    (Ctrl-C stops all three)"
wait
