//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/sseclient"
)

// Tools of the replication benchmarks (bench_replication_test.go) and the
// apply-delay accuracy test: an open-loop append load, SSE watchers that
// time when each event becomes visible on a node, /proc figures of a
// node process and the apply-delay histogram read from /metrics. Every
// time is read from the test process's monotonic clock.

// benchClient carries the load: enough idle connections per node for the
// load's workers (the default transport keeps 2).
var benchClient = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64},
}

// appended is one acknowledged append of a load.
type appended struct {
	ID   string
	Node int           // index of the node it was written on
	Sent time.Duration // since the load's epoch: request sent
	Ack  time.Duration // answer received (the origin commit is before it)
}

// benchLoad appends at a steady rate on a set of nodes, round-robin,
// from a pool of workers: open loop, so a slow answer does not slow the
// schedule (ticks that find every worker busy wait in a queue and are
// counted as late).
type benchLoad struct {
	epoch time.Time
	mu    sync.Mutex
	acked []appended
	errs  []string
	late  int // appends that started more than 100 ms after their tick
}

// runLoad appends rate appends/s for d across nodes (round-robin) with
// workers goroutines, and returns when every append was answered.
func runLoad(ctx context.Context, epoch time.Time, nodes []*lsnodeProc, rate float64, d time.Duration, workers int) *benchLoad {
	l := &benchLoad{epoch: epoch}
	type job struct {
		n    int
		seq  int
		tick time.Time
	}
	jobs := make(chan job, int(rate*d.Seconds())+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for j := range jobs {
				start := time.Now()
				id, err := benchAppend(nodes[j.n], fmt.Sprintf("bench-n%d-w%d", j.n, w), fmt.Sprintf("load #%d", j.seq))
				ack := time.Now()
				l.mu.Lock()
				if start.Sub(j.tick) > 100*time.Millisecond {
					l.late++
				}
				if err != nil {
					l.errs = append(l.errs, err.Error())
				} else {
					l.acked = append(l.acked, appended{ID: id, Node: j.n, Sent: start.Sub(epoch), Ack: ack.Sub(epoch)})
				}
				l.mu.Unlock()
			}
		})
	}
	interval := time.Duration(float64(time.Second) / rate)
	begin := time.Now()
	total := int(rate * d.Seconds())
	for i := 0; i < total && ctx.Err() == nil; i++ {
		tick := begin.Add(time.Duration(i) * interval)
		if wait := time.Until(tick); wait > 0 {
			time.Sleep(wait)
		}
		jobs <- job{n: i % len(nodes), seq: i, tick: tick}
	}
	close(jobs)
	wg.Wait()
	return l
}

// Rate is the achieved append rate: acknowledged appends over the span
// from the first send to the last answer.
func (l *benchLoad) Rate() float64 {
	if len(l.acked) == 0 {
		return 0
	}
	first, last := l.acked[0].Sent, l.acked[0].Ack
	for _, a := range l.acked {
		first, last = min(first, a.Sent), max(last, a.Ack)
	}
	return float64(len(l.acked)) / (last - first).Seconds()
}

// benchAppend appends one note on p through MCP and returns its id.
func benchAppend(p *lsnodeProc, agent, body string) (string, error) {
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "mempalace_event_append", "arguments": map[string]any{
			"type": "note", "stream": "bench", "room": "replication", "from_agent": agent, "body": body}}})
	req, err := http.NewRequest("POST", p.URL+"/mcp", bytes.NewReader(call))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var rpc struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&rpc); err != nil {
		return "", fmt.Errorf("append: %d: %v", resp.StatusCode, err)
	}
	if rpc.Error != nil || rpc.Result.IsError || len(rpc.Result.Content) == 0 {
		return "", fmt.Errorf("append: %+v %+v", rpc.Error, rpc.Result)
	}
	var out struct {
		Event struct{ ID string }
	}
	if err := json.Unmarshal([]byte(rpc.Result.Content[0].Text), &out); err != nil || out.Event.ID == "" {
		return "", fmt.Errorf("append: no event id in %s", rpc.Result.Content[0].Text)
	}
	return out.Event.ID, nil
}

// sseWatch reads p's /logstream/stream from the newest event on and
// notes when each event id is first seen, until Stop.
type sseWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	seen   map[string]time.Duration // since epoch
	err    error
}

