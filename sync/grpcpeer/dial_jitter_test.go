package grpcpeer

import (
	"testing"
	"time"
)

func TestJittered_SpreadsTheWaitAroundIt(t *testing.T) {
	for _, tc := range []struct {
		u    float64
		want time.Duration
	}{
		{0, 800 * time.Millisecond},
		{0.5, time.Second},
		{0.75, 1100 * time.Millisecond},
		{0.999, 1199600 * time.Microsecond},
	} {
		if got := jittered(time.Second, tc.u); got != tc.want {
			t.Errorf("jittered(1s, %v) = %v, want %v", tc.u, got, tc.want)
		}
	}
}
