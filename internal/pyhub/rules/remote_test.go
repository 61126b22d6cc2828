package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCreatedAt(t *testing.T) {
	bad := func(repr string) string {
		return "created_at=" + repr + " is not a valid UTC timestamp (expected YYYY-MM-DDTHH:MM:SSZ)"
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"valid", "2026-07-02T21:14:09Z", "2026-07-02T21:14:09Z", ""},
		{"leap_day", "2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z", ""},
		{"nil", nil, "", bad("None")},
		{"number", json.Number("1"), "", bad("1")},
		{"date_only", "2026-07-02", "", bad("'2026-07-02'")},
		{"offset", "2026-07-02T21:14:09+00:00", "", bad("'2026-07-02T21:14:09+00:00'")},
		{"padded", " 2026-07-02T21:14:09Z", "", bad("' 2026-07-02T21:14:09Z'")},
		{"not_leap", "2023-02-29T00:00:00Z", "", bad("'2023-02-29T00:00:00Z'")},
		{"hour_25", "2026-07-02T25:00:00Z", "", bad("'2026-07-02T25:00:00Z'")},
		{"minute_60", "2026-07-02T21:60:00Z", "", bad("'2026-07-02T21:60:00Z'")},
		{"year_zero", "0000-01-01T00:00:00Z", "", bad("'0000-01-01T00:00:00Z'")},
		{"fraction", "2026-07-02T21:14:09.1Z", "", bad("'2026-07-02T21:14:09.1Z'")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CreatedAt(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("CreatedAt = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestReplicaID(t *testing.T) {
	bad := func(repr string) string { return "replica_id=" + repr + " is not a valid replica id" }
	hex32 := strings.Repeat("0123456789abcdef", 2)
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"new", "rep_" + hex32, "rep_" + hex32, ""},
		{"legacy", "rep_0123456789ab", "rep_0123456789ab", ""},
		{"nil", nil, "", bad("None")},
		{"empty", "", "", bad("''")},
		{"upper_hex", "rep_0123456789AB", "", bad("'rep_0123456789AB'")},
		{"13_hex", "rep_0123456789abc", "", bad("'rep_0123456789abc'")},
		{"31_hex", "rep_" + hex32[:31], "", bad("'rep_" + hex32[:31] + "'")},
		{"no_prefix", hex32, "", bad("'" + hex32 + "'")},
		{"trailing_newline", "rep_0123456789ab\n", "", bad(`'rep_0123456789ab\n'`)},
		{"number", json.Number("7"), "", bad("7")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplicaID(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("ReplicaID = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestRemoteApplyTexts: the hub's apply_remote_* refusals.
func TestRemoteApplyTexts(t *testing.T) {
	for err, want := range map[error]string{
		MissingRemoteField("event", "origin_seq"): "remote event is missing required field 'origin_seq'",
		MissingRemoteField("artifact", "sha256"):  "remote artifact is missing required field 'sha256'",
		ArtifactHashMismatch("art_1", "00112233445566778899aabbccddeeff", "ffeeddccbbaa99887766554433221100"): "remote artifact 'art_1' " +
			"failed hash verification (claimed 0011223344556677..., computed ffeeddccbbaa9988...)",
		ArtifactHashMismatch("art_'", "abc", "ffeeddccbbaa99887766554433221100"): `remote artifact "art_'" ` +
			"failed hash verification (claimed abc..., computed ffeeddccbbaa9988...)",
	} {
		if err.Error() != want {
			t.Errorf("%q, want %q", err, want)
		}
	}
}
