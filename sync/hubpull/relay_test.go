package hubpull_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// TestHTTPPull_RelayedOverGRPC: ops pulled from a Python hub (its gapped
// own origin, a legacy 12-hex origin, backfilled pre-replication events,
// a relayed origin, artifacts) reach a second lsnode node over gRPC
// unchanged: both nodes hold the hub's vector and byte-identical ops.
func TestHTTPPull_RelayedOverGRPC(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 41})
	seedPythonHub(t, h)
	a, b := startRelayNode(t), startRelayNode(t)
	if err := b.rep.AddPeer(a.addr); err != nil {
		t.Fatal(err)
	}
	cfg := hubpull.DefaultConfig(filepath.Join(t.TempDir(), hubpull.PeersFileName))
	cfg.Interval = 0
	cfg.Logger = slog.New(slog.DiscardHandler)
	p, err := hubpull.NewPuller(cfg, a.st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	e := &pullEnv{t: t, dir: filepath.Dir(cfg.PeersFile)}
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})
	if r := p.SyncOnce(context.Background()); len(r) != 1 || r[0].Result() != "ok" {
		t.Fatalf("pull: %+v", r)
	}
	hubVV := h.VersionVector()
	testwait.Until(t, 30*time.Second, "the hub's ops at b", func() bool {
		vv := b.st.VersionVector()
		for o, top := range hubVV {
			if vv[o] != top {
				return false
			}
		}
		return true
	})
	for origin := range hubVV {
		at, bt := storeDicts(t, a.st, origin), storeDicts(t, b.st, origin)
		ja, _ := json.Marshal(at)
		jb, _ := json.Marshal(bt)
		if string(ja) != string(jb) {
			t.Fatalf("origin %s differs between the nodes", origin)
		}
		sameDicts(t, hubDicts(t, h.srv.URL, "", origin), bt, origin)
	}
	for _, id := range []string{"art_20260702T211409_00000000abcd"} {
		x, errA := a.st.GetArtifact(context.Background(), id)
		y, errB := b.st.GetArtifact(context.Background(), id)
		if errA != nil || errB != nil || x.SHA256 != y.SHA256 || x.Content != y.Content {
			t.Fatalf("artifact %s: %v %v", id, errA, errB)
		}
	}
	if !maps.Equal(a.st.VersionVector(), b.st.VersionVector()) {
		t.Fatalf("vectors differ: %v %v", a.st.VersionVector(), b.st.VersionVector())
	}
}

// relayNode is a store and a Replicator serving gRPC on 127.0.0.1.
type relayNode struct {
	st   *store.Store
	rep  *grpcpeer.Replicator
	addr string
}

func startRelayNode(t *testing.T) *relayNode {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	cfg := grpcpeer.DefaultConfig("c1")
	cfg.SyncInterval, cfg.TickInterval = 200*time.Millisecond, 20*time.Millisecond
	cfg.DialBackoffMin, cfg.DialBackoffMax = 20*time.Millisecond, 200*time.Millisecond
	rep, err := grpcpeer.NewReplicator(cfg, lssync.StoreLog(st))
	if err != nil {
		t.Fatalf("new replicator: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := grpc.NewServer(rep.ServerOptions()...)
	rep.RegisterGRPC(srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	if err := rep.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		rep.Stop()
		srv.Stop()
		<-done
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &relayNode{st: st, rep: rep, addr: lis.Addr().String()}
}
