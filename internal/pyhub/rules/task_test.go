package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTaskText(t *testing.T) {
	tests := []struct {
		name, label string
		in          any
		want        string
		wantErr     string
	}{
		{"project", "project", " mempalace ", "mempalace", ""},
		{"nil", "project", nil, "", "task project must not be empty"},
		{"blank", "requesting agent", "\u3000", "", "task requesting agent must not be empty"},
		{"number", "destination agent", json.Number("1"), "", "task destination agent must not be empty"},
		{"goal", "goal", "", "", "task goal must not be empty"},
		{"done", "definition of done", " \n", "", "task definition of done must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TaskText(tt.in, tt.label)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("TaskText = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestTaskBaseCommit(t *testing.T) {
	const bad = "task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag"
	const empty = "task base commit must not be empty"
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"short", "abcdef1", "abcdef1", ""},
		{"upper_lowered", " ABCDEF1234 ", "abcdef1234", ""},
		{"sha1", strings.Repeat("a1", 20), strings.Repeat("a1", 20), ""},
		{"sha256", strings.Repeat("f", 64), strings.Repeat("f", 64), ""},
		{"six", "abcdef", "", bad},
		{"sixty_five", strings.Repeat("f", 65), "", bad},
		{"branch", "main", "", bad},
		{"tag", "v1.2.3", "", bad},
		{"ref", "HEAD~1", "", bad},
		{"nil", nil, "", empty},
		{"blank", "  ", "", empty},
		{"number", json.Number("1234567"), "", empty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TaskBaseCommit(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("TaskBaseCommit = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	// Expected slugs from the hub's task_slug, without its fallback.
	tests := []struct{ in, want string }{
		{"Fix the Thing!! now__", "fix_the_thing_now"},
		{"", ""},
		{"___", ""},
		{"MemPalace", "mempalace"},
		{"\u00c4\u00d6\u00dc r\u00e9sum\u00e9", "r_sum"},
		{"\u0130stanbul", "i_stanbul"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"KELVIN \u212a", "kelvin_k"},
		{"2026-07-02 hot-fix v1.2", "2026_07_02_hot_fix_v1_2"},
		{"\u65e5\u672c\u8a9e", ""},
		{"  spaced  out  ", "spaced_out"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
