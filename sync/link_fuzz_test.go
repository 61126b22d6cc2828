package lssync_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

const (
	fuzzLinkSelf = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	fuzzLinkPeer = "rep_ffffffffffffffffffffffffffffffff"
)

// FuzzReplicationFrame hands any protobuf bytes that decode as a Frame to
// the accepting end of a session, after a valid handshake that offers the
// artifact feed, over a real store: the link either answers (with frames
// that encode) or ends the session with a protocol or handshake error,
// never a storage error; the store only ever names valid origins and
// gains at most one event per op sent.
func FuzzReplicationFrame(f *testing.F) {
	op := func(seq int64, prev int64, hlc string) *pb.Op {
		return &pb.Op{Id: "evt_x" + hlc, OriginReplica: fuzzLinkPeer, OriginSeq: seq, PrevSeq: prev,
			Hlc: hlc, Type: "note", Stream: "s", Room: "r", FromAgent: "a", CreatedAt: "2026-11-30T12:00:00Z",
			Metadata: []byte(`{"k":1}`)}
	}
	for _, fr := range []*pb.Frame{
		{Kind: &pb.Frame_Batch{Batch: &pb.Batch{Ops: []*pb.Op{op(1, 0, "1796040000000-000000-"+fuzzLinkPeer)}}}},
		{Kind: &pb.Frame_Batch{Batch: &pb.Batch{PullId: 3, Ops: []*pb.Op{op(2, 1, "x"), op(5, 9, "")}, Last: true}}},
		{Kind: &pb.Frame_Batch{Batch: &pb.Batch{Artifacts: []*pb.Artifact{{Id: "art_1", Kind: "note", Content: "a", SizeBytes: 1}},
			Ops: []*pb.Op{{Id: "evt_y", OriginReplica: "bogus", OriginSeq: -1, ArtifactIds: []string{"art_1", ""}, Metadata: []byte("[")}}}}},
		{Kind: &pb.Frame_Pull{Pull: &pb.Pull{Id: 1, After: []*pb.VectorEntry{{Origin: fuzzLinkSelf, Seq: -5}, {Origin: "", Seq: 1 << 62}}, MaxBatches: 1 << 31}}},
		{Kind: &pb.Frame_Vector{Vector: &pb.Vector{Round: 1, Entries: []*pb.VectorEntry{{Origin: fuzzLinkPeer, Seq: 1 << 62}}}}},
		{Kind: &pb.Frame_Digest{Digest: &pb.Digest{Round: 7, Hash: make([]byte, 64), OffsetNanos: -1 << 62}}},
		{Kind: &pb.Frame_DigestReply{DigestReply: &pb.DigestReply{Round: 7, Follow: true}}},
		{Kind: &pb.Frame_Hello{Hello: &pb.Hello{ClusterId: "other", ProtocolVersion: 9, ReplicaId: fuzzLinkSelf}}},
		{Kind: &pb.Frame_ArtifactPull{ArtifactPull: &pb.ArtifactPull{Id: 1, FeedId: "feed", AfterSeq: -3}}},
		{Kind: &pb.Frame_ArtifactPage{ArtifactPage: &pb.ArtifactPage{PullId: 1, AfterSeq: 4, LastSeq: 2,
			Refs: []*pb.ArtifactRef{{Id: "art_1", SizeBytes: -1}, {Id: ""}}}}},
		{Kind: &pb.Frame_ArtifactGet{ArtifactGet: &pb.ArtifactGet{Id: 2, Ids: []string{"", "art_1", " x "}}}},
		{Kind: &pb.Frame_ArtifactBatch{ArtifactBatch: &pb.ArtifactBatch{FeedTop: 1 << 62,
			Artifacts: []*pb.Artifact{{Id: "art_2", Kind: "note", Content: "b", Sha256: "00", SizeBytes: 7}}}}},
		{},
	} {
		b, err := proto.Marshal(fr)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xff, 0xff})
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Dir: f.TempDir(), ReplicaID: fuzzLinkSelf})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	cfg := lssync.DefaultConfig("c")
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fr pb.Frame
		if proto.Unmarshal(raw, &fr) != nil {
			return // not a frame: gRPC refuses it before the link sees it
		}
		l := lssync.NewLink(cfg, lssync.StoreLog(st), false)
		l.Open(t0)
		hello := &pb.Frame{Kind: &pb.Frame_Hello{Hello: &pb.Hello{ClusterId: "c", ProtocolVersion: lssync.ProtocolVersion,
			ReplicaId: fuzzLinkPeer, SentUnixNanos: t0.UnixNano(),
			Features: []string{lssync.FeatureArtifactFeed}, ArtifactFeedId: "feed"}}}
		if _, err := l.Handle(ctx, hello, t0); err != nil {
			t.Fatalf("handshake: %v", err)
		}
		before, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, err := l.Handle(ctx, &fr, t0)
		if err != nil && !errors.Is(err, lssync.ErrProtocol) && !errors.Is(err, lssync.ErrClusterMismatch) &&
			!errors.Is(err, lssync.ErrProtocolVersion) && !errors.Is(err, lssync.ErrSelfConnection) {
			t.Fatalf("frame %v: undocumented error %v", &fr, err)
		}
		for _, o := range out {
			if _, err := proto.Marshal(o); err != nil {
				t.Fatalf("reply %v does not encode: %v", o, err)
			}
		}
		after, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gained := after.Events - before.Events; gained < 0 || gained > int64(len(fr.GetBatch().GetOps())) {
			t.Fatalf("%d ops stored %d events", len(fr.GetBatch().GetOps()), gained)
		}
		for origin := range st.VersionVector() {
			if !store.ValidReplicaID(origin) {
				t.Fatalf("vector names origin %q", origin)
			}
		}
	})
}
