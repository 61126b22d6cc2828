package node

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
)

// benchClients is how many clients post at once in BenchmarkMCPAppend.
const benchClients = 32

// BenchmarkMCPAppend measures event_append throughput through POST /mcp:
// 32 concurrent clients post bare tools/call requests (no initialize) to
// an HTTP server backed by a real store in a temp dir ("sqlite"), or by a
// store that does nothing ("none": the HTTP, SDK and tool layers alone).
func BenchmarkMCPAppend(b *testing.B) {
	b.Run("store=sqlite", func(b *testing.B) { benchAppend(b, MCPOptions{}) })
	b.Run("store=none", func(b *testing.B) {
		benchAppend(b, MCPOptions{Store: &faultyLog{written: store.Written{Event: store.Event{ID: "evt_1"}}}})
	})
}

func benchAppend(b *testing.B, opts MCPOptions) {
	h := newMCPHarness(b, opts)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"bench.append","stream":"project/bench","room":"delegation","from_agent":"bench","to_agent":"peer","body":"hello"}}}`
	ok := []byte(`\"success\": true`)
	b.SetParallelism(max(1, benchClients/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(h.url, "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			out, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(out, ok) {
				b.Errorf("append: %d %s %v", resp.StatusCode, out, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

// BenchmarkMCPWaitWake measures how long an event_wait blocked in the
// store takes to answer after a matching append: from the start of the
// append (made directly on the store) to the waiter's HTTP response.
func BenchmarkMCPWaitWake(b *testing.B) {
	h, probe := newProbedHarness(b, MCPOptions{})
	ctx := context.Background()
	in := store.AppendInput{Type: "bench.wake", Stream: "s", Room: "r", FromAgent: "a"}
	last, err := h.store.Append(ctx, in)
	if err != nil {
		b.Fatal(err)
	}
	wakes := make([]time.Duration, 0, b.N)
	appends := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		done := make(chan rpcReply, 1)
		go func(after string) {
			done <- h.call(toolEventWait, `{"stream":"s","since_event_id":"`+after+`","timeout_ms":10000}`)
		}(last.Event.ID)
		<-probe.entered
		start := time.Now()
		if last, err = h.store.Append(ctx, in); err != nil {
			b.Fatal(err)
		}
		appends = append(appends, time.Since(start))
		r := <-done
		wakes = append(wakes, time.Since(start))
		if p := r.payload(b); p["timed_out"] != false {
			b.Fatalf("wait timed out: %v", p)
		}
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(wakes, 0.50)), "wake-p50-ms")
	b.ReportMetric(ms(percentile(wakes, 0.99)), "wake-p99-ms")
	b.ReportMetric(ms(percentile(appends, 0.50)), "append-p50-ms")
}

func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*q+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
