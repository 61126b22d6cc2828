package store

import (
	"context"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestSizes_LastWriteSurvivesARestart: a restarted store that commits
// nothing reports as its last write the HLC time of the newest op it
// holds, a replicated one newer than its own here, and its own newest op
// as its last local write.
func TestSizes_LastWriteSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	b, wallB := openReplica(t, repB)
	mustAppend(t, b, note("b", "x"))
	dir := t.TempDir()
	wallA := hlc.NewManualClock(testClockStart)
	a := openReplicaAt(t, dir, repA, wallA)
	own := mustAppend(t, a, note("a", "x"))
	wallB.Advance(time.Hour)
	newest := mustAppend(t, b, note("b", "y"))
	exchange(t, b, a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	wallA.Advance(24 * time.Hour) // the restart comes a day later
	again := openReplicaAt(t, dir, repA, wallA)
	z, err := again.Sizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := hlcTime(t, newest.HLC); !z.LastCommit.Equal(want) {
		t.Fatalf("last write after a restart %v, want %v (the newest op held)", z.LastCommit, want)
	}
	if want := hlcTime(t, own.HLC); !z.LastLocalWrite.Equal(want) {
		t.Fatalf("last local write after a restart %v, want %v", z.LastLocalWrite, want)
	}
}

func hlcTime(t *testing.T, stamp string) time.Time {
	t.Helper()
	ts, err := hlc.Parse(stamp)
	if err != nil {
		t.Fatal(err)
	}
	return time.UnixMilli(ts.WallMS).UTC()
}
