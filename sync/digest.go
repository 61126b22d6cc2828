package lssync

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// DigestSize is the size of a version-vector digest in bytes. It does not
// depend on the number of origins, so an idle round costs the same bytes
// whatever the size of the fleet.
const DigestSize = 16

// Digest hashes a version vector into DigestSize bytes: SHA-256 over the
// entries sorted by origin, each written as a length-prefixed origin and a
// big-endian seq. Entries with seq <= 0 carry no information and are
// skipped, so {} and {"a": 0} hash alike. Equal vectors give equal digests;
// different vectors collide with probability about 2^-128.
func Digest(vv map[string]int64) []byte {
	h := sha256.New()
	var buf [8]byte
	for _, origin := range sortedOrigins(vv) {
		if vv[origin] <= 0 {
			continue
		}
		binary.BigEndian.PutUint64(buf[:], uint64(len(origin)))
		h.Write(buf[:])
		h.Write([]byte(origin))
		binary.BigEndian.PutUint64(buf[:], uint64(vv[origin]))
		h.Write(buf[:])
	}
	return h.Sum(nil)[:DigestSize]
}

// sortedOrigins returns the keys of vv in ascending order.
func sortedOrigins(vv map[string]int64) []string {
	keys := make([]string, 0, len(vv))
	for k := range vv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// vectorEntries encodes vv as sorted entries, skipping empty origins.
func vectorEntries(vv map[string]int64) []*pb.VectorEntry {
	out := make([]*pb.VectorEntry, 0, len(vv))
	for _, origin := range sortedOrigins(vv) {
		if vv[origin] > 0 {
			out = append(out, &pb.VectorEntry{Origin: origin, Seq: vv[origin]})
		}
	}
	return out
}

// raiseVector sets dst[o] = max(dst[o], seq) for every entry.
func raiseVector(dst map[string]int64, entries []*pb.VectorEntry) {
	for _, e := range entries {
		raise(dst, e.GetOrigin(), e.GetSeq())
	}
}

// raise sets dst[origin] = max(dst[origin], seq).
func raise(dst map[string]int64, origin string, seq int64) {
	if seq > dst[origin] {
		dst[origin] = seq
	}
}

// missing lists, sorted by origin, the origins where peer holds more than
// local, positioned at local's top, leaving out skip (this replica).
func missing(local, peer map[string]int64, skip string) []*pb.VectorEntry {
	var out []*pb.VectorEntry
	for _, origin := range sortedOrigins(peer) {
		if origin != skip && peer[origin] > local[origin] {
			out = append(out, &pb.VectorEntry{Origin: origin, Seq: local[origin]})
		}
	}
	return out
}

// lagOps sums, over origins, how far peer's seq is ahead of local's. For
// origins with gapped numbering (Python hubs) it overestimates.
func lagOps(local, peer map[string]int64) int64 {
	var lag int64
	for origin, seq := range peer {
		if d := seq - local[origin]; d > 0 {
			lag += d
		}
	}
	return lag
}
