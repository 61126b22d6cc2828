package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/node/sseclient"
	"github.com/lsnode/lsnode/store"
)

// frameEvent decodes the data of an event frame and checks its framing.
func frameEvent(t *testing.T, f sseclient.Frame) map[string]any {
	t.Helper()
	if f.Event != "logstream" {
		t.Fatalf("event field %q, want logstream", f.Event)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(f.Data), &ev); err != nil {
		t.Fatalf("data is not JSON: %v: %s", err, f.Data)
	}
	if ev["id"] != f.ID {
		t.Fatalf("frame id %q but data id %v", f.ID, ev["id"])
	}
	return ev
}

func TestSSE_LiveTailSendsOnlyLaterEvents(t *testing.T) {
	n := htStart(t, nil)
	nodetest.Append(t, n.Store(), store.AppendInput{Body: "before"})
	s := nodetest.OpenStream(t, n, "", nil)
	if ct := s.Header().Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	if s.Header().Get("Cache-Control") != "no-cache" || s.Header().Get("X-Accel-Buffering") != "no" {
		t.Fatalf("headers %v", s.Header())
	}
	after := nodetest.Append(t, n.Store(), store.AppendInput{Body: "après ✓", Metadata: json.RawMessage(`{"k": [1, 2]}`)})
	f := s.NextEvent(t)
	ev := frameEvent(t, f)
	if ev["id"] != after.ID || ev["body"] != "après ✓" {
		t.Fatalf("got %v, want the event appended after connect", ev)
	}
	if strings.Contains(f.Data, "\n") {
		t.Fatal("data spans lines")
	}
	// The data is json.dumps of the event dict, byte for byte.
	if want, err := pyjson.Compact(after); err != nil || f.Data != string(want) {
		t.Fatalf("data %s, want %s (%v)", f.Data, want, err)
	}
	// Key order of the wire event dict (docs/compatibility.md#event-and-artifact-records).
	keys := []string{`"id"`, `"seq"`, `"origin_replica"`, `"origin_seq"`, `"hlc"`, `"type"`, `"stream"`, `"room"`,
		`"topic"`, `"from_agent"`, `"to_agent"`, `"correlation_id"`, `"branch"`, `"base_commit"`, `"status"`,
		`"artifact_ids"`, `"body"`, `"created_at"`, `"metadata"`}
	last := -1
	for _, k := range keys {
		i := strings.Index(f.Data, k)
		if i <= last {
			t.Fatalf("key %s out of order in %s", k, f.Data)
		}
		last = i
	}
}

func TestSSE_EmptyLogStreamsEverything(t *testing.T) {
	n := htStart(t, nil)
	s := nodetest.OpenStream(t, n, "", nil)
	e := nodetest.Append(t, n.Store(), store.AppendInput{})
	if got := s.NextEvent(t).ID; got != e.ID {
		t.Fatalf("got %s, want %s", got, e.ID)
	}
}

func TestSSE_ResumeAfterCursor(t *testing.T) {
	cases := []struct {
		name   string
		query  func(ids []string) string
		header func(ids []string) map[string]string
		want   func(ids []string) []string
	}{
		{"since_event_id",
			func(ids []string) string { return "?since_event_id=" + ids[0] },
			func([]string) map[string]string { return nil },
			func(ids []string) []string { return ids[1:] }},
		{"Last-Event-ID",
			func([]string) string { return "" },
			func(ids []string) map[string]string { return map[string]string{"Last-Event-ID": ids[1]} },
			func(ids []string) []string { return ids[2:] }},
		{"since_event_id wins over Last-Event-ID",
			func(ids []string) string { return "?since_event_id=" + ids[0] },
			func(ids []string) map[string]string { return map[string]string{"Last-Event-ID": ids[1]} },
			func(ids []string) []string { return ids[1:] }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := htStart(t, nil)
			var ids []string
			for range 3 {
				ids = append(ids, nodetest.Append(t, n.Store(), store.AppendInput{}).ID)
			}
			s := nodetest.OpenStream(t, n, tc.query(ids), tc.header(ids))
			for _, want := range tc.want(ids) {
				if got := s.NextEvent(t).ID; got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
			e4 := nodetest.Append(t, n.Store(), store.AppendInput{})
			if got := s.NextEvent(t).ID; got != e4.ID {
				t.Fatalf("tail: got %s, want %s", got, e4.ID)
			}
		})
	}
}

