package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node"
)

// pageHint is the paging line after a list: the flag and its value.
var pageHint = regexp.MustCompile(`(?m)^\d+ events?.* (--before|--cursor) (\S+)$`)

// TestEventsList_NewestFirstPaging: a newest-first list ends with the flag
// that fetches the next (older) page; following it page after page lists
// every event once, newest first, and the last page, though short, names
// no empty page after it. An ascending list still resumes with --cursor.
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
	for page := 0; page < 3; page++ {
		out := mustCLI(t, args...)
		seen = append(seen, regexp.MustCompile(`event-\d`).FindAllString(out, -1)...)
		m := pageHint.FindStringSubmatch(out)
		if page == 2 {
			if m != nil || !strings.HasSuffix(out, "\n1 event, newest first; none older\n") {
				t.Fatalf("the last page, of 1 event: want no paging hint and the singular:\n%s", out)
			}
			break
		}
		if m == nil {
			t.Fatalf("page %d has no paging hint:\n%s", page, out)
		}
		if m[1] != "--before" || !strings.Contains(out, "2 events, newest first") {
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

// TestEventsList_CutPageKeepsTheHint: a newest-first page the node cut
// short at its page size bound holds fewer events than asked yet is not
// the last; it keeps its hint, and the short page after it, the last,
// has none.
func TestEventsList_CutPageKeepsTheHint(t *testing.T) {
	clearEnv(t)
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr = t.TempDir(), "127.0.0.1:0"
	cfg.Store.MaxPageBytes = 1 << 20
	addr := "--addr=" + startNodeWith(t, cfg).URL()
	body := strings.Repeat("x", 250_000)
	for range 5 { // 5 x 250 kB: a page of all five is over 1 MiB
		mustCLI(t, "events", "append", addr, "--type=note", "--stream=s", "--room=r", "--from=alice", "--body="+body)
	}
	out := mustCLI(t, "events", "list", addr, "--stream=s", "--limit=10")
	m := pageHint.FindStringSubmatch(out)
	if m == nil || m[1] != "--before" || !strings.Contains(out, "\n4 events, newest first") {
		t.Fatalf("a page cut at 4 of the 10 asked: want 4 events and a --before hint:\n%s", out)
	}
	out = mustCLI(t, "events", "list", addr, "--stream=s", "--limit=10", "--before", m[2])
	if pageHint.MatchString(out) || !strings.HasSuffix(out, "\n1 event, newest first; none older\n") {
		t.Fatalf("the page after it, the last: want 1 event and no hint:\n%s", out)
	}
}
