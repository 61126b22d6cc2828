package mcp

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// BenchmarkMCPWaitWake measures how long an event_wait blocked in the
// store takes to answer after a matching append: from the start of the
// append (made directly on the store) to the waiter's HTTP response. It
// splits that into the store's part (the start of the append to the return
// of store.Wait: the commit, the wake-up and the re-read) and the reply's
// (rendering, the HTTP response, the client receiving it). With idle=N,
// N more waits block in the store on a stream nothing is appended to, as
// other agents' waits would.
func BenchmarkMCPWaitWake(b *testing.B) {
	for _, idle := range []int{0, 32} {
		b.Run(fmt.Sprintf("idle=%d", idle), func(b *testing.B) { benchWaitWake(b, idle) })
	}
}

func benchWaitWake(b *testing.B, idle int) {
	h, probe := newProbedHarness(b, Options{})
	ctx := context.Background()
	stopIdle := nodetest.IdleWaits(b, h.store, idle)
	defer stopIdle()
	in := store.AppendInput{Type: "bench.wake", Stream: "s", Room: "r", FromAgent: "a"}
	last, err := h.store.Append(ctx, in)
	if err != nil {
		b.Fatal(err)
	}
	wakes := make([]time.Duration, 0, b.N)
	appends := make([]time.Duration, 0, b.N)
	stores := make([]time.Duration, 0, b.N)
	replies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		done := make(chan nodetest.RPCReply, 1)
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
		end := time.Now()
		returned := <-probe.returned
		wakes = append(wakes, end.Sub(start))
		stores = append(stores, returned.Sub(start))
		replies = append(replies, end.Sub(returned))
		if p := r.Payload(b); p["timed_out"] != false {
			b.Fatalf("wait timed out: %v", p)
		}
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(wakes, 0.50)), "wake-p50-ms")
	b.ReportMetric(ms(percentile(wakes, 0.99)), "wake-p99-ms")
	b.ReportMetric(ms(percentile(appends, 0.50)), "append-p50-ms")
	b.ReportMetric(ms(percentile(stores, 0.99)), "store-p99-ms")
	b.ReportMetric(ms(percentile(replies, 0.99)), "reply-p99-ms")
}

func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*q+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