func TestSSE_ResumeAtNewestEventWaitsForTheNext(t *testing.T) {
	n := htStart(t, nil)
	e1 := nodetest.Append(t, n.Store(), store.AppendInput{})
	s := nodetest.OpenStream(t, n, "?since_event_id="+e1.ID, nil)
	e2 := nodetest.Append(t, n.Store(), store.AppendInput{})
	if got := s.NextEvent(t).ID; got != e2.ID {
		t.Fatalf("got %s, want %s", got, e2.ID)
	}
}

func TestSSE_Filters(t *testing.T) {
	n := htStart(t, nil)
	s := nodetest.OpenStream(t, n, "?stream=project/x&from_agent=bob&to_agent=carol", nil)
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "alice", ToAgent: "carol"})                        // other writer
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "bob", ToAgent: "dave"})                           // other target
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "bob", ToAgent: "carol", Stream: "project/y"})     // other stream
	want := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "bob", ToAgent: "*", Stream: "project/x"}) // broadcast
	if got := s.NextEvent(t).ID; got != want.ID {
		t.Fatalf("got %s, want the broadcast %s", got, want.ID)
	}
}

func TestSSE_BadRequestsAre400BeforeStreaming(t *testing.T) {
	n := htStart(t, nil)
	cases := []struct {
		query  string
		header map[string]string
		want   string // the error text, or its prefix when it ends in "..."
	}{
		{"?type=Task.Request", nil, "type='Task.Request' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"?status=done", nil, "status='done' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"?from_agent=%20%20", nil, "from_agent must be a non-empty string"},
		{"?stream=" + strings.Repeat("s", 257), nil, "stream exceeds maximum length of 256 characters"},
		{"?since_event_id=evt_nope", nil, "since_event_id 'evt_nope' not found..."},
		{"", map[string]string{"Last-Event-ID": "evt_gone"}, "Last-Event-ID header 'evt_gone' not found..."}, // names the header (docs/compatibility.md)
		{"?cursor=bogus", nil, "cursor 'bogus' is not a valid lsnode cursor..."},
	}
	for _, tc := range cases {
		r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream" + tc.query, Header: tc.header})
		if r.Status != 400 || r.Header.Get("Content-Type") != contentJSON {
			t.Errorf("%s: %d %q %s", tc.query, r.Status, r.Header.Get("Content-Type"), r.Body)
			continue
		}
		msg, _ := nodetest.JSON(t, r)["error"].(string)
		if p, ok := strings.CutSuffix(tc.want, "..."); ok && strings.HasPrefix(msg, p) || msg == tc.want {
			continue
		}
		t.Errorf("%s: error %q, want %q", tc.query, msg, tc.want)
	}
}

func TestSSE_HeartbeatAfterIdleInterval(t *testing.T) {
	n := htStart(t, func(c *Options) { c.SSEHeartbeat = 30 * time.Millisecond })
	start := time.Now() // before the stream's idle clock starts
	s := nodetest.OpenStream(t, n, "", nil)
	f := s.Next(t)
	if !f.IsComment() || len(f.Comments) != 1 || f.Comments[0] != "ping" {
		t.Fatalf("got %+v, want a ping comment", f)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("ping came before the idle interval")
	}
	// An event resets the idle clock, and the next ping still comes.
	e := nodetest.Append(t, n.Store(), store.AppendInput{})
	if got := s.NextEvent(t).ID; got != e.ID {
		t.Fatalf("got %s", got)
	}
	if f := s.Next(t); !f.IsComment() {
		t.Fatalf("got %+v, want a ping", f)
	}
}

func TestSSE_ClientCap(t *testing.T) {
	n := htStart(t, func(c *Options) { c.SSEMaxClients = 1 })
	first := nodetest.OpenStream(t, n, "", nil)
	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream"})
	if r.Status != 503 || r.Header.Get("Retry-After") != "5" || r.Header.Get("Content-Length") != "0" || r.Body != "" {
		t.Fatalf("over the cap: %d %v %q", r.Status, r.Header, r.Body)
	}
	// Go's client reports Connection: close as Close on the response; the
	// transport hides the header itself.
	// A bad request is still a 400, checked before the slot.
	if r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream?type=BAD"}); r.Status != 400 {
		t.Fatalf("bad filter over the cap: %d", r.Status)
	}
	first.Close()
	testwait.Until(t, 10*time.Second, "the slot to free", func() bool { return n.sse.active() == 0 })
	nodetest.OpenStream(t, n, "", nil)
}

func TestSSE_CapConnectionClose(t *testing.T) {
	n := htStart(t, func(c *Options) { c.SSEMaxClients = 0 })
	resp, err := http.Get(n.URL() + "/logstream/stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || !resp.Close {
		t.Fatalf("status %d, close %v: a zero cap refuses every stream and closes", resp.StatusCode, resp.Close)
	}
}

