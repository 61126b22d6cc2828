package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// searchIDs is Search(q) as event ids.
func searchIDs(t *testing.T, s *Store, q SearchQuery) []string {
	t.Helper()
	res, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Event.ID)
	}
	return out
}

// said appends a note with a body.
func said(t *testing.T, s *Store, from, to, body string) Event {
	t.Helper()
	in := note(from, to)
	in.Body = body
	return mustAppend(t, s, in)
}

func TestSearch_Syntax(t *testing.T) {
	s, wall := openTestStore(t)
	e1 := said(t, s, "ci-bot", "w", "deploy failed on staging")
	wall.Advance(time.Second)
	e2 := said(t, s, "boss", "agent-12", "Deploy OK in prod; rollback not needed")
	wall.Advance(time.Second)
	e3 := said(t, s, "w", "boss", "the c++ build of https://example.com/x is green")
	wall.Advance(time.Second)
	e4 := said(t, s, "w", "ci-bot", "réunion café: staging")
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"deploy", []string{e1.ID, e2.ID}},
		{"DEPLOY staging", []string{e1.ID}},
		{"deploy failed", []string{e1.ID}},
		{`"failed on"`, []string{e1.ID}},
		{`"on failed"`, []string{}},
		{"deploy AND prod", []string{e2.ID}},
		{"deploy and prod", []string{}}, // lowercase and is a word
		{"failed OR rollback", []string{e1.ID, e2.ID}},
		{"deploy NOT staging", []string{e2.ID}},
		{"(staging OR prod) deploy", []string{e1.ID, e2.ID}},
		{"roll*", []string{e2.ID}},
		{`"roll"*`, []string{e2.ID}},
		{"from_agent:w", []string{e3.ID, e4.ID}},
		{"to_agent:ci-bot", []string{e4.ID}},
		{"TO_AGENT:agent-12", []string{e2.ID}},
		{`body:"c build"`, []string{e3.ID}},
		{"body:(staging NOT deploy)", []string{e4.ID}},
		{"type:note stream:project/x room:r green", []string{e3.ID}},
		{"agent-12", []string{e2.ID}},
		{"agent-1", []string{}},
		{"https://example.com/x", []string{e3.ID}},
		{"c++", []string{e3.ID}},
		{"reunion cafe", []string{e4.ID}},
		{"deploy - failed", []string{e1.ID}}, // a bare dash is no word
		{"nowhere", []string{}},
		{"unknown:deploy", []string{}}, // not a field: the words unknown deploy
	} {
		got := searchIDs(t, s, SearchQuery{Query: tc.q, Order: SearchOldestFirst})
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v; want %v", tc.q, got, tc.want)
		}
	}
}

