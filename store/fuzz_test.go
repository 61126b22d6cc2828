package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// fuzzStore opens the store a fuzz target's iterations share: opening a
// store per input would dominate the run. Inputs only ever add to it.
func fuzzStore(f *testing.F) *Store {
	f.Helper()
	s, err := Open(context.Background(), Config{Dir: f.TempDir(), ReplicaID: repA, Wall: hlc.NewManualClock(testClockStart)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	return s
}

// FuzzApplyEvent: any JSON that decodes as an event can be applied without
// a panic or an error (storage failures aside), and the op is either
// stored valid, quarantined with a reason, counted as a duplicate, or
// deferred; the version vector only names valid replicas.
func FuzzApplyEvent(f *testing.F) {
	valid := `{"id":"evt_20261130T120000_0123456789ab","seq":9,"origin_replica":"rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","origin_seq":1,` +
		`"hlc":"1796040000000-000000-rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","type":"note","stream":"s","room":"r","topic":null,` +
		`"from_agent":"b","to_agent":"a","correlation_id":"c","branch":null,"base_commit":null,"status":"open","artifact_ids":[],` +
		`"body":"hi","created_at":"2026-11-30T12:00:00Z","metadata":{"k":1}}`
	f.Add(valid, int64(0))
	f.Add(`{"id":"evt_x","origin_replica":"rep_0123456789ab","origin_seq":1,"hlc":"1796040000000-000000-rep_0123456789ab","type":"t","stream":"s","room":"r","from_agent":"a","created_at":"2026-11-30T12:00:00Z"}`, int64(0))
	f.Add(`{"id":"evt_y","origin_replica":"rep_0123456789ab","origin_seq":0,"type":"t"}`, int64(0))
	f.Add(`{"id":"evt_z","origin_replica":"bogus","origin_seq":3,"hlc":"x","type":"T","stream":"","room":"r","from_agent":"a","created_at":"x","metadata":[1]}`, int64(0))
	f.Add(`{"id":"evt_w","origin_replica":"rep_0123456789ab","origin_seq":2,"hlc":"9999999999999-ffffff-rep_0123456789ab","type":"t","stream":"s","room":"r","from_agent":"a","created_at":"2026-11-30T12:00:00Z","artifact_ids":["art_missing"],"metadata":{"_lsnode":{"ctx":{"rep_0123456789ab":1},"idem":"k"},"ack_of":"evt_x"},"status":"applied","correlation_id":"c"}`, int64(1))
	f.Add(`{"metadata":{"_lsnode":"not an object"}}`, int64(0))
	f.Add(`{"origin_seq":1.5}`, int64(0))
	f.Add(`null`, int64(-1))
	s := fuzzStore(f)
	f.Fuzz(func(t *testing.T, js string, prev int64) {
		var e Event
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			return
		}
		ctx := context.Background()
		before := tableCounts(t, s)
		res, err := s.ApplyBatch(ctx, Batch{Ops: []Op{{Event: e, PrevSeq: prev}}})
		if err != nil {
			t.Fatalf("ApplyBatch: %v", err)
		}
		after := tableCounts(t, s)
		if n := res.Applied + res.Duplicates + res.Quarantined + res.Deferred; n != 1 {
			t.Fatalf("one op, %d outcomes: %s", n, fmtResult(res))
		}
		if stored := after["events"] - before["events"]; stored != int64(res.Applied) {
			t.Fatalf("%d events stored for %s", stored, fmtResult(res))
		}
		if res.Quarantined == 1 {
			q, err := s.Quarantine(ctx, 1)
			if err != nil || len(q) != 1 || q[0].Reason == "" || q[0].Detail == "" {
				t.Fatalf("quarantine entry %+v %v", q, err)
			}
		}
		if res.Applied == 1 {
			got, err := s.eventByID(ctx, e.ID)
			if err != nil {
				t.Fatalf("applied event not readable: %v", err)
			}
			if _, err := validateRemoteEvent(got); err != nil {
				t.Fatalf("stored an invalid event: %v", err)
			}
		}
		for origin, top := range s.VersionVector() {
			if !ValidReplicaID(origin) || top <= 0 {
				t.Fatalf("version vector entry %q: %d", origin, top)
			}
		}
	})
}

// FuzzAppendInput: whatever strings a client sends, Append either stores
// an event or refuses with a ValidationError wrapping ErrInvalid (or
// ErrNotFound for nothing: unknown artifacts are ErrInvalid too).
func FuzzAppendInput(f *testing.F) {
	f.Add("note", "project/x", "r", "", "a@1", "b@2", "", "", "", "open", "hi", `{"k":1}`, "")
	f.Add("", "", "", "", "", "", "", "", "", "", "", "", "")
	f.Add("Bad Type", " s ", "\x01", "t", "a", "*", "c", "main", "abc", "done", "\x00", `[1]`, "art_x")
	f.Add("t", "s", "r", "  ", "a", "", "", "", "", "", "\xed\xa0\x80", `{"_lsnode":{}}`, "")
	f.Add("t", "s", "r", "", "a\u2028", "", "", "", "", "", "", `{"a":NaN}`, "")
	s := fuzzStore(f)
	f.Fuzz(func(t *testing.T, typ, stream, room, topic, from, to, corr, branch, base, status, body, meta, artifact string) {
		in := AppendInput{Type: typ, Stream: stream, Room: room, Topic: topic, FromAgent: from, ToAgent: to,
			CorrelationID: corr, Branch: branch, BaseCommit: base, Status: status, Body: body}
		if meta != "" {
			in.Metadata = json.RawMessage(meta)
		}
		if artifact != "" {
			in.ArtifactIDs = []string{artifact}
		}
		before := tableCounts(t, s)
		w, err := s.Append(context.Background(), in)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) || ve.Msg == "" {
				t.Fatalf("refusal is not a ValidationError/ErrInvalid: %T %v", err, err)
			}
			if after := tableCounts(t, s); !sameCounts(before, after) {
				t.Fatalf("a refused append stored something")
			}
			return
		}
		e := w.Event
		if e.OriginReplica != repA || !eventIDRE.MatchString(e.ID) {
			t.Fatalf("stored event %+v", e)
		}
		// What Append stores passes the remote rules: peers accept it.
		if _, err := validateRemoteEvent(e); err != nil {
			t.Fatalf("a local event fails remote validation: %v (%+v)", err, e)
		}
	})
}
