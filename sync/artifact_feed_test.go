package lssync_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// feedTraffic is what crossed a session: frames by kind, those the
// listener sent by kind, and the ids of the artifacts carried by
// artifact_batch frames (pushed or got).
type feedTraffic struct {
	frames, fromB map[string]int
	sent          []string
}

// session runs a new session between logs a (dialer) and b from the
// handshake until both ends are quiet and returns its links and traffic.
func session(t *testing.T, la, lb lssync.Log) (*lssync.Link, *lssync.Link, feedTraffic) {
	t.Helper()
	cfg := lssync.DefaultConfig("c1")
	a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
	b.Open(t0)
	return a, b, exchange(t, a, b, a.Open(t0))
}

// exchange pumps out between a and b and records the traffic.
func exchange(t *testing.T, a, b *lssync.Link, out []*pb.Frame) feedTraffic {
	t.Helper()
	tr := feedTraffic{frames: map[string]int{}, fromB: map[string]int{}}
	pumpEach(t, a, b, out, t0, func(from int, f *pb.Frame) {
		tr.frames[lssync.FrameKind(f)]++
		if from == 1 {
			tr.fromB[lssync.FrameKind(f)]++
		}
		for _, w := range f.GetArtifactBatch().GetArtifacts() {
			tr.sent = append(tr.sent, w.GetId())
		}
	})
	return tr
}

