package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// BenchmarkPutArtifact puts 1 KiB notes into a fresh store from one
// caller (a commit per put) and from 8 callers at once (their puts share
// commits); b.N puts in all.
//
//	go test -run '^$' -bench PutArtifact -benchtime 4000x ./store/
func BenchmarkPutArtifact(b *testing.B) {
	for _, callers := range []int{1, 8} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s := openReplicaAt(b, b.TempDir(), repA, hlc.NewManualClock(testClockStart))
			body := strings.Repeat("x", 1024)
			var wg sync.WaitGroup
			b.ResetTimer()
			for c := range callers {
				wg.Go(func() {
					for i := c; i < b.N; i += callers {
						in := ArtifactInput{Kind: "note", Content: fmt.Sprint(body, i), CreatedBy: "ana"}
						if _, err := s.PutArtifact(context.Background(), in); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
