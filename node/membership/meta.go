package membership

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/memberlist"
)

// Meta is what a node announces about itself in its memberlist metadata.
type Meta struct {
	// ReplicaID is the node's replica id (rep_...), the origin of its ops.
	ReplicaID string
	// ClusterID names the cluster. A node announcing another id is refused.
	// Create and UpdateMeta always announce Config.ClusterID.
	ClusterID string
	// GRPCAddr is the host:port of the node's replication service.
	GRPCAddr string
	// HTTPAddr is the host:port of the node's HTTP surface (MCP, /sync/*).
	HTTPAddr string
	// Version is the node's build version.
	Version string
}

// metaFormatV1 is the first byte of every encoding this build writes.
//
// Format v1: one version byte (1), then fields, each as one tag byte, the
// value's length as an unsigned varint and the value's UTF-8 bytes. Fields
// are written in tag order and empty values are left out. A decoder skips
// tags it does not know, so later builds may add fields without a new
// version; a change that old decoders must not misread takes a new version
// byte, which they refuse (ErrMetaInvalid). The whole encoding must fit in
// memberlist.MetaMaxSize (512 bytes).
const metaFormatV1 byte = 1

// Field tags of format v1. Never renumber or reuse one.
const (
	tagReplicaID byte = 1
	tagClusterID byte = 2
	tagGRPCAddr  byte = 3
	tagHTTPAddr  byte = 4
	tagVersion   byte = 5
	// tagLeaving, with the value "1", is set by Leave just before the
	// node's departure. memberlist does not tell its delegates whether a
	// node that went away left or died (its Node.State is never updated),
	// so the others read the departure from this flag: a node that goes
	// away while announcing it is left, any other is dead.
	tagLeaving byte = 6
)

// fields lists m's fields in tag order.
func (m *Meta) fields() []struct {
	tag byte
	val *string
} {
	return []struct {
		tag byte
		val *string
	}{
		{tagReplicaID, &m.ReplicaID},
		{tagClusterID, &m.ClusterID},
		{tagGRPCAddr, &m.GRPCAddr},
		{tagHTTPAddr, &m.HTTPAddr},
		{tagVersion, &m.Version},
	}
}

// Encode returns the v1 encoding of m, or ErrMetaTooLarge when it exceeds
// memberlist.MetaMaxSize, or ErrMetaInvalid for a value that is not UTF-8.
func (m Meta) Encode() ([]byte, error) { return encodeMeta(m, false) }

// encodeMeta is Encode with the leaving flag.
func encodeMeta(m Meta, leaving bool) ([]byte, error) {
	out := []byte{metaFormatV1}
	for _, f := range m.fields() {
		if *f.val == "" {
			continue
		}
		if !utf8.ValidString(*f.val) {
			return nil, fmt.Errorf("%w: field %d is not valid UTF-8", ErrMetaInvalid, f.tag)
		}
		out = append(out, f.tag)
		out = binary.AppendUvarint(out, uint64(len(*f.val)))
		out = append(out, *f.val...)
	}
	if leaving {
		out = append(out, tagLeaving, 1, '1')
	}
	if len(out) > memberlist.MetaMaxSize {
		return nil, fmt.Errorf("%w: %d bytes encoded, the limit is %d (shorten the addresses, version or ids)",
			ErrMetaTooLarge, len(out), memberlist.MetaMaxSize)
	}
	return out, nil
}

// DecodeMeta parses an encoding written by Encode (of this or a later
// build using format v1). Errors wrap ErrMetaInvalid.
func DecodeMeta(b []byte) (Meta, error) {
	m, _, err := decodeMeta(b)
	return m, err
}

// decodeMeta is DecodeMeta that also reports the leaving flag.
func decodeMeta(b []byte) (m Meta, leaving bool, err error) {
	if len(b) == 0 {
		return m, false, fmt.Errorf("%w: empty (not an lsnode node)", ErrMetaInvalid)
	}
	if b[0] != metaFormatV1 {
		return m, false, fmt.Errorf("%w: unsupported format version %d", ErrMetaInvalid, b[0])
	}
	seen := map[byte]bool{}
	for rest := b[1:]; len(rest) > 0; {
		tag := rest[0]
		n, k := binary.Uvarint(rest[1:])
		if k <= 0 || n > uint64(len(rest)-1-k) {
			return Meta{}, false, fmt.Errorf("%w: field %d is truncated", ErrMetaInvalid, tag)
		}
		val := rest[1+k : 1+k+int(n)]
		rest = rest[1+k+int(n):]
		if seen[tag] {
			return Meta{}, false, fmt.Errorf("%w: field %d appears twice", ErrMetaInvalid, tag)
		}
		seen[tag] = true
		if tag == tagLeaving {
			leaving = string(val) == "1"
			continue
		}
		if err := m.set(tag, val); err != nil {
			return Meta{}, false, err
		}
	}
	return m, leaving, nil
}

// set stores one known field; unknown tags are skipped.
func (m *Meta) set(tag byte, val []byte) error {
	for _, f := range m.fields() {
		if f.tag != tag {
			continue
		}
		if !utf8.Valid(val) {
			return fmt.Errorf("%w: field %d is not valid UTF-8", ErrMetaInvalid, tag)
		}
		*f.val = string(val)
	}
	return nil
}
