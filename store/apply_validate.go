package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// maxRemoteMetadataBytes leaves room for lsnode's extension beside the
// client's 64 KiB.
const maxRemoteMetadataBytes = rules.MaxMetadataBytes + 16<<10

// validateRemoteEvent applies the local write rules to a remote op
// (docs/architecture.md#validated-apply) and returns it normalised: routing fields
// stripped, metadata canonical, artifact ids de-duplicated.
func validateRemoteEvent(e Event) (Event, error) {
	out, _, err := checkRemoteEvent(e)
	return out, err
}

// checkRemoteEvent is validateRemoteEvent that also returns the parts of
// the metadata the derived tables need, parsed once.
func checkRemoteEvent(e Event) (Event, metaParts, error) {
	var parts metaParts
	required := []struct{ v, name string }{
		{e.ID, "id"}, {e.Type, "type"}, {e.Stream, "stream"}, {e.Room, "room"}, {e.FromAgent, "from_agent"},
		{e.CreatedAt, "created_at"}, {e.OriginReplica, "origin_replica"}, {e.HLC, "hlc"},
	}
	for _, r := range required {
		if r.v == "" {
			return e, parts, rules.MissingRemoteField("event", r.name)
		}
	}
	if e.OriginSeq <= 0 {
		return e, parts, rules.MissingRemoteField("event", "origin_seq")
	}
	if _, err := rules.ReplicaID(e.OriginReplica); err != nil {
		return e, parts, err
	}
	if _, err := hlc.Parse(e.HLC); err != nil {
		return e, parts, err
	}
	if _, err := rules.CreatedAt(e.CreatedAt); err != nil {
		return e, parts, err
	}
	d, err := validateAppend(AppendInput{
		Type: e.Type, Stream: e.Stream, Room: e.Room, Topic: e.Topic, FromAgent: e.FromAgent,
		ToAgent: e.ToAgent, CorrelationID: e.CorrelationID, Branch: e.Branch, BaseCommit: e.BaseCommit,
		Status: e.Status, Body: e.Body, ArtifactIDs: e.ArtifactIDs,
	})
	if err != nil {
		return e, parts, err
	}
	meta, parts, err := remoteMetadata(e.Metadata)
	if err != nil {
		return e, parts, err
	}
	out := d.ev
	out.ID, out.CreatedAt, out.OriginReplica, out.OriginSeq, out.HLC = e.ID, e.CreatedAt, e.OriginReplica, e.OriginSeq, e.HLC
	out.Metadata = meta
	return out, parts, nil
}

// remoteMetadata canonicalises remote metadata, which may carry lsnode's
// extension.
func remoteMetadata(raw json.RawMessage) (json.RawMessage, metaParts, error) {
	if len(raw) == 0 {
		return json.RawMessage("{}"), metaParts{}, nil
	}
	canon, err := pyjson.Canonical(raw)
	if err != nil {
		return nil, metaParts{}, fmt.Errorf("metadata must be an object")
	}
	if len(canon) > maxRemoteMetadataBytes {
		return nil, metaParts{}, fmt.Errorf("metadata exceeds maximum size of %d bytes", maxRemoteMetadataBytes)
	}
	client, ext, err := splitMetadata(canon)
	if err != nil {
		return nil, metaParts{}, err
	}
	return canon, partsFrom(client, ext), nil
}

// validateRemoteArtifact checks a remote artifact like a local put, plus
// its claimed sha256.
func validateRemoteArtifact(a Artifact) (Artifact, error) {
	for _, r := range []struct{ v, name string }{
		{a.ID, "id"}, {a.Kind, "kind"}, {a.SHA256, "sha256"}, {a.Content, "content"},
		{a.CreatedBy, "created_by"}, {a.CreatedAt, "created_at"},
	} {
		if r.v == "" {
			return a, rules.MissingRemoteField("artifact", r.name)
		}
	}
	sum := sha256.Sum256([]byte(a.Content))
	if got := hex.EncodeToString(sum[:]); got != a.SHA256 {
		return a, rules.ArtifactHashMismatch(a.ID, a.SHA256, got)
	}
	clean, _, _, err := validateArtifact(ArtifactInput{Kind: a.Kind, Content: a.Content, CreatedBy: a.CreatedBy})
	if err != nil {
		return a, err
	}
	if _, err := rules.CreatedAt(a.CreatedAt); err != nil {
		return a, err
	}
	if a.OriginReplica != "" {
		if _, err := rules.ReplicaID(a.OriginReplica); err != nil {
			return a, err
		}
	}
	meta, _, err := remoteMetadata(a.Metadata)
	if err != nil {
		return a, err
	}
	clean.ID, clean.SHA256, clean.CreatedAt, clean.OriginReplica, clean.Metadata = a.ID, a.SHA256, a.CreatedAt, a.OriginReplica, meta
	clean.SizeBytes = int64(len(clean.Content))
	return clean, nil
}

// sameEvent compares two events in canonical form: everything but the
// local seq, with metadata compared after RFC 8785 canonicalisation so a
// relay's re-serialisation does not count as a change.
func sameEvent(a, b Event) bool {
	if a.ID != b.ID || a.OriginReplica != b.OriginReplica || a.OriginSeq != b.OriginSeq || a.HLC != b.HLC ||
		a.Type != b.Type || a.Stream != b.Stream || a.Room != b.Room || a.Topic != b.Topic ||
		a.FromAgent != b.FromAgent || a.ToAgent != b.ToAgent || a.CorrelationID != b.CorrelationID ||
		a.Branch != b.Branch || a.BaseCommit != b.BaseCommit || a.Status != b.Status || a.Body != b.Body ||
		a.CreatedAt != b.CreatedAt || !sameIDs(a.ArtifactIDs, b.ArtifactIDs) {
		return false
	}
	return sameJSON(a.Metadata, b.Metadata)
}

func sameArtifact(a, b Artifact) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.SHA256 == b.SHA256 && a.Content == b.Content &&
		a.CreatedBy == b.CreatedBy && a.CreatedAt == b.CreatedAt && sameJSON(a.Metadata, b.Metadata)
}

func sameJSON(a, b json.RawMessage) bool {
	ca, errA := pyjson.JCS(orEmptyObject(a))
	cb, errB := pyjson.JCS(orEmptyObject(b))
	return errA == nil && errB == nil && string(ca) == string(cb)
}

func orEmptyObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// sameIDs compares artifact id sets (order differs between write and read
// paths in the Python hub).
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := make(map[string]int, len(a))
	for _, id := range a {
		seen[id]++
	}
	for _, id := range b {
		if seen[id] == 0 {
			return false
		}
		seen[id]--
	}
	return true
}
