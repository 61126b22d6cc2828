package rules

import (
	"fmt"
	"regexp"

	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

var (
	// createdAtRE is the exact created_at shape.
	createdAtRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
	// replicaIDRE accepts new (32 hex) and legacy (12 hex) replica ids.
	replicaIDRE = regexp.MustCompile(`^rep_(?:[0-9a-f]{12}|[0-9a-f]{32})$`)
)

// CreatedAt checks a remote event's or artifact's created_at: exactly
// YYYY-MM-DDTHH:MM:SSZ and a real UTC time. The hub itself does not check
// this on remote apply; lsnode does (docs/compatibility.md, validated
// remote apply).
func CreatedAt(v any) (string, error) {
	if s, ok := v.(string); ok && createdAtRE.MatchString(s) && realTime(pytime.UTCLayout, s) {
		return s, nil
	}
	return "", invalidf("created_at=%s is not a valid UTC timestamp (expected YYYY-MM-DDTHH:MM:SSZ)", ReprValue(v))
}

// ReplicaID checks a replica id: rep_ and 32 (or, legacy, 12) lowercase
// hex digits.
func ReplicaID(v any) (string, error) {
	if s, ok := v.(string); ok && replicaIDRE.MatchString(s) {
		return s, nil
	}
	return "", invalidf("replica_id=%s is not a valid replica id", ReprValue(v))
}

// RemoteEventFields are the fields apply_remote_event requires to be
// truthy, in the order it checks them (origin_seq 0 counts as missing).
var RemoteEventFields = []string{"id", "type", "stream", "room", "from_agent", "created_at", "origin_replica", "origin_seq", "hlc"}

// RemoteArtifactFields are the fields apply_remote_artifact requires to
// be truthy, in its order.
var RemoteArtifactFields = []string{"id", "kind", "sha256", "content", "created_by", "created_at"}

// MissingRemoteField is the hub's refusal of a remote record (what is
// "event" or "artifact") that lacks field.
func MissingRemoteField(what, field string) error {
	return fmt.Errorf("remote %s is missing required field %s", what, Repr(field))
}

// ArtifactHashMismatch is the hub's refusal of a remote artifact whose
// content does not hash to its claimed sha256; the text shows the first
// 16 hex digits of each.
func ArtifactHashMismatch(id, claimed, computed string) error {
	return fmt.Errorf("remote artifact %s failed hash verification (claimed %s..., computed %s...)",
		Repr(id), prefix(claimed, 16), prefix(computed, 16))
}

// prefix is s cut to at most n bytes.
func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
