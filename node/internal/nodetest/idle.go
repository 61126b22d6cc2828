package nodetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
)

// IdleWaits starts n goroutines waiting in st, one wait after another, on
// a stream nothing is appended to; the returned func stops and joins them.
func IdleWaits(b *testing.B, st *store.Store, n int) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, _, err := st.Wait(ctx, store.Filter{Stream: "idle"}, time.Minute); err != nil && ctx.Err() == nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
