package store

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestNewID_SortsInMintingOrderWithinASecond: ids of one second keep the
// Python hub's format, are distinct, sort in the order they were minted,
// and do not follow from one another (their lower half is random).
func TestNewID_SortsInMintingOrderWithinASecond(t *testing.T) {
	format := regexp.MustCompile(`^evt_20260702T211409_[0-9a-f]{12}$`)
	at := time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC)
	var ids []string
	lowHalves := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := newID("evt", at.Add(time.Duration(i)*time.Microsecond))
		if !format.MatchString(id) {
			t.Fatalf("id %q does not have the hub's format", id)
		}
		ids = append(ids, id)
		lowHalves[id[len(id)-6:]] = true
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("ids of one second do not sort in minting order")
	}
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("duplicate ids")
	}
	// 1000 draws of 24 random bits: a handful of repeats at most.
	if len(lowHalves) < 990 {
		t.Fatalf("only %d distinct random halves in 1000 ids", len(lowHalves))
	}
}