func TestSearch_Malformed(t *testing.T) {
	s, _ := openTestStore(t)
	said(t, s, "a", "b", "deploy")
	before := tableCounts(t, s)
	for _, tc := range []struct{ q, reason string }{
		{`"deploy`, "a quote is not closed"},
		{`deploy "`, "a quote is not closed"},
		{"deploy OR", "OR needs a term on each side"},
		{"OR deploy", "OR needs a term on each side"},
		{"deploy AND AND x", "AND needs a term on each side"},
		{"NOT deploy", "NOT needs a term on each side"},
		{"deploy NOT", "NOT needs a term on each side"},
		{"(deploy", "a parenthesis is opened that is not closed"},
		{"deploy)", "a parenthesis is closed that was not opened"},
		{"deploy ()", "a group () holds no words"},
		{"-- ** !", "it has no words to search for"},
		{`"--"`, `the phrase '--' has no letters or digits`},
		{"body:", "body: needs a word, a phrase or a group after it"},
		{"body: OR x", "body: needs a word, a phrase or a group after it"},
		{"body:(a type:b)", "field filters do not nest"},
		{"a\x01b", "it contains control characters"},
		{strings.Repeat("w ", MaxSearchTerms+1), fmt.Sprintf("it has more than %d words and phrases", MaxSearchTerms)},
	} {
		_, err := s.Search(context.Background(), SearchQuery{Query: tc.q})
		var qe *SearchQueryError
		if !errors.As(err, &qe) || !errors.Is(err, ErrInvalid) || qe.Query != tc.q || qe.Reason != tc.reason {
			t.Errorf("search %q: err = %v; want a SearchQueryError: %s", tc.q, err, tc.reason)
			continue
		}
		if want := "search query " + reprID(tc.q) + " is malformed: " + tc.reason; err.Error() != want {
			t.Errorf("search %q: %q; want %q", tc.q, err, want)
		}
	}
	for _, tc := range []struct {
		q    SearchQuery
		want string
	}{
		{SearchQuery{}, "query must be a non-empty string"},
		{SearchQuery{Query: "  "}, "query must be a non-empty string"},
		{SearchQuery{Query: strings.Repeat("x", MaxSearchQueryChars+1)}, "query exceeds maximum length of 512 characters"},
		{SearchQuery{Query: "x", Order: "best"}, "order='best' must be 'rank', 'asc' or 'desc'"},
		{SearchQuery{Query: "x", Filter: Filter{SinceEventID: "evt_1"}}, "since_event_id does not apply to search: page with the cursor"},
		{SearchQuery{Query: "x", Filter: Filter{Order: "asc"}}, "the filter's order does not apply to search: page with the cursor"},
		{SearchQuery{Query: "x", Filter: Filter{Stream: "a\x01"}}, "stream contains control characters"},
		{SearchQuery{Query: "x", Filter: Filter{Cursor: "nope"}}, "cursor 'nope' is not a valid lsnode cursor (unknown version)"},
	} {
		_, err := s.Search(context.Background(), tc.q)
		wantErrText(t, err, ErrInvalid, tc.want)
	}
	if !sameCounts(before, tableCounts(t, s)) {
		t.Error("a refused search wrote")
	}
}

// TestSearch_AcceptedQueriesCompile: whatever the syntax accepts, FTS5
// accepts too; random token soup either is refused with a
// SearchQueryError or runs.
func TestSearch_AcceptedQueriesCompile(t *testing.T) {
	s, _ := openTestStore(t)
	said(t, s, "a", "b", "alpha beta gamma")
	rng := rand.New(rand.NewPCG(5, 5))
	parts := []string{"alpha", "beta", "AND", "OR", "NOT", "(", ")", `"`, `"alpha beta"`, "*", "al*", "body:", "type:", "x:y",
		"and", "-", "NEAR", "^", "{", "}", ":", "'", "+", "é"}
	accepted := 0
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(7); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		q := b.String()
		_, err := s.Search(context.Background(), SearchQuery{Query: q})
		var qe *SearchQueryError
		switch {
		case err == nil:
			accepted++
		case errors.As(err, &qe):
		case strings.TrimSpace(q) == "":
		default:
			t.Fatalf("search %q: %v", q, err)
		}
	}
	if accepted < 200 {
		t.Fatalf("only %d of 2000 queries accepted: the soup tests little", accepted)
	}
}

func TestSearch_FiltersAndScope(t *testing.T) {
	s, wall := openTestStore(t)
	toW := said(t, s, "boss", "w", "deploy now")
	wall.Advance(24 * time.Hour)
	toAll := said(t, s, "boss", "*", "deploy freeze")
	in := AppendInput{Type: "task.request", Stream: "other", Room: "ops", FromAgent: "ci", ToAgent: "v", Status: "open", Body: "deploy later"}
	other := mustAppend(t, s, in)
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"none", Filter{}, []string{toW.ID, toAll.ID, other.ID}},
		{"stream", Filter{Stream: "other"}, []string{other.ID}},
		{"room", Filter{Room: "r"}, []string{toW.ID, toAll.ID}},
		{"type", Filter{Type: "task.request"}, []string{other.ID}},
		{"status", Filter{Status: "open"}, []string{other.ID}},
		{"to_agent: the mailbox and broadcasts", Filter{ToAgent: "w"}, []string{toW.ID, toAll.ID}},
		{"to_agent '*'", Filter{ToAgent: "*"}, []string{toAll.ID}},
		{"writer", Filter{Writer: "ci"}, []string{other.ID}},
		{"since_created_at", Filter{SinceCreatedAt: "2026-12-01"}, []string{toAll.ID, other.ID}},
		{"limit", Filter{Limit: 2}, []string{toW.ID, toAll.ID}},
		{"unknown agent", Filter{Writer: "nobody"}, []string{}},
		{"scope: v's mailbox", Filter{Scope: &ReadScope{Agents: []string{"v"}}}, []string{other.ID}},
		{"scope: broadcasts", Filter{Scope: &ReadScope{Broadcasts: true}}, []string{toAll.ID}},
		{"scope: nothing", Filter{Scope: &ReadScope{}}, []string{}},
	} {
		if got := searchIDs(t, s, SearchQuery{Query: "deploy", Order: SearchOldestFirst, Filter: tc.f}); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
	res, err := s.Search(context.Background(), SearchQuery{Query: "deploy", Filter: Filter{Preview: true}})
	if err != nil || len(res.Hits) != 3 {
		t.Fatalf("preview: %+v %v", res, err)
	}
}

