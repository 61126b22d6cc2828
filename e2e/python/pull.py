#!/usr/bin/env python3
"""A Python hub's pull engine, standard library only, for lsnode's e2e tests.

It pulls a running node over the Python hub's replication routes
(docs/compatibility.md#pull-protocol) into an in-memory log and prints a JSON
summary on stdout:

    {"peer_replica", "version_vector", "requests",
     "origins": {origin: {"count", "ids", "origin_seqs", "events"}},
     "artifacts": {id: {"sha256", "computed", "size_bytes"}}}

"events" are the event dicts as received, without "seq" (the sender's
local rowid, which a receiver ignores). The engine is written from the
wire notes, not from the hub's code:

  1. GET /sync/version_vector;
  2. for every origin of the peer's vector but our own, GET /sync/ops
     pages (limit 500 by default) after the top we hold, until the peer's
     top or an empty page;
  3. for each event, GET /sync/artifact for every named artifact we lack,
     verify its sha256, store it, then store the event (apply rules of
     apply_remote_event: required truthy fields, duplicates by id or by
     origin slot ignored, artifacts first).

Usage: pull.py --url http://127.0.0.1:8765 [--limit 500]
The bearer token, if any, is read from the environment variable named by
--token-env (default LSNODE_TOKEN), never from the command line.
Exit status: 0 on success, 1 on a wire or apply error (message on stderr).
"""

import argparse
import hashlib
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

REQUIRED_EVENT_FIELDS = ("id", "type", "stream", "room", "from_agent", "created_at",
                         "origin_replica", "origin_seq", "hlc")
REQUIRED_ARTIFACT_FIELDS = ("id", "kind", "sha256", "content", "created_by", "created_at")
SELF_REPLICA = "rep_" + "0" * 32  # this puller's identity: it authors nothing


class PullError(Exception):
    """The peer was unreachable, answered outside the protocol, or served
    something that could not be applied."""


class MemoryLog:
    """The tables of a hub, in memory: events in arrival order, an index
    by origin slot, artifacts by id."""

    def __init__(self):
        self.events = []
        self.by_id = {}
        self.slots = {}
        self.artifacts = {}

    def version_vector(self):
        vv = {}
        for (origin, seq) in self.slots:
            vv[origin] = max(vv.get(origin, 0), seq)
        return vv

    def apply_event(self, event):
        for key in REQUIRED_EVENT_FIELDS:
            if not event.get(key):
                raise PullError(f"remote event is missing required field {key!r}")
        if event["origin_replica"] == SELF_REPLICA:
            return False
        slot = (event["origin_replica"], event["origin_seq"])
        if event["id"] in self.by_id or slot in self.slots:
            return False
        for aid in event.get("artifact_ids") or []:
            if aid not in self.artifacts:
                raise PullError(f"remote event {event['id']!r} references artifact {aid!r} not yet applied locally")
        kept = {k: v for k, v in event.items() if k != "seq"}
        self.events.append(kept)
        self.by_id[event["id"]] = kept
        self.slots[slot] = kept
        return True

    def apply_artifact(self, artifact):
        for key in REQUIRED_ARTIFACT_FIELDS:
            if not artifact.get(key):
                raise PullError(f"remote artifact is missing required field {key!r}")
        computed = hashlib.sha256(artifact["content"].encode("utf-8")).hexdigest()
        if computed != artifact["sha256"]:
            raise PullError(f"remote artifact {artifact['id']!r} failed hash verification "
                            f"(claimed {artifact['sha256'][:16]}..., computed {computed[:16]}...)")
        if artifact["id"] in self.artifacts:
            return False
        self.artifacts[artifact["id"]] = dict(artifact, computed=computed)
        return True


class Peer:
    """One peer's wire: bearer-authenticated GETs returning JSON."""

    def __init__(self, url, token, timeout):
        self.base = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.requests = 0

    def get(self, path, params=None):
        url = self.base + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        req = urllib.request.Request(url)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, TimeoutError, ValueError) as exc:
            raise PullError(f"{url}: {exc}") from None


def pull(log, peer, limit):
    remote = peer.get("/sync/version_vector")
    remote_vv = remote.get("version_vector") or {}
    local_vv = log.version_vector()
    for origin, top in remote_vv.items():
        if origin == SELF_REPLICA:
            continue
        after = local_vv.get(origin, 0)
        while after < top:
            page = peer.get("/sync/ops", {"origin": origin, "after": after, "limit": limit})
            events = page.get("events") or []
            if not events:
                break  # the vector promised more than the peer served
            if page.get("count") != len(events) or page.get("origin") != origin:
                raise PullError(f"page header {page.get('origin')!r}/{page.get('count')!r} for {len(events)} events")
            moved = False
            for event in events:
                for aid in event.get("artifact_ids") or []:
                    if aid in log.artifacts:
                        continue
                    artifact = peer.get("/sync/artifact", {"id": aid}).get("artifact")
                    if not artifact:
                        raise PullError(f"peer served event {event.get('id')!r} but not its artifact {aid!r}")
                    log.apply_artifact(artifact)
                log.apply_event(event)
                seq = event.get("origin_seq") or 0
                if seq > after:
                    after, moved = seq, True
            if not moved:
                break
    return remote


def summary(log, remote, peer):
    origins = {}
    for event in log.events:
        o = origins.setdefault(event["origin_replica"], {"count": 0, "ids": [], "origin_seqs": [], "events": []})
        o["count"] += 1
        o["ids"].append(event["id"])
        o["origin_seqs"].append(event["origin_seq"])
        o["events"].append(event)
    for o in origins.values():
        order = sorted(range(o["count"]), key=lambda i: o["origin_seqs"][i])
        for key in ("ids", "origin_seqs", "events"):
            o[key] = [o[key][i] for i in order]
    return {
        "peer_replica": remote.get("replica_id", "?"),
        "version_vector": log.version_vector(),
        "requests": peer.requests,
        "origins": origins,
        "artifacts": {aid: {"sha256": a["sha256"], "computed": a["computed"], "size_bytes": a.get("size_bytes")}
                      for aid, a in log.artifacts.items()},
    }


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--limit", type=int, default=500)
    ap.add_argument("--token-env", default="LSNODE_TOKEN")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args(argv)
    peer = Peer(args.url, os.environ.get(args.token_env, ""), args.timeout)
    log = MemoryLog()
    try:
        remote = pull(log, peer, args.limit)
    except PullError as exc:
        print(f"pull failed: {exc}", file=sys.stderr)
        return 1
    json.dump(summary(log, remote, peer), sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
