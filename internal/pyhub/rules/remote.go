package rules

import (
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
