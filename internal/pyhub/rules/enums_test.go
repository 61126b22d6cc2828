package rules

import (
	"encoding/json"
	"testing"
)

func TestStatus(t *testing.T) {
	bad := func(repr string) string {
		return "status=" + repr + " is not one of: applied, blocked, claimed, failed, open, ready, superseded"
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", ""},
		{"empty", "", "", ""},
		{"open", "open", "open", ""},
		{"claimed", "claimed", "claimed", ""},
		{"ready", "ready", "ready", ""},
		{"applied", "applied", "applied", ""},
		{"blocked", "blocked", "blocked", ""},
		{"failed", "failed", "failed", ""},
		{"superseded", "superseded", "superseded", ""},
		{"not_stripped", " open", "", bad("' open'")},
		{"case", "Open", "", bad("'Open'")},
		{"unknown", "done", "", bad("'done'")},
		{"blank", " ", "", bad("' '")},
		{"number", json.Number("1"), "", bad("1")},
		{"float", json.Number("1.0"), "", bad("1.0")},
		{"bool", true, "", bad("True")},
		{"false", false, "", bad("False")},
		{"list", []any{"open"}, "", bad("['open']")},
		{"map", map[string]any{"s": "open"}, "", bad("{'s': 'open'}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Status(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Status = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	want := map[string]bool{
		"applied": true, "superseded": true, "failed": true, "blocked": true,
		"open": false, "claimed": false, "ready": false, "": false, "Applied": false,
	}
	for status, terminal := range want {
		if got := IsTerminal(status); got != terminal {
			t.Errorf("IsTerminal(%q) = %v; want %v", status, got, terminal)
		}
	}
}

func TestArtifactKind(t *testing.T) {
	bad := func(repr string) string { return "kind=" + repr + " is not one of: file, json, log, note, patch" }
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"file", "file", "file", ""},
		{"json", "json", "json", ""},
		{"log", "log", "log", ""},
		{"note", "note", "note", ""},
		{"patch", "patch", "patch", ""},
		{"nil", nil, "", bad("None")},
		{"empty", "", "", bad("''")},
		{"case", "Patch", "", bad("'Patch'")},
		{"padded", "patch ", "", bad("'patch '")},
		{"number", json.Number("3"), "", bad("3")},
		{"list", []any{"patch"}, "", bad("['patch']")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ArtifactKind(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("ArtifactKind = %q; want %q", got, tt.want)
			}
		})
	}
}
