package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomScope draws a read scope over the names and streams of the random
// logs of the read cache's property test (nil, everything, half the time),
// so that test also holds the cache's scope check to the SQL condition.
func randomScope(rng *rand.Rand) *ReadScope {
	if rng.IntN(2) == 0 {
		return nil
	}
	sc := &ReadScope{Broadcasts: rng.IntN(2) == 0}
	for _, p := range []string{"a0", "a[12]", "a*", "b?"} {
		if rng.IntN(3) == 0 {
			sc.Agents = append(sc.Agents, p)
		}
	}
	for _, p := range []string{"s1", "s*"} {
		if rng.IntN(4) == 0 {
			sc.Streams = append(sc.Streams, p)
		}
	}
	return sc
}

// scopeFixture appends one event per case and returns the ids by label.
func scopeFixture(t *testing.T, s *Store) map[string]string {
	t.Helper()
	ids := map[string]string{}
	add := func(label string, in AppendInput) {
		ids[label] = mustAppend(t, s, in).ID
	}
	add("to-pi", AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "boss", ToAgent: "pi@laptop"})
	add("from-pi", AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "pi@laptop", ToAgent: "boss"})
	add("to-ci", AppendInput{Type: "note", Stream: "project/b", Room: "r", FromAgent: "boss", ToAgent: "ci-7"})
	add("broadcast", AppendInput{Type: "note", Stream: "project/b", Room: "r", FromAgent: "boss", ToAgent: "*"})
	add("other", AppendInput{Type: "note", Stream: "project/b", Room: "r", FromAgent: "boss", ToAgent: "eve"})
	add("unaddressed", AppendInput{Type: "note", Stream: "ops/deploy", Room: "r", FromAgent: "boss"})
	add("nested", AppendInput{Type: "note", Stream: "ops/deploy/eu", Room: "r", FromAgent: "boss", ToAgent: "eve"})
	return ids
}