// feedIDsOf lists the ids in a log's artifact feed, in feed order.
func feedIDsOf(t *testing.T, f lssync.ArtifactFeed) []string {
	t.Helper()
	entries, err := f.ArtifactFeedAfter(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ids
}

func wantCursor(t *testing.T, f lssync.ArtifactFeed, peer, feed string, seq int64) {
	t.Helper()
	c, err := f.ArtifactCursor(context.Background(), peer)
	if err != nil || c.FeedID != feed || c.Seq != seq {
		t.Fatalf("cursor into %s's feed = %+v (err %v), want %s/%d", peer, c, err, feed, seq)
	}
}

// TestArtifactFeed_PutWithoutEventReachesPeer: an artifact put while the
// session runs is pushed with its content; one put before the session is
// pulled: the round tells the peer's feed top, a page names it and a get
// brings it. Either way the receiver's cursor ends at the sender's top
// and nothing is sent twice.
func TestArtifactFeed_PutWithoutEventReachesPeer(t *testing.T) {
	ctx := context.Background()
	la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	early := lb.PutArtifact("put on b before the session")
	a, b, tr := session(t, la, lb)
	if got := la.Artifacts(); !slices.Equal(got, []string{early.ID}) {
		t.Fatalf("a holds %v after the session started, want %s", got, early.ID)
	}
	if tr.frames["artifact_page"] != 1 || tr.frames["artifact_get"] != 1 || !slices.Equal(tr.sent, []string{early.ID}) {
		t.Fatalf("catch-up traffic %v, artifacts sent %v; want one page, one get, the artifact once", tr.frames, tr.sent)
	}
	wantCursor(t, la, "rep_b", lb.ArtifactFeedID(), 1)

	put := la.PutArtifact("put on a during the session")
	out, err := a.LocalArtifacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr = exchange(t, a, b, out)
	got, err := lb.GetArtifact(ctx, put.ID)
	if err != nil || got.Content != put.Content {
		t.Fatalf("b's copy of the put: %+v, %v", got, err)
	}
	if tr.frames["artifact_get"] != 0 || !slices.Equal(tr.sent, []string{put.ID}) {
		t.Fatalf("push traffic %v, artifacts sent %v; want the pushed artifact only, no get", tr.frames, tr.sent)
	}
	wantCursor(t, lb, "rep_a", la.ArtifactFeedID(), 2) // a's feed: b's artifact, then its own put
	if again, err := a.LocalArtifacts(ctx); err != nil || len(again) != 0 {
		t.Fatalf("a second offer of the same feed sent %v (%v)", again, err)
	}
}

// openStore opens a store for replica in dir.
func openStore(t *testing.T, dir, replica string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: dir, ReplicaID: replica, Wall: hlc.NewManualClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func putOn(t *testing.T, st *store.Store, content string) string {
	t.Helper()
	w, err := st.PutArtifact(context.Background(), store.ArtifactInput{Kind: "note", Content: content, CreatedBy: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	return w.Artifact.ID
}

// TestArtifactFeed_CursorSurvivesRestart: over stores, a receiver that
// restarts keeps its cursor: the next session pulls nothing when nothing
// was added, and only the new artifact when one was.
func TestArtifactFeed_CursorSurvivesRestart(t *testing.T) {
	const ra, rb = "rep_00000000000a", "rep_00000000000b"
	dirB := t.TempDir()
	stA, stB := openStore(t, t.TempDir(), ra), openStore(t, dirB, rb)
	ids := []string{putOn(t, stA, "one"), putOn(t, stA, "two"), putOn(t, stA, "three")}
	_, _, tr := session(t, lssync.StoreLog(stA), lssync.StoreLog(stB))
	if !slices.Equal(tr.sent, ids) {
		t.Fatalf("first session sent %v, want %v", tr.sent, ids)
	}
	if err := stB.Close(); err != nil {
		t.Fatal(err)
	}
	stB = openStore(t, dirB, rb)
	wantCursor(t, stB, ra, stA.ArtifactFeedID(), 3)

	_, _, tr = session(t, lssync.StoreLog(stA), lssync.StoreLog(stB))
	if tr.fromB["artifact_pull"]+tr.fromB["artifact_get"] != 0 || len(tr.sent) != 0 {
		t.Fatalf("a session after the restart with nothing new: b sent %v, artifacts sent %v", tr.fromB, tr.sent)
	}
	fourth := putOn(t, stA, "four")
	_, _, tr = session(t, lssync.StoreLog(stA), lssync.StoreLog(stB))
	if !slices.Equal(tr.sent, []string{fourth}) {
		t.Fatalf("a session after one more put sent %v, want %s only", tr.sent, fourth)
	}
	if got := feedIDsOf(t, stB); !slices.Equal(got, append(ids, fourth)) {
		t.Fatalf("b's feed %v", got)
	}
	wantCursor(t, stB, ra, stA.ArtifactFeedID(), 4)
}

// TestArtifactFeed_NewFeedIDRestarts: a peer whose feed was numbered
// again (a restore) is read from the start, and what is held already is
// not sent again.
func TestArtifactFeed_NewFeedIDRestarts(t *testing.T) {
	la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	la.PutArtifact("one")
	la.PutArtifact("two")
	session(t, la, lb)
	old := la.ArtifactFeedID()
	wantCursor(t, lb, "rep_a", old, 2)
	la.Renumber()
	if la.ArtifactFeedID() == old {
		t.Fatal("Renumber kept the feed id")
	}
	_, _, tr := session(t, la, lb)
	if tr.fromB["artifact_pull"] != 1 || tr.fromB["artifact_get"] != 0 || len(tr.sent) != 0 {
		t.Fatalf("after the renumbering: b sent %v, artifacts sent %v; want one pull from the start and nothing sent", tr.fromB, tr.sent)
	}
	wantCursor(t, lb, "rep_a", la.ArtifactFeedID(), 2)
}

// corruptLog serves one artifact with content that does not match its
// sha256.
type corruptLog struct {
	*simnet.MemLog
	bad string
}

func (c corruptLog) GetArtifact(ctx context.Context, id string) (store.Artifact, error) {
	a, err := c.MemLog.GetArtifact(ctx, id)
	if id == c.bad {
		a.Content += " (altered)"
	}
	return a, err
}

// TestArtifactFeed_BadArtifactRefused: an artifact whose content does not
// match its sha256 is refused by the store's verification and quarantined
// as artifact_invalid, the artifacts after it are stored, the cursor
// moves past it, and ops keep replicating on the session.
func TestArtifactFeed_BadArtifactRefused(t *testing.T) {
	ctx := context.Background()
	ma := simnet.NewMemLog("rep_00000000000a", fixedWall)
	bad := ma.PutArtifact("tampered on the way")
	good := ma.PutArtifact("intact")
	la := corruptLog{MemLog: ma, bad: bad.ID}
	stB := openStore(t, t.TempDir(), "rep_00000000000b")
	a, b, tr := session(t, la, lssync.StoreLog(stB))
	if !slices.Equal(tr.sent, []string{bad.ID, good.ID}) {
		t.Fatalf("sent %v", tr.sent)
	}
	if missing, err := stB.MissingArtifacts(ctx, []string{bad.ID, good.ID}); err != nil || !slices.Equal(missing, []string{bad.ID}) {
		t.Fatalf("b lacks %v (%v), want only the bad one", missing, err)
	}
	q, err := stB.Quarantine(ctx, 10)
	if err != nil || len(q) != 1 || q[0].ItemID != bad.ID || q[0].Reason != "artifact_invalid" {
		t.Fatalf("quarantine %+v (%v), want the bad artifact as artifact_invalid", q, err)
	}
	wantCursor(t, stB, ma.ReplicaID(), ma.ArtifactFeedID(), 2)

	e := ma.Append("after the bad artifact", false)
	out, err := a.Local(ctx, ma.Ops(ma.ReplicaID()))
	if err != nil {
		t.Fatal(err)
	}
	exchange(t, a, b, out)
	if vv := stB.VersionVector(); vv[e.OriginReplica] != e.OriginSeq {
		t.Fatalf("b's vector %v after the push, want %s at %d", vv, e.OriginReplica, e.OriginSeq)
	}
	_, _, tr = session(t, la, lssync.StoreLog(stB))
	if tr.frames["artifact_get"] != 0 {
		t.Fatalf("the next session asked for the refused artifact again: %v", tr.frames)
	}
}

// oldLog is a Log without an artifact feed: a Link over it speaks the
// protocol as a build from before the feed did.
type oldLog struct{ lssync.Log }

// TestArtifactFeed_OldPeer: with a peer that does not offer the feature,
// no frame of the feed crosses, ops and the artifacts events name
// replicate as before, and a frame of the feed sent to such a peer is a
// protocol violation (as an unknown frame was to an earlier build).
func TestArtifactFeed_OldPeer(t *testing.T) {
	ctx := context.Background()
	la, mb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	lb := oldLog{mb}
	named := la.Append("names an artifact", true)
	la.PutArtifact("named by nothing")
	mb.Append("from the old peer", false)
	cfg := lssync.DefaultConfig("c1")
	a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
	b.Open(t0)
	hello := a.Open(t0)
	if h := hello[0].GetHello(); !slices.Equal(h.GetFeatures(), []string{lssync.FeatureArtifactFeed}) || h.GetArtifactFeedId() != la.ArtifactFeedID() {
		t.Fatalf("hello offers %v with feed %q", h.GetFeatures(), h.GetArtifactFeedId())
	}
	tr := exchange(t, a, b, hello)
	for kind := range tr.frames {
		if kind == "artifact_pull" || kind == "artifact_page" || kind == "artifact_get" || kind == "artifact_batch" {
			t.Fatalf("a frame of the feed crossed to an old peer: %v", tr.frames)
		}
	}
	if !mapsEqual(la.VersionVector(), mb.VersionVector()) {
		t.Fatalf("vectors differ: %v and %v", la.VersionVector(), mb.VersionVector())
	}
	if got := mb.Artifacts(); !slices.Equal(got, named.ArtifactIDs) {
		t.Fatalf("old peer holds %v, want only the artifact the event names %v", got, named.ArtifactIDs)
	}
	if out, err := a.LocalArtifacts(ctx); err != nil || len(out) != 0 {
		t.Fatalf("pushed %v (%v) to an old peer", out, err)
	}
	_, err := b.Handle(ctx, &pb.Frame{Kind: &pb.Frame_ArtifactPull{ArtifactPull: &pb.ArtifactPull{Id: 1}}}, t0)
	if !errors.Is(err, lssync.ErrProtocol) {
		t.Fatalf("an artifact pull to a link without the feed: %v, want ErrProtocol", err)
	}
}

// TestArtifactFeed_MeshSendsOnce: in a full mesh of three, an artifact
// put on one node reaches the others by push within the push's delay,
// and the pages of the relays' feeds, which list it too, bring no second
// copy.
func TestArtifactFeed_MeshSendsOnce(t *testing.T) {
	cfg := lssync.DefaultConfig("c1")
	net := simnet.New(simnet.Config{Seed: 1, Link: cfg, Faults: simnet.Faults{MinDelay: 5 * time.Millisecond, MaxDelay: 5 * time.Millisecond}})
	names := []string{"rep_a", "rep_b", "rep_c"}
	logs := map[string]*simnet.MemLog{}
	for _, n := range names {
		logs[n] = simnet.NewMemLog(n, func() time.Time { return net.NodeNow(n) })
		net.AddNode(n, logs[n], 0)
	}
	net.Connect("rep_b", "rep_a")
	net.Connect("rep_c", "rep_a")
	net.Connect("rep_c", "rep_b")
	if err := net.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	put := logs["rep_a"].PutArtifact("one copy each")
	net.Flush("rep_a")
	if err := net.Run(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, n := range names[1:] {
		if got := logs[n].Artifacts(); !slices.Equal(got, []string{put.ID}) {
			t.Fatalf("%s holds %v 100ms after the put", n, got)
		}
	}
	if err := net.Run(5 * time.Second); err != nil { // rounds tell every top; pages list the relayed entry
		t.Fatal(err)
	}
	// Content moves in pushes only (b and c push their own puts, and tell
	// their tops): the pages that list a's artifact get nothing.
	st := net.Stats()
	if st.Frames["artifact_get"] != 0 || st.Frames["artifact_page"] == 0 {
		t.Fatalf("frames %v: want pages of the relays' feeds and no get", st.Frames)
	}
}

// TestArtifactFeed_PutThenEventSendsOnce: an artifact pushed from the
// feed when it is put is not sent again ahead of the event that names it
// later; the event is stored all the same. A pull answer still carries
// it.
func TestArtifactFeed_PutThenEventSendsOnce(t *testing.T) {
	ctx := context.Background()
	const ra = "rep_00000000000a"
	stA, stB := openStore(t, t.TempDir(), ra), openStore(t, t.TempDir(), "rep_00000000000b")
	a, b, _ := session(t, lssync.StoreLog(stA), lssync.StoreLog(stB))
	id := putOn(t, stA, "put, then named")
	out, err := a.LocalArtifacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr := exchange(t, a, b, out)
	w, err := stA.Append(ctx, store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "ana", ArtifactIDs: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := stA.OpsAfter(ctx, ra, 0, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = a.Local(ctx, ops); err != nil {
		t.Fatal(err)
	}
	var carried int
	for _, f := range out {
		carried += len(f.GetBatch().GetArtifacts())
	}
	after := exchange(t, a, b, out)
	if !slices.Equal(tr.sent, []string{id}) || carried != 0 || len(after.sent) != 0 {
		t.Fatalf("the artifact went %v by feed and %d times with the op (feed frames after: %v)", tr.sent, carried, after.sent)
	}
	if _, err := stB.EventSeq(ctx, w.Event.ID); err != nil {
		t.Fatalf("b lacks the event: %v", err)
	}
	answer, err := a.Handle(ctx, &pb.Frame{Kind: &pb.Frame_Pull{Pull: &pb.Pull{
		Id: 9, After: []*pb.VectorEntry{{Origin: ra}}, MaxBatches: 1,
	}}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if arts := answer[0].GetBatch().GetArtifacts(); len(arts) != 1 || arts[0].GetId() != id {
		t.Fatalf("the pull answer carries %v, want the artifact its op names", arts)
	}
}
