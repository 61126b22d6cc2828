package lssync

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// FuzzOpWire sends structured ops and artifacts through the wire form and
// back (OpToWire, proto encoding, OpFromWire): what arrives is what was
// sent, field for field; only text that is not UTF-8, which the store
// never holds, fails to encode. Random proto bytes are FuzzReplicationFrame's.
func FuzzOpWire(f *testing.F) {
	f.Add("evt_20261130T120000_0123456789ab", "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", int64(4), int64(3),
		"1796040000000-000001-rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "note", "hi", "art_1,art_2", []byte(`{"k":[1,{"_lsnode":{}}]}`))
	f.Add("", "", int64(0), int64(0), "", "", "", "", []byte(nil))
	f.Add("evt_x", "rep_0123456789ab", int64(-1), int64(1<<62), "garbage", "T", "\u0000\u2028", ",", []byte("not json"))
	f.Add("e\xff", "rep_x", int64(1), int64(0), "h", "t", "b\xfe", "a", []byte("{}"))
	f.Fuzz(func(t *testing.T, id, origin string, seq, prev int64, hlc, typ, body, arts string, meta []byte) {
		var ids []string
		if arts != "" {
			ids = strings.Split(arts, ",")
		}
		op := store.Op{PrevSeq: prev, Event: store.Event{
			ID: id, OriginReplica: origin, OriginSeq: seq, HLC: hlc, Type: typ, Stream: typ + "/s",
			Room: body, FromAgent: origin, ArtifactIDs: ids, Body: body, CreatedAt: hlc, Metadata: rawJSON(meta),
		}}
		art := store.Artifact{ID: id, Kind: typ, SHA256: hlc, SizeBytes: seq, Content: body, CreatedBy: origin,
			CreatedAt: hlc, OriginReplica: origin, Metadata: rawJSON(meta)}
		utf8OK := true
		for _, s := range append([]string{id, origin, hlc, typ, body}, ids...) {
			utf8OK = utf8OK && utf8.ValidString(s)
		}
		raw, err := proto.Marshal(&pb.Batch{Ops: []*pb.Op{OpToWire(op)}, Artifacts: []*pb.Artifact{artifactToWire(art)}})
		if err != nil {
			if utf8OK {
				t.Fatalf("valid op does not encode: %v", err)
			}
			return
		}
		if !utf8OK {
			t.Fatalf("text that is not UTF-8 encoded")
		}
		var wire pb.Batch
		if err := proto.Unmarshal(raw, &wire); err != nil {
			t.Fatalf("decode what was encoded: %v", err)
		}
		got := batchFromWire(&wire)
		if len(got.Ops) != 1 || len(got.Artifacts) != 1 {
			t.Fatalf("batch of %d ops, %d artifacts", len(got.Ops), len(got.Artifacts))
		}
		if g := got.Ops[0]; !reflect.DeepEqual(g, op) {
			t.Fatalf("op arrived as\n%#v\nsent\n%#v", g, op)
		}
		if g := got.Artifacts[0]; !reflect.DeepEqual(g, art) {
			t.Fatalf("artifact arrived as\n%#v\nsent\n%#v", g, art)
		}
	})
}