func TestSSE_PortableCursor(t *testing.T) {
	n := htStart(t, nil)
	e1 := nodetest.Append(t, n.Store(), store.AppendInput{})
	cursor := nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events", ""))["cursor"].(string)
	e2 := nodetest.Append(t, n.Store(), store.AppendInput{})
	s := nodetest.OpenStream(t, n, "?cursor="+url.QueryEscape(cursor), nil)
	if got := s.NextEvent(t).ID; got != e2.ID {
		t.Fatalf("got %s, want %s (not %s, which the cursor covers)", got, e2.ID, e1.ID)
	}
	f := s.Next(t)
	if len(f.Comments) != 1 || !strings.HasPrefix(f.Comments[0], "cursor c1.") {
		t.Fatalf("got %+v, want a cursor comment", f)
	}
	// The comment's cursor resumes after e2.
	next := strings.TrimPrefix(f.Comments[0], "cursor ")
	e3 := nodetest.Append(t, n.Store(), store.AppendInput{})
	s2 := nodetest.OpenStream(t, n, "?cursor="+url.QueryEscape(next), nil)
	if got := s2.NextEvent(t).ID; got != e3.ID {
		t.Fatalf("resumed: got %s, want %s", got, e3.ID)
	}
}

func TestSSE_FullPagesFollowEachOther(t *testing.T) {
	n := htStart(t, nil)
	first := nodetest.Append(t, n.Store(), store.AppendInput{})
	const total = sseBatchLimit*2 + 7
	var want []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < total/8+1; i++ {
				w, err := n.Store().Append(context.Background(),
					store.AppendInput{Type: "x", Stream: "s", Room: "r", FromAgent: "a"})
				if err != nil {
					t.Error(err) // not Fatal: this is not the test goroutine
					return
				}
				mu.Lock()
				want = append(want, w.Event.ID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	s := nodetest.OpenStream(t, n, "?since_event_id="+first.ID, nil)
	seen := map[string]bool{}
	var lastSeq float64
	for range want {
		ev := frameEvent(t, s.NextEvent(t))
		if seq := ev["seq"].(float64); seq <= lastSeq {
			t.Fatalf("seq %v after %v", seq, lastSeq)
		} else {
			lastSeq = seq
		}
		seen[ev["id"].(string)] = true
	}
	for _, id := range want {
		if !seen[id] {
			t.Fatalf("event %s never streamed", id)
		}
	}
}

func TestSSE_ShutdownClosesStreams(t *testing.T) {
	n := htStart(t, nil)
	s := nodetest.OpenStream(t, n, "", nil)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- n.Shutdown(ctx)
	}()
	if _, err := s.Reader().Next(); err != io.EOF {
		t.Fatalf("stream read after shutdown: %v, want EOF", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestSSE_PagesCutBySizeFollowEachOther: pages cut short at the size bound
// are followed at once, as full pages are, so a backlog of big events is
// streamed whole with no further commit to wake the stream.
func TestSSE_PagesCutBySizeFollowEachOther(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir(), MaxPageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := htStart(t, func(c *Options) { c.Store = st })
	first := nodetest.Append(t, n.Store(), store.AppendInput{})
	var want []string
	for i := range 12 { // 12 x 200 KiB: three pages of at most 5 under 1 MiB
		w, err := n.Store().Append(context.Background(), store.AppendInput{Type: "x", Stream: "s", Room: "r", FromAgent: "a",
			Body: fmt.Sprint(i) + strings.Repeat("b", 200<<10)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, w.Event.ID)
	}
	s := nodetest.OpenStream(t, n, "?since_event_id="+first.ID, nil)
	for i, id := range want {
		if got := frameEvent(t, s.NextEvent(t))["id"]; got != id {
			t.Fatalf("event %d streamed = %v, want %s", i, got, id)
		}
	}
}

// TestSSE_ResumeAfterPaddedCursor: the hub strips since_event_id like any
// routing field, so a cursor with spaces around it resumes as the bare id
// does, also when nothing follows it yet.
func TestSSE_ResumeAfterPaddedCursor(t *testing.T) {
	n := htStart(t, nil)
	e1 := nodetest.Append(t, n.Store(), store.AppendInput{})
	s := nodetest.OpenStream(t, n, "?since_event_id="+url.QueryEscape(" "+e1.ID+" "), nil)
	e2 := nodetest.Append(t, n.Store(), store.AppendInput{})
	if got := s.NextEvent(t).ID; got != e2.ID {
		t.Fatalf("got %s, want %s", got, e2.ID)
	}
}
