package grpcpeer

import (
	"testing"
	"time"

	lssync "github.com/lsnode/lsnode/sync"
)

func TestLagSeconds(t *testing.T) {
	now := time.UnixMilli(1_800_000_010_000)
	tests := []struct {
		name      string
		st        lssync.LinkStatus
		want      float64
		wantKnown bool
	}{
		{"caught up", lssync.LinkStatus{Ready: true, LagOps: 0, BehindMS: 1_800_000_000_000}, 0, true},
		{"not ready yet", lssync.LinkStatus{Ready: false}, 0, false},
		{"behind, no batch stored yet", lssync.LinkStatus{Ready: true, LagOps: 5}, 0, false},
		{"behind by the oldest op of the latest batch", lssync.LinkStatus{Ready: true, LagOps: 5, BehindMS: 1_800_000_007_500}, 2.5, true},
		{"stamp ahead of local wall time", lssync.LinkStatus{Ready: true, LagOps: 1, BehindMS: 1_800_000_020_000}, 0, true},
	}
	for _, tc := range tests {
		got, known := lagSeconds(tc.st, now)
		if got != tc.want || known != tc.wantKnown {
			t.Errorf("%s: lagSeconds = %v, %v; want %v, %v", tc.name, got, known, tc.want, tc.wantKnown)
		}
	}
}
