package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node"
)

// streamProxy stands between a tail and a node: it passes every request
// through, can cut the open streams, and holds each new stream until
// released, so a test decides what happens while the tail is away.
type streamProxy struct {
	srv    *httptest.Server
	mu     sync.Mutex
	cuts   []context.CancelFunc
	held   bool
	gate   chan struct{}
	hits   int // stream requests seen
	opened int // streams the node answered
}

func newStreamProxy(t *testing.T, target string) *streamProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &streamProxy{gate: make(chan struct{})}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) },
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.URL.Path == "/logstream/stream" {
				p.mu.Lock()
				p.opened++
				p.mu.Unlock()
			}
			return nil
		}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/logstream/stream" {
			rp.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		p.mu.Lock()
		p.hits++
		p.cuts = append(p.cuts, cancel)
		held, gate := p.held, p.gate
		p.mu.Unlock()
		if held {
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
		}
		rp.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// cutAndHold ends the open streams and holds the next ones.
func (p *streamProxy) cutAndHold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held = true
	for _, c := range p.cuts {
		c()
	}
	p.cuts = nil
}

func (p *streamProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held = false
	close(p.gate)
}

func (p *streamProxy) streamHits() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits
}

// streamsOpened counts the streams the node answered, whose answer the
// proxy then passes on.
func (p *streamProxy) streamsOpened() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opened
}

// startTail runs `lsnode events tail` until the test ends.
func startTail(t *testing.T, args ...string) (out, errOut *syncBuffer, stop func() int) {
	t.Helper()
	out, errOut = &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"events", "tail"}, args...), out, errOut) }()
	stopped := false
	var code int
	stop = func() int {
		if !stopped {
			cancel()
			code, stopped = <-done, true
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return out, errOut, stop
}

// A tail started at "now" (no --since or --cursor) that loses its
// stream before printing anything still shows the events written while
// it was away, and says why it reconnects.
func TestTail_FromNowResumesAcrossDisconnect(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	old, err := n.Store().Append(context.Background(), appendInput("before the tail"))
	if err != nil {
		t.Fatal(err)
	}
	p := newStreamProxy(t, n.URL())
	out, errOut, stop := startTail(t, "--addr="+p.srv.URL, "--json")
	// Cut only a stream the node answered: a cut before that is the
	// proxy's 502, another case (TestTail_WaitsOutGatewayErrors).
	testwait.Until(t, tailWithin, "the stream", func() bool { return p.streamsOpened() == 1 })

	p.cutAndHold()
	testwait.Until(t, tailWithin, "the reconnect", func() bool { return p.streamHits() == 2 })
	away, err := n.Store().Append(context.Background(), appendInput("while away"))
	if err != nil {
		t.Fatal(err)
	}
	p.release()
	after, err := n.Store().Append(context.Background(), appendInput("after"))
	if err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, tailWithin, "the event after the reconnect", func() bool { return strings.Contains(out.String(), after.Event.ID) })
	if code := stop(); code != 0 {
		t.Fatalf("tail exit %d: %s", code, errOut.String())
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct{ ID string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("tail --json line %q: %v", l, err)
		}
		ids = append(ids, e.ID)
	}
	if want := []string{away.Event.ID, after.Event.ID}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("tail printed %v, want %v (not %s, written before it started)", ids, want, old.Event.ID)
	}
	if e := errOut.String(); !strings.Contains(e, "; reconnecting in") || strings.Contains(e, "<nil>") {
		t.Fatalf("reconnect notice %q does not say why", e)
	}
}

// A per-client stream cap (429 with Retry-After) is waited out like the
// node's global cap (503), not taken as a final refusal.
func TestTail_WaitsOutPerClientCap(t *testing.T) {
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr = t.TempDir(), "127.0.0.1:0"
	cfg.HTTP.MaxStreamsPerClient = 1
	n := startNodeWith(t, cfg)
	resp, err := http.Get(n.URL() + "/logstream/stream") // takes the client's one slot
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, stop := startTail(t, "--addr="+n.URL(), "--json")
	testwait.Until(t, tailWithin, "the refusal", func() bool { return strings.Contains(errOut.String(), "reconnecting in") })
	resp.Body.Close()
	e, err := n.Store().Append(context.Background(), appendInput("hello"))
	if err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, tailWithin, "the event", func() bool { return strings.Contains(out.String(), e.Event.ID) })
	if code := stop(); code != 0 {
		t.Fatalf("tail exit %d, stderr %q", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "reconnecting in 5s") {
		t.Fatalf("stderr %q: want the node's Retry-After honoured", errOut.String())
	}
}

// A stream that goes silent past the node's heartbeat (a node host gone
// without closing the connection, a laptop resumed on another network)
// is given up and reopened, rather than waited on for ever.
func TestTail_ReconnectsASilentStream(t *testing.T) {
	defer func(d time.Duration) { tailIdleTimeout = d }(tailIdleTimeout)
	tailIdleTimeout = 100 * time.Millisecond
	var mu sync.Mutex
	var lastIDs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		first := len(lastIDs) == 1
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if !first {
			fmt.Fprint(w, "id: evt_2\nevent: logstream\ndata: {\"id\": \"evt_2\"}\n\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence, the connection left open
	}))
	t.Cleanup(srv.Close)
	out, errOut, stop := startTail(t, "--addr="+srv.URL, "--json", "--since=evt_1")
	testwait.Until(t, tailWithin, "the event of the second stream", func() bool { return strings.Contains(out.String(), "evt_2") })
	if code := stop(); code != 0 {
		t.Fatalf("tail exit %d: %s", code, errOut.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if lastIDs[1] != "evt_1" || !strings.Contains(errOut.String(), "no data from the node for 100ms; reconnecting") {
		t.Fatalf("reconnect from %q, stderr %q", lastIDs[1], errOut.String())
	}
}

// A proxy in front of a node answers 502 or 504 while the node is not
// there (restarting, moved): the tail waits those out as it does the
// stream caps, and still stops on a refusal of the node's own.
func TestTail_WaitsOutGatewayErrors(t *testing.T) {
	var mu sync.Mutex
	answers := []int{http.StatusBadGateway, http.StatusGatewayTimeout, http.StatusOK, http.StatusForbidden}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		code := answers[0]
		if len(answers) > 1 {
			answers = answers[1:]
		}
		mu.Unlock()
		if code != http.StatusOK {
			http.Error(w, http.StatusText(code), code)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: evt_1\nevent: logstream\ndata: {\"id\": \"evt_1\"}\n\n") // then the stream ends
	}))
	t.Cleanup(srv.Close)
	out, errOut, stop := startTail(t, "--addr="+srv.URL, "--json", "--since=evt_0")
	testwait.Until(t, tailWithin, "the tail to stop on the 403", func() bool { return strings.Contains(errOut.String(), "403") })
	if code := stop(); code == 0 || !strings.Contains(out.String(), "evt_1") {
		t.Fatalf("tail exit %d, out %q, stderr %q: want evt_1 printed, then a stop on the 403", code, out.String(), errOut.String())
	}
	for _, want := range []string{"502", "504"} {
		if !strings.Contains(errOut.String(), want) {
			t.Fatalf("stderr %q: want the %s waited out with a reconnect notice", errOut.String(), want)
		}
	}
}
