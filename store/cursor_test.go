package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCursor_PortableAcrossReplicas: a page listed on replica A resumes on
// replica B, which holds the same ops in another arrival order, without
// skipping or repeating an event, with and without filters, and across
// pages taken alternately on both.
func TestCursor_PortableAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	w1, _ := openReplica(t, repA)
	w2, _ := openReplica(t, repB)
	w3, _ := openReplica(t, repC)
	writers := []*Store{w1, w2, w3}
	for i := 0; i < 90; i++ {
		w := writers[rng.IntN(3)]
		to := []string{"x", "y", "*"}[rng.IntN(3)]
		mustAppend(t, w, AppendInput{Type: "note", Stream: []string{"s1", "s2"}[rng.IntN(2)], Room: "r", FromAgent: "a", ToAgent: to, Body: fmt.Sprint(i)})
	}
	// A and B get the three origins in different orders and groupings.
	a, _ := openReplica(t, repD)
	b, _ := openReplica(t, "rep_eeeeeeeeeeee")
	deliver := func(dst *Store, order []*Store, chunk int) {
		for progress := true; progress; {
			progress = false
			for _, src := range order {
				o := src.ReplicaID()
				ops, err := src.OpsAfter(ctx, o, dst.VersionVector()[o], chunk, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(ops) > 0 {
					mustApply(t, dst, Batch{Ops: ops})
					progress = true
				}
			}
		}
	}
	deliver(a, []*Store{w1, w2, w3}, 7)
	deliver(b, []*Store{w3, w1, w2}, 30)
	if dump(t, a) != dump(t, b) {
		t.Fatal("a and b hold different ops")
	}
	aOrder, bOrder := ids(allEventsBySeq(t, a)), ids(allEventsBySeq(t, b))
	if slices.Equal(aOrder, bOrder) {
		t.Fatal("same arrival order on both: the test shows nothing")
	}
	for _, f := range []Filter{{}, {ToAgent: "x"}, {Stream: "s2"}, {ToAgent: "y", Stream: "s1"}} {
		for _, limit := range []int{1, 4, 13} {
			t.Run(fmt.Sprintf("%+v/limit=%d", f, limit), func(t *testing.T) {
				want := matching(t, a, f)
				var got []string
				f := f
				f.Limit, f.Order = limit, "asc"
				stores := []*Store{a, b}
				for page := 0; ; page++ {
					if page > 200 {
						t.Fatal("paging does not end")
					}
					res, err := stores[page%2].List(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(res.Events)...)
					if len(res.Events) == 0 {
						break
					}
					f.Cursor = res.Cursor
				}
				if dupes := duplicates(got); len(dupes) > 0 {
					t.Fatalf("repeated: %v", dupes)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("got %d events, want %d", len(got), len(want))
				}
			})
		}
	}
	// A cursor taken before new ops arrive resumes with exactly those.
	res, err := a.List(ctx, Filter{Order: "asc", Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	fresh := mustAppend(t, w2, note("a", "x"))
	exchange(t, w2, b)
	next, err := b.List(ctx, Filter{Cursor: res.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Events) != 1 || next.Events[0].ID != fresh.ID {
		t.Fatalf("after the cursor: %v; want only %s", ids(next.Events), fresh.ID)
	}
}

// matching lists every event matching f's equality filters, sorted by id.
func matching(t *testing.T, s *Store, f Filter) []string {
	t.Helper()
	var out []string
	for _, e := range allEventsBySeq(t, s) {
		if (f.ToAgent == "" || e.ToAgent == f.ToAgent || e.ToAgent == "*") && (f.Stream == "" || e.Stream == f.Stream) {
			out = append(out, e.ID)
		}
	}
	slices.Sort(out)
	return out
}

func duplicates(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if seen[x] {
			out = append(out, x)
		}
		seen[x] = true
	}
	return out
}

func TestCursor_RoundTrip(t *testing.T) {
	vv := map[string]int64{repA: 3, "rep_0123456789ab": 0, repB: 1 << 40}
	got, err := DecodeCursor(EncodeCursor(vv))
	if err != nil || !vvEqual(got, vv) {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := DecodeCursor(EncodeCursor(map[string]int64{})); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
}

func TestCursor_DecodeErrors(t *testing.T) {
	enc := func(s string) string { return "c1." + base64.RawURLEncoding.EncodeToString([]byte(s)) }
	cases := []struct{ name, tok, why string }{
		{"no prefix", "abc", "unknown version"},
		{"other version", "c2.e30", "unknown version"},
		{"not base64", "c1.***", "not base64url"},
		{"padded base64", "c1.e30=", "not base64url"},
		{"not json", enc("{"), "not a version vector"},
		{"array", enc("[1]"), "not a version vector"},
		{"null", enc("null"), "not a version vector"},
		{"string value", enc(`{"` + repA + `":"1"}`), "not a version vector"},
		{"fraction", enc(`{"` + repA + `":1.5}`), "not a version vector"},
		{"bad origin", enc(`{"bogus":1}`), `bad entry "bogus"`},
		{"negative", enc(`{"` + repA + `":-1}`), `bad entry "` + repA + `"`},
		{"too long", "c1." + strings.Repeat("A", 2<<20), "too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCursor(tc.tok)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v", err)
			}
			want := "cursor " + reprID(truncate(tc.tok, 64)) + " is not a valid lsnode cursor (" + tc.why + ")"
			if err.Error() != want {
				t.Fatalf("err\n got %q\nwant %q", err, want)
			}
		})
	}
	s, _ := openTestStore(t)
	if _, err := s.List(context.Background(), Filter{Cursor: "nope"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("List with a bad cursor: %v", err)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(EncodeCursor(map[string]int64{repA: 5}))
	f.Add(EncodeCursor(map[string]int64{}))
	f.Add("c1.")
	f.Add("c1.e30")
	f.Add("c1." + base64.RawURLEncoding.EncodeToString([]byte(`{"rep_aaaaaaaaaaaa":9223372036854775807}`)))
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, tok string) {
		vv, err := DecodeCursor(tok)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || vv != nil {
				t.Fatalf("err %v with vv %v", err, vv)
			}
			return
		}
		for o, seq := range vv {
			if !ValidReplicaID(o) || seq < 0 {
				t.Fatalf("accepted entry %q: %d", o, seq)
			}
		}
		again, err := DecodeCursor(EncodeCursor(vv))
		if err != nil || !vvEqual(again, vv) {
			t.Fatalf("re-encode: %v %v", again, err)
		}
	})
}

// TestMaxCursorLength: a token of MaxCursorLength characters passes the
// length check (and fails only as base64 of no version vector), one more
// character is too long.
func TestMaxCursorLength(t *testing.T) {
	body := strings.Repeat("A", MaxCursorLength-len(cursorPrefix))
	if _, err := DecodeCursor(cursorPrefix + body); err == nil || strings.Contains(err.Error(), "too long") {
		t.Fatalf("a token of MaxCursorLength: %v", err)
	}
	if _, err := DecodeCursor(cursorPrefix + body + "A"); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("a token one longer: %v", err)
	}
}