func watchSSE(t testing.TB, p *lsnodeProc, epoch time.Time) *sseWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &sseWatch{cancel: cancel, done: make(chan struct{}), seen: map[string]time.Duration{}}
	req, err := http.NewRequestWithContext(ctx, "GET", p.URL+"/logstream/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("SSE on %s: %v %v", p.URL, err, resp)
	}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		r := sseclient.NewReader(resp.Body)
		for {
			f, err := r.Next()
			if err != nil {
				if ctx.Err() == nil {
					w.mu.Lock()
					w.err = err
					w.mu.Unlock()
				}
				return
			}
			if f.ID == "" {
				continue
			}
			at := time.Since(epoch)
			w.mu.Lock()
			if _, ok := w.seen[f.ID]; !ok {
				w.seen[f.ID] = at
			}
			w.mu.Unlock()
		}
	}()
	t.Cleanup(w.Stop)
	return w
}

// Stop ends the stream and waits for the reader.
func (w *sseWatch) Stop() {
	w.cancel()
	<-w.done
}

// At is when id was seen, if it was.
func (w *sseWatch) At(id string) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.seen[id]
	return at, ok
}

// Err is why the stream ended early, if it did.
func (w *sseWatch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// waitSeen polls until every id is seen by every watcher.
func waitSeen(t testing.TB, within time.Duration, ids []string, watchers ...*sseWatch) {
	t.Helper()
	testwait.For(t, within, func() (bool, string) {
		missing := 0
		for _, w := range watchers {
			for _, id := range ids {
				if _, ok := w.At(id); !ok {
					missing++
				}
			}
			if err := w.Err(); err != nil {
				t.Fatalf("SSE stream ended: %v", err)
			}
		}
		return missing == 0, fmt.Sprintf("%d (event, node) pairs not seen", missing)
	})
}

// quantile is the nearest-rank q-quantile of xs (sorted in place).
func quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	rank := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(rank, len(xs)-1))]
}

// histogram is one cumulative Prometheus histogram: bucket upper bounds
// (+Inf last) and counts.
type histogram struct {
	le     []float64
	counts []float64
}

// scrapeHistogram reads name's buckets from p's /metrics.
func scrapeHistogram(t testing.TB, p *lsnodeProc, name string) histogram {
	t.Helper()
	body := scrapeMetrics(t, p)
	var h histogram
	sc := bufio.NewScanner(strings.NewReader(body))
	prefix := name + `_bucket{le="`
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		rest := line[len(prefix):]
		leStr, countStr, ok := strings.Cut(rest, `"} `)
		if !ok {
			t.Fatalf("metrics line %q", line)
		}
		le, err1 := strconv.ParseFloat(leStr, 64)
		count, err2 := strconv.ParseFloat(countStr, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("metrics line %q", line)
		}
		h.le = append(h.le, le)
		h.counts = append(h.counts, count)
	}
	if len(h.le) == 0 {
		t.Fatalf("no %s on %s/metrics", name, p.URL)
	}
	return h
}

// scrapeMetrics is p's /metrics text.
func scrapeMetrics(t testing.TB, p *lsnodeProc) string {
	t.Helper()
	req, _ := http.NewRequest("GET", p.URL+"/metrics", nil)
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := rpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// minus is h with the counts of before (an earlier scrape) taken off.
func (h histogram) minus(before histogram) histogram {
	out := histogram{le: h.le, counts: slices.Clone(h.counts)}
	for i := range out.counts {
		out.counts[i] -= before.counts[i]
	}
	return out
}

// Total is the number of observations.
func (h histogram) Total() float64 { return h.counts[len(h.counts)-1] }

// Quantile estimates the q-quantile the way PromQL's histogram_quantile
// does: linear interpolation inside the bucket holding rank q*total, the
// first bucket starting at 0, the +Inf bucket answered with the highest
// finite bound.
func (h histogram) Quantile(q float64) time.Duration {
	total := h.Total()
	if total == 0 {
		return 0
	}
	rank := q * total
	for i, c := range h.counts {
		if c < rank {
			continue
		}
		if math.IsInf(h.le[i], 1) {
			return time.Duration(h.le[i-1] * float64(time.Second))
		}
		lower, below := 0.0, 0.0
		if i > 0 {
			lower, below = h.le[i-1], h.counts[i-1]
		}
		v := lower + (h.le[i]-lower)*(rank-below)/(c-below)
		return time.Duration(v * float64(time.Second))
	}
	return time.Duration(h.le[len(h.le)-2] * float64(time.Second))
}

// loadAverage is /proc/loadavg's first three fields.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}