func TestReadScope_List(t *testing.T) {
	s, _ := openTestStore(t)
	ids := scopeFixture(t, s)
	cases := []struct {
		name  string
		scope *ReadScope
		want  []string
	}{
		{"everything", nil, []string{"to-pi", "from-pi", "to-ci", "broadcast", "other", "unaddressed", "nested"}},
		{"nothing", &ReadScope{}, nil},
		{"mailbox exact", &ReadScope{Agents: []string{"pi@laptop"}, Broadcasts: true}, []string{"to-pi", "from-pi", "broadcast"}},
		{"mailbox pattern", &ReadScope{Agents: []string{"ci-*"}, Broadcasts: true}, []string{"to-ci", "broadcast"}},
		{"mailbox without broadcasts", &ReadScope{Agents: []string{"ci-*"}}, []string{"to-ci"}},
		{"streams", &ReadScope{Streams: []string{"ops/*"}}, []string{"unaddressed"}},
		{"union", &ReadScope{Agents: []string{"pi@laptop"}, Streams: []string{"project/b"}},
			[]string{"to-pi", "from-pi", "to-ci", "broadcast", "other"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := s.List(context.Background(), Filter{Scope: tc.scope, Order: "asc", Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Events {
				got = append(got, e.ID)
			}
			var want []string
			for _, l := range tc.want {
				want = append(want, ids[l])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v (%v)", got, want, tc.want)
			}
			for label, id := range ids {
				vis, err := s.EventVisible(context.Background(), tc.scope, id)
				if err != nil {
					t.Fatal(err)
				}
				if vis != slices.Contains(tc.want, label) {
					t.Errorf("EventVisible(%s) = %v", label, vis)
				}
			}
		})
	}
}

// A to_agent filter (two merged index scans) keeps the scope in both arms.
func TestReadScope_WithToAgentFilter(t *testing.T) {
	s, _ := openTestStore(t)
	ids := scopeFixture(t, s)
	scope := &ReadScope{Agents: []string{"ci-*"}}
	page, err := s.List(context.Background(), Filter{Scope: scope, ToAgent: "ci-7", Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Events) != 1 || page.Events[0].ID != ids["to-ci"] {
		t.Fatalf("got %v", page.Events)
	}
}

// A scoped wait does not wake for events it may not read.
func TestReadScope_Wait(t *testing.T) {
	s, _ := openTestStore(t)
	ids := scopeFixture(t, s)
	scope := &ReadScope{Agents: []string{"pi@laptop"}}
	f := Filter{Scope: scope, SinceEventID: ids["nested"]}
	done := make(chan ListResult, 1)
	errs := make(chan error, 1)
	go func() {
		page, _, err := s.Wait(context.Background(), f, time.Minute)
		errs <- err
		done <- page
	}()
	mustAppend(t, s, AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "boss", ToAgent: "eve"})
	mine := mustAppend(t, s, AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "boss", ToAgent: "pi@laptop"})
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	page := <-done
	if len(page.Events) != 1 || page.Events[0].ID != mine.ID {
		t.Fatalf("wait woke with %v, want only %s", page.Events, mine.ID)
	}
}

func TestReadScope_Owed(t *testing.T) {
	s, _ := openTestStore(t)
	mustAppend(t, s, ask("boss", "eve", "c1"))
	mustAppend(t, s, AppendInput{Type: "task.request", Stream: "ops/x", Room: "delegation", FromAgent: "boss", ToAgent: "eve", Status: "open"})
	all, err := s.OwedIn(context.Background(), nil, "eve", "", 50)
	if err != nil || len(all) != 2 {
		t.Fatalf("unscoped owed: %v %v", all, err)
	}
	for _, tc := range []struct {
		scope *ReadScope
		want  int
	}{
		{&ReadScope{Agents: []string{"eve"}}, 2},
		{&ReadScope{Agents: []string{"e*"}}, 2},
		{&ReadScope{Agents: []string{"boss"}}, 2}, // the asker's mailbox, checked row by row
		{&ReadScope{Streams: []string{"ops/*"}}, 1},
		{&ReadScope{Streams: []string{"ops/x"}}, 1},
		{&ReadScope{Agents: []string{"pi@laptop"}, Broadcasts: true}, 0},
	} {
		got, err := s.OwedIn(context.Background(), tc.scope, "eve", "", 50)
		if err != nil || len(got) != tc.want {
			t.Errorf("scope %+v: %d events (%v), want %d", tc.scope, len(got), err, tc.want)
		}
	}
}

// A thread or a stream read through a scope keeps the events the scope
// reads and no other.
func TestReadScope_ThreadAndStream(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	toPi := mustAppend(t, s, AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "boss", ToAgent: "pi@laptop", CorrelationID: "thr", Status: "open"})
	mustAppend(t, s, AppendInput{Type: "note", Stream: "p", Room: "r", FromAgent: "boss", ToAgent: "eve", CorrelationID: "thr"})
	fromPi := mustAppend(t, s, AppendInput{Type: "note", Stream: "p", Room: "r", FromAgent: "pi@laptop", ToAgent: "eve", CorrelationID: "thr"})
	all := mustAppend(t, s, AppendInput{Type: "note", Stream: "p", Room: "r", FromAgent: "boss", ToAgent: "*", CorrelationID: "thr"})
	scope := &ReadScope{Agents: []string{"pi@laptop"}, Broadcasts: true}
	want := []string{toPi.ID, fromPi.ID, all.ID}
	for _, f := range []Filter{{CorrelationID: "thr"}, {Stream: "p"}} {
		f.Scope, f.Order = scope, "asc"
		page, err := s.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range page.Events {
			got = append(got, e.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: %v, want %v", f, got, want)
		}
	}
}

func TestReadScope_Artifacts(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	put := func(by string) string {
		w, err := s.PutArtifact(ctx, ArtifactInput{Kind: "note", CreatedBy: by, Content: "content of " + by})
		if err != nil {
			t.Fatal(err)
		}
		return w.Artifact.ID
	}
	own := put("pi@laptop")
	shared := put("boss")
	hidden := put("boss2")
	orphan := put("boss3")
	mustAppend(t, s, AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "boss", ToAgent: "pi@laptop", ArtifactIDs: []string{shared}})
	mustAppend(t, s, AppendInput{Type: "note", Stream: "project/a", Room: "r", FromAgent: "boss", ToAgent: "eve", ArtifactIDs: []string{hidden}})
	scope := &ReadScope{Agents: []string{"pi@*"}, Broadcasts: true}
	for id, want := range map[string]bool{own: true, shared: true, hidden: false, orphan: false, "art_missing": false} {
		got, err := s.ArtifactVisible(ctx, scope, id)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("ArtifactVisible(%s) = %v, want %v", id, got, want)
		}
		all, err := s.ArtifactVisible(ctx, nil, id)
		if err != nil || all != (id != "art_missing") {
			t.Errorf("unscoped ArtifactVisible(%s) = %v %v", id, all, err)
		}
	}
}
