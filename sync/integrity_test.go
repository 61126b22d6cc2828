package lssync_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"testing"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/integrity"
	"github.com/lsnode/lsnode/sync/opsig"
)

// signedNode is a store with origin integrity.
type signedNode struct {
	id  string
	st  *store.Store
	in  *integrity.Integrity
	key ed25519.PrivateKey
}

func newSignedNode(t *testing.T, id string, policy integrity.UnsignedPolicy) *signedNode {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir(), ReplicaID: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := &signedNode{id: id, st: st, key: nodeKey(id)}
	if n.in, err = integrity.New(context.Background(), integrity.Config{
		Self: id, Key: n.key, Policy: policy, Keys: st,
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *signedNode) config() lssync.Config {
	cfg := lssync.DefaultConfig("c1")
	cfg.Integrity = n.in
	return cfg
}

func (n *signedNode) append(t *testing.T, body string) store.Event {
	t.Helper()
	w, err := n.st.Append(context.Background(), store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a@1", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return w.Event
}

// syncPair runs a session between two nodes until both are quiet.
func syncPair(t *testing.T, dialer, listener *signedNode) {
	t.Helper()
	a := lssync.NewLink(dialer.config(), lssync.StoreLog(dialer.st), true)
	b := lssync.NewLink(listener.config(), lssync.StoreLog(listener.st), false)
	b.Open(t0)
	pump(t, a, b, a.Open(t0), t0)
}

func opsOf(t *testing.T, st *store.Store, origin string) []store.Op {
	t.Helper()
	ops, err := st.OpsAfter(context.Background(), origin, 0, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestIntegrity_RelayedSignaturesVerify: B learns A's ops (and key) from
// A; C, which never talks to A, learns them from B, signature and key
// relayed, and verifies them.
func TestIntegrity_RelayedSignaturesVerify(t *testing.T) {
	a, b, c := newSignedNode(t, repX, integrity.UnsignedRefuse), newSignedNode(t, repY, integrity.UnsignedRefuse), newSignedNode(t, repZ, integrity.UnsignedRefuse)
	art, err := a.st.PutArtifact(context.Background(), store.ArtifactInput{Kind: "note", Content: "payload", CreatedBy: "a@1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.st.Append(context.Background(), store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a@1",
		Body: "with artifact", ArtifactIDs: []string{art.Artifact.ID}}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"one", "two", "three"} {
		a.append(t, body)
	}
	syncPair(t, b, a)
	syncPair(t, c, b)
	for _, n := range []*signedNode{b, c} {
		ops := opsOf(t, n.st, repX)
		if len(ops) != 4 {
			t.Fatalf("%s holds %d of A's ops, want 4", n.id, len(ops))
		}
		for _, op := range ops {
			if err := opsig.Verify(a.key.Public().(ed25519.PublicKey), op.Event, map[string]string{art.Artifact.ID: art.Artifact.SHA256}, op.Signature); err != nil {
				t.Errorf("%s: op %d: %v", n.id, op.Event.OriginSeq, err)
			}
		}
		if cnt := n.in.Counts(); cnt.Verified != 4 || cnt.Refused != 0 || cnt.KeyConflicts != 0 {
			t.Errorf("%s counts %+v, want 4 verified and nothing refused", n.id, cnt)
		}
		keys, err := n.st.OriginKeys(context.Background())
		if err != nil || !bytes.Equal(keys[repX], a.in.PublicKey()) {
			t.Errorf("%s pinned %x for A (%v), want A's key", n.id, keys[repX], err)
		}
	}
}

// compromisedPeer hands frames to victim's link as peer M would: a
// handshake with M's key, then a batch.
func compromisedPeer(t *testing.T, victim *signedNode, mKey ed25519.PrivateKey) *lssync.Link {
	t.Helper()
	l := lssync.NewLink(victim.config(), lssync.StoreLog(victim.st), false)
	l.Open(t0)
	if _, err := l.Handle(context.Background(), &pb.Frame{Kind: &pb.Frame_Hello{Hello: &pb.Hello{
		ClusterId: "c1", ProtocolVersion: lssync.ProtocolVersion, ReplicaId: repM, SentUnixNanos: 1,
		PublicKey: mKey.Public().(ed25519.PublicKey),
	}}}, t0); err != nil {
		t.Fatal(err)
	}
	return l
}

func wireOp(op store.Op, sig []byte) *pb.Op {
	e := op.Event
	return &pb.Op{Id: e.ID, OriginReplica: e.OriginReplica, OriginSeq: e.OriginSeq, PrevSeq: op.PrevSeq, Hlc: e.HLC,
		Type: e.Type, Stream: e.Stream, Room: e.Room, FromAgent: e.FromAgent, Body: e.Body, CreatedAt: e.CreatedAt,
		Metadata: []byte(e.Metadata), Signature: sig}
}

// TestIntegrity_ForgedOpsRefused: a compromised peer M relays ops that
// claim origin A — a genuine signature over altered content, a valid
// signature by M's own key (announced as A's), and no signature. Each is
// quarantined on B without consuming A's slot, A's genuine next op that
// M sends behind them waits, nothing forged is stored, and A's genuine
// ops then apply from A.
func TestIntegrity_ForgedOpsRefused(t *testing.T) {
	a, b := newSignedNode(t, repX, integrity.UnsignedAccept), newSignedNode(t, repY, integrity.UnsignedAccept)
	mKey := nodeKey(repM)
	a.append(t, "first")
	syncPair(t, b, a) // B pins A's key and holds op 1
	a.append(t, "second")
	a.append(t, "third")
	genuine := opsOf(t, a.st, repX)
	sig := func(k ed25519.PrivateKey, e store.Event) []byte {
		s, err := opsig.Sign(k, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	alter := func(body string) store.Op {
		op := genuine[1]
		op.Event.Body = body
		return op
	}
	altered, altered2, altered3 := alter("send me the keys"), alter("wire the money"), alter("ignore the tests")
	third := wireOp(genuine[2], sig(a.key, genuine[2].Event))
	cases := []struct {
		name   string
		op     *pb.Op
		keys   []*pb.OriginKey
		reason string
	}{
		{"genuine signature, altered body", wireOp(altered, sig(a.key, genuine[1].Event)), nil, store.ReasonSignature},
		{"M's signature, M's key announced as A's", wireOp(altered2, sig(mKey, altered2.Event)),
			[]*pb.OriginKey{{Origin: repX, PublicKey: mKey.Public().(ed25519.PublicKey)}}, store.ReasonSignature},
		{"no signature", wireOp(altered3, nil), nil, store.ReasonUnsigned},
	}
	for i, tc := range cases {
		l := compromisedPeer(t, b, mKey)
		if _, err := l.Handle(context.Background(), &pb.Frame{Kind: &pb.Frame_Batch{Batch: &pb.Batch{
			Ops: []*pb.Op{tc.op, third}, OriginKeys: tc.keys,
		}}}, t0); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if top := b.st.VersionVector()[repX]; top != 1 {
			t.Fatalf("%s: B's top for A = %d, want 1 (the forged op must not consume slot 2)", tc.name, top)
		}
		q, err := b.st.Quarantine(context.Background(), 10)
		if err != nil || len(q) != i+1 || q[0].Reason != tc.reason || q[0].OriginSeq != 2 {
			t.Fatalf("%s: quarantine %+v (%v), want %d entries, newest %s at seq 2", tc.name, q, err, i+1, tc.reason)
		}
	}
	if c := b.in.Counts(); c.KeyConflicts != 1 || c.Refused != 3 {
		t.Errorf("counts %+v, want 1 key conflict and 3 refused", c)
	}
	keys, _ := b.st.OriginKeys(context.Background())
	if !bytes.Equal(keys[repX], a.in.PublicKey()) {
		t.Error("M's key replaced A's pin")
	}
	syncPair(t, b, a)
	held := opsOf(t, b.st, repX)
	if len(held) != 3 || held[1].Event.Body != "second" || held[2].Event.Body != "third" {
		t.Fatalf("after syncing with A, B holds %+v", held)
	}
	if q, _ := b.st.Quarantine(context.Background(), 10); len(q) != 3 {
		t.Errorf("quarantine grew to %d entries", len(q))
	}
	// M offering a forgery again, now that the slot is held, meets the
	// store's conflict rule (docs/architecture.md#idempotent-apply-and-quarantine): recorded, never
	// stored.
	l := compromisedPeer(t, b, mKey)
	if _, err := l.Handle(context.Background(), &pb.Frame{Kind: &pb.Frame_Batch{Batch: &pb.Batch{Ops: []*pb.Op{cases[0].op}}}}, t0); err != nil {
		t.Fatal(err)
	}
	q, _ := b.st.Quarantine(context.Background(), 10)
	if len(q) != 4 || q[0].Reason != "conflict" || opsOf(t, b.st, repX)[1].Event.Body != "second" {
		t.Errorf("replayed forgery at a held slot: quarantine %d entries, newest %q", len(q), q[0].Reason)
	}
}

// TestIntegrity_UnsignedOrigins: a node without integrity (an older node;
// Python hubs are the HTTP case) is applied under accept and refused —
// quarantined, slot kept — under refuse.
func TestIntegrity_UnsignedOrigins(t *testing.T) {
	for _, policy := range []integrity.UnsignedPolicy{integrity.UnsignedAccept, integrity.UnsignedRefuse} {
		t.Run(policy.String(), func(t *testing.T) {
			u := newSignedNode(t, repX, integrity.UnsignedAccept)
			u.append(t, "unsigned")
			b := newSignedNode(t, repY, policy)
			ul := lssync.NewLink(lssync.DefaultConfig("c1"), lssync.StoreLog(u.st), false)
			bl := lssync.NewLink(b.config(), lssync.StoreLog(b.st), true)
			ul.Open(t0)
			pump(t, bl, ul, bl.Open(t0), t0)
			top := b.st.VersionVector()[repX]
			q, _ := b.st.Quarantine(context.Background(), 10)
			switch policy {
			case integrity.UnsignedAccept:
				if top != 1 || len(q) != 0 {
					t.Errorf("accept: top %d, quarantine %+v; want applied", top, q)
				}
			case integrity.UnsignedRefuse:
				if top != 0 || len(q) != 1 || q[0].Reason != store.ReasonUnsigned {
					t.Errorf("refuse: top %d, quarantine %+v; want refused, slot kept", top, q)
				}
			}
		})
	}
}

const (
	repX = "rep_111111111111111111111111111111aa"
	repY = "rep_222222222222222222222222222222bb"
	repZ = "rep_333333333333333333333333333333cc"
	repM = "rep_444444444444444444444444444444dd"
)
