package node

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/node/sseclient"
	"github.com/lsnode/lsnode/store"
)

const htToken = "s3cret-token"

// htStart starts a node on a free loopback port in a temp dir, with a
// short heartbeat, and shuts it down when the test ends.
func htStart(t testing.TB, mutate func(*Config)) *Node {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Registry = prometheus.NewRegistry()
	cfg.SSEHeartbeat = time.Hour // tests that want pings shorten it
	if mutate != nil {
		mutate(&cfg)
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := n.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return n
}

// htReq is one request of a test.
type htReq struct {
	method string // default GET
	path   string
	header map[string]string
	body   string
}

// htResp is a complete answer.
type htResp struct {
	status int
	header http.Header
	body   string
}

// htDo sends req to n and reads the whole answer.
func htDo(t testing.TB, n *Node, req htReq) htResp {
	t.Helper()
	if req.method == "" {
		req.method = http.MethodGet
	}
	r, err := http.NewRequest(req.method, n.URL()+req.path, strings.NewReader(req.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range req.header {
		if strings.EqualFold(k, "Host") {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.method, req.path, err)
	}
	return htResp{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// htGet is a GET with an optional bearer token.
func htGet(t testing.TB, n *Node, path, token string) htResp {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return htDo(t, n, htReq{path: path, header: h})
}

// htJSON decodes a JSON answer into a generic map.
func htJSON(t testing.TB, r htResp) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// htAppend appends an event through the store and returns it.
func htAppend(t testing.TB, n *Node, in store.AppendInput) store.Event {
	t.Helper()
	if in.Type == "" {
		in.Type = "task.request"
	}
	if in.Stream == "" {
		in.Stream = "project/x"
	}
	if in.Room == "" {
		in.Room = "delegation"
	}
	if in.FromAgent == "" {
		in.FromAgent = "alice"
	}
	w, err := n.Store().Append(context.Background(), in)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return w.Event
}

// htStream is an open SSE connection.
type htStream struct {
	resp *http.Response
	rd   *sseclient.Reader
	stop context.CancelFunc
}

// htOpenStream opens /logstream/stream<query> and checks the 200 headers.
func htOpenStream(t testing.TB, n *Node, query string, header map[string]string) *htStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+"/logstream/stream"+query, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		cancel()
		t.Fatalf("open stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("open stream: status %d: %s", resp.StatusCode, b)
	}
	s := &htStream{resp: resp, rd: sseclient.NewReader(resp.Body), stop: cancel}
	t.Cleanup(s.close)
	return s
}

func (s *htStream) close() {
	s.stop()
	s.resp.Body.Close()
}

// next reads the next frame, failing the test after a deadline.
func (s *htStream) next(t testing.TB) sseclient.Frame {
	t.Helper()
	type result struct {
		f   sseclient.Frame
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := s.rd.Next()
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read frame: %v", r.err)
		}
		return r.f
	case <-time.After(10 * time.Second):
		s.close()
		t.Fatal("no frame within 10s")
	}
	return sseclient.Frame{}
}

// nextEvent reads frames up to the next event frame, skipping comments.
func (s *htStream) nextEvent(t testing.TB) sseclient.Frame {
	t.Helper()
	for {
		if f := s.next(t); !f.IsComment() {
			return f
		}
	}
}

// htEventually polls cond until it holds or the deadline passes.
func htEventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// htMetric sums the samples of one metric family of the node's registry
// (counters and gauges).
func htMetric(t testing.TB, n *Node, name string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