func TestSearch_OrdersAndCursor(t *testing.T) {
	a, wa := openReplica(t, repA)
	b, wb := openReplica(t, repB)
	var want []string
	for i := 0; i < 12; i++ {
		s, w := a, wa
		if i%3 == 1 {
			s, w = b, wb
		}
		w.Advance(time.Second)
		body := fmt.Sprintf("build %d", i)
		if i%4 == 0 {
			body += " build build" // more occurrences: a better bm25 score
		}
		want = append(want, said(t, s, "ci", "w", body).ID)
		w.Advance(time.Second)
		said(t, s, "ci", "w", "unrelated")
	}
	heal(t, []*Store{a, b})
	// The HLC order interleaves both replicas' events; byHLC sorts want.
	var all []Event
	for _, ops := range allOps(t, a) {
		for _, op := range ops {
			if strings.HasPrefix(op.Event.Body, "build") {
				all = append(all, op.Event)
			}
		}
	}
	slices.SortFunc(all, compareOpOrder)
	byHLC := ids(all)
	if !slices.Equal(sorted(byHLC), sorted(want)) {
		t.Fatalf("matches %v", byHLC)
	}
	for _, s := range []*Store{a, b} {
		if got := searchIDs(t, s, SearchQuery{Query: "build", Order: SearchOldestFirst, Filter: Filter{Limit: 50}}); !slices.Equal(got, byHLC) {
			t.Errorf("%s asc = %v; want %v", s.ReplicaID(), got, byHLC)
		}
		if got := searchIDs(t, s, SearchQuery{Query: "build", Order: SearchNewestFirst, Filter: Filter{Limit: 50}}); !slices.Equal(got, reversed(byHLC)) {
			t.Errorf("%s desc = %v", s.ReplicaID(), got)
		}
		res, err := s.Search(context.Background(), SearchQuery{Query: "build", Filter: Filter{Limit: 50}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(res.Hits); i++ {
			if res.Hits[i].Score < res.Hits[i-1].Score {
				t.Errorf("%s rank order: score %v after %v", s.ReplicaID(), res.Hits[i].Score, res.Hits[i-1].Score)
			}
		}
		if best := res.Hits[0].Event.Body; !strings.HasSuffix(best, "build build") {
			t.Errorf("%s: best match %q", s.ReplicaID(), best)
		}
	}
	// Pages of 5 in HLC order, alternating replicas with the portable
	// cursor: every match once, in order.
	var got []string
	cursor := ""
	for page := 0; page < 10; page++ {
		s := []*Store{a, b}[page%2]
		res, err := s.Search(context.Background(), SearchQuery{Query: "build", Order: SearchOldestFirst, Filter: Filter{Limit: 5, Cursor: cursor}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			got = append(got, h.Event.ID)
		}
		cursor = res.Cursor
		if len(res.Hits) < 5 {
			break
		}
	}
	if !slices.Equal(got, byHLC) {
		t.Fatalf("paged: %v\nwant   %v", got, byHLC)
	}
	// The last cursor covers everything: only later matches come.
	wa.Advance(time.Minute)
	later := said(t, a, "ci", "w", "build late")
	if got := searchIDs(t, a, SearchQuery{Query: "build", Filter: Filter{Cursor: cursor}}); !slices.Equal(got, []string{later.ID}) {
		t.Errorf("after the last page: %v; want %v", got, []string{later.ID})
	}
}

func sorted(xs []string) []string { return slices.Sorted(slices.Values(xs)) }

func reversed(xs []string) []string {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// TestSearch_AfterRestart: the index survives a close and reopen, and
// events written after it are found with the old ones.
func TestSearch_AfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := openReplicaAt(t, dir, repA, nil)
	e1 := said(t, s, "a", "b", "persisted words")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openReplicaAt(t, dir, repA, nil)
	e2 := said(t, s2, "a", "b", "more persisted words")
	if got := searchIDs(t, s2, SearchQuery{Query: "persisted", Order: SearchOldestFirst}); !slices.Equal(got, []string{e1.ID, e2.ID}) {
		t.Fatalf("after restart: %v", got)
	}
	checkSearchIntegrity(t, s2)
}

// TestSearch_AfterApply: 10,000 remote events applied in batches are
// found exactly as a scan of their bodies finds them.
func TestSearch_AfterApply(t *testing.T) {
	searchAfterApply(t, 10_000, 6)
}

// TestSearch_AfterApply100k is TestSearch_AfterApply on 100,000 events.
// Under the race detector it takes minutes, so it is skipped there, and
// make test runs it without the detector (test-norace).
func TestSearch_AfterApply100k(t *testing.T) {
	if raceDetector {
		t.Skip("100,000 applies take minutes under the race detector: make test-norace runs this test")
	}
	searchAfterApply(t, 100_000, 12)
}

// searchAfterApply applies n fleet events in batches to a fresh store and
// compares words searches with a scan.
func searchAfterApply(t *testing.T, n, words int) {
	t.Helper()
	s, _ := openReplica(t, repD)
	gen := newBenchGen(9)
	for done := 0; done < n; done += benchBatch {
		if res := mustApply(t, s, gen.batch(benchBatch)); res.Applied != benchBatch {
			t.Fatalf("apply: %s", fmtResult(res))
		}
	}
	wantSearchMatchesScan(t, s, words)
	checkSearchIntegrity(t, s)
}

// wantSearchMatchesScan checks, for n words of the bench vocabulary, that
// the events Search finds in a body are those whose body holds the word.
func wantSearchMatchesScan(t testing.TB, s *Store, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 11))
	var evs []Event
	for _, ops := range allOps(t, s) {
		for _, op := range ops {
			evs = append(evs, op.Event)
		}
	}
	for i := 0; i < n; i++ {
		word := benchWords[rng.IntN(len(benchWords))]
		var want []string
		for _, e := range evs {
			if slices.Contains(strings.Fields(e.Body), word) {
				want = append(want, e.ID)
			}
		}
		if got := searchAllIDs(t, s, "body:"+word); !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("%q: search found %d events, a scan %d", word, len(got), len(want))
		}
	}
}

// searchAllIDs returns the ids of every event a query matches, oldest
// first, page after page.
func searchAllIDs(t testing.TB, s *Store, query string) []string {
	t.Helper()
	var got []string
	cursor := ""
	for {
		res, err := s.Search(context.Background(), SearchQuery{Query: query, Order: SearchOldestFirst,
			Filter: Filter{Limit: MaxViewLimit, Cursor: cursor}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			got = append(got, h.Event.ID)
		}
		cursor = res.Cursor
		if len(res.Hits) < MaxViewLimit {
			return got
		}
	}
}

// checkSearchIntegrity runs FTS5's integrity check, which compares the
// index with the events it indexes.
func checkSearchIntegrity(t testing.TB, s *Store) {
	t.Helper()
	raw := openRawDB(t, s.cfg.Dir)
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO lsnode_search(lsnode_search, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("the search index does not match the events: %v", err)
	}
}
