package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// exportServer serves /logstream/events as pages of events, one page per
// cursor: "" is the start, page i answers cursor ci+1; after the last page
// it answers an empty page with the cursor "end", unless failAt names the
// page (1-based) that answers 500. The cursor "bad" is refused with 400.
func exportServer(t *testing.T, pages [][]string, failAt int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/logstream/events" {
			http.NotFound(w, r)
			return
		}
		at := 0
		switch c := r.URL.Query().Get("cursor"); {
		case c == "bad":
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "cursor is not a portable cursor"})
			return
		case c != "":
			fmt.Sscanf(c, "c%d", &at)
		}
		if at+1 == failAt {
			w.WriteHeader(http.StatusInternalServerError)
			json.NewEncoder(w).Encode(map[string]string{"error": "internal error"})
			return
		}
		page := map[string]any{"events": []any{}, "cursor": "end"}
		if at < len(pages) {
			evs := []any{}
			for _, id := range pages[at] {
				evs = append(evs, map[string]any{"id": id, "body": "line\nbreak"})
			}
			page = map[string]any{"events": evs, "cursor": fmt.Sprintf("c%d", at+1)}
		}
		json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEventsExport_Pages(t *testing.T) {
	clearClientEnv(t)
	pages := [][]string{{"evt_1", "evt_2"}, {"evt_3"}}
	cases := []struct {
		name      string
		failAt    int
		args      []string
		code      int
		lines     int
		stderr    string // wanted in stderr
		notStderr string
	}{
		{"whole export", 0, nil, exitOK, 3, "exported 3 events; resume with --cursor end", ""},
		{"resumed", 0, []string{"--cursor", "c1"}, exitOK, 1, "exported 1 event; resume with --cursor end", ""},
		{"nothing matched", 0, []string{"--cursor", "c2"}, exitOK, 0, "exported 0 events: none matched; resume with --cursor end", ""},
		{"failure after a page", 2, nil, exitFailure, 2, "exported 2 events before the failure; resume with --cursor c1", ""},
		{"refused cursor", 0, []string{"--cursor", "bad"}, exitFailure, 0, "not a portable cursor", "resume with"},
		{"json report", 0, []string{"--json"}, exitOK, 3, `{"cursor":"end","events":3}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := exportServer(t, pages, tc.failAt)
			code, out, errOut := runCLI(t, append([]string{"events", "export", "--addr", srv.URL}, tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				lines = nil
			}
			if code != tc.code || len(lines) != tc.lines || !strings.Contains(errOut, tc.stderr) ||
				(tc.notStderr != "" && strings.Contains(errOut, tc.notStderr)) {
				t.Fatalf("exit %d, %d lines, stderr %q; want exit %d, %d lines, stderr with %q", code, len(lines), errOut, tc.code, tc.lines, tc.stderr)
			}
			for _, l := range lines {
				var ev struct{ ID, Body string }
				if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Body != "line\nbreak" {
					t.Fatalf("line %q: %v", l, err)
				}
			}
		})
	}
}
