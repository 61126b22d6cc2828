package store

import (
	"context"
	"reflect"
	"testing"
	"time"
)

func TestRecentAgents_FoldsTheNewestEvents(t *testing.T) {
	s, wall := openReplica(t, "rep_000000000001")
	ctx := context.Background()
	for _, agent := range []string{"alice", "bob", "alice", "carol", "carol"} {
		if _, err := s.Append(ctx, note(agent, "x")); err != nil {
			t.Fatal(err)
		}
		wall.Advance(time.Second)
	}
	all, err := s.Agents(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, read, err := s.RecentAgents(ctx, time.Minute, 100)
	if err != nil || read != 5 || !reflect.DeepEqual(got, all) {
		t.Fatalf("over more events than the log holds: %+v (%d read, %v); want Agents' %+v", got, read, err, all)
	}
	got, read, err = s.RecentAgents(ctx, time.Minute, 3)
	if err != nil || read != 3 || len(got) != 2 || got[0].Agent != "alice" || got[0].Events != 1 || got[1].Agent != "carol" ||
		got[1].Events != 2 || got[0].LastHLC != all[0].LastHLC {
		t.Fatalf("the newest 3 events: %+v (%d read, %v)", got, read, err)
	}
	if _, _, err := s.RecentAgents(ctx, time.Minute, 0); err == nil {
		t.Fatal("n = 0 accepted")
	}
}
