package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

var (
	eventIDRE   = regexp.MustCompile(`^evt_[0-9]{8}T[0-9]{6}_[0-9a-f]{12}$`)
	artifactRE  = regexp.MustCompile(`^art_[0-9]{8}T[0-9]{6}_[0-9a-f]{12}$`)
	createdAtRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
)

func TestAppend_IDAndTimeFormats(t *testing.T) {
	s, wall := openTestStore(t)
	wall.Set(time.Date(2026, 7, 2, 21, 14, 9, 987e6, time.UTC))
	ev := mustAppend(t, s, note("a", "b"))
	if !eventIDRE.MatchString(ev.ID) || !strings.HasPrefix(ev.ID, "evt_20260702T211409_") {
		t.Errorf("event id %q", ev.ID)
	}
	if ev.CreatedAt != "2026-07-02T21:14:09Z" || !createdAtRE.MatchString(ev.CreatedAt) {
		t.Errorf("created_at %q", ev.CreatedAt)
	}
	ts, err := hlc.Parse(ev.HLC)
	if err != nil {
		t.Fatal(err)
	}
	if ts.WallMS != wall.Now().UnixMilli() || ts.Replica != s.ReplicaID() {
		t.Errorf("hlc %s: want wall ms %d and replica %s", ev.HLC, wall.Now().UnixMilli(), s.ReplicaID())
	}
	w, err := s.PutArtifact(context.Background(), ArtifactInput{Kind: "note", Content: "x", CreatedBy: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !artifactRE.MatchString(w.Artifact.ID) || w.Artifact.CreatedAt != "2026-07-02T21:14:09Z" {
		t.Errorf("artifact id %q created_at %q", w.Artifact.ID, w.Artifact.CreatedAt)
	}
	if ValidReplicaID(s.ReplicaID()) != true || len(s.ReplicaID()) != len("rep_")+32 {
		t.Errorf("minted replica id %q", s.ReplicaID())
	}
	// Ids are unique even within one second.
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		id := newID("evt", wall.Now())
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
}

// TestAppend_LocalCounterGapFree: local ops are numbered 1, 2, 3, ... with
// no gap, whatever is applied from other origins in between (docs/architecture.md#gap-free-local-counter), and HLC order agrees with origin_seq order.
func TestAppend_LocalCounterGapFree(t *testing.T) {
	a, _ := openReplica(t, repA)
	b, _ := openReplica(t, repB)
	ctx := context.Background()
	var mine []Event
	for i := 0; i < 12; i++ {
		if i%3 == 0 {
			mustAppend(t, b, note("b", "a"))
			mustAppend(t, b, note("b", "a"))
			exchange(t, b, a)
		}
		mine = append(mine, mustAppend(t, a, note("a", "b")))
	}
	for i, e := range mine {
		if e.OriginSeq != int64(i+1) {
			t.Fatalf("local op %d has origin_seq %d", i, e.OriginSeq)
		}
		if i > 0 && e.HLC <= mine[i-1].HLC {
			t.Fatalf("hlc not increasing: %s then %s", mine[i-1].HLC, e.HLC)
		}
		if i > 0 && e.Seq <= mine[i-1].Seq {
			t.Fatalf("local seq not increasing")
		}
	}
	if mine[len(mine)-1].Seq == int64(len(mine)) {
		t.Fatal("remote ops did not take local seqs; the test shows nothing")
	}
	vv := a.VersionVector()
	if vv[repA] != 12 || vv[repB] != 8 {
		t.Fatalf("vv = %v", vv)
	}
	ops, err := a.OpsAfter(ctx, repA, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		if op.Event.OriginSeq != int64(i+1) || op.PrevSeq != int64(i) {
			t.Fatalf("op %d: origin_seq %d prev %d", i, op.Event.OriginSeq, op.PrevSeq)
		}
	}
}

// TestAppend_ConcurrentGapFree runs appends from many goroutines (group
// commit) and checks the numbering and HLC order.
func TestAppend_ConcurrentGapFree(t *testing.T) {
	s, _ := openReplica(t, repA)
	ctx := context.Background()
	const workers, each = 8, 40
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < each; i++ {
				if _, err := s.Append(ctx, note("a", "b")); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ops, err := s.OpsAfter(ctx, repA, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != workers*each {
		t.Fatalf("%d ops; want %d", len(ops), workers*each)
	}
	for i, op := range ops {
		if op.Event.OriginSeq != int64(i+1) {
			t.Fatalf("origin_seq %d at position %d", op.Event.OriginSeq, i)
		}
		if i > 0 && op.Event.HLC <= ops[i-1].Event.HLC {
			t.Fatalf("hlc order disagrees with origin_seq order at %d", i)
		}
	}
}

func TestEvent_JSONKeyOrder(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	art, err := s.PutArtifact(ctx, ArtifactInput{Kind: "note", Content: "n", CreatedBy: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ev := mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: "<b>&</b>",
		ArtifactIDs: []string{art.Artifact.ID}, Metadata: json.RawMessage(`{"k":"é"}`)})
	// MarshalJSON itself, not json.Marshal, which re-escapes and compacts
	// whatever a Marshaler returns.
	js, err := ev.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	keys := topLevelKeys(t, js)
	want := []string{"id", "seq", "origin_replica", "origin_seq", "hlc", "type", "stream", "room", "topic",
		"from_agent", "to_agent", "correlation_id", "branch", "base_commit", "status", "artifact_ids", "body",
		"created_at", "metadata"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("keys\n got %v\nwant %v", keys, want)
	}
	text := string(js)
	for _, frag := range []string{`"topic":null`, `"to_agent":null`, `"correlation_id":null`, `"branch":null`,
		`"base_commit":null`, `"status":null`, `"body":"<b>&</b>"`, `"metadata":{"k": "é"}`,
		`"artifact_ids":["` + art.Artifact.ID + `"]`} {
		if !strings.Contains(text, frag) {
			t.Errorf("event JSON lacks %s: %s", frag, text)
		}
	}
	// A previewed copy adds body_truncated and body_length at the end.
	long := mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: strings.Repeat("é", 201)})
	res, err := s.List(ctx, Filter{Preview: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Events[0]
	if p.ID != long.ID || p.Body != strings.Repeat("é", 200) || !p.BodyTruncated || p.BodyLength != 201 {
		t.Fatalf("preview = body %d runes truncated %v length %d", len([]rune(p.Body)), p.BodyTruncated, p.BodyLength)
	}
	pk := topLevelKeys(t, mustJSON(t, p))
	if pk[len(pk)-2] != "body_truncated" || pk[len(pk)-1] != "body_length" {
		t.Errorf("preview keys %v", pk)
	}
	res, err = s.List(ctx, Filter{Preview: true, Limit: 2, Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events[0].BodyTruncated || strings.Contains(string(mustJSON(t, res.Events[0])), "body_truncated") {
		t.Error("short body marked truncated")
	}
	// Round trip through the tolerant decoder.
	var back Event
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !sameEvent(back, ev) || back.Seq != ev.Seq {
		t.Errorf("round trip changed the event:\n%+v\n%+v", back, ev)
	}
}

func TestArtifact_RecordShapes(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	noWarn := "--- a/x\n+++ b/x\n"
	cases := []struct {
		name, kind, content string
		warnings            []string
	}{
		{"clean patch", "patch", noWarn, nil},
		{"no trailing newline", "patch", "--- a/x\n+++ b/x", []string{
			"patch content does not end with a trailing newline; git apply will reject the final hunk as corrupt — store the diff byte-exactly including its trailing newline"}},
		{"crlf", "patch", "--- a/x\r\n", []string{
			"patch content contains carriage returns (CRLF line endings); git apply often rejects CRLF diffs — generate the diff with LF endings"}},
		{"both", "patch", "a\r\nb", []string{
			"patch content does not end with a trailing newline; git apply will reject the final hunk as corrupt — store the diff byte-exactly including its trailing newline",
			"patch content contains carriage returns (CRLF line endings); git apply often rejects CRLF diffs — generate the diff with LF endings"}},
		{"note never warns", "note", "a\r\nb", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := s.PutArtifact(ctx, ArtifactInput{Kind: tc.kind, Content: tc.content, CreatedBy: "a@1", Metadata: json.RawMessage(`{"b":1,"a":2}`)})
			if err != nil {
				t.Fatal(err)
			}
			a := w.Artifact
			sum := sha256.Sum256([]byte(tc.content))
			if a.SHA256 != hex.EncodeToString(sum[:]) || a.SizeBytes != int64(len(tc.content)) || a.OriginReplica != s.ReplicaID() {
				t.Fatalf("artifact = %+v", a)
			}
			put, err := a.PutRecord().MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			wantKeys := []string{"id", "kind", "sha256", "size_bytes", "created_by", "created_at", "origin_replica"}
			if tc.warnings != nil {
				wantKeys = append(wantKeys, "warnings")
			}
			if got := topLevelKeys(t, put); strings.Join(got, ",") != strings.Join(wantKeys, ",") {
				t.Errorf("put keys %v; want %v", got, wantKeys)
			}
			var rec struct {
				Warnings []string `json:"warnings"`
			}
			if err := json.Unmarshal(put, &rec); err != nil {
				t.Fatal(err)
			}
			if strings.Join(rec.Warnings, "|") != strings.Join(tc.warnings, "|") {
				t.Errorf("warnings %q; want %q", rec.Warnings, tc.warnings)
			}
			if strings.Contains(string(put), `\u2014`) {
				t.Error("non-ASCII escaped in the put record")
			}
			got, err := s.GetArtifact(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != tc.content {
				t.Errorf("content not verbatim: %q", got.Content)
			}
			get, err := got.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			wantGet := []string{"id", "kind", "sha256", "size_bytes", "content", "created_by", "created_at", "origin_replica", "metadata"}
			if k := topLevelKeys(t, get); strings.Join(k, ",") != strings.Join(wantGet, ",") {
				t.Errorf("get keys %v; want %v", k, wantGet)
			}
			if !strings.Contains(string(get), `"metadata":{"a": 2, "b": 1}`) {
				t.Errorf("get record metadata: %s", get)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// topLevelKeys lists an object's keys in document order.
func topLevelKeys(t testing.TB, js []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(js)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", js)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
