package opsig

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// Domain prefixes every signed message. It names the encoding's version;
// a change of the encoding gets a new prefix, so a signature can never be
// read under two encodings.
const Domain = "lsnode-op-v1\x00"

// Content returns the bytes an origin signs for e. digests maps each
// artifact id e names to the sha256 (hex) of that artifact, which binds
// the artifact's exact content to the op: artifact ids are random, so
// without it a relay could pair a genuine op with other content under the
// same id. It fails when an artifact's digest is missing or the metadata
// is not JSON.
//
// Layout: Domain, then each field in a fixed order, strings as a uvarint
// length and the bytes, origin_seq as 8 bytes big-endian, the artifacts as
// a uvarint count of (id, sha256) pairs sorted by id (the hub treats them
// as a set), the metadata as its RFC 8785 text ({} when absent).
func Content(e store.Event, digests map[string]string) ([]byte, error) {
	arts, err := artifactPairs(e.ArtifactIDs, digests)
	if err != nil {
		return nil, err
	}
	meta, err := canonicalMetadata(e.Metadata)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(Domain)+len(e.Body)+len(meta)+256+len(arts)*96)
	b = append(b, Domain...)
	b = appendString(b, e.ID)
	b = appendString(b, e.OriginReplica)
	b = binary.BigEndian.AppendUint64(b, uint64(e.OriginSeq))
	for _, s := range []string{e.HLC, e.Type, e.Stream, e.Room, e.Topic, e.FromAgent, e.ToAgent,
		e.CorrelationID, e.Branch, e.BaseCommit, e.Status} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(arts)))
	for _, a := range arts {
		b = appendString(b, a[0])
		b = appendString(b, a[1])
	}
	b = appendString(b, e.Body)
	b = appendString(b, e.CreatedAt)
	b = appendString(b, string(meta))
	return b, nil
}

// artifactPairs returns the distinct artifact ids, sorted, each with its
// digest.
func artifactPairs(ids []string, digests map[string]string) ([][2]string, error) {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make([][2]string, 0, len(sorted))
	for _, id := range sorted {
		sha, ok := digests[id]
		if !ok || sha == "" {
			return nil, fmt.Errorf("%w: no sha256 known for artifact %s", ErrUnsignable, id)
		}
		out = append(out, [2]string{id, sha})
	}
	return out, nil
}

func canonicalMetadata(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return []byte("{}"), nil
	}
	c, err := pyjson.JCS(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrUnsignable, err)
	}
	return c, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
