package lssync

import (
	"testing"
	"time"
)

func TestLagSeconds(t *testing.T) {
	now := time.UnixMilli(1_800_000_010_000)
	tests := []struct {
		name      string
		st        LinkStatus
		want      float64
		wantKnown bool
	}{
		{"caught up", LinkStatus{Ready: true, LagOps: 0, BehindMS: 1_800_000_000_000}, 0, true},
		{"not ready yet", LinkStatus{Ready: false}, 0, false},
		{"behind, no batch stored yet", LinkStatus{Ready: true, LagOps: 5}, 0, false},
		{"behind by the oldest op of the latest batch", LinkStatus{Ready: true, LagOps: 5, BehindMS: 1_800_000_007_500}, 2.5, true},
		{"stamp ahead of local wall time", LinkStatus{Ready: true, LagOps: 1, BehindMS: 1_800_000_020_000}, 0, true},
	}
	for _, tc := range tests {
		got, known := lagSeconds(tc.st, now)
		if got != tc.want || known != tc.wantKnown {
			t.Errorf("%s: lagSeconds = %v, %v; want %v, %v", tc.name, got, known, tc.want, tc.wantKnown)
		}
	}
}
