package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/jsonstr"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// pageEvents are events whose texts exercise the encoders: escapes, HTML
// characters, separators, astral planes, nested and empty metadata, a
// preview's cut copy, deep nesting.
func pageEvents() []store.Event {
	odd := "<a href=\"x\">&amp;</a> \u2028\u2029 \x01\x1f\t\n\r ü 🙂 \\ / \x7f"
	deep := strings.Repeat(`[`, 990) + strings.Repeat(`]`, 990)
	return []store.Event{
		{ID: "evt_1", Seq: 1, OriginReplica: "rep_a", OriginSeq: 1, HLC: "h", Type: "note", Stream: "s", Room: "r", FromAgent: "a", CreatedAt: "2026-01-01T00:00:00Z"},
		{ID: "evt_2", Seq: 2, Type: "task.request", Stream: odd, Room: "r", Topic: "t", FromAgent: "a", ToAgent: "*",
			CorrelationID: "c", Branch: "main", BaseCommit: "abcdef0", Status: "open", ArtifactIDs: []string{"art_1", "art_2"},
			Body: odd, Metadata: json.RawMessage(`{"k":[1,2.5,"` + strings.ReplaceAll(odd, "\n", `\n`) + `",null,true,{}],"e":{},"n":1e400}`)},
		{ID: "evt_3", Body: strings.Repeat("x", 200), BodyTruncated: true, BodyLength: 1000},
		{ID: "evt_4", Metadata: json.RawMessage(`{"d":` + deep + `}`)},
		{ID: "evt_5", Metadata: json.RawMessage(`{"a":1,"a":2}`)},
	}
}

// TestPageTextIsPyjsons: a page spliced from the cache is byte for byte
// what pyjson writes of the whole page, its structured form what
// structuredOf makes of that text, and the second rendering (from the
// cache) is the first; a page pyjson cannot write fails alike.
func TestPageTextIsPyjsons(t *testing.T) {
	events := pageEvents()
	timedOut := false
	pages := []pyjson.Object{
		eventpage.Render(nil, store.ListResult{}, true),
		eventpage.Render(nil, store.ListResult{Events: events[:1]}, false),
		eventpage.Render(&timedOut, store.ListResult{Events: events, Cursor: "c1.<&>"}, true),
		append(eventpage.Render(nil, store.ListResult{Events: events[1:3], Cursor: "c"}, true), pyjson.Member{Key: "note", Value: fromAgentNote}),
		{},
	}
	cache := newEventTexts(eventTextsBudget)
	for _, page := range pages {
		want, wantErr := pyjson.DumpsIndent(page)
		for range 2 {
			pieces, err := renderedPage{page}.pieces(cache)
			res := toolResult{page: pieces}
			if text := res.appendText(nil); (err != nil) != (wantErr != nil) || !bytes.Equal(text, want) || res.size() != len(want) {
				t.Fatalf("page text:\n%s %v\nwant\n%s %v", text, err, want, wantErr)
			}
			if got, s := res.appendStructured(nil), structuredOf(want); !bytes.Equal(got, s) {
				t.Fatalf("structured:\n%s\nwant\n%s", got, s)
			}
			if got, q := res.appendQuoted([]byte("x")), jsonstr.AppendChars([]byte("x"), want, true); !bytes.Equal(got, q) {
				t.Fatalf("quoted:\n%s\nwant\n%s", got, q)
			}
		}
	}
	// Around pyjson's nesting limit the cached rendering fails where
	// pyjson fails, and only there.
	failed := 0
	for n := 990; n <= 1000; n++ {
		deep := store.Event{ID: "evt_deep_" + strconv.Itoa(n), Metadata: json.RawMessage(`{"d":` + strings.Repeat(`[`, n) + strings.Repeat(`]`, n) + `}`)}
		page := eventpage.Render(nil, store.ListResult{Events: []store.Event{deep}}, false)
		_, wantErr := pyjson.DumpsIndent(page)
		if _, err := (renderedPage{page}).pieces(cache); (err != nil) != (wantErr != nil) {
			t.Fatalf("nesting %d: %v, pyjson %v", n, err, wantErr)
		}
		if wantErr != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no page reached pyjson's nesting limit")
	}
}

// TestEventTextsBudget: the cache never holds more than its budget and
// still answers every event right once full.
func TestEventTextsBudget(t *testing.T) {
	cache := newEventTexts(2000)
	for i := range 100 {
		e := store.Event{ID: "evt_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)), Body: strings.Repeat("b", i)}
		r, err := cache.get(&e)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := pyjson.DumpsIndent(pyjson.Object{{Key: pageEventsKey, Value: []any{e}}})
		if string(want) != eventLead+string(r.text)+eventTrail {
			t.Fatalf("event %s: %s", e.ID, r.text)
		}
		if cache.used > cache.budget {
			t.Fatalf("cache holds %d bytes, budget %d", cache.used, cache.budget)
		}
	}
}
