package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// A frame is shared only for the same event (seq, id, preview or not);
// an event that maps to the same slot renders its own, and a lone stream
// keeps no copies.
func TestSSEFrames_SharedOnlyForTheSameEvent(t *testing.T) {
	var c sseFrames
	ev := store.Event{ID: "evt_a", Seq: 5, Type: "note", Body: "a", Metadata: json.RawMessage(`{"k": "é"}`)}
	want, err := appendFrame(nil, &ev)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := pyjson.Compact(ev)
	if string(want) != "id: evt_a\nevent: logstream\ndata: "+string(data)+"\n\n" {
		t.Fatalf("frame %q", want)
	}
	if got, _ := c.appendSharedFrame([]byte("x"), &ev, false); string(got) != "x"+string(want) {
		t.Fatalf("unshared: %q", got)
	}
	if _, ok := c.get(&ev); ok {
		t.Fatal("a lone stream's frame was kept")
	}
	if got, _ := c.appendSharedFrame(nil, &ev, true); string(got) != string(want) {
		t.Fatalf("shared, first: %q", got)
	}
	c.put(&ev, []byte("kept\n\n")) // a marker: the next lookup must return it
	if got, _ := c.appendSharedFrame(nil, &ev, true); string(got) != "kept\n\n" {
		t.Fatalf("shared, second: %q, want the kept frame", got)
	}
	for name, other := range map[string]store.Event{
		"same slot":  {ID: "evt_b", Seq: 5 + sseFrameSlots, Type: "note", Body: "b"},
		"another id": {ID: "evt_c", Seq: 5, Type: "note", Body: "c"},
		"a preview":  {ID: "evt_a", Seq: 5, Type: "note", Body: "a", BodyTruncated: true, BodyLength: 300},
	} {
		want, _ := appendFrame(nil, &other)
		if got, _ := c.appendSharedFrame(nil, &other, true); string(got) != string(want) {
			t.Errorf("%s: %q, want its own frame %q", name, got, want)
		}
	}
}

// Streams open together write the same bytes: json.dumps of each event.
func TestSSE_StreamsShareFrames(t *testing.T) {
	n := htStart(t, nil)
	streams := []*nodetest.Stream{nodetest.OpenStream(t, n, "", nil), nodetest.OpenStream(t, n, "", nil), nodetest.OpenStream(t, n, "", nil)}
	var evs []store.Event
	for _, body := range []string{"one", "two ✓", "three"} {
		evs = append(evs, nodetest.Append(t, n.Store(), store.AppendInput{Body: body}))
	}
	for i, s := range streams {
		for _, ev := range evs {
			f := s.NextEvent(t)
			want, err := pyjson.Compact(ev)
			if err != nil || f.ID != ev.ID || f.Data != string(want) {
				t.Fatalf("stream %d: frame %s %s, want %s %s (%v)", i, f.ID, f.Data, ev.ID, want, err)
			}
		}
	}
}
