package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pageHint is the paging line after a list: the flag and its value.
var pageHint = regexp.MustCompile(`(?m)^\d+ events.* (--before|--cursor) (\S+)$`)

// TestEventsList_NewestFirstPaging: a newest-first list ends with the flag
// that fetches the next (older) page; following it page after page lists
// every event once, newest first, and the last page says nothing more.
// An ascending list still resumes with --cursor.
func TestEventsList_NewestFirstPaging(t *testing.T) {
	clearEnv(t)
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	addr := "--addr=" + n.URL()
	for i := 1; i <= 5; i++ {
		mustCLI(t, "events", "append", addr, "--type=note", "--stream=s", "--room=r", "--from=alice",
			"--body=event-"+strconv.Itoa(i))
	}
	var seen []string
	args := []string{"events", "list", addr, "--stream=s", "--limit=2"}
	for page := 0; page < 4; page++ {
		out := mustCLI(t, args...)
		seen = append(seen, regexp.MustCompile(`event-\d`).FindAllString(out, -1)...)
		m := pageHint.FindStringSubmatch(out)
		if m == nil {
			if page != 3 {
				t.Fatalf("page %d has no paging hint:\n%s", page, out)
			}
			break
		}
		if m[1] != "--before" || !strings.Contains(out, "newest first") {
			t.Fatalf("page %d of a newest-first list: hint %q, want --before:\n%s", page, m[0], out)
		}
		args = []string{"events", "list", addr, "--stream=s", "--limit=2", m[1], m[2]}
	}
	if got := strings.Join(seen, " "); got != "event-5 event-4 event-3 event-2 event-1" {
		t.Fatalf("following the hints listed %q, want every event once, newest first", got)
	}

	out := mustCLI(t, "events", "list", addr, "--stream=s", "--order=asc", "--limit=2")
	m := pageHint.FindStringSubmatch(out)
	if m == nil || m[1] != "--cursor" {
		t.Fatalf("ascending list: want a --cursor hint:\n%s", out)
	}
	next := mustCLI(t, "events", "list", addr, "--stream=s", "--limit=2", "--cursor", m[2])
	if got := regexp.MustCompile(`event-\d`).FindAllString(next, -1); strings.Join(got, " ") != "event-3 event-4" {
		t.Fatalf("resuming the ascending list with its cursor listed %v, want event-3 event-4:\n%s", got, next)
	}
}
