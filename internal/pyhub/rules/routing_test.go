package rules

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRouting(t *testing.T) {
	const (
		empty   = "stream must be a non-empty string"
		tooLong = "stream exceeds maximum length of 256 characters"
		control = "stream contains control characters"
	)
	tests := []struct {
		name     string
		in       any
		required bool
		want     string
		wantErr  string
	}{
		{"nil_optional", nil, false, "", ""},
		{"empty_optional", "", false, "", ""},
		{"nil_required", nil, true, "", empty},
		{"empty_required", "", true, "", empty},
		{"blank_optional", "   ", false, "", empty},
		{"unicode_blank", "\u3000\u00a0\u2003", false, "", empty},
		{"float", 1.5, false, "", empty},
		{"number", json.Number("5"), false, "", empty},
		{"bool", true, false, "", empty},
		{"false", false, false, "", empty},
		{"list", []any{"a"}, false, "", empty},
		{"map", map[string]any{"a": "b"}, false, "", empty},
		{"plain", "project/mempalace", true, "project/mempalace", ""},
		{"stripped", " \t room \n", true, "room", ""},
		{"unicode_stripped", "\u2028agent\u3000", true, "agent", ""},
		{"edge_controls_stripped", "\x1c\x1fagent\x1e", true, "agent", ""},
		{"broadcast", "*", false, "*", ""},
		{"256_multibyte", strings.Repeat("é", 256), true, strings.Repeat("é", 256), ""},
		{"257_multibyte", strings.Repeat("é", 257), true, "", tooLong},
		{"256_astral", strings.Repeat("😀", 256), true, strings.Repeat("😀", 256), ""},
		{"257_ascii", strings.Repeat("a", 257), true, "", tooLong},
		{"256_after_strip", "  " + strings.Repeat("a", 256) + "  ", true, strings.Repeat("a", 256), ""},
		{"too_long_beats_control", strings.Repeat("a", 257) + "\x01b", true, "", tooLong},
		{"inner_tab", "a\tb", true, "", control},
		{"inner_newline", "a\nb", true, "", control},
		{"nul", "a\x00b", true, "", control},
		{"del", "a\x7fb", true, "", control},
		{"c1_allowed", "a\u0085\u0080b", true, "a\u0085\u0080b", ""},
		{"zero_width_kept", "\u200ba", true, "\u200ba", ""},
		{"lone_surrogate", "a\xed\xa0\x80", true, "a\uFFFD", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Routing(tt.in, "stream", tt.required)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Routing = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestRoutingFieldNames(t *testing.T) {
	for _, field := range []string{"room", "topic", "from_agent", "to_agent", "correlation_id", "branch",
		"base_commit", "created_by", "event_id", "artifact_id", "since_event_id", "before_event_id", "origin"} {
		_, err := Routing(nil, field, true)
		checkErr(t, err, field+" must be a non-empty string")
	}
}

func TestEventType(t *testing.T) {
	const empty = "type must be a non-empty string"
	bad := func(repr string) string {
		return "type=" + repr + " is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", empty},
		{"empty", "", "", empty},
		{"blank", " \n ", "", empty},
		{"number", json.Number("1"), "", empty},
		{"list", []any{"task.request"}, "", empty},
		{"plain", "task.request", "task.request", ""},
		{"stripped", "  patch.ready\n", "patch.ready", ""},
		{"all_chars", "0a_b.c-d", "0a_b.c-d", ""},
		{"64_chars", "a" + strings.Repeat("b", 63), "a" + strings.Repeat("b", 63), ""},
		{"65_chars", "a" + strings.Repeat("b", 64), "", bad("'a" + strings.Repeat("b", 64) + "'")},
		{"upper", "Task.Request", "", bad("'Task.Request'")},
		{"leading_dot", ".task", "", bad("'.task'")},
		{"leading_underscore", "_task", "", bad("'_task'")},
		{"inner_space", " task request ", "", bad("'task request'")},
		{"slash", "task/request", "", bad("'task/request'")},
		{"quote", "it's", "", bad(`"it's"`)},
		{"control", "a\x01b", "", bad(`'a\x01b'`)},
		{"unicode", "tâche", "", bad("'tâche'")},
		{"trailing_newline_inside", "a\nb", "", bad(`'a\nb'`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EventType(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("EventType = %q; want %q", got, tt.want)
			}
		})
	}
}

func FuzzRouting(f *testing.F) {
	for _, s := range []string{"", " ", "project/x", "a\tb", "\u3000x\u3000", strings.Repeat("é", 257),
		"a\xed\xa0\x80", "\xff", "\x1fa\x1c", "*"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, required bool) {
		got, err := Routing(s, "stream", required)
		if err != nil {
			checkErrIsInvalid(t, err)
			return
		}
		if hasControl(got) || utf8.RuneCountInString(got) > MaxRouting || !utf8.ValidString(got) {
			t.Fatalf("Routing(%q) accepted %q", s, got)
		}
		if got == "" {
			if required || s != "" {
				t.Fatalf("Routing(%q, required=%v) returned absent", s, required)
			}
			return
		}
		again, err := Routing(got, "stream", required)
		if err != nil || again != got {
			t.Fatalf("not stable: %q -> %q -> %q, %v", s, got, again, err)
		}
	})
}

func checkErrIsInvalid(t *testing.T, err error) {
	t.Helper()
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error %v is %T, not *Error", err, err)
	}
}
