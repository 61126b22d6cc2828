package lssync_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"path/filepath"
	"testing"
	"time"

	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/fakehub"
)

// TestHTTPPull_RelayedOverGRPC: ops pulled from a Python hub (its gapped
// own origin, a legacy 12-hex origin, backfilled pre-replication events,
// a relayed origin, artifacts) reach a second lsnode node over gRPC
// unchanged: both nodes hold the hub's vector and byte-identical ops.
func TestHTTPPull_RelayedOverGRPC(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 41})
	seedPythonHub(t, h)
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 0)
	if err := b.rep.AddPeer(a.addr); err != nil {
		t.Fatal(err)
	}
	cfg := lssync.DefaultHTTPPullConfig(filepath.Join(t.TempDir(), lssync.PeersFileName))
	cfg.Interval = 0
	cfg.Logger = slog.New(slog.DiscardHandler)
	p, err := lssync.NewHTTPPuller(cfg, a.st)
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
	eventually(t, 30*time.Second, "the hub's ops at b", func() bool {
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
