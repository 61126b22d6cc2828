package httpapi

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// BenchmarkSSEDelivery measures the time from the start of an append to
// the receipt of its frame by every open stream (push on commit: no
// polling interval), and reports p50 and p99 over b.N appends, with the
// median of the append call alone for comparison, and the process's CPU
// per append (the streams' clients included).
func BenchmarkSSEDelivery(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			n := htStart(b, nil)
			type recv struct {
				id string
				at time.Time
			}
			got := make(chan recv, 1024)
			for c := 0; c < clients; c++ {
				s := nodetest.OpenStream(b, n, "", nil)
				go func() {
					for {
						f, err := s.Reader().Next()
						if err != nil {
							return
						}
						if !f.IsComment() {
							got <- recv{f.ID, time.Now()}
						}
					}
				}()
			}
			lat, commit := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			b.ResetTimer()
			cpu := nodetest.StartCPU()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				e := nodetest.Append(b, n.Store(), store.AppendInput{Body: "bench"})
				commit = append(commit, time.Since(start))
				var last time.Time
				for c := 0; c < clients; c++ {
					r := <-got
					if r.id != e.ID {
						b.Fatalf("frame %s, want %s", r.id, e.ID)
					}
					last = r.at
				}
				lat = append(lat, last.Sub(start))
			}
			b.StopTimer()
			cpu.Report(b)
			slices.Sort(lat)
			slices.Sort(commit)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(commit[len(commit)/2].Microseconds()), "append-p50-µs")
		})
	}
}
